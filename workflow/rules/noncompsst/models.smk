# Section 5 / appendix D: SST-7 without the stimulus sentences, sentiment models
# fine-tuned per seed (GPU where there is one), and their evaluation against the humans.


rule noncompsst_sst7:
    input:
        unpack(noncompsst_sst7_inputs),
    output:
        train="results/noncompsst/sst7/train.tsv",
        validation="results/noncompsst/sst7/validation.tsv",
        test="results/noncompsst/sst7/test.tsv",
    log:
        "results/logs/noncompsst/noncompsst_sst7/sst7.log",
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        stimulus_match=lookup(dpath="noncompsst/sst7/stimulus_match", within=config),
    script:
        "../../scripts/noncompsst/sst7.py"


rule noncompsst_tiny_model:
    input:
        train="results/noncompsst/sst7/train.tsv",
        stimuli=noncompsst_study2_stimuli,
    output:
        directory("results/noncompsst/demo/tiny_model"),
    log:
        "results/logs/noncompsst/noncompsst_tiny_model/tiny_model.log",
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        tiny=lookup(dpath="noncompsst/demo/tiny_model", within=config),
        seed=lookup(dpath="noncompsst/seed", within=config),
    script:
        "../../scripts/noncompsst/tiny_model.py"


rule noncompsst_train:
    input:
        model=noncompsst_model_inputs,
        train="results/noncompsst/sst7/train.tsv",
        validation="results/noncompsst/sst7/validation.tsv",
        test="results/noncompsst/sst7/test.tsv",
        stimuli=noncompsst_study2_stimuli,
        stanza=noncompsst_stanza_input,
    output:
        predictions="results/noncompsst/models/{model}/seed{seed}/predictions.tsv",
        metrics="results/noncompsst/models/{model}/seed{seed}/metrics.json",
    log:
        "results/logs/noncompsst/noncompsst_train/{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/noncompsst/noncompsst_train/{model}.seed{seed}.tsv"
    wildcard_constraints:
        model=r"[A-Za-z0-9_.-]+",
        seed=r"\d+",
    conda:
        "../../../envs/noncompsst.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus(
            "noncompsst_train", noncompsst_model_location, fine_tuning_of("noncompsst")
        ),
        mem_mb=MODEL_JOBS.mem_mb(
            "noncompsst_train", noncompsst_model_location, fine_tuning_of("noncompsst")
        ),
        runtime=MODEL_JOBS.runtime(
            "noncompsst_train", noncompsst_model_location, fine_tuning_of("noncompsst")
        ),
    params:
        location=noncompsst_model_location,
        training=noncompsst_model_training,
        # stimuli tokenised by stanza where its models are there (both configs name the same folder)
        stanza_dir=lookup(dpath="noncompsst/candidates/stanza_dir", within=config),
    script:
        "../../scripts/noncompsst/train.py"


rule noncompsst_evaluate:
    input:
        unpack(noncompsst_evaluation_inputs),
    output:
        scores="results/noncompsst/evaluation/{model}.tsv",
        # the per-phrase outcomes r and F1 are computed from (natcomp compare pairs them)
        item_outcomes="results/noncompsst/evaluation_items/{model}.tsv",
    log:
        "results/logs/noncompsst/noncompsst_evaluate/{model}.log",
    wildcard_constraints:
        model=r"[A-Za-z0-9_.-]+",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        top_k=lookup(dpath="noncompsst/evaluation/top_k", within=config),
        f1_seeds=lookup(dpath="noncompsst/evaluation/f1_seeds", within=config),
    script:
        "../../scripts/noncompsst/evaluate.py"
