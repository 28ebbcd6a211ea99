from natcomp.mt.releases import extract_tatoeba
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    out = snakemake.output
    n = extract_tatoeba(snakemake.input[0], snakemake.params.pair, "train", out.source, out.target)
    log.info("extracted %d training pairs", n)
