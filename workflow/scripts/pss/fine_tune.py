"""FT modes: the encoder fine-tuned with a head; accuracy and PSS.

params: ``layer`` (ft's own: the encoder's ``fine_tune.layer``, else the last; ft_fb: FB's)
and ``settings`` (hf.FineTuneSettings fields; ``max_length`` null: the longest sentence of the
train, test and pair sets, capped at the model's positions, natcomp.pss.lengths).
"""

from natcomp import hf
from natcomp.pss.experiment import (
    ITEM_COLUMNS,
    SCORE_COLUMNS,
    evaluate_fine_tuned,
    item_outcomes,
    read_labelled_set,
    read_pair_set,
    score_rows,
)
from natcomp.pss.lengths import read_sentence_lengths
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    train, test = read_labelled_set(snakemake.input.train_set), read_labelled_set(snakemake.input.test_set)
    pairs = read_pair_set(snakemake.input.pair_set)
    hf.check_model_available(snakemake.params.model, snakemake.params.key)
    section = dict(snakemake.params.settings)
    lengths = read_sentence_lengths(
        snakemake.params.model,
        train.texts + test.texts + pairs.sentences,
        section["max_length"],
        key=snakemake.params.key,
    )
    mode = snakemake.wildcards.mode
    log.info(
        "%s reads layer %d, at most %d tokens per sentence (%s): %d of %d sentences cut (longest: %d tokens)",
        mode,
        snakemake.params.layer,
        lengths.max_length,
        "configured" if section["max_length"] is not None else "the longest sentence, capped at the model's positions",
        lengths.cut,
        lengths.sentences,
        lengths.longest,
    )
    settings = hf.FineTuneSettings.from_config({**section, "max_length": lengths.max_length}, "pss.fine_tune")
    predicted = {}
    rows = evaluate_fine_tuned(
        snakemake.params.model,
        snakemake.wildcards.head,
        train,
        test,
        pairs,
        settings,
        pooling=snakemake.params.pooling,
        normalize=snakemake.params.normalize,
        layer=snakemake.params.layer,
        key=snakemake.params.key,
        pooling_key=snakemake.params.pooling_key,
        log=log,
        predicted=predicted,
    )
    rows = score_rows(
        snakemake.wildcards.encoder, snakemake.wildcards.head, mode, snakemake.params.layer, lengths, rows
    )
    write_tsv(snakemake.output.scores, rows, list(SCORE_COLUMNS), float_format="%.4f")
    # the items behind the scores (natcomp compare pairs two encoders on them)
    write_tsv(
        snakemake.output.item_outcomes,
        item_outcomes(snakemake.wildcards.encoder, snakemake.wildcards.head, mode, test, pairs, predicted),
        list(ITEM_COLUMNS),
    )
    log.info("%s", rows)
