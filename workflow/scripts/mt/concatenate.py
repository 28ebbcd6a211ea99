from natcomp.mt.preprocess import concatenate
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    n = concatenate(snakemake.input, snakemake.output[0])
    log.info("gathered %d lines from %d chunks", n, len(snakemake.input))
