"""The demo's evidence: planted phrases in the MAXABS top k, alpha per study, model r and F1."""

from natcomp.noncompsst.pipeline import run_demo_summary
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    run_demo_summary(
        snakemake.input.ratings,
        snakemake.input.planted,
        snakemake.input.agreements,
        snakemake.input.evaluations,
        snakemake.output[0],
    )
