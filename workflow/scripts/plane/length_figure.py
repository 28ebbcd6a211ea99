"""Figure 8 analogue: fine-tuning accuracy against the maximum input length."""

from natcomp.plane.pipeline import length_sweep_outputs
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    length_sweep_outputs(list(snakemake.input), snakemake.output.table, snakemake.output.figure)
