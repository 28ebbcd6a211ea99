# The demo's own corpus: a synthetic English-Dutch corpus written in the release layouts
# of Tatoeba and FLORES-101, which the download rule then fetches like the real ones.


rule mt_demo_corpus:
    input:
        lexicon="resources/lexicon",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        tatoeba="results/mt/demo/releases/eng-nld.tar",
        flores="results/mt/demo/releases/flores101_dataset.tar.gz",
        treebank="results/mt/demo/treebank.mrg",
    log:
        "results/logs/mt/mt_demo_corpus.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        seed=lookup(dpath="mt/demo_corpus/seed", within=config),
        train_pairs=lookup(dpath="mt/demo_corpus/train_pairs", within=config),
        dev_pairs=lookup(dpath="mt/demo_corpus/dev_pairs", within=config),
        test_pairs=lookup(dpath="mt/demo_corpus/test_pairs", within=config),
        flores_dev_pairs=lookup(dpath="mt/demo_corpus/flores_dev_pairs", within=config),
        flores_devtest_pairs=lookup(
            dpath="mt/demo_corpus/flores_devtest_pairs", within=config
        ),
    script:
        "../../scripts/mt/generate_demo_corpus.py"
