"""Human non-compositionality ratings (or the released MAXABS ratings)."""

from natcomp.noncompsst.pipeline import run_ratings, run_released_ratings
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    if snakemake.params.released:
        run_released_ratings(snakemake.input.sentiment, snakemake.output[0])
    else:
        run_ratings(
            snakemake.input.stimuli,
            snakemake.input.sentiment,
            snakemake.output[0],
            ungrammatical_path=snakemake.input.ungrammatical,
        )
