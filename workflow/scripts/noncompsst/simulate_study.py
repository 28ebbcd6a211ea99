"""The demo's simulated participants answer an exported study."""

from natcomp.noncompsst.pipeline import run_simulation
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    studies = snakemake.params.studies
    s = studies["simulate"]
    study = snakemake.wildcards.study
    run_simulation(
        study,
        snakemake.input.survey,
        snakemake.input.practice,
        snakemake.output[0],
        seed=snakemake.params.seed + (1 if study == "study1" else 2),
        noise=s["noise"],
        failing_share=s["failing_share"],
        ungrammatical_rate=s["ungrammatical_rate"],
        max_mean_error=studies["max_practice_error"],
        min_spearman=studies["min_practice_spearman"],
    )
