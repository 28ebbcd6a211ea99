# Semi-natural test data (appendix A): a treebank of training sentences, its Double-DOP
# fragments, the chosen NP and VP fragments, the treebank phrases matching them; the
# templates are filled when the test items are made (mt_items).


rule mt_stanza_models:
    output:
        directory(SEMI_NATURAL["stanza_model_dir"]),
    log:
        "results/logs/mt/mt_stanza_models.log",
    localrule: True
    conda:
        "../../../envs/parse.yaml"
    script:
        "../../scripts/mt/download_stanza_models.py"


rule mt_treebank:
    input:
        unpack(treebank_inputs),
    output:
        "results/mt/semi_natural/treebank.mrg",
    log:
        "results/logs/mt/mt_treebank.log",
    benchmark:
        "results/benchmarks/mt/mt_treebank.tsv"
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/parse.yaml"
    threads: lookup(dpath="mt/semi_natural/workers", within=config, default=2)
    resources:
        # stanza's constituency parser on 100,000 sentences.
        mem_mb=8000,
        runtime=720,
    params:
        source=lookup(dpath="mt/semi_natural/treebank", within=config),
        sentences=lookup(dpath="mt/semi_natural/sample_sentences", within=config),
        seed=lookup(dpath="mt/tests/seed", within=config),
    script:
        "../../scripts/mt/build_treebank.py"


rule mt_extract_fragments:
    input:
        "results/mt/semi_natural/treebank.mrg",
    output:
        "results/mt/semi_natural/fragments.tsv",
    log:
        "results/logs/mt/mt_extract_fragments.log",
    benchmark:
        "results/benchmarks/mt/mt_extract_fragments.tsv"
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/discodop.yaml"
    threads: lookup(dpath="mt/semi_natural/workers", within=config, default=2)
    resources:
        mem_mb=16000,
        runtime=1440,
    params:
        backend=lookup(dpath="mt/semi_natural/fragments_backend", within=config),
    script:
        "../../scripts/mt/extract_fragments.py"


rule mt_choose_fragments:
    input:
        "results/mt/semi_natural/fragments.tsv",
    output:
        report(
            "results/mt/semi_natural/chosen_fragments.tsv",
            caption="../../report/mt/chosen_fragments.rst",
            category="MT compositionality",
            subcategory="semi-natural data",
        ),
    log:
        "results/logs/mt/mt_choose_fragments.log",
    priority: MT_CHAIN_PRIORITY
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        top=lookup(dpath="mt/semi_natural/top_fragments", within=config),
        min_nonterminals=lookup(dpath="mt/semi_natural/min_nonterminals", within=config),
        n_vp=lookup(dpath="mt/semi_natural/vp_fragments", within=config),
        n_np=lookup(dpath="mt/semi_natural/np_fragments", within=config),
        min_distance=lookup(
            dpath="mt/semi_natural/min_fragment_distance", within=config
        ),
        chosen=chosen_fragment_overrides,
    script:
        "../../scripts/mt/choose_fragments.py"


rule mt_search_fragments:
    input:
        chosen="results/mt/semi_natural/chosen_fragments.tsv",
        treebank="results/mt/semi_natural/treebank.mrg",
    output:
        "results/mt/semi_natural/phrases.tsv",
    log:
        "results/logs/mt/mt_search_fragments.log",
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    script:
        "../../scripts/mt/search_fragments.py"
