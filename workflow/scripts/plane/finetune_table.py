"""Table 6 analogue: fine-tuning accuracy, mean and sd over the splits."""

from natcomp.plane.pipeline import finetune_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    finetune_table(
        snakemake.input.accuracies,
        snakemake.output.table6,
        snakemake.output.accuracy,
        snakemake.input.predictions,
        snakemake.output.item_outcomes,
    )
