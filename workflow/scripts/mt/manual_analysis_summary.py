from natcomp.mt.manual_analysis import summarise_sheets
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]):
    write_tsv(snakemake.output[0], summarise_sheets(snakemake.input))
