"""The triplets (and their items) of the prompting and NLI evaluations."""

from natcomp.plane.pipeline import evaluation_set
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    n = evaluation_set(
        snakemake.input[0],
        snakemake.params.per_class,
        snakemake.params.seed,
        snakemake.output.triplets,
        snakemake.output.item_table,
    )
    log.info("%d triplets", n)
