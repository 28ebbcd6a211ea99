"""Table 5 analogue and Figure 1 (F1 per class and IT of each NLI model)."""

from natcomp.plane.pipeline import figure1, nli_tables
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    nli_tables(
        list(snakemake.input), snakemake.output.table5, snakemake.output.figure_data, snakemake.output.item_outcomes
    )
    figure1(snakemake.output.figure_data, snakemake.output.figure)
