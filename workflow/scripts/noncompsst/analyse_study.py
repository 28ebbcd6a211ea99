"""Exclusion, Krippendorff's alpha and item means of one study's responses."""

from natcomp.noncompsst.pipeline import run_analysis
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    s = snakemake.params.studies
    run_analysis(
        snakemake.wildcards.study,
        snakemake.input.survey,
        snakemake.input.practice,
        snakemake.input.responses,
        exclusion_out=snakemake.output.exclusion,
        means_out=snakemake.output.means,
        agreement_out=snakemake.output.agreement,
        max_mean_error=s["max_practice_error"],
        min_spearman=s["min_practice_spearman"],
        roster=s["roster"],
    )
