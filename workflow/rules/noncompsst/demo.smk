# The demo's sentiment treebank in SST's release layout (three archives the download rule
# fetches through file: URLs), with the generator's categories and named-entity lexicon
# that stand in for stanza, and the planted non-compositional phrases.


rule noncompsst_demo_release:
    output:
        sst="results/noncompsst/demo/releases/stanfordSentimentTreebank.zip",
        raw="results/noncompsst/demo/releases/stanfordSentimentTreebankRaw.zip",
        ptb="results/noncompsst/demo/releases/trainDevTestTrees_PTB.zip",
        phrase_types="results/noncompsst/demo/releases/phrase_types.tsv",
        entities="results/noncompsst/demo/releases/entities.txt",
        generated="results/noncompsst/demo/releases/planted.tsv",
        planted="results/noncompsst/demo/planted.tsv",
    log:
        "results/logs/noncompsst/noncompsst_demo_release/demo.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        demo=lookup(dpath="noncompsst/demo", within=config),
    script:
        "../../scripts/noncompsst/demo_release.py"
