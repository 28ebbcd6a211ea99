from natcomp.mt.semi_natural.parse import download_models
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    download_models(snakemake.output[0])
