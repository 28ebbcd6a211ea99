from natcomp.rulelog import logged
from natcomp.runs import write_run_config

with logged(snakemake.log[0]):
    write_run_config(snakemake.params.config, snakemake.params.configfiles, snakemake.output[0])
