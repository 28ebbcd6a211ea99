"""Fine-tune one model on SST-7 for one seed; predict every stimulus."""

from natcomp.hf import set_threads
from natcomp.noncompsst.pipeline import run_training
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    sst7 = {name: snakemake.input[name] for name in ("train", "validation", "test")}
    run_training(
        snakemake.params.location,
        sst7,
        snakemake.input.stimuli,
        snakemake.output.predictions,
        snakemake.output.metrics,
        training=snakemake.params.training,
        seed=int(snakemake.wildcards.seed),
        stanza_dir=snakemake.params.stanza_dir,
    )
