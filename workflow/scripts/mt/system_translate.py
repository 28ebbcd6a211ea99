from natcomp.mt.hf_translation import HFTranslator
from natcomp.mt.translation_cache import TranslationCache, set_sources, translate_with_cache, write_translations
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs, params = snakemake.wildcards, snakemake.input, snakemake.params
    translator = HFTranslator.for_system(
        params.settings,
        source_lang=params.source,
        target_lang=params.target,
        key=f"mt.systems.{w.system}.model",
        threads=snakemake.threads,
    )
    log.info("system %s: %s, decode signature %s", w.system, params.settings["model"], translator.signature)
    cache = TranslationCache(params.cache_dir, translator.signature)
    sets = {name: set_sources(inputs[name]) for name in params.sets}
    stats = translate_with_cache(cache, [s for sources in sets.values() for s in sources], translator.translate)
    log.info(
        "%d source lines, %d unique sentences: %d from the cache, %d decoded",
        sum(map(len, sets.values())),
        stats.unique,
        stats.cached,
        stats.decoded,
    )
    write_translations(cache, sets, snakemake.output[0])
