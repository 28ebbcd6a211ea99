# MT corpus: extraction from the release archives, Moses tokenisation, seeded shuffle,
# joint BPE, corpus sizes as prefixes of the shuffled corpus, fairseq binarisation.
# Tokenisation and BPE application run in config-many chunks as parallel jobs.


rule extract_tatoeba_train:
    input:
        "results/downloads/tatoeba",
    output:
        source=f"results/mt/corpus/raw/train.{SRC}",
        target=f"results/mt/corpus/raw/train.{TRG}",
    log:
        "results/logs/extract_tatoeba_train.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        pair=MT["tatoeba_pair"],
    script:
        "../scripts/extract_tatoeba_train.py"


rule extract_flores:
    input:
        "results/downloads/flores",
    output:
        source=f"results/mt/corpus/raw/flores_{{split}}.{SRC}",
        target=f"results/mt/corpus/raw/flores_{{split}}.{TRG}",
    log:
        "results/logs/extract_flores/{split}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        langs=MT["flores_langs"],
    script:
        "../scripts/extract_flores.py"


rule tokenise_train_chunk:
    input:
        "results/mt/corpus/raw/train.{lang}",
    output:
        temp("results/mt/corpus/tok/chunks/train.{chunk}.{lang}"),
    log:
        "results/logs/tokenise_train_chunk/{chunk}.{lang}.log",
    benchmark:
        "results/benchmarks/tokenise_train_chunk/{chunk}.{lang}.tsv"
    conda:
        "../../envs/natcomp.yaml"
    params:
        chunks=len(CHUNKS),
    script:
        "../scripts/tokenise.py"


rule tokenise_flores:
    input:
        "results/mt/corpus/raw/flores_{split}.{lang}",
    output:
        "results/mt/corpus/tok/flores_{split}.{lang}",
    log:
        "results/logs/tokenise_flores/{split}.{lang}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        chunks=1,
    script:
        "../scripts/tokenise.py"


rule shuffle_train:
    input:
        source=expand(
            f"results/mt/corpus/tok/chunks/train.{{chunk}}.{SRC}", chunk=CHUNKS
        ),
        target=expand(
            f"results/mt/corpus/tok/chunks/train.{{chunk}}.{TRG}", chunk=CHUNKS
        ),
    output:
        source=f"results/mt/corpus/tok/train.shuf.{SRC}",
        target=f"results/mt/corpus/tok/train.shuf.{TRG}",
    log:
        "results/logs/shuffle_train.log",
    benchmark:
        "results/benchmarks/shuffle_train.tsv"
    conda:
        "../../envs/natcomp.yaml"
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        seed=MT["preprocess"]["shuffle_seed"],
    script:
        "../scripts/shuffle_train.py"


rule learn_bpe:
    input:
        source=f"results/mt/corpus/tok/train.shuf.{SRC}",
        target=f"results/mt/corpus/tok/train.shuf.{TRG}",
    output:
        "results/mt/corpus/bpe/codes",
    log:
        "results/logs/learn_bpe.log",
    benchmark:
        "results/benchmarks/learn_bpe.tsv"
    conda:
        "../../envs/natcomp.yaml"
    threads: 2
    resources:
        mem_mb=8000,
        runtime=360,
    params:
        merges=MT["preprocess"]["bpe_merges"],
    script:
        "../scripts/learn_bpe.py"


rule apply_bpe_train_chunk:
    input:
        codes="results/mt/corpus/bpe/codes",
        text="results/mt/corpus/tok/train.shuf.{lang}",
    output:
        temp("results/mt/corpus/bpe/chunks/train.{chunk}.{lang}"),
    log:
        "results/logs/apply_bpe_train_chunk/{chunk}.{lang}.log",
    benchmark:
        "results/benchmarks/apply_bpe_train_chunk/{chunk}.{lang}.tsv"
    conda:
        "../../envs/natcomp.yaml"
    params:
        chunks=len(CHUNKS),
    script:
        "../scripts/apply_bpe.py"


rule apply_bpe_flores:
    input:
        codes="results/mt/corpus/bpe/codes",
        text="results/mt/corpus/tok/flores_{split}.{lang}",
    output:
        "results/mt/corpus/bpe/flores_{split}.{lang}",
    log:
        "results/logs/apply_bpe_flores/{split}.{lang}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        chunks=1,
    script:
        "../scripts/apply_bpe.py"


rule gather_bpe_train:
    input:
        expand("results/mt/corpus/bpe/chunks/train.{chunk}.{{lang}}", chunk=CHUNKS),
    output:
        "results/mt/corpus/bpe/train.{lang}",
    log:
        "results/logs/gather_bpe_train/{lang}.log",
    conda:
        "../../envs/natcomp.yaml"
    script:
        "../scripts/concatenate.py"


rule take_size_prefix:
    input:
        "results/mt/corpus/bpe/train.{lang}",
    output:
        "results/mt/corpus/{size}/train.{lang}",
    log:
        "results/logs/take_size_prefix/{size}.{lang}.log",
    conda:
        "../../envs/natcomp.yaml"
    params:
        lines=size_limit,
    script:
        "../scripts/take_size_prefix.py"


rule binarise_corpus:
    input:
        train_source=f"results/mt/corpus/{{size}}/train.{SRC}",
        train_target=f"results/mt/corpus/{{size}}/train.{TRG}",
        valid_source=f"results/mt/corpus/bpe/flores_dev.{SRC}",
        valid_target=f"results/mt/corpus/bpe/flores_dev.{TRG}",
        test_source=f"results/mt/corpus/bpe/flores_devtest.{SRC}",
        test_target=f"results/mt/corpus/bpe/flores_devtest.{TRG}",
    output:
        directory("results/mt/data-bin/{size}"),
    log:
        "results/logs/binarise_corpus/{size}.log",
    benchmark:
        "results/benchmarks/binarise_corpus/{size}.tsv"
    conda:
        "../../envs/nmt.yaml"
    threads: 2
    resources:
        mem_mb=8000,
        runtime=240,
    params:
        source=SRC,
        target=TRG,
        train_prefix=subpath(input.train_source, strip_suffix=f".{SRC}"),
        valid_prefix=subpath(input.valid_source, strip_suffix=f".{SRC}"),
        test_prefix=subpath(input.test_source, strip_suffix=f".{SRC}"),
    shell:
        "fairseq-preprocess --source-lang {params.source} --target-lang {params.target}"
        " --trainpref {params.train_prefix} --validpref {params.valid_prefix}"
        " --testpref {params.test_prefix} --destdir {output} --joined-dictionary"
        " --workers {threads} > {log} 2>&1"
