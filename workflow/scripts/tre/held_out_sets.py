"""The held-out setting's sets: every distinct phrase of the training trees (targets of the fit)
and the evaluated sentences with their TI and WNS."""

from natcomp.rulelog import logged
from natcomp.tre.experiment import PHRASE_COLUMNS, load_trees, score_trees, training_phrases
from natcomp.tre.sentiment_trees import sentence_text
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    settings = snakemake.params.held_out
    train = load_trees(snakemake.input[0], [settings["train_split"]], max_sentences=settings["train_sentences"])
    phrases = training_phrases([tree for _, _, tree in train])
    write_tsv(snakemake.output.phrases, [{"sentence": sentence_text(p)} for p in phrases], list(PHRASE_COLUMNS))
    evaluated = load_trees(snakemake.input[0], [settings["evaluate"]])
    write_tsv(snakemake.output.sentences, score_trees(evaluated), float_format="%.6g")
    log.info(
        "held-out setting: %d %s sentences -> %d distinct phrases; %d %s sentences evaluated",
        len(train),
        settings["train_split"],
        len(phrases),
        len(evaluated),
        settings["evaluate"],
    )
