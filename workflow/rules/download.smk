# Every external archive of every family enters through this rule: https://, http:// or
# file: URLs from config <family>.downloads.<name>, checked against the configured sha256,
# written atomically to results/downloads/<family>/<name>. A URL may name fields of the
# run ({pair}: MT's Tatoeba pair); the log records each file's sha256.


rule download:
    input:
        download_source,
    output:
        "results/downloads/{family}/{download}",
    log:
        "results/logs/download/{family}.{download}.log",
    benchmark:
        "results/benchmarks/download/{family}.{download}.tsv"
    wildcard_constraints:
        family=r"[a-z]+",
        download=r"[A-Za-z0-9_.-]+",
    # Before other ready jobs: a download is quick and starts a family's chain (MT's
    # corpus, BPE and training: the demo's longest) that would otherwise wait behind the
    # other families' short jobs.
    priority: 20
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        url=download_url,
        sha256=download_sha256,
    script:
        "../scripts/download.py"
