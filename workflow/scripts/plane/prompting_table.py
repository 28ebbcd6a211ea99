"""Table 4 analogue and F1 per template, verbaliser, class and IT."""

from natcomp.plane.pipeline import prompting_tables
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    prompting_tables(
        list(snakemake.input), snakemake.output.table4, snakemake.output.cells, snakemake.output.item_outcomes
    )
