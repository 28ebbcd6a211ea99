# Every external archive enters through this rule: https://, http:// or file: URLs,
# checked against the configured sha256, written atomically.


rule download_release:
    input:
        download_source,
    output:
        "results/downloads/{download}",
    log:
        "results/logs/download_release/{download}.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        url=lookup(dpath="mt/downloads/{download}/url", within=config),
        sha256=lookup(dpath="mt/downloads/{download}/sha256", within=config),
    script:
        "../scripts/download_release.py"
