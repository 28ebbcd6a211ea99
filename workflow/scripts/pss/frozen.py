"""FB mode: a head trained on frozen embeddings; accuracy and PSS."""

import numpy as np

from natcomp.hf import set_threads
from natcomp.pss.classifiers import HeadSettings
from natcomp.pss.experiment import SCORE_COLUMNS, evaluate_frozen, read_labelled_set, read_pair_set
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    train, test = read_labelled_set(snakemake.input.train_set), read_labelled_set(snakemake.input.test_set)
    pairs = read_pair_set(snakemake.input.pair_set)
    rows = evaluate_frozen(
        snakemake.wildcards.head,
        np.load(snakemake.input.train),
        train.labels,
        np.load(snakemake.input.test),
        test.labels,
        pairs,
        np.load(snakemake.input.pairs),
        HeadSettings(**snakemake.params.settings),
        log=log,
    )
    rows = [
        {"encoder": snakemake.wildcards.encoder, "head": snakemake.wildcards.head, "mode": "fb", **row} for row in rows
    ]
    write_tsv(snakemake.output[0], rows, list(SCORE_COLUMNS), float_format="%.4f")
    log.info("%s", rows)
