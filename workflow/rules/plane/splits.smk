# Train/test splits (paper Section 6 and appendix D): GOoD, One-IT and in-distribution,
# one per seed; every split is checked for leaks and balance before it is written. In
# paper mode the released splits are checked too.


rule plane_split:
    input:
        phrases="results/plane/resource/phrases.tsv",
        hypernyms="results/plane/resource/hypernyms.tsv",
        chains="results/plane/resource/chains.tsv",
        item_table="results/plane/resource/items.tsv",
    output:
        train="results/plane/splits/{kind}/{seed}/train.tsv",
        test="results/plane/splits/{kind}/{seed}/test.tsv",
    log:
        "results/logs/plane/plane_split/{kind}.{seed}.log",
    wildcard_constraints:
        kind="good|one_it|in_distribution",
        seed=r"\d+",
    conda:
        "../../../envs/plane.yaml"
    params:
        settings=lookup(dpath="plane/splits/{kind}", within=config),
    script:
        "../../scripts/plane/split.py"


rule plane_check_released:
    input:
        expand(
            "results/downloads/plane/{layout}_{side}_{seed}.pkl",
            layout=["ood", "one_it"],
            side=["train", "test"],
            seed=PLANE.get("released", {}).get("splits", []),
        ),
    output:
        report_table(
            "results/tables/plane/released_checks.tsv",
            caption="../../report/plane/released_checks.rst",
            category="PLANE",
            subcategory="resource",
        ),
    log:
        "results/logs/plane/plane_check_released/checks.log",
    conda:
        "../../../envs/plane.yaml"
    params:
        seeds=lookup(dpath="plane/released/splits", within=config),
    script:
        "../../scripts/plane/check_released.py"
