# NMT models: fairseq training per corpus size and seed (resumable), exported epoch
# checkpoints, and sacrebleu scores of the FLORES-101 translations (made in mt_tests.smk).


rule train_model:
    input:
        "results/mt/data-bin/{size}",
    output:
        best="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        manifest="results/mt/models/{size}/seed{seed}/epoch_checkpoints.tsv",
    log:
        "results/logs/train_model/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/train_model/{size}.seed{seed}.tsv"
    conda:
        "../../envs/nmt.yaml"
    threads: 1
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
    script:
        "../scripts/train_model.py"


rule export_epoch_checkpoint:
    input:
        "results/mt/models/{size}/seed{seed}/epoch_checkpoints.tsv",
    output:
        "results/mt/models/{size}/seed{seed}/checkpoint{epoch}.pt",
    log:
        "results/logs/export_epoch_checkpoint/{size}.seed{seed}.{epoch}.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/export_epoch_checkpoint.py"


rule score_bleu:
    input:
        translations="results/mt/translations/{size}/seed{seed}/best/flores_{split}.tsv",
        sources=f"results/mt/corpus/raw/flores_{{split}}.{SRC}",
        references=f"results/mt/corpus/raw/flores_{{split}}.{TRG}",
    output:
        "results/mt/bleu/{size}/seed{seed}/{split}.tsv",
    log:
        "results/logs/score_bleu/{size}.seed{seed}.{split}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        target=TRG,
    script:
        "../scripts/score_bleu.py"


rule bleu_table:
    input:
        bleu_scores(),
    output:
        report(
            "results/tables/bleu.tsv",
            caption="../report/bleu.rst",
            category="MT models",
            labels={"table": "BLEU"},
        ),
    log:
        "results/logs/bleu_table.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/bleu_table.py"
