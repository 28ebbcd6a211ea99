"""Keep the phrases whose controls Study 1 rated close to their subphrases."""

from natcomp.noncompsst.pipeline import run_study1_filter
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    s = snakemake.params.studies
    run_study1_filter(
        snakemake.input.stimuli,
        snakemake.input.means,
        snakemake.output[0],
        max_distance=s["max_control_distance"],
        min_within=s["min_controls_within"],
        keep=s["controls_per_side"],
    )
