"""Export one study for a survey tool (participant lists with practice items)."""

from natcomp.noncompsst.pipeline import run_export
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    s = snakemake.params.studies
    study = snakemake.wildcards.study
    run_export(
        study,
        snakemake.input.stimuli,
        snakemake.input.sst,
        snakemake.output.survey,
        snakemake.output.practice,
        max_list_size=s[f"{study}_list_size"],
        annotations=s["annotations"],
        seed=snakemake.params.seed,
    )
