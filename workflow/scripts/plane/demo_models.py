"""The demo's tiny untrained masked LM and NLI model (their scores are at chance by construction)."""

from natcomp.hf import set_threads
from natcomp.plane.pipeline import demo_models
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    demo_models(
        snakemake.input.item_table,
        snakemake.params.verbalisers,
        snakemake.params.tiny,
        snakemake.output.masked_lm,
        snakemake.output.nli,
    )
