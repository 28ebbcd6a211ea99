# The demo's own corpus: a synthetic English-Dutch corpus written in the release layouts
# of Tatoeba and FLORES-101, which the download rule then fetches like the real ones.


rule generate_demo_corpus:
    input:
        lexicon="resources/lexicon",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        tatoeba="results/demo/releases/eng-nld.tar",
        flores="results/demo/releases/flores101_dataset.tar.gz",
        treebank="results/demo/treebank.mrg",
    log:
        "results/logs/generate_demo_corpus.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        settings=lookup(dpath="mt/demo_corpus", within=config),
    script:
        "../scripts/generate_demo_corpus.py"
