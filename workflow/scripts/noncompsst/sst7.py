"""SST-7 train (unrolled) / validation / test without the stimulus sentences."""

from natcomp.noncompsst.pipeline import run_sst7
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    outs = {name: snakemake.output[name] for name in ("train", "validation", "test")}
    released = {
        name: snakemake.input[f"released_{name}"]
        for name in ("validation", "test")
        if f"released_{name}" in snakemake.input.keys()
    }
    run_sst7(
        snakemake.input.ptb,
        snakemake.input.sst,
        snakemake.input.stimuli,
        outs,
        released,
        stimulus_match=snakemake.params.stimulus_match,
    )
