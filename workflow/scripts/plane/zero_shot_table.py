"""Table 8 analogue: zero-shot F1 mean and sd over prompt templates."""

from natcomp.plane.pipeline import zero_shot_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    zero_shot_table(list(snakemake.input), snakemake.output.table8, snakemake.output.item_outcomes)
