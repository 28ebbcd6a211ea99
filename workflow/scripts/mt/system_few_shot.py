from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.prompting import few_shot_examples, write_few_shot
from natcomp.mt.synonym_probes import probe_sentences
from natcomp.mt.translation_cache import set_sources
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs, params = snakemake.wildcards, snakemake.input, snakemake.params
    translated = {source for name in params.sets for source in set_sources(inputs[name])}
    translated |= {probe.sentence for probe in probe_sentences(load_synonyms(inputs.synonyms), params.probe_templates)}
    pool = (inputs.pool_source, inputs.pool_target) if "pool_source" in inputs.keys() else None
    examples = few_shot_examples(params.settings, pool, translated, f"mt.systems.{w.system}")
    write_few_shot(snakemake.output[0], examples)
    log.info("system %s: %d few-shot example(s), lines %s", w.system, len(examples), [e.line for e in examples])
