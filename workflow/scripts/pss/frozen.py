"""FB mode: each head trained on one encoder's frozen embeddings; accuracy and PSS.

params: ``settings`` (HeadSettings fields), ``model`` and ``key`` (the encoder, whose
tokenizer counts the sentences the embeddings' length limit cut), ``layer`` and
``max_length`` (how pss_embed read the sentences).
"""

import numpy as np

from natcomp.hf import set_threads
from natcomp.pss.classifiers import HeadSettings
from natcomp.pss.experiment import (
    ITEM_COLUMNS,
    SCORE_COLUMNS,
    evaluate_frozen,
    item_outcomes,
    read_labelled_set,
    read_pair_set,
    score_rows,
)
from natcomp.pss.lengths import read_sentence_lengths
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    train, test = read_labelled_set(snakemake.input.train_set), read_labelled_set(snakemake.input.test_set)
    pairs = read_pair_set(snakemake.input.pair_set)
    lengths = read_sentence_lengths(
        snakemake.params.model,
        train.texts + test.texts + pairs.sentences,
        snakemake.params.max_length,
        key=snakemake.params.key,
    )
    log.info(
        "FB embeddings read layer %d, at most %d tokens per sentence: %d of %d sentences cut (longest: %d tokens)",
        snakemake.params.layer,
        lengths.max_length,
        lengths.cut,
        lengths.sentences,
        lengths.longest,
    )
    embeddings = {name: np.load(snakemake.input[name]) for name in ("train", "test", "pairs")}
    # one output of each kind per head, in the order of params.heads
    for head, scores, outcomes in zip(
        snakemake.params.heads, snakemake.output.scores, snakemake.output.item_outcomes, strict=True
    ):
        predicted = {}
        rows = evaluate_frozen(
            head,
            embeddings["train"],
            train.labels,
            embeddings["test"],
            test.labels,
            pairs,
            embeddings["pairs"],
            HeadSettings(**snakemake.params.settings),
            log=log,
            predicted=predicted,
        )
        rows = score_rows(snakemake.wildcards.encoder, head, "fb", snakemake.params.layer, lengths, rows)
        write_tsv(scores, rows, list(SCORE_COLUMNS), float_format="%.4f")
        # the items behind the scores (natcomp compare pairs two encoders on them)
        write_tsv(
            outcomes, item_outcomes(snakemake.wildcards.encoder, head, "fb", test, pairs, predicted), list(ITEM_COLUMNS)
        )
        log.info("%s", rows)
