"""Figures 2 and 3 analogue: accuracy against the share of test items with subwords."""

from natcomp.plane.pipeline import subword_outputs
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    subword_outputs(snakemake.params.model, list(snakemake.input), snakemake.output.table, snakemake.output.figure)
