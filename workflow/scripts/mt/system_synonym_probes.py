from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.prompting import read_few_shot
from natcomp.mt.synonym_probes import decode_probes, probe_rows, probe_sentences, write_probe_translations
from natcomp.mt.systems import system_translator
from natcomp.mt.translation_cache import TranslationCache
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs, params = snakemake.wildcards, snakemake.input, snakemake.params
    translator = system_translator(
        params.settings,
        source_lang=params.source,
        target_lang=params.target,
        key=f"mt.systems.{w.system}",
        nbest=params.nbest,
        threads=snakemake.threads,
        examples=read_few_shot(inputs.few_shot) if "few_shot" in inputs.keys() else (),
        cache_dir=params.cache_dir,
        served=params.served,
        concurrency=snakemake.resources.get("served_requests"),
    )
    log.info("system %s: decode signature %s", w.system, translator.signature)
    probes = probe_sentences(load_synonyms(inputs.synonyms), params.templates)
    cache = TranslationCache(params.cache_dir, translator.signature)
    hypotheses, stats = decode_probes(cache, probes, lambda batch: translator.translate_nbest(batch, params.nbest))
    log.info("%d probe sentences: %d from the cache, %d decoded", stats.unique, stats.cached, stats.decoded)
    model = {"system": w.system, "size": "", "seed": ""}
    write_probe_translations(snakemake.output[0], probe_rows(probes, hypotheses, model, translator.signature))
