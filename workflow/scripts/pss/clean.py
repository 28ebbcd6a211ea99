"""Appendix B's cleaning of one pair file; counts per rule to a TSV and the log."""

from natcomp.pss.pairs import clean_pairs, read_pairs, write_pairs
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    result = clean_pairs(read_pairs(snakemake.input[0]))
    write_pairs(snakemake.output.pairs, result.kept)
    counts = {"file": f"reference.{snakemake.wildcards.label}", **result.counts}
    write_tsv(snakemake.output.counts, [counts])
    log.info("cleaning %s: %s", snakemake.input[0], counts)
