"""Table 1 (encoder x head x mode: accuracy, PSS, relative PSS) and the cleaning counts."""

import pandas as pd

from natcomp.pss.experiment import TABLE_COLUMNS
from natcomp.rulelog import logged
from natcomp.tsv import read_tsv, write_tsv

with logged(snakemake.log[0]) as log:
    table = pd.concat([read_tsv(path, TABLE_COLUMNS) for path in snakemake.input.scores], ignore_index=True)
    write_tsv(snakemake.output.table, table, list(TABLE_COLUMNS))
    counts = pd.concat([read_tsv(path) for path in snakemake.input.counts], ignore_index=True)
    write_tsv(snakemake.output.cleaning, counts)
    log.info("Table 1:\n%s", table.to_string(index=False))
