# TRE: SST sentences with Tree Impurity and Weighted Node Switching, their embeddings (cached
# per encoder, pooling and length setting), TRE per encoder and length setting, Spearman
# correlations (Table 2) and the scatter.


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


rule tre_held_out_sets:
    input:
        TRE_TREES,
    output:
        phrases="results/tre/held_out/phrases.tsv",
        sentences="results/tre/held_out/sentences.tsv",
    log:
        "results/logs/tre/tre_held_out_sets/sets.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        held_out=lookup(dpath="tre/held_out", within=config),
    script:
        "../../scripts/tre/held_out_sets.py"


rule tre_tiny_encoder:
    input:
        texts=list(TRE_SETS.values()),
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
        columns=[["sentence"]] * len(TRE_SETS),
    script:
        "../../scripts/tiny_encoder.py"


rule tre_embed:
    input:
        texts=list(TRE_SETS.values()),
        model=tre_model_input,
    output:
        expand(TRE_EMBEDDINGS, name=list(TRE_SETS), allow_missing=True),
    log:
        "results/logs/tre/tre_embed/{encoder}.{pooling}.max_length_{max_length}.log",
    benchmark:
        "results/benchmarks/tre/tre_embed/{encoder}.{pooling}.max_length_{max_length}.tsv"
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
        pooling="cls|mean|last",
        max_length="none|[0-9]+",
    conda:
        "../../../envs/tre.yaml"
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus("tre_embed", tre_model),
        mem_mb=MODEL_JOBS.mem_mb("tre_embed", tre_model),
        runtime=MODEL_JOBS.runtime("tre_embed", tre_model),
    params:
        encoder=tre_encoder_spec,
        columns=[["sentence"]] * len(TRE_SETS),
        embed=tre_embed_settings,
        key=tre_model_key,
        pooling_key=tre_pooling_key,
    script:
        "../../scripts/embed.py"


rule tre_fit:
    input:
        trees=TRE_TREES,
        embeddings=tre_embeddings,
        model=tre_model_input,
    output:
        TRE_SCORES,
    log:
        "results/logs/tre/tre_fit/{encoder}.max_length_{max_length}.log",
    benchmark:
        "results/benchmarks/tre/tre_fit/{encoder}.max_length_{max_length}.tsv"
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
        max_length="none|[0-9]+",
    conda:
        "../../../envs/tre.yaml"
    resources:
        gpu=1,
    params:
        splits=lookup(dpath="tre/splits", within=config),
        max_sentences=lookup(dpath="tre/max_sentences", within=config),
        fit=lookup(dpath="tre/fit", within=config),
        model=tre_model,
        key=tre_model_key,
        max_length=tre_max_length,
    script:
        "../../scripts/tre/fit.py"


rule tre_held_out_fit:
    input:
        unpack(tre_held_out_embeddings),
        trees=TRE_TREES,
        model=tre_model_input,
    output:
        TRE_HELD_OUT_SCORES,
    log:
        "results/logs/tre/tre_held_out_fit/{encoder}.max_length_{max_length}.log",
    benchmark:
        "results/benchmarks/tre/tre_held_out_fit/{encoder}.max_length_{max_length}.tsv"
    wildcard_constraints:
        encoder="|".join(TRE_ENCODERS),
        max_length="none|[0-9]+",
    conda:
        "../../../envs/tre.yaml"
    resources:
        gpu=1,
    params:
        held_out=lookup(dpath="tre/held_out", within=config),
        fit=lookup(dpath="tre/fit", within=config),
        model=tre_model,
        key=tre_model_key,
        max_length=tre_max_length,
    script:
        "../../scripts/tre/held_out_fit.py"


rule tre_correlations:
    input:
        unpack(tre_score_files),
    output:
        table=in_summary(
            "results/tables/tre/table2.tsv",
            "Tree Reconstruction Error against TI and WNS, with Gaussian and shuffled baselines (paper Table 2)",
        ),
        # The report shows the HTML rendering (a .tsv would only be a download).
        html=report(
            "results/tables/tre/table2.html",
            caption="../../report/tre/table2.rst",
            category="TRE",
        ),
        # per sentence: TRE, the tree scores and the length (natcomp compare pairs them)
        item_outcomes="results/tables/tre/item_outcomes.tsv",
    log:
        "results/logs/tre/tre_correlations/table2.log",
    localrule: True
    conda:
        "../../../envs/tre.yaml"
    params:
        run_settings=run_settings("tre", config["tre"]),
        runs=TRE_RUNS,
        configured={encoder: lengths[0] for encoder, lengths in TRE_LENGTHS.items()},
        stands_in_for={
            name: entry.get("stands_in_for") for name, entry in TRE["encoders"].items()
        },
    script:
        "../../scripts/tre/correlations.py"


rule tre_scatter:
    input:
        tre_run_files(TRE_SCORES),
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
        runs=TRE_RUNS,
    script:
        "../../scripts/tre/scatter.py"
