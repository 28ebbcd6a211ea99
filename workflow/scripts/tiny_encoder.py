"""A tiny randomly initialised BERT (a config, no training) whose vocabulary covers the texts (PSS and TRE)."""

from natcomp import hf
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs = list(zip(snakemake.input.texts, snakemake.params.columns))
    hf.build_tiny_encoder(snakemake.output[0], inputs, snakemake.params.tiny)
    log.info("tiny encoder %s: %s", snakemake.output[0], snakemake.params.tiny)
