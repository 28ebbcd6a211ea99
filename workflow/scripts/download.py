from natcomp.download import fetch
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    fetch(snakemake.params.url, snakemake.output[0], sha256=snakemake.params.sha256)
    log.info("fetched %s", snakemake.params.url)
