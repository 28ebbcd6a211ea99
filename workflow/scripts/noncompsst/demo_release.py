"""Generate the demo's SST release (three archives, side files, planted phrases)."""

from pathlib import Path

from natcomp.noncompsst.pipeline import make_demo_release
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    demo = snakemake.params.demo
    make_demo_release(
        Path(snakemake.output.sst).parent,
        snakemake.output.planted,
        sentences=demo["sentences"],
        seed=demo["seed"],
        planted_occurrences=demo["planted_occurrences"],
        short_share=demo["short_share"],
        raw_score_noise=demo["raw_score_noise"],
    )
