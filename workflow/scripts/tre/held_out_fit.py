"""TRE in the held-out setting: primitives fitted on the training phrases, errors on the evaluated
sentences, for the encoder's embeddings and the two baselines (Gaussian, shuffled)."""

import numpy as np

from natcomp.hf import set_threads
from natcomp.rulelog import logged
from natcomp.tre.experiment import held_out_scores, load_trees
from natcomp.tre.reconstruction import TreSettings
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    settings = snakemake.params.held_out
    train = load_trees(snakemake.input.trees, [settings["train_split"]], max_sentences=settings["train_sentences"])
    evaluated = load_trees(snakemake.input.trees, [settings["evaluate"]])
    table = held_out_scores(
        [tree for _, _, tree in train],
        np.load(snakemake.input.phrases),
        evaluated,
        np.load(snakemake.input.held_out),
        TreSettings(**snakemake.params.fit),
        min_count=settings["min_count"],
        log=log,
    )
    write_tsv(snakemake.output[0], table, float_format="%.6g")
