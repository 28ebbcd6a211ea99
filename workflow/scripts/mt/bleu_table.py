from natcomp.mt.bleu import gather_bleu
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    gather_bleu(snakemake.input, snakemake.output[0])
