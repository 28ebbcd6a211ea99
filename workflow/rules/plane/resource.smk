# The PLANE resource (paper Section 3.2): AN phrases (demo: generated sentences with their
# own trees; paper: the released splits' phrases or any English text parsed with stanza),
# WordNet hypernyms, and the entailment items of Table 1.


rule plane_demo_corpus:
    input:
        adjectives=lookup(dpath="plane/adjectives", within=config),
    output:
        "results/plane/demo/releases/corpus.trees",
    log:
        "results/logs/plane/plane_demo_corpus/corpus.log",
    benchmark:
        "results/benchmarks/plane/plane_demo_corpus/corpus.tsv"
    conda:
        "../../../envs/plane.yaml"
    params:
        corpus=lookup(dpath="plane/demo_corpus", within=config),
    script:
        "../../scripts/plane/demo_corpus.py"


rule plane_resource:
    input:
        adjectives=lookup(dpath="plane/adjectives", within=config),
        phrases=plane_phrase_inputs,
    output:
        phrases="results/plane/resource/phrases.tsv",
        hypernyms="results/plane/resource/hypernyms.tsv",
        chains="results/plane/resource/chains.tsv",
        item_table="results/plane/resource/items.tsv",
    log:
        "results/logs/plane/plane_resource/resource.log",
    benchmark:
        "results/benchmarks/plane/plane_resource/resource.tsv"
    conda:
        "../../../envs/plane.yaml"
    params:
        source=lookup(dpath="plane/phrases/source", within=config),
        stanza_dir=lookup(dpath="plane/phrases/stanza_dir", within=config),
        resource=lookup(dpath="plane/resource", within=config),
    script:
        "../../scripts/plane/resource.py"


rule plane_items_table:
    input:
        "results/plane/resource/items.tsv",
    output:
        report_table(
            "results/tables/plane/items_per_class_it.tsv",
            caption="../../report/plane/items_per_class_it.rst",
            category="PLANE",
            subcategory="resource",
        ),
    log:
        "results/logs/plane/plane_items_table/items.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/items_table.py"
