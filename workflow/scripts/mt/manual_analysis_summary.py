from natcomp.mt.manual_analysis import summarise_sheets, write_summary
from natcomp.mt.tables import TITLES
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    out = snakemake.output
    write_summary(summarise_sheets(snakemake.input), out.table)
    # The report shows the HTML rendering; the TSV stays the data file.
    write_html_table(out.table, out.html, TITLES["manual_analysis"], snakemake.params.run_settings)
