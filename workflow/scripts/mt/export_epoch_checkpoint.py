from natcomp.mt.nmt import export_checkpoint
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    export_checkpoint(snakemake.input[0], int(snakemake.wildcards.epoch), snakemake.output[0])
