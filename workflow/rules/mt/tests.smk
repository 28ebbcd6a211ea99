# MT compositionality tests (Dankers et al. 2022): test items per test and data type
# (generated, or read from the original study's release), one translation job per
# checkpoint (through a cache keyed on how it decodes), per-item scores per checkpoint and
# test, tables, figures and sheets for the manual analysis.


if RELEASED_ITEMS:

    rule mt_released_tests:
        # Every file resources/mt/released_tests.tsv lists, out of the release's archive,
        # each checked against its size and sha256.
        input:
            archive="results/downloads/mt/released_tests",
            manifest="resources/mt/released_tests.tsv",
        output:
            directory(RELEASED_TESTS),
        log:
            "results/logs/mt/mt_released_tests.log",
        priority: MT_CHAIN_PRIORITY
        localrule: True
        conda:
            "../../../envs/natcomp.yaml"
        script:
            "../../scripts/mt/released_tests.py"

    rule mt_released_items:
        # One test's items on one data type, read from the release as released.
        input:
            release=RELEASED_TESTS,
            synonyms="resources/synonyms.tsv",
            idioms="resources/idioms.tsv",
        output:
            "results/mt/items/{test}/{data_type}.tsv",
        log:
            "results/logs/mt/mt_released_items/{test}.{data_type}.log",
        wildcard_constraints:
            test="|".join(registry.TESTS),
            data_type="|".join(RELEASED_DATA_TYPES),
        priority: MT_CHAIN_PRIORITY
        localrule: True
        conda:
            "../../../envs/natcomp.yaml"
        script:
            "../../scripts/mt/released_items.py"


rule mt_items:
    input:
        unpack(items_inputs),
        lexicon="resources/lexicon",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        "results/mt/items/{test}/{data_type}.tsv",
    log:
        "results/logs/mt/mt_items/{test}.{data_type}.log",
    benchmark:
        "results/benchmarks/mt/mt_items/{test}.{data_type}.tsv"
    wildcard_constraints:
        test="|".join(registry.TESTS),
        data_type="|".join(GENERATED_DATA_TYPES),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    resources:
        # Natural and semi-natural sets scan the training corpus.
        mem_mb=4000,
        runtime=120,
    params:
        seed=lookup(dpath="mt/tests/seed", within=config),
        synthetic_per_template=lookup(
            dpath="mt/tests/synthetic_per_template", within=config
        ),
        samples_per_template=lookup(
            dpath="mt/tests/samples_per_template", within=config
        ),
        natural_max_items=lookup(dpath="mt/tests/natural_max_items", within=config),
        random_word_samples=lookup(dpath="mt/tests/random_word_samples", within=config),
        semi_natural_per_template=lookup(
            dpath="mt/semi_natural/sentences_per_template", within=config
        ),
        natural_conjunct_reference=lookup(
            dpath="mt/tests/natural_conjunct_reference", within=config
        ),
        synthetic_sampling=lookup(dpath="mt/tests/synthetic_sampling", within=config),
    script:
        "../../scripts/mt/items.py"


