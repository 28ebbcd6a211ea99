# MT compositionality tests (Dankers et al. 2022): test items per test and data type,
# translations through a per-checkpoint cache, per-item scores, tables, figures and
# sheets for the manual analysis.


rule make_test_items:
    input:
        unpack(items_inputs),
        lexicon="resources/lexicon",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        "results/mt/items/{test}/{data_type}.tsv",
    log:
        "results/logs/make_test_items/{test}.{data_type}.log",
    conda:
        "../../envs/natcomp.yaml"
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
    script:
        "../scripts/make_test_items.py"


rule translate_best_checkpoint:
    input:
        checkpoint="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
        sets=list(BEST_SETS.values()),
    output:
        expand(
            "results/mt/translations/{{size}}/seed{{seed}}/best/{set}.tsv",
            set=BEST_SETS,
        ),
    log:
        "results/logs/translate_best_checkpoint/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/translate_best_checkpoint/{size}.seed{seed}.tsv"
    conda:
        "../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
        gpu=1,
    params:
        cache_dir="results/mt/translation_cache/{size}/seed{seed}",
        source=SRC,
        target=TRG,
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
    script:
        "../scripts/translate_sets.py"


rule translate_epoch_checkpoint:
    input:
        checkpoint="results/mt/models/{size}/seed{seed}/checkpoint{epoch}.pt",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
        sets=list(EPOCH_SETS.values()),
    output:
        expand(
            "results/mt/translations/{{size}}/seed{{seed}}/epoch{{epoch}}/{set}.tsv",
            set=EPOCH_SETS,
        ),
    log:
        "results/logs/translate_epoch_checkpoint/{size}.seed{seed}.{epoch}.log",
    benchmark:
        "results/benchmarks/translate_epoch_checkpoint/{size}.seed{seed}.{epoch}.tsv"
    conda:
        "../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
        gpu=1,
    params:
        cache_dir="results/mt/translation_cache/{size}/seed{seed}",
        source=SRC,
        target=TRG,
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
    script:
        "../scripts/translate_sets.py"


rule score_best_checkpoint:
    input:
        item_files=list(item_sets(BEST_CHECKPOINT_TESTS).values()),
        translations=expand(
            "results/mt/translations/{{size}}/seed{{seed}}/best/{set}.tsv",
            set=item_sets(BEST_CHECKPOINT_TESTS),
        ),
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        expand(
            "results/mt/scores/{{size}}/seed{{seed}}/best/{set}.tsv",
            set=item_sets(BEST_CHECKPOINT_TESTS),
        ),
    log:
        "results/logs/score_best_checkpoint/{size}.seed{seed}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        keyword_matching=lookup(dpath="mt/tests/keyword_matching", within=config),
        paraphrase_only=lookup(
            dpath="mt/tests/paraphrase_references_only", within=config
        ),
    script:
        "../scripts/score_tests.py"


rule score_epoch_checkpoint:
    input:
        item_files=list(EPOCH_SETS.values()),
        translations=expand(
            "results/mt/translations/{{size}}/seed{{seed}}/epoch{{epoch}}/{set}.tsv",
            set=EPOCH_SETS,
        ),
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        expand(
            "results/mt/scores/{{size}}/seed{{seed}}/epoch{{epoch}}/{set}.tsv",
            set=EPOCH_SETS,
        ),
    log:
        "results/logs/score_epoch_checkpoint/{size}.seed{seed}.{epoch}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        keyword_matching=lookup(dpath="mt/tests/keyword_matching", within=config),
        paraphrase_only=lookup(
            dpath="mt/tests/paraphrase_references_only", within=config
        ),
    script:
        "../scripts/score_tests.py"


rule mt_tables:
    input:
        systematicity=score_files(SYSTEMATICITY_TESTS, best_checkpoint),
        substitutivity=score_files(["substitutivity"], best_checkpoint),
        overgeneralisation=score_files(EPOCH_CHECKPOINT_TESTS, epoch_checkpoints),
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        systematicity=report(
            "results/tables/systematicity.tsv",
            caption="../report/systematicity.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        substitutivity=report(
            "results/tables/substitutivity.tsv",
            caption="../report/substitutivity.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        overgeneralisation=report(
            "results/tables/overgeneralisation.tsv",
            caption="../report/overgeneralisation.rst",
            category="MT compositionality",
            subcategory="tables",
        ),
        systematicity_summary=report(
            "results/tables/systematicity_summary.tsv",
            caption="../report/systematicity_summary.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        substitutivity_summary=report(
            "results/tables/substitutivity_summary.tsv",
            caption="../report/substitutivity_summary.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
        overgeneralisation_peaks=report(
            "results/tables/overgeneralisation_peaks.tsv",
            caption="../report/overgeneralisation_peaks.rst",
            category="MT compositionality",
            subcategory="summaries",
        ),
    log:
        "results/logs/mt_tables.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/mt_tables.py"


rule mt_figures:
    input:
        systematicity="results/tables/systematicity.tsv",
        substitutivity="results/tables/substitutivity.tsv",
        overgeneralisation="results/tables/overgeneralisation.tsv",
    output:
        systematicity=report(
            "results/figures/systematicity.png",
            caption="../report/fig_systematicity.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        substitutivity=report(
            "results/figures/substitutivity.png",
            caption="../report/fig_substitutivity.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        synonyms=report(
            "results/figures/substitutivity_per_synonym.png",
            caption="../report/fig_synonyms.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
        overgeneralisation=report(
            "results/figures/overgeneralisation.png",
            caption="../report/fig_overgeneralisation.rst",
            category="MT compositionality",
            subcategory="figures",
        ),
    log:
        "results/logs/mt_figures.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/mt_figures.py"


rule manual_analysis_sheet:
    input:
        systematicity=score_files(SYSTEMATICITY_TESTS, best_checkpoint),
        substitutivity=score_files(["substitutivity"], best_checkpoint),
    output:
        systematicity="results/mt/manual_analysis/systematicity_sheet.tsv",
        substitutivity="results/mt/manual_analysis/substitutivity_sheet.tsv",
    log:
        "results/logs/manual_analysis_sheet.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        pairs=lookup(dpath="mt/manual_analysis/pairs_per_model", within=config),
        seed=lookup(dpath="mt/tests/seed", within=config),
    script:
        "../scripts/manual_analysis_sheet.py"


rule manual_analysis_summary:
    input:
        annotated_sheets,
    output:
        report(
            "results/tables/manual_analysis.tsv",
            caption="../report/manual_analysis.rst",
            category="MT compositionality",
            subcategory="manual analysis",
        ),
    log:
        "results/logs/manual_analysis_summary.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/manual_analysis_summary.py"
