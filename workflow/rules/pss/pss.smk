# PSS: cleaning the pairs, the sentence sets, embeddings (cached per encoder, pooling and
# set), heads on frozen embeddings (FB), fine-tuned encoders (FT) and Table 1.


rule pss_clean:
    input:
        pss_reference_download,
    output:
        pairs="results/pss/pairs/reference.{label}",
        counts="results/pss/pairs/reference.{label}.counts.tsv",
    log:
        "results/logs/pss/pss_clean/{label}.log",
    wildcard_constraints:
        label="0|1",
    localrule: True
    conda:
        "../../../envs/pss.yaml"
    script:
        "../../scripts/pss/clean.py"


rule pss_sets:
    input:
        train=[pss_download(f"sentiment.train.{label}") for label in (0, 1)],
        test=[
            pss_download(f"sentiment.{split}.{label}")
            for split in ("dev", "test")
            for label in (0, 1)
        ],
        pairs=expand("results/pss/pairs/reference.{label}", label=(0, 1)),
    output:
        train="results/pss/sets/train.tsv",
        test="results/pss/sets/test.tsv",
        pairs="results/pss/sets/pairs.tsv",
    log:
        "results/logs/pss/pss_sets/sets.log",
    localrule: True
    conda:
        "../../../envs/pss.yaml"
    params:
        data=lookup(dpath="pss/data", within=config),
    script:
        "../../scripts/pss/sets.py"


rule pss_tiny_encoder:
    input:
        texts=expand("results/pss/sets/{name}.tsv", name=PSS_SETS),
    output:
        directory("results/pss/models/{encoder}"),
    log:
        "results/logs/pss/pss_tiny_encoder/{encoder}.log",
    wildcard_constraints:
        encoder="|".join(PSS_ENCODERS),
    conda:
        "../../../envs/pss.yaml"
    params:
        tiny=pss_tiny,
        columns=[PSS_SET_COLUMNS[name] for name in PSS_SETS],
    script:
        "../../scripts/tiny_encoder.py"


rule pss_embed:
    input:
        texts=expand("results/pss/sets/{set}.tsv", set=PSS_SETS),
        model=pss_model_input,
    output:
        expand("results/pss/embeddings/{{encoder}}/{{pooling}}/{set}.npy", set=PSS_SETS),
    log:
        "results/logs/pss/pss_embed/{encoder}.{pooling}.log",
    benchmark:
        "results/benchmarks/pss/pss_embed/{encoder}.{pooling}.tsv"
    wildcard_constraints:
        encoder="|".join(PSS_ENCODERS),
        pooling="cls|mean|last",
    conda:
        "../../../envs/pss.yaml"
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus("pss_embed", pss_model),
        mem_mb=MODEL_JOBS.mem_mb("pss_embed", pss_model),
        runtime=MODEL_JOBS.runtime("pss_embed", pss_model),
    params:
        encoder=pss_encoder_spec,
        columns=[PSS_SET_COLUMNS[name] for name in PSS_SETS],
        embed=pss_embed_settings,
        key=pss_model_key,
        pooling_key=pss_pooling_key,
    script:
        "../../scripts/embed.py"


rule pss_frozen:
    input:
        unpack(pss_frozen_embeddings),
        train_set="results/pss/sets/train.tsv",
        test_set="results/pss/sets/test.tsv",
        pair_set="results/pss/sets/pairs.tsv",
        model=pss_model_input,
    # Every head of one encoder in one job: training a head on the embeddings takes a
    # fraction of a second, reading them and importing torch most of a job.
    output:
        scores=expand("results/pss/scores/{{encoder}}/{head}.fb.tsv", head=PSS_HEADS),
        # per pair and test sentence: right or not (natcomp compare pairs them)
        item_outcomes=expand(
            "results/pss/items/{{encoder}}/{head}.fb.tsv", head=PSS_HEADS
        ),
    log:
        "results/logs/pss/pss_frozen/{encoder}.log",
    benchmark:
        "results/benchmarks/pss/pss_frozen/{encoder}.tsv"
    wildcard_constraints:
        encoder="|".join(PSS_ENCODERS),
    conda:
        "../../../envs/pss.yaml"
    params:
        heads=PSS_HEADS,
        settings=pss_frozen_settings,
        model=pss_model,
        key=pss_model_key,
        layer=pss_layer,
        max_length=pss_max_length,
    script:
        "../../scripts/pss/frozen.py"


rule pss_fine_tune:
    input:
        train_set="results/pss/sets/train.tsv",
        test_set="results/pss/sets/test.tsv",
        pair_set="results/pss/sets/pairs.tsv",
        model=pss_model_input,
    # ft: the encoder's own reading of its sentences; ft_fb: FB's layer and length
    output:
        scores="results/pss/scores/{encoder}/{head}.{mode}.tsv",
        # per pair and test sentence: right or not (natcomp compare pairs them)
        item_outcomes="results/pss/items/{encoder}/{head}.{mode}.tsv",
    log:
        "results/logs/pss/pss_fine_tune/{encoder}.{head}.{mode}.log",
    benchmark:
        "results/benchmarks/pss/pss_fine_tune/{encoder}.{head}.{mode}.tsv"
    wildcard_constraints:
        encoder="|".join(PSS_ENCODERS),
        head="linear|dnn",
        mode="|".join(FINE_TUNED_MODES),
    conda:
        "../../../envs/pss.yaml"
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus("pss_fine_tune", pss_model, fine_tuning_of("pss")),
        mem_mb=MODEL_JOBS.mem_mb("pss_fine_tune", pss_model, fine_tuning_of("pss")),
        runtime=MODEL_JOBS.runtime("pss_fine_tune", pss_model, fine_tuning_of("pss")),
    params:
        model=pss_model,
        pooling=pss_pooling,
        normalize=pss_normalize,
        layer=pss_fine_tune_layer,
        settings=pss_fine_tune_settings,
        key=pss_model_key,
        pooling_key=pss_pooling_key,
    script:
        "../../scripts/pss/fine_tune.py"


rule pss_table:
    input:
        scores=pss_score_files(),
        item_files=pss_score_files("items"),
        counts=expand("results/pss/pairs/reference.{label}.counts.tsv", label=(0, 1)),
    output:
        table1=in_summary(
            "results/tables/pss/table1.tsv",
            "Polarity sensitivity per encoder, negative -> positive pairs (paper Table 1)",
        ),
        table1_pos_to_neg="results/tables/pss/table1_pos_to_neg.tsv",
        # The report shows the HTML renderings (titled with the cleaning counts).
        table1_html=report(
            "results/tables/pss/table1.html",
            caption="../../report/pss/table1.rst",
            category="PSS",
        ),
        table1_pos_to_neg_html=report(
            "results/tables/pss/table1_pos_to_neg.html",
            caption="../../report/pss/table1_pos_to_neg.rst",
            category="PSS",
        ),
        cleaning=report_table(
            "results/tables/pss/cleaning.tsv",
            title="Cleaning of the test pairs: kept and removed per rule",
            caption="../../report/pss/cleaning.rst",
            category="PSS",
            summary=True,
        ),
        # every encoder's item outcomes in one table (natcomp compare pairs them)
        item_outcomes="results/tables/pss/item_outcomes.tsv",
    log:
        "results/logs/pss/pss_table/table.log",
    localrule: True
    conda:
        "../../../envs/pss.yaml"
    params:
        run_settings=run_settings("pss", config["pss"]),
        stands_in_for={
            name: entry.get("stands_in_for") for name, entry in PSS["encoders"].items()
        },
    script:
        "../../scripts/pss/table.py"
