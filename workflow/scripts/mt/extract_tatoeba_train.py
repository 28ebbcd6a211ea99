from natcomp.mt.releases import extract_tatoeba
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    out, (source, target) = snakemake.output, snakemake.params.languages
    n = extract_tatoeba(snakemake.input[0], source, target, "train", out.source, out.target)
    log.info("extracted %d training pairs of %s (%s side to %s)", n, snakemake.params.pair, source, out.source)
