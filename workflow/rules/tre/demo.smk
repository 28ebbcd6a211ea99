# The demo sentiment treebank (natcomp.sst_demo, the generator NonCompSST's demo uses, same
# seed), written in SST's release layout; TRE fetches its PTB zip through the download rule.


rule tre_demo_treebank:
    output:
        "results/tre/demo/releases/trainDevTestTrees_PTB.zip",
    log:
        "results/logs/tre/tre_demo_treebank/demo.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        demo=lookup(dpath="tre/demo", within=config),
    script:
        "../../scripts/tre/demo_treebank.py"
