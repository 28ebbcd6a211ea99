import natcomp_on_path  # noqa: F401
from natcomp.parse import download_models
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    download_models(snakemake.output[0])
