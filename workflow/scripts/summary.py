from natcomp.rulelog import logged
from natcomp.summary import FamilySection, write_summary

with logged(snakemake.log[0]) as log:
    sections = [FamilySection(**section) for section in snakemake.params.sections]
    write_summary(sections, snakemake.input.config, snakemake.output.html, snakemake.output.tsv)
    log.info("summary of %s", ", ".join(section.family for section in sections) or "no family")
