"""One point of the input-length sweep: fine-tune with inputs cut to a maximum length."""

from natcomp.hf import FineTuneSettings, set_threads
from natcomp.plane.pipeline import run_finetune_length
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    run_finetune_length(
        snakemake.params.model,
        snakemake.wildcards.kind,
        int(snakemake.wildcards.seed),
        int(snakemake.wildcards.length),
        snakemake.input.train,
        snakemake.input.test,
        FineTuneSettings.from_config(snakemake.params.training, "plane.finetune.training"),
        snakemake.output[0],
        log_to=log,
    )
