from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.prompted_translation import PromptedTranslator, translate_with_status
from natcomp.mt.prompting import read_few_shot
from natcomp.mt.served_translation import ServedTranslator
from natcomp.mt.systems import (
    generation_counts,
    system_translator,
    translate_system_probes,
    write_generation_counts,
)
from natcomp.mt.translation_cache import TranslationCache, set_sources, translate_with_cache, write_translations
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs, params = snakemake.wildcards, snakemake.input, snakemake.params
    # how the system's translators are built (params.settings is the system's config entry)
    translator_options = dict(
        source_lang=params.source,
        target_lang=params.target,
        key=f"mt.systems.{w.system}",
        threads=snakemake.threads,
        examples=read_few_shot(inputs.few_shot) if "few_shot" in inputs.keys() else (),
        cache_dir=params.cache_dir,
        served=params.served,
        concurrency=snakemake.resources.get("served_requests"),
    )
    translator = system_translator(params.settings, **translator_options)
    log.info("system %s: %s, decode signature %s", w.system, params.settings["model"], translator.signature)
    cache = TranslationCache(params.cache_dir, translator.signature)
    sets = {name: set_sources(inputs[name]) for name in params.sets}
    sources = [s for set_sources_ in sets.values() for s in set_sources_]
    statuses = None
    if isinstance(translator, (PromptedTranslator, ServedTranslator)):
        stats, statuses = translate_with_status(cache, sources, translator)
    else:
        stats = translate_with_cache(cache, sources, translator.translate)
    log.info(
        "%d source lines, %d unique sentences: %d from the cache, %d decoded",
        sum(map(len, sets.values())),
        stats.unique,
        stats.cached,
        stats.decoded,
    )
    counts = generation_counts(w.system, sets, cache.entries, statuses)
    for row in counts:
        if row["empty"] or row["cut_off"]:
            log.warning(
                "%s: %d of %d answers empty, %s cut off by the token limit",
                row["set"],
                row["empty"],
                row["sentences"],
                row["cut_off"] if row["cut_off"] != "" else "unknown how many",
            )
    write_generation_counts(snakemake.output.generation, counts)
    write_translations(cache, sets, snakemake.output.translations)
    if isinstance(translator, ServedTranslator):
        translator.model.write_usage(params.usage)
    # the n best hypotheses of the synonym probe sentences, from the model loaded above
    if "synonyms" in inputs.keys():
        signature, stats = translate_system_probes(
            translator,
            params.settings,
            w.system,
            params.nbest,
            load_synonyms(inputs.synonyms),
            params.templates,
            snakemake.output.probes,
            usage=params.probes_usage,
            **translator_options,
        )
        log.info(
            "system %s: synonym probes, decode signature %s; %d probe sentences: %d from the cache, %d decoded",
            w.system,
            signature,
            stats.unique,
            stats.cached,
            stats.decoded,
        )
