from natcomp.report_table import write_html_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    write_html_table(snakemake.input[0], snakemake.output[0], snakemake.params.title, snakemake.params.run_settings)
