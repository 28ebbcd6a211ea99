# TRE: SST sentences with Tree Impurity and Weighted Node Switching, their embeddings (cached
# per encoder and pooling), TRE per encoder, Spearman correlations (Table 2) and the scatter.


rule tre_sentences:
    input:
        TRE_TREES,
    output:
        "results/tre/sentences.tsv",
    log:
        "results/logs/tre/tre_sentences/sentences.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        splits=lookup(dpath="tre/splits", within=config),
        max_sentences=lookup(dpath="tre/max_sentences", within=config),
    script:
        "../../scripts/tre/sentences.py"


rule tre_tiny_encoder:
    input:
        "results/tre/sentences.tsv",
    output:
        directory("results/tre/models/{encoder}"),
    log:
        "results/logs/tre/tre_tiny_encoder/{encoder}.log",
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
    conda:
        "../../../envs/tre.yaml"
    params:
        tiny=tre_tiny,
    script:
        "../../scripts/tre/tiny_encoder.py"


rule tre_embed:
    input:
        sentences="results/tre/sentences.tsv",
        model=tre_model_input,
    output:
        "results/tre/embeddings/{encoder}/{pooling}/sst.npy",
    log:
        "results/logs/tre/tre_embed/{encoder}.{pooling}.log",
    benchmark:
        "results/benchmarks/tre/tre_embed/{encoder}.{pooling}.tsv"
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
        pooling="cls|mean",
    conda:
        "../../../envs/tre.yaml"
    resources:
        gpu=1,
    params:
        model=tre_model,
        normalize=tre_normalize,
        embed=lookup(dpath="tre/embed", within=config),
        key=tre_model_key,
    script:
        "../../scripts/tre/embed.py"


rule tre_fit:
    input:
        trees=TRE_TREES,
        embeddings=tre_embeddings,
    output:
        "results/tre/scores/{encoder}.tsv",
    log:
        "results/logs/tre/tre_fit/{encoder}.log",
    benchmark:
        "results/benchmarks/tre/tre_fit/{encoder}.tsv"
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
    conda:
        "../../../envs/tre.yaml"
    resources:
        gpu=1,
    params:
        splits=lookup(dpath="tre/splits", within=config),
        max_sentences=lookup(dpath="tre/max_sentences", within=config),
        fit=lookup(dpath="tre/fit", within=config),
    script:
        "../../scripts/tre/fit.py"


rule tre_correlations:
    input:
        expand("results/tre/scores/{encoder}.tsv", encoder=TRE_ENCODERS),
    output:
        report_table(
            "results/tables/tre/table2.tsv",
            title="Tree Reconstruction Error and its correlations (paper Table 2)",
            caption="../../report/tre/table2.rst",
            category="TRE",
            summary=True,
        ),
    log:
        "results/logs/tre/tre_correlations/table2.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        encoders=TRE_ENCODERS,
    script:
        "../../scripts/tre/correlations.py"


rule tre_scatter:
    input:
        expand("results/tre/scores/{encoder}.tsv", encoder=TRE_ENCODERS),
    output:
        report(
            in_summary(
                "results/figures/tre/tre_vs_wns.png",
                "TRE against Weighted Node Switching",
            ),
            caption="../../report/tre/tre_vs_wns.rst",
            category="TRE",
        ),
    log:
        "results/logs/tre/tre_scatter/figure.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        encoders=TRE_ENCODERS,
    script:
        "../../scripts/tre/scatter.py"
