import natcomp_on_path  # noqa: F401
from natcomp.manual_analysis import summarise_sheets, write_tsv
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    write_tsv(summarise_sheets(snakemake.input), snakemake.output[0])