rule mt_translate:
    # The best checkpoint's translations: FLORES (BLEU) and the items of the tests scored
    # on it; and its n best hypotheses of the synonym probe sentences (appendix C), in the
    # same process, so fairseq is imported and the model loaded once for both.
    input:
        unpack(lambda wildcards: translation_sets("best")),
        **TRAINED_PROBES_INPUT,
        checkpoint="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
    output:
        **TRAINED_PROBES_OUTPUT,
        translations=BEST_TRANSLATIONS,
    log:
        "results/logs/mt/mt_translate/{size}.seed{seed}.best.log",
    benchmark:
        "results/benchmarks/mt/mt_translate/{size}.seed{seed}.best.tsv"
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        # the best checkpoint's sets (240) and the synonym probes (30)
        runtime=270,
        gpu=1,
    params:
        sets=list(translation_sets("best")),
        # The same cache folder as the model's other decodes: n-best has its own signature.
        cache_dir="results/mt/translation_cache/{size}/seed{seed}",
        source=SRC,
        target=TRG,
        # A function: Snakemake would read "{term}" in a plain string as a wildcard.
        templates=lambda wildcards: list(MT["synonyms"]["probe_templates"]),
        nbest=lookup(dpath="mt/synonyms/nbest", within=config),
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_len_a=lookup(dpath="mt/translate/max_len_a", within=config),
        max_len_b=lookup(dpath="mt/translate/max_len_b", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
        precision=lookup(dpath="mt/translate/precision", within=config),
    script:
        "../../scripts/mt/translate.py"


rule mt_translate_epochs:
    # Every kept epoch checkpoint of one model (mt.train.epoch_checkpoints) translates the
    # items of the tests scored over training, one checkpoint after another in one process:
    # fairseq is imported and the sources read once, not once per checkpoint. The
    # checkpoints are read where training left them (its manifest lists them).
    input:
        unpack(lambda wildcards: translation_sets("epochs")),
        manifest="results/mt/models/{size}/seed{seed}/epoch_checkpoints.tsv",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
    output:
        directory(EPOCH_TRANSLATIONS),
    log:
        "results/logs/mt/mt_translate_epochs/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/mt/mt_translate_epochs/{size}.seed{seed}.tsv"
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        # a best checkpoint's 240 minutes cover FLORES and every test's items; each epoch
        # checkpoint translates only the overgeneralisation items
        runtime=lambda wildcards: 60 * len(EPOCHS[wildcards.size]),
        gpu=1,
    params:
        epochs=kept_epochs,
        sets=list(translation_sets("epochs")),
        cache_dir="results/mt/translation_cache/{size}/seed{seed}",
        source=SRC,
        target=TRG,
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_len_a=lookup(dpath="mt/translate/max_len_a", within=config),
        max_len_b=lookup(dpath="mt/translate/max_len_b", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
        precision=lookup(dpath="mt/translate/precision", within=config),
    script:
        "../../scripts/mt/translate.py"


rule mt_score:
    input:
        unpack(test_items),
        # substitutivity: the candidate translations of each synonym (mt_synonym_candidates)
        unpack(synonym_candidates_input),
        translations=translations_input,
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        "results/mt/scores/{size}/seed{seed}/{checkpoint}/{test}.tsv",
    log:
        "results/logs/mt/mt_score/{size}.seed{seed}.{checkpoint}.{test}.log",
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
        checkpoint=r"best|epoch\d+",
        test="|".join(registry.TESTS),
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        model=trained_model,
        translations=translations_file,
        data_types=test_data_types,
        keyword_matching=lookup(dpath="mt/tests/keyword_matching", within=config),
        paraphrase_only=lookup(
            dpath="mt/tests/paraphrase_references_only", within=config
        ),
        s_conj_missing_conjunct=lookup(
            dpath="mt/tests/s_conj_missing_conjunct", within=config
        ),
        s_conj_split=lookup(dpath="mt/tests/s_conj_split", within=config),
        target_lang=TRG,
    script:
        "../../scripts/mt/score.py"


rule mt_tables:
    input:
        systematicity=score_files("systematicity"),
        substitutivity=score_files("substitutivity"),
        overgeneralisation=score_files("overgeneralisation"),
        published="resources/mt/published.tsv",
        # the original study's own scores per size, seed and cell (natcomp.mt.paper_results)
        paper_results="resources/mt/paper_results",
    output:
        systematicity="results/tables/mt/systematicity.tsv",
        substitutivity="results/tables/mt/substitutivity.tsv",
        overgeneralisation="results/tables/mt/overgeneralisation.tsv",
        systematicity_summary=in_summary(
            "results/tables/mt/systematicity_summary.tsv",
            "Systematicity: consistency per corpus size (paper Table 4a)",
        ),
        substitutivity_summary=in_summary(
            "results/tables/mt/substitutivity_summary.tsv",
            "Substitutivity: consistency per corpus size (paper Table 6a)",
        ),
        overgeneralisation_peaks="results/tables/mt/overgeneralisation_peaks.tsv",
        # every model's item labels (natcomp compare pairs them) and the paired tests
        # between corpus sizes, and of the pretrained systems (natcomp.mt.comparison)
        item_outcomes="results/tables/mt/item_outcomes.tsv",
        size_comparison=in_summary(
            "results/tables/mt/size_comparison.tsv",
            "Is a larger corpus more compositional? Paired tests between the corpus sizes",
        ),
        size_comparison_html=report(
            "results/tables/mt/size_comparison.html",
            caption="../../report/mt/size_comparison.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        system_comparison="results/tables/mt/system_comparison.tsv",
        system_comparison_html=report(
            "results/tables/mt/system_comparison.html",
            caption="../../report/mt/size_comparison.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        # The report shows an HTML rendering of each table (a .tsv would only be a download).
        systematicity_html=report(
            "results/tables/mt/systematicity.html",
            caption="../../report/mt/systematicity.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        substitutivity_html=report(
            "results/tables/mt/substitutivity.html",
            caption="../../report/mt/substitutivity.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        overgeneralisation_html=report(
            "results/tables/mt/overgeneralisation.html",
            caption="../../report/mt/overgeneralisation.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        systematicity_summary_html=report(
            "results/tables/mt/systematicity_summary.html",
            caption="../../report/mt/systematicity_summary.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        substitutivity_summary_html=report(
            "results/tables/mt/substitutivity_summary.html",
            caption="../../report/mt/substitutivity_summary.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        overgeneralisation_peaks_html=report(
            "results/tables/mt/overgeneralisation_peaks.html",
            caption="../../report/mt/overgeneralisation_peaks.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
    log:
        "results/logs/mt/mt_tables.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        run_settings=run_settings("mt", config["mt"]),
        sizes=SIZES,
        systems=SYSTEMS,
        target_lang=TRG,
    script:
        "../../scripts/mt/tables.py"


rule mt_figures:
    input:
        systematicity="results/tables/mt/systematicity.tsv",
        substitutivity="results/tables/mt/substitutivity.tsv",
        overgeneralisation="results/tables/mt/overgeneralisation.tsv",
        published="resources/mt/published.tsv",
    output:
        systematicity=report(
            in_summary(
                "results/figures/mt/systematicity.png",
                "Systematicity per condition and corpus size (paper Figure 1)",
            ),
            caption="../../report/mt/fig_systematicity.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        substitutivity=report(
            "results/figures/mt/substitutivity.png",
            caption="../../report/mt/fig_substitutivity.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        synonyms=report(
            "results/figures/mt/substitutivity_per_synonym.png",
            caption="../../report/mt/fig_synonyms.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        overgeneralisation=report(
            in_summary(
                "results/figures/mt/overgeneralisation.png",
                "Overgeneralisation over training (paper Figure 4)",
            ),
            caption="../../report/mt/fig_overgeneralisation.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
    log:
        "results/logs/mt/mt_figures.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        sizes=SIZES,
        systems=SYSTEMS,
        target_lang=TRG,
    script:
        "../../scripts/mt/figures.py"


rule mt_manual_analysis_sheet:
    input:
        systematicity=score_files("systematicity"),
        substitutivity=score_files("substitutivity"),
    output:
        systematicity="results/mt/manual_analysis/systematicity_sheet.tsv",
        substitutivity="results/mt/manual_analysis/substitutivity_sheet.tsv",
    log:
        "results/logs/mt/mt_manual_analysis_sheet.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        pairs=lookup(dpath="mt/manual_analysis/pairs_per_model", within=config),
        seed=lookup(dpath="mt/tests/seed", within=config),
        sizes=SIZES,
        systems=SYSTEMS,
    script:
        "../../scripts/mt/manual_analysis_sheet.py"


rule mt_manual_analysis_summary:
    input:
        annotated_sheets,
    output:
        table="results/tables/mt/manual_analysis.tsv",
        html=report(
            "results/tables/mt/manual_analysis.html",
            caption="../../report/mt/manual_analysis.rst",
            category="MT compositionality",
            subcategory="manual analysis",
        ),
    log:
        "results/logs/mt/mt_manual_analysis_summary.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        run_settings=run_settings("mt", config["mt"]),
    script:
        "../../scripts/mt/manual_analysis_summary.py"
