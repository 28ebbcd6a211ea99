# The demo's Yelp-layout data: labelled sentences and polarity-switched pairs from the demo
# sentiment lexicon, fetched through the download rule with file: URLs.


rule pss_demo_data:
    output:
        expand("results/pss/demo/releases/{name}", name=list(PSS_YELP)),
    log:
        "results/logs/pss/pss_demo_data/demo.log",
    localrule: True
    conda:
        "../../../envs/pss.yaml"
    params:
        demo=lookup(dpath="pss/demo", within=config),
    script:
        "../../scripts/pss/demo_data.py"
