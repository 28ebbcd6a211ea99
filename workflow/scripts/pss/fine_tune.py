"""FT mode: the encoder fine-tuned with a head; accuracy and PSS."""

from natcomp import hf
from natcomp.pss.experiment import SCORE_COLUMNS, evaluate_fine_tuned, read_labelled_set, read_pair_set
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    train, test = read_labelled_set(snakemake.input.train_set), read_labelled_set(snakemake.input.test_set)
    pairs = read_pair_set(snakemake.input.pair_set)
    settings = hf.FineTuneSettings.from_config(snakemake.params.settings, "pss.fine_tune")
    hf.check_model_available(snakemake.params.model, snakemake.params.key)
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
    )
    rows = [
        {"encoder": snakemake.wildcards.encoder, "head": snakemake.wildcards.head, "mode": "ft", **row} for row in rows
    ]
    write_tsv(snakemake.output[0], rows, list(SCORE_COLUMNS), float_format="%.4f")
    log.info("%s", rows)
