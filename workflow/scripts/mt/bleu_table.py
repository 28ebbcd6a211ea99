from natcomp.mt.bleu import gather_bleu
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    gather_bleu(snakemake.input, snakemake.output.table)
    write_html_table(snakemake.output.table, snakemake.output.html, "BLEU on FLORES-101 per model")
