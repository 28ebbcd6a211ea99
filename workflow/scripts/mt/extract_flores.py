from natcomp.mt.releases import extract_flores
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    source_lang, target_lang = snakemake.params.langs
    out = snakemake.output
    split = snakemake.wildcards.split
    n = extract_flores(snakemake.input[0], split, source_lang, target_lang, out.source, out.target)
    log.info("extracted %d %s pairs", n, split)
