"""The demo corpus: generated sentences with AN phrases, as PTB trees."""

from natcomp.plane.corpus import CorpusSettings
from natcomp.plane.pipeline import demo_corpus
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    settings = dict(snakemake.params.corpus)
    settings.pop("enabled", None)
    count = demo_corpus(snakemake.input.adjectives, snakemake.output[0], CorpusSettings(**settings))
    log.info("%d demo sentences", count)
