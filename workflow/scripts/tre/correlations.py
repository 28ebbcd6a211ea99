"""Table 2: per setting, encoder and length setting, Spearman's rho of TRE with WNS and TI and the
partial rho controlling for length, for the encoder and for the two baselines (Gaussian and
shuffled vectors), with the length limit and the number of measured sentences it cut."""

import pandas as pd

from natcomp.report_table import write_html_table
from natcomp.rulelog import logged
from natcomp.tre.correlation import ITEM_COLUMNS, PAPER_SETTING, TABLE2_COLUMNS, sentence_outcomes, table2_rows
from natcomp.tre.experiment import SCORE_COLUMNS
from natcomp.tre.lengths import LENGTH_COLUMNS
from natcomp.tsv import read_tsv, write_tsv

with logged(snakemake.log[0]) as log:
    rows, items = [], []
    for setting in (PAPER_SETTING, "held_out"):
        for (encoder, length), path in zip(snakemake.params.runs, snakemake.input.get(setting, [])):
            scores = read_tsv(path, SCORE_COLUMNS + LENGTH_COLUMNS)
            rows += table2_rows(
                setting,
                encoder,
                scores,
                snakemake.params.stands_in_for.get(encoder),
                max_length=length,
                cut_sentences=int(scores["cut"].astype(int).sum()),
                as_configured=length == snakemake.params.configured[encoder],
            )
            items.append(sentence_outcomes(setting, encoder, length, scores))
    write_tsv(snakemake.output.table, rows, list(TABLE2_COLUMNS), float_format="%.4g")
    write_tsv(snakemake.output.item_outcomes, pd.concat(items, ignore_index=True), list(ITEM_COLUMNS))
    write_html_table(
        snakemake.output.table,
        snakemake.output.html,
        "TRE Table 2: Spearman's rho of TRE with WNS and TI, partial rho controlling for length, "
        "encoder against Gaussian and shuffled vectors, per length limit (max_length; cut_sentences: "
        "the measured sentences it cut)",
        snakemake.params.run_settings,
    )
    for row in rows:
        log.info("%s", row)
