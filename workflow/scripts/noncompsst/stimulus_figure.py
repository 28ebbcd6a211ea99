"""Figure 5 analogue: each stimulus' mean rating and its sd, per study."""

from pathlib import Path

from natcomp.noncompsst.pipeline import run_stimulus_figure
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    run_stimulus_figure({Path(path).parent.name: path for path in snakemake.input.means}, snakemake.output[0])
