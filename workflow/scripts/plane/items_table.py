"""Items per adjective class and inference type."""

from natcomp.plane.pipeline import items_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    items_table(snakemake.input[0], snakemake.output[0])
