# The three evaluations: two-shot prompting of masked and causal LMs (Section 4, Tables 2-4), NLI
# transfer (Section 5, Table 5, Figure 1) and fine-tuning on the GOoD and One-IT splits
# (Section 6, Table 6: on the released train/test pairs, as the paper, and on our own splits).
# Models by Hugging Face name or local path; the demo builds tiny ones.


rule plane_demo_models:
    input:
        item_table="results/plane/evaluation/items.tsv",
    output:
        masked_lm=directory("results/plane/demo/models/tiny_mlm"),
        nli=directory("results/plane/demo/models/tiny_nli"),
    log:
        "results/logs/plane/plane_demo_models/models.log",
    conda:
        "../../../envs/plane.yaml"
    params:
        tiny=lookup(dpath="plane/demo_models", within=config),
        verbalisers=lookup(dpath="plane/prompting/verbalisers", within=config),
    script:
        "../../scripts/plane/demo_models.py"


rule plane_evaluation_set:
    input:
        "results/plane/resource/items.tsv",
    output:
        triplets="results/plane/evaluation/triplets.tsv",
        item_table="results/plane/evaluation/items.tsv",
    log:
        "results/logs/plane/plane_evaluation_set/evaluation_set.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    params:
        per_class=lookup(dpath="plane/evaluation_set/triplets_per_class", within=config),
        seed=lookup(dpath="plane/evaluation_set/seed", within=config),
    script:
        "../../scripts/plane/evaluation_set.py"


rule plane_prompting:
    input:
        model=plane_model_input("prompting"),
        triplets="results/plane/evaluation/triplets.tsv",
    output:
        "results/plane/prompting/{model}.tsv",
    log:
        "results/logs/plane/plane_prompting/{model}.log",
    benchmark:
        "results/benchmarks/plane/plane_prompting/{model}.tsv"
    wildcard_constraints:
        model=r"[A-Za-z0-9_.-]+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=unless_served(
            MODEL_JOBS.gpus("plane_prompting", plane_model_location("prompting")),
            plane_served("prompting"),
            0,
        ),
        mem_mb=unless_served(
            MODEL_JOBS.mem_mb("plane_prompting", plane_model_location("prompting")),
            plane_served("prompting"),
            SERVED_JOB_MEM_MB,
        ),
        runtime=MODEL_JOBS.runtime("plane_prompting", plane_model_location("prompting")),
        served_requests=served_requests(plane_served("prompting")),
    params:
        location=plane_model_entry("prompting"),
        # a served model's answers (natcomp.served), kept across reruns like MT's translation cache
        cache_dir="results/plane/served_cache/{model}",
        served=SERVED,
        usage=plane_prompting_usage,
        prompting=lookup(dpath="plane/prompting", within=config),
        dtype=config["dtype"],
    script:
        "../../scripts/plane/prompting.py"


rule plane_zero_shot:
    input:
        model=plane_model_input("prompting"),
        triplets="results/plane/evaluation/triplets.tsv",
    output:
        "results/plane/zero_shot/{model}.tsv",
    log:
        "results/logs/plane/plane_zero_shot/{model}.log",
    benchmark:
        "results/benchmarks/plane/plane_zero_shot/{model}.tsv"
    wildcard_constraints:
        model=r"[A-Za-z0-9_.-]+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=unless_served(
            MODEL_JOBS.gpus("plane_zero_shot", plane_model_location("prompting")),
            plane_served("prompting"),
            0,
        ),
        mem_mb=unless_served(
            MODEL_JOBS.mem_mb("plane_zero_shot", plane_model_location("prompting")),
            plane_served("prompting"),
            SERVED_JOB_MEM_MB,
        ),
        runtime=MODEL_JOBS.runtime("plane_zero_shot", plane_model_location("prompting")),
        served_requests=served_requests(plane_served("prompting")),
    params:
        location=plane_model_entry("prompting"),
        # a served model's answers (natcomp.served), kept across reruns like MT's translation cache
        cache_dir="results/plane/served_cache/{model}",
        served=SERVED,
        usage=plane_zero_shot_usage,
        prompting=lookup(dpath="plane/prompting", within=config),
        dtype=config["dtype"],
        verbalisers=lookup(dpath="plane/zero_shot/verbalisers", within=config),
    script:
        "../../scripts/plane/zero_shot.py"


rule plane_nli:
    input:
        model=plane_model_input("nli"),
        item_table="results/plane/evaluation/items.tsv",
    output:
        "results/plane/nli/{model}.tsv",
    log:
        "results/logs/plane/plane_nli/{model}.log",
    benchmark:
        "results/benchmarks/plane/plane_nli/{model}.tsv"
    wildcard_constraints:
        model=r"[A-Za-z0-9_.-]+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus("plane_nli", plane_model_location("nli")),
        mem_mb=MODEL_JOBS.mem_mb("plane_nli", plane_model_location("nli")),
        runtime=MODEL_JOBS.runtime("plane_nli", plane_model_location("nli")),
    params:
        location=plane_model_location("nli"),
        nli=lookup(dpath="plane/nli", within=config),
        dtype=config["dtype"],
    script:
        "../../scripts/plane/nli.py"


