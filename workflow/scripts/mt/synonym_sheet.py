from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.synonym_probes import candidate_sheet, extract_candidates, read_probe_translations, write_sheet
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs = snakemake.input
    candidates = extract_candidates(read_probe_translations(inputs.probes))
    sheet = candidate_sheet(candidates, load_synonyms(inputs.synonyms))
    write_sheet(snakemake.output[0], sheet)
    log.info("%d candidate spans of %d pairs from %d models", len(sheet), sheet["pair"].nunique(), len(inputs.probes))
