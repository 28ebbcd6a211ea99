"""Table 2: Spearman's rho of TRE with WNS and with TI, per encoder, with p-values."""

from natcomp.rulelog import logged
from natcomp.tre.correlation import CORRELATION_COLUMNS, correlate
from natcomp.tre.experiment import SCORE_COLUMNS
from natcomp.tsv import read_tsv, write_tsv

with logged(snakemake.log[0]) as log:
    rows = []
    for encoder, path in zip(snakemake.params.encoders, snakemake.input):
        scores = read_tsv(path, SCORE_COLUMNS)
        tre = scores["tre"].astype(float)
        rows += correlate(encoder, tre, {"wns": scores["wns"].astype(float), "ti": scores["ti"].astype(float)})
    write_tsv(snakemake.output[0], rows, list(CORRELATION_COLUMNS), float_format="%.4g")
    for row in rows:
        log.info("%s", row)
