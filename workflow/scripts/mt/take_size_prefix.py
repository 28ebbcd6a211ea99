from natcomp.mt.preprocess import take_prefix
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    n = take_prefix(snakemake.input[0], snakemake.output[0], snakemake.params.lines)
    log.info("corpus size %s: %d lines", snakemake.wildcards.size, n)
