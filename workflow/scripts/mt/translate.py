from natcomp.mt.nmt import Translator, cache_batch_sentences, this_device_decode_precision
from natcomp.mt.translation_cache import (
    DecodeSettings,
    TranslationCache,
    decode_signature,
    set_sources,
    translate_with_cache,
    write_translations,
)
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    settings = DecodeSettings(
        beam=params.beam,
        max_len_a=params.max_len_a,
        max_len_b=params.max_len_b,
        precision=this_device_decode_precision(params.precision),
    )
    signature = decode_signature(inputs.checkpoint, inputs.codes, params.source, settings)
    log.info("decode signature %s", signature)
    cache = TranslationCache(params.cache_dir, signature)
    sets = {name: set_sources(inputs[name]) for name in params.sets}
    translator = None

    def translate(sentences):
        global translator
        if translator is None:
            translator = Translator.for_settings(
                inputs.checkpoint,
                inputs.databin,
                inputs.codes,
                params.source,
                params.target,
                settings,
                max_tokens=params.max_tokens,
                threads=snakemake.threads,
            )
            log.info("decoding in %s, %d source tokens per batch", translator.precision, translator.max_tokens)
        return translator.translate(sentences)

    all_sources = [s for sources in sets.values() for s in sources]
    stats = translate_with_cache(cache, all_sources, translate, batch_sentences=cache_batch_sentences())
    log.info(
        "%d source lines, %d unique sentences: %d from the cache, %d decoded",
        sum(map(len, sets.values())),
        stats.unique,
        stats.cached,
        stats.decoded,
    )
    write_translations(cache, sets, snakemake.output[0])
