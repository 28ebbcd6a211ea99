import natcomp_on_path  # noqa: F401
from natcomp.nmt import Translator
from natcomp.rulelog import logged
from natcomp.translation_cache import (
    TranslationCache,
    set_sources,
    translate_with_cache,
    write_translations,
)

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    cache = TranslationCache(params.cache_dir, inputs.checkpoint)
    sets = [set_sources(path) for path in inputs.sets]
    translator = None

    def translate(sentences):
        global translator
        if translator is None:
            translator = Translator(
                inputs.checkpoint,
                inputs.databin,
                inputs.codes,
                params.source,
                params.target,
                beam=params.beam,
                max_tokens=params.max_tokens,
                threads=snakemake.threads,
            )
        return translator.translate(sentences)

    stats = translate_with_cache(cache, [s for sources in sets for s in sources], translate)
    log.info(
        "%d source lines, %d unique sentences: %d from the cache, %d decoded",
        sum(map(len, sets)),
        stats.unique,
        stats.cached,
        stats.decoded,
    )
    for sources, output in zip(sets, snakemake.output):
        write_translations(cache, sources, output)
