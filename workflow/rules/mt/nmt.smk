# NMT models: fairseq training per corpus size and seed (resumable), exported epoch
# checkpoints, and sacrebleu scores of the FLORES-101 translations (made in mt_tests.smk).


rule mt_train:
    input:
        "results/mt/data-bin/{size}",
    output:
        best="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        manifest="results/mt/models/{size}/seed{seed}/epoch_checkpoints.tsv",
    log:
        "results/logs/mt/mt_train/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/mt/mt_train/{size}.seed{seed}.tsv"
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    # The trainer and its data-loading processes (mt.train.loading_workers).
    threads: 1 + lookup(dpath="mt/train/loading_workers", within=config, default=0)
    resources:
        # Transformer-base on one GPU; the binarised corpus is memory-mapped.
        mem_mb=10000,
        runtime=4320,
        gpu=1,
    params:
        workdir="results/mt/train/{size}/seed{seed}",
        epochs=kept_epochs,
        fairseq=fairseq_options,
        source=SRC,
        target=TRG,
        tokens_per_update=lookup(dpath="mt/train/tokens_per_update", within=config),
        max_tokens=lookup(dpath="mt/train/max_tokens", within=config),
        precision=lookup(dpath="mt/train/precision", within=config),
        allow_tf32=lookup(dpath="mt/train/allow_tf32", within=config),
        loading_workers=lookup(
            dpath="mt/train/loading_workers", within=config, default=0
        ),
        # The GPUs this job was given (--set-resources mt_train:gpu=N): fairseq alone
        # would take every visible GPU.
        gpus=lambda wildcards, resources: resources.gpu,
    script:
        "../../scripts/mt/train.py"


rule mt_export_epoch_checkpoint:
    input:
        "results/mt/models/{size}/seed{seed}/epoch_checkpoints.tsv",
    output:
        "results/mt/models/{size}/seed{seed}/checkpoint{epoch}.pt",
    log:
        "results/logs/mt/mt_export_epoch_checkpoint/{size}.seed{seed}.{epoch}.log",
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
        epoch=r"\d+",
    priority: MT_CHAIN_PRIORITY
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    script:
        "../../scripts/mt/export_epoch_checkpoint.py"


rule mt_bleu:
    input:
        translations="results/mt/translations/{size}/seed{seed}/best.tsv",
        sources=f"results/mt/corpus/raw/flores_{{split}}.{SRC}",
        references=f"results/mt/corpus/raw/flores_{{split}}.{TRG}",
    output:
        "results/mt/bleu/{size}/seed{seed}/{split}.tsv",
    log:
        "results/logs/mt/mt_bleu/{size}.seed{seed}.{split}.log",
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
        split="dev|devtest",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        model=trained_model,
        target=TRG,
    script:
        "../../scripts/mt/bleu.py"


rule mt_bleu_table:
    input:
        scores=bleu_scores(),
        published="resources/mt/published.tsv",
        generation=expand("results/mt/systems/{system}/generation.tsv", system=SYSTEMS),
        # every model's FLORES translations: the paired BLEU comparisons
        translations=[path for paths in bleu_translations().values() for path in paths],
        flores=expand(
            "results/mt/corpus/raw/flores_{split}.{lang}",
            split=MT["bleu"]["splits"],
            lang=[SRC, TRG],
        ),
    output:
        table=in_summary("results/tables/mt/bleu.tsv", "BLEU on FLORES-101 per model"),
        comparison="results/tables/mt/bleu_comparison.tsv",
        comparison_html=report(
            "results/tables/mt/bleu_comparison.html",
            caption="../../report/mt/bleu_comparison.rst",
            category="MT models",
            labels={"table": "BLEU, paired comparisons"},
        ),
        # per pretrained system and translation set: empty answers and answers cut off by
        # the token limit (a prompted LM's are counted, not hidden)
        generation="results/tables/mt/generation.tsv",
        # The report shows the HTML rendering (a .tsv would only be a download).
        html=report(
            "results/tables/mt/bleu.html",
            caption="../../report/mt/bleu.rst",
            category="MT models",
            labels={"table": "BLEU"},
        ),
    log:
        "results/logs/mt/mt_bleu_table.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        run_settings=run_settings("mt", config["mt"]),
        sizes=SIZES,
        systems=SYSTEMS,
        translations=bleu_translations(),
        flores={
            split: [
                f"results/mt/corpus/raw/flores_{split}.{lang}" for lang in (SRC, TRG)
            ]
            for split in MT["bleu"]["splits"]
        },
        target_lang=TRG,
    script:
        "../../scripts/mt/bleu_table.py"
