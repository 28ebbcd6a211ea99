from natcomp.mt.preprocess import tokenise_chunk
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    index = int(snakemake.wildcards.get("chunk", 0))
    n = tokenise_chunk(
        snakemake.input[0], snakemake.output[0], snakemake.wildcards.lang, snakemake.params.chunks, index
    )
    log.info("tokenised %d lines", n)
