from natcomp.mt.preprocess import apply_bpe_chunk
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    index = int(snakemake.wildcards.get("chunk", 0))
    inputs = snakemake.input
    n = apply_bpe_chunk(inputs.codes, inputs.text, snakemake.output[0], snakemake.params.chunks, index)
    log.info("segmented %d lines", n)
