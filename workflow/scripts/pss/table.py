"""The PSS tables (paper direction and reverse; TSV and HTML with the cleaning counts as title) and the cleaning counts."""

import pandas as pd

from natcomp.pss.experiment import ITEM_COLUMNS, SCORE_COLUMNS, TABLE_COLUMNS
from natcomp.pss.tables import TABLE_FILES, cleaning_summary, gather_items, pss_tables
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged
from natcomp.tsv import read_tsv, write_tsv

with logged(snakemake.log[0]) as log:
    scores = pd.concat([read_tsv(path, SCORE_COLUMNS) for path in snakemake.input.scores], ignore_index=True)
    counts = pd.concat([read_tsv(path) for path in snakemake.input.counts], ignore_index=True)
    write_tsv(snakemake.output.cleaning, counts)
    write_tsv(snakemake.output.item_outcomes, gather_items(snakemake.input.item_files), list(ITEM_COLUMNS))
    for direction, table in pss_tables(scores, snakemake.params.stands_in_for, TABLE_COLUMNS).items():
        name = TABLE_FILES[direction]
        write_tsv(snakemake.output[name], table, list(TABLE_COLUMNS))
        title = cleaning_summary(counts, direction)
        write_html_table(snakemake.output[name], snakemake.output[f"{name}_html"], title, snakemake.params.run_settings)
        log.info("%s\n%s", title, table.to_string(index=False))
