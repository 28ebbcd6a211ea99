"""Phrase candidates of the SST trees (appendix A)."""

from natcomp.noncompsst.candidates import CandidateSettings
from natcomp.noncompsst.pipeline import run_candidates
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    s = snakemake.params.settings
    if s.get("demo_tables"):
        log.info("demo: phrase types from the generator's categories and names from its lexicon stand in for stanza")
    settings = CandidateSettings(
        s["min_tokens"],
        s["max_tokens"],
        ner=s["ner"],
        parser=s["parser"],
        max_raw_sd=s["max_raw_sd"] if s["spread"] else None,
    )
    run_candidates(
        snakemake.output[0],
        ptb=snakemake.input.ptb,
        sst=snakemake.input.sst,
        raw=snakemake.input.raw,
        settings=settings,
        stanza_dir=s["stanza_dir"],
        phrase_types=snakemake.input.get("phrase_types"),
        entities=snakemake.input.get("entities"),
    )
