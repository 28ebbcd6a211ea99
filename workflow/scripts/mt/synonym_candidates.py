from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.synonym_probes import choose_candidates, write_candidates
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    pairs = choose_candidates(
        load_synonyms(inputs.synonyms),
        params.source,
        sheet=inputs.get("sheet"),
        checked_sheet=inputs.get("checked_sheet"),
    )
    rows = write_candidates(snakemake.output[0], pairs)
    log.info("%d candidate translations of %d synonym pairs (%s)", rows, len(pairs), params.source)
