from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.nmt import Translator, this_device_decode_precision
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.synonym_probes import decode_probes, probe_rows, probe_sentences, write_probe_translations
from natcomp.mt.translation_cache import DecodeSettings, TranslationCache, decode_signature
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs, params = snakemake.wildcards, snakemake.input, snakemake.params
    settings = DecodeSettings(
        beam=params.beam,
        max_len_a=params.max_len_a,
        max_len_b=params.max_len_b,
        precision=this_device_decode_precision(params.precision),
        nbest=params.nbest,
    )
    signature = decode_signature(inputs.checkpoint, inputs.codes, params.source, settings)
    log.info("decode signature %s", signature)
    probes = probe_sentences(load_synonyms(inputs.synonyms), params.templates)

    def translate_nbest(sentences):
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
        return translator.translate_nbest(sentences, settings.nbest)

    hypotheses, stats = decode_probes(TranslationCache(params.cache_dir, signature), probes, translate_nbest)
    log.info("%d probe sentences: %d from the cache, %d decoded", stats.unique, stats.cached, stats.decoded)
    rows = probe_rows(probes, hypotheses, {"system": TRAINED_SYSTEM, "size": w.size, "seed": w.seed}, signature)
    write_probe_translations(snakemake.output[0], rows)
