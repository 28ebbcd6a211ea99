"""SST-7 train (unrolled) / validation / test without the stimulus sentences."""

from natcomp.noncompsst.pipeline import run_sst7
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    outs = {name: snakemake.output[name] for name in ("train", "validation", "test")}
    run_sst7(snakemake.input.ptb, snakemake.input.sst, snakemake.input.stimuli, outs)