rule plane_finetune:
    input:
        unpack(plane_own_on_released_test),
        model=plane_finetune_model,
        train="results/plane/splits/{kind}/{seed}/train.tsv",
        test="results/plane/splits/{kind}/{seed}/test.tsv",
    output:
        predictions="results/plane/finetune/{kind}/{seed}/predictions.tsv",
        accuracy="results/plane/finetune/{kind}/{seed}/accuracy.tsv",
    log:
        "results/logs/plane/plane_finetune/{kind}.{seed}.log",
    benchmark:
        "results/benchmarks/plane/plane_finetune/{kind}.{seed}.tsv"
    wildcard_constraints:
        kind="good|one_it|in_distribution",
        seed=r"\d+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus(
            "plane_finetune", plane_finetune_location, fine_tuning_of("plane")
        ),
        mem_mb=MODEL_JOBS.mem_mb(
            "plane_finetune", plane_finetune_location, fine_tuning_of("plane")
        ),
        runtime=MODEL_JOBS.runtime(
            "plane_finetune", plane_finetune_location, fine_tuning_of("plane")
        ),
    params:
        model=lookup(dpath="plane/finetune/model", within=config),
        training=plane_finetune_training,
    script:
        "../../scripts/plane/finetune.py"


rule plane_finetune_released:
    input:
        unpack(plane_released_pair),
        model=plane_finetune_model,
    output:
        predictions="results/plane/finetune/released/{kind}/{seed}/predictions.tsv",
        accuracy="results/plane/finetune/released/{kind}/{seed}/accuracy.tsv",
    log:
        "results/logs/plane/plane_finetune_released/{kind}.{seed}.log",
    benchmark:
        "results/benchmarks/plane/plane_finetune_released/{kind}.{seed}.tsv"
    wildcard_constraints:
        kind="good|one_it",
        seed=r"\d+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus(
            "plane_finetune_released", plane_finetune_location, fine_tuning_of("plane")
        ),
        mem_mb=MODEL_JOBS.mem_mb(
            "plane_finetune_released", plane_finetune_location, fine_tuning_of("plane")
        ),
        runtime=MODEL_JOBS.runtime(
            "plane_finetune_released", plane_finetune_location, fine_tuning_of("plane")
        ),
    params:
        model=lookup(dpath="plane/finetune/model", within=config),
        training=plane_finetune_training,
    script:
        "../../scripts/plane/finetune_released.py"


# The sweep's point at the training's own max_length is the main fine-tuning of the same
# split, read instead of trained again (docs/design/plane.md, "Input-length sweep").
ruleorder: plane_finetune_length_of_finetune > plane_finetune_length


rule plane_finetune_length_of_finetune:
    input:
        "results/plane/finetune/{kind}/{seed}/accuracy.tsv",
    output:
        "results/plane/finetune_length/{kind}/{seed}/{length}.tsv",
    log:
        "results/logs/plane/plane_finetune_length/{kind}.{seed}.{length}.log",
    wildcard_constraints:
        kind=plane_length_point_of_finetune()[0],
        seed=r"\d+",
        length=plane_length_point_of_finetune()[1],
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/finetune_length_of_finetune.py"


rule plane_finetune_length:
    input:
        model=plane_finetune_model,
        train="results/plane/splits/{kind}/{seed}/train.tsv",
        test="results/plane/splits/{kind}/{seed}/test.tsv",
    output:
        "results/plane/finetune_length/{kind}/{seed}/{length}.tsv",
    log:
        "results/logs/plane/plane_finetune_length/{kind}.{seed}.{length}.log",
    benchmark:
        "results/benchmarks/plane/plane_finetune_length/{kind}.{seed}.{length}.tsv"
    wildcard_constraints:
        kind="good|one_it|in_distribution",
        seed=r"\d+",
        length=r"\d+",
    conda:
        "../../../envs/plane.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=MODEL_JOBS.gpus(
            "plane_finetune_length", plane_finetune_location, fine_tuning_of("plane")
        ),
        mem_mb=MODEL_JOBS.mem_mb(
            "plane_finetune_length", plane_finetune_location, fine_tuning_of("plane")
        ),
        runtime=MODEL_JOBS.runtime(
            "plane_finetune_length", plane_finetune_location, fine_tuning_of("plane")
        ),
    params:
        model=lookup(dpath="plane/finetune/model", within=config),
        training=plane_finetune_training,
    script:
        "../../scripts/plane/finetune_length.py"
