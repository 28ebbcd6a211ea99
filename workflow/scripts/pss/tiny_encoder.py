"""A tiny randomly initialised BERT encoder (a config, no training) whose vocabulary covers the sets."""

from natcomp import hf
from natcomp.pss.experiment import set_sentences
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    texts = [
        text for path, name in zip(snakemake.input, ("train", "test", "pairs")) for text in set_sentences(path, name)
    ]
    tiny = snakemake.params.tiny
    hf.build_tiny_model(
        snakemake.output[0],
        hf.words_for_vocabulary(texts),
        hidden_size=tiny["hidden_size"],
        layers=tiny["layers"],
        heads=tiny["heads"],
        seed=tiny["seed"],
    )
    log.info("tiny encoder %s: %s", snakemake.output[0], tiny)
