"""A tiny randomly initialised BERT encoder (a config, no training) whose vocabulary covers the sentences."""

from natcomp import hf
from natcomp.rulelog import logged
from natcomp.tsv import read_tsv

with logged(snakemake.log[0]) as log:
    texts = read_tsv(snakemake.input[0], ("sentence",))["sentence"].tolist()
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
