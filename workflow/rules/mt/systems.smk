# Pretrained translation systems (Hugging Face models, mt.systems) tested beside the
# trained models: translation models, and causal LMs prompted to translate (family
# causal). One decoding job per system through the same translation cache, the same
# scorers, BLEU and synonym probes. A released model has no epoch checkpoints: every
# test, overgeneralisation included, is scored once on it (checkpoint "final").


rule mt_system_few_shot:
    # A causal LM's few-shot examples, drawn once so that every decoding job of the system
    # shows the same ones: never a sentence the system translates (test items, FLORES,
    # synonym probes).
    input:
        unpack(system_translation_sets),
        unpack(few_shot_pool_input),
        synonyms="resources/synonyms.tsv",
    output:
        "results/mt/systems/{system}/few_shot.tsv",
    log:
        "results/logs/mt/mt_system_few_shot/{system}.log",
    wildcard_constraints:
        system=CAUSAL_SYSTEM_NAMES,
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        settings=system_settings,
        sets=system_translation_set_names,
        # A function: Snakemake would read "{term}" in a plain string as a wildcard.
        probe_templates=lambda wildcards: list(MT["synonyms"]["probe_templates"]),
    script:
        "../../scripts/mt/system_few_shot.py"


rule mt_system_translate:
    # Every test's items and FLORES; and the n best hypotheses of the synonym probe
    # sentences (appendix C) from the same loaded model, as a trained model's best
    # checkpoint decodes them in its mt_translate job: a job of their own loaded the model
    # a second time (minutes for an LLM) for some forty sentences.
    input:
        unpack(system_translation_sets),
        unpack(system_model_input),
        **SYSTEM_PROBES_INPUT,
    output:
        **SYSTEM_PROBES_OUTPUT,
        translations="results/mt/systems/{system}/translations.tsv",
        generation="results/mt/systems/{system}/generation.tsv",
    log:
        "results/logs/mt/mt_system_translate/{system}.log",
    benchmark:
        "results/benchmarks/mt/mt_system_translate/{system}.tsv"
    wildcard_constraints:
        system=SYSTEM_NAMES,
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        # GPUs, host memory and time for the job's model (natcomp.jobsize.RULES)
        gpu=unless_served(
            MODEL_JOBS.gpus("mt_system_translate", system_model), system_served, 0
        ),
        mem_mb=unless_served(
            MODEL_JOBS.mem_mb("mt_system_translate", system_model),
            system_served,
            SERVED_JOB_MEM_MB,
        ),
        runtime=MODEL_JOBS.runtime("mt_system_translate", system_model),
        served_requests=served_requests(system_served),
    params:
        sets=system_translation_set_names,
        settings=system_settings,
        cache_dir="results/mt/translation_cache/systems/{system}",
        source=SRC,
        target=TRG,
        served=SERVED,
        usage=system_translate_usage,
        probes_usage=system_probes_usage,
        # A function: Snakemake would read "{term}" in a plain string as a wildcard.
        templates=lambda wildcards: list(MT["synonyms"]["probe_templates"]),
        nbest=lookup(dpath="mt/synonyms/nbest", within=config),
    script:
        "../../scripts/mt/system_translate.py"


rule mt_system_score:
    input:
        unpack(test_items),
        unpack(synonym_candidates_input),
        translations="results/mt/systems/{system}/translations.tsv",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        "results/mt/systems/{system}/scores/{test}.tsv",
    log:
        "results/logs/mt/mt_system_score/{system}.{test}.log",
    wildcard_constraints:
        system=SYSTEM_NAMES,
        test="|".join(registry.TESTS),
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        model=pretrained_model,
        # a system's one translations file (a trained model's epoch checkpoints share a folder)
        translations=lambda wildcards, input: input.translations,
        data_types=test_data_types,
        keyword_matching=lookup(dpath="mt/tests/keyword_matching", within=config),
        paraphrase_only=lookup(
            dpath="mt/tests/paraphrase_references_only", within=config
        ),
        s_conj_missing_conjunct=lookup(
            dpath="mt/tests/s_conj_missing_conjunct", within=config
        ),
        s_conj_split=lookup(dpath="mt/tests/s_conj_split", within=config),
        target_lang=TRG,
    script:
        "../../scripts/mt/score.py"


rule mt_system_bleu:
    input:
        translations="results/mt/systems/{system}/translations.tsv",
        sources=f"results/mt/corpus/raw/flores_{{split}}.{SRC}",
        references=f"results/mt/corpus/raw/flores_{{split}}.{TRG}",
    output:
        "results/mt/systems/{system}/bleu/{split}.tsv",
    log:
        "results/logs/mt/mt_system_bleu/{system}.{split}.log",
    wildcard_constraints:
        system=SYSTEM_NAMES,
        split="dev|devtest",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        model=pretrained_model,
        target=TRG,
    script:
        "../../scripts/mt/bleu.py"
