"""TRE in the held-out setting: primitives fitted on the training phrases, errors on the evaluated
sentences, for the encoder's embeddings (at one length setting) and the two baselines (Gaussian,
shuffled); each evaluated sentence's tokens and whether the setting's limit cut it."""

import numpy as np

from natcomp import hf
from natcomp.rulelog import logged
from natcomp.tre.experiment import held_out_scores, load_trees
from natcomp.tre.lengths import length_columns, length_label
from natcomp.tre.reconstruction import TreSettings
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
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
    tokenizer = hf.load_tokenizer(snakemake.params.model, snakemake.params.key)
    table = table.assign(**length_columns(tokenizer, table["sentence"].tolist(), snakemake.params.max_length))
    log.info(
        "max_length %s cut %d of %d evaluated sentences",
        length_label(snakemake.params.max_length),
        table["cut"].sum(),
        len(table),
    )
    write_tsv(snakemake.output[0], table, float_format="%.6g")
