"""TRE of one encoder's sentence embeddings over their SST trees, and of the two baselines
(Gaussian vectors; the embeddings shuffled across sentences)."""

from natcomp.hf import set_threads
from natcomp.rulelog import logged
from natcomp.tre.experiment import fit_scores, load_embeddings, load_trees
from natcomp.tre.reconstruction import TreSettings
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    trees = load_trees(snakemake.input.trees, snakemake.params.splits, max_sentences=snakemake.params.max_sentences)
    embeddings = load_embeddings(snakemake.input.embeddings, len(trees))
    settings = TreSettings(**snakemake.params.fit)
    table = fit_scores(trees, embeddings, settings, baseline=True, log=log)
    write_tsv(snakemake.output[0], table, float_format="%.6g")
