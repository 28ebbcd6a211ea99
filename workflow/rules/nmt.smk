# NMT models: fairseq training per corpus size and seed (resumable), exported epoch
# checkpoints, beam-search translation of FLORES-101 and sacrebleu scores.


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
        gpu=1,
    params:
        workdir="results/mt/train/{size}/seed{seed}",
        epochs=kept_epochs,
        fairseq=lookup(dpath="mt/train/fairseq", within=config),
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


rule translate_flores:
    input:
        checkpoint="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
        sources=expand(
            f"results/mt/corpus/raw/flores_{{split}}.{SRC}", split=MT["bleu"]["splits"]
        ),
    output:
        expand(
            "results/mt/translations/{{size}}/seed{{seed}}/flores_{split}.txt",
            split=MT["bleu"]["splits"],
        ),
    log:
        "results/logs/translate_flores/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/translate_flores/{size}.seed{seed}.tsv"
    conda:
        "../../envs/nmt.yaml"
    threads: 1
    resources:
        gpu=1,
    params:
        source=SRC,
        target=TRG,
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
    script:
        "../scripts/translate_flores.py"


rule score_bleu:
    input:
        hypotheses="results/mt/translations/{size}/seed{seed}/flores_{split}.txt",
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
