from natcomp.download import fetch, sha256_of
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    fetch(snakemake.params.url, snakemake.output[0], sha256=snakemake.params.sha256)
    log.info("fetched %s (sha256 %s)", snakemake.params.url, sha256_of(snakemake.output[0]))
