"""The SST sentences TRE is measured on, with Tree Impurity and Weighted Node Switching."""

from natcomp.rulelog import logged
from natcomp.tre.experiment import load_trees, score_trees
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    trees = load_trees(snakemake.input[0], snakemake.params.splits, max_sentences=snakemake.params.max_sentences)
    table = score_trees(trees)
    write_tsv(snakemake.output[0], table, float_format="%.6g")
    log.info("%d sentences; mean TI %.3f, mean WNS %.3f", len(table), table["ti"].mean(), table["wns"].mean())
