"""Table 6 as the paper made it: fine-tune on a released train split, test on its pair."""

from natcomp.hf import FineTuneSettings, set_threads
from natcomp.plane.pipeline import run_finetune_released
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    run_finetune_released(
        snakemake.params.model,
        snakemake.wildcards.kind,
        int(snakemake.wildcards.seed),
        snakemake.input.train,
        snakemake.input.test,
        FineTuneSettings.from_config(snakemake.params.training, "plane.finetune.training"),
        snakemake.output.predictions,
        snakemake.output.accuracy,
        log_to=log,
    )
