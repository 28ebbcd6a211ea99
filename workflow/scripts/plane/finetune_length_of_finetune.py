"""The length sweep's point at the training's own max_length: the main fine-tuning's accuracy."""

from natcomp.plane.pipeline import length_point_of_finetune
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    length_point_of_finetune(snakemake.input[0], int(snakemake.wildcards.length), snakemake.output[0])
