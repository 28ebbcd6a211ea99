"""The demo's tiny BERT classifier (random weights, a vocabulary covering the demo)."""

from natcomp.noncompsst.pipeline import run_tiny_model
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    tiny = snakemake.params.tiny
    run_tiny_model(
        snakemake.input.train,
        snakemake.input.stimuli,
        snakemake.output[0],
        hidden_size=tiny["hidden_size"],
        layers=tiny["layers"],
        heads=tiny["heads"],
        seed=snakemake.params.seed,
    )
