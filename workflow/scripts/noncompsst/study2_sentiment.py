"""Study 2 means as the ratings' inputs: stimulus sentiment and ungrammaticality flags."""

from natcomp.noncompsst.pipeline import run_sentiment
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    run_sentiment(snakemake.input[0], snakemake.output.sentiment, snakemake.output.ungrammatical)
