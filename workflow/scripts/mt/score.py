from natcomp.mt.lexicon import load_idioms
from natcomp.mt.registry import get_test
from natcomp.mt.scoring import probe_synonym_candidates, score_test_files, write_labels
from natcomp.mt.synonym_probes import scoring_synonyms
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    # substitutivity alone reads the synonym pairs (beyond Dutch only with the probes' lists)
    substitutivity = get_test(snakemake.wildcards.test).entry == "pair"
    synonyms = (
        scoring_synonyms(inputs.synonyms, inputs.get("synonym_candidates"), params.target_lang)
        if substitutivity
        else None
    )
    labels = score_test_files(
        {data_type: inputs[data_type] for data_type in params.data_types},
        params.translations,
        snakemake.wildcards.test,
        model=params.model,
        synonyms=synonyms,
        # beyond Dutch the probes' lists alone: a pair's nl_candidates start with the Dutch gold word
        synonym_candidates=None if params.target_lang == "nl" or not synonyms else probe_synonym_candidates(synonyms),
        idioms=load_idioms(inputs.idioms),
        keyword_matching=params.keyword_matching,
        paraphrase_references_only=params.paraphrase_only,
        s_conj_missing_conjunct=params.s_conj_missing_conjunct,
        s_conj_split=params.s_conj_split,
        language=params.target_lang,
    )
    write_labels(labels, snakemake.output[0])
    test, data_types = snakemake.wildcards.test, ", ".join(params.data_types)
    log.info("scored %d %s items of %s on %s", len(labels), test, params.model, data_types)
