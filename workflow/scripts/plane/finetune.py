"""Fine-tune on one of our splits; accuracy on its test side (and a released test split, checked disjoint)."""

from natcomp.hf import FineTuneSettings, set_threads
from natcomp.plane.pipeline import run_finetune
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    released = {name: path for name, path in snakemake.input.items() if name == "released"}
    run_finetune(
        snakemake.params.model,
        snakemake.wildcards.kind,
        int(snakemake.wildcards.seed),
        snakemake.input.train,
        snakemake.input.test,
        released,
        FineTuneSettings.from_config(snakemake.params.training, "plane.finetune.training"),
        snakemake.output.predictions,
        snakemake.output.accuracy,
        log_to=log,
    )
