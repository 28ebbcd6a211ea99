# MT corpus: extraction from the release archives, Moses tokenisation, seeded shuffle,
# joint BPE, corpus sizes as prefixes of the shuffled corpus, fairseq binarisation.
# Tokenisation and BPE application run in config-many chunks as parallel jobs.


rule mt_extract_tatoeba:
    input:
        "results/downloads/mt/tatoeba",
    output:
        source=f"results/mt/corpus/raw/train.{SRC}",
        target=f"results/mt/corpus/raw/train.{TRG}",
    log:
        "results/logs/mt/mt_extract_tatoeba.log",
    benchmark:
        "results/benchmarks/mt/mt_extract_tatoeba.tsv"
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        pair=TATOEBA_PAIR,
        # ISO 639-3 codes of source and target: which side of the pair folder is which
        languages=PAIR_ISO639_3,
    script:
        "../../scripts/mt/extract_tatoeba_train.py"


rule mt_extract_flores:
    input:
        "results/downloads/mt/flores",
    output:
        source=f"results/mt/corpus/raw/flores_{{split}}.{SRC}",
        target=f"results/mt/corpus/raw/flores_{{split}}.{TRG}",
    log:
        "results/logs/mt/mt_extract_flores/{split}.log",
    wildcard_constraints:
        split="dev|devtest",
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        langs=FLORES_LANGS,
    script:
        "../../scripts/mt/extract_flores.py"


rule mt_tokenise_train_chunk:
    input:
        "results/mt/corpus/raw/train.{lang}",
    output:
        temp("results/mt/corpus/tok/chunks/train.{chunk}.{lang}"),
    log:
        "results/logs/mt/mt_tokenise_train_chunk/{chunk}.{lang}.log",
    benchmark:
        "results/benchmarks/mt/mt_tokenise_train_chunk/{chunk}.{lang}.tsv"
    wildcard_constraints:
        chunk=r"\d+",
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        chunks=len(CHUNKS),
    script:
        "../../scripts/mt/tokenise.py"


rule mt_tokenise_flores:
    input:
        "results/mt/corpus/raw/flores_{split}.{lang}",
    output:
        "results/mt/corpus/tok/flores_{split}.{lang}",
    log:
        "results/logs/mt/mt_tokenise_flores/{split}.{lang}.log",
    wildcard_constraints:
        split="dev|devtest",
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        chunks=1,
    script:
        "../../scripts/mt/tokenise.py"


rule mt_shuffle_train:
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
        "results/logs/mt/mt_shuffle_train.log",
    benchmark:
        "results/benchmarks/mt/mt_shuffle_train.tsv"
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        seed=lookup(dpath="mt/preprocess/shuffle_seed", within=config),
    script:
        "../../scripts/mt/shuffle_train.py"


rule mt_learn_bpe:
    input:
        source=f"results/mt/corpus/tok/train.shuf.{SRC}",
        target=f"results/mt/corpus/tok/train.shuf.{TRG}",
    output:
        "results/mt/corpus/bpe/codes",
    log:
        "results/logs/mt/mt_learn_bpe.log",
    benchmark:
        "results/benchmarks/mt/mt_learn_bpe.tsv"
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    threads: lookup(dpath="mt/preprocess/bpe_workers", within=config, default=2)
    resources:
        mem_mb=8000,
        runtime=360,
    params:
        merges=lookup(dpath="mt/preprocess/bpe_merges", within=config),
        min_frequency=lookup(dpath="mt/preprocess/bpe_min_frequency", within=config),
    script:
        "../../scripts/mt/learn_bpe.py"


rule mt_apply_bpe_train_chunk:
    input:
        codes="results/mt/corpus/bpe/codes",
        text="results/mt/corpus/tok/train.shuf.{lang}",
    output:
        temp("results/mt/corpus/bpe/chunks/train.{chunk}.{lang}"),
    log:
        "results/logs/mt/mt_apply_bpe_train_chunk/{chunk}.{lang}.log",
    benchmark:
        "results/benchmarks/mt/mt_apply_bpe_train_chunk/{chunk}.{lang}.tsv"
    wildcard_constraints:
        chunk=r"\d+",
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        chunks=len(CHUNKS),
    script:
        "../../scripts/mt/apply_bpe.py"


rule mt_apply_bpe_flores:
    input:
        codes="results/mt/corpus/bpe/codes",
        text="results/mt/corpus/tok/flores_{split}.{lang}",
    output:
        "results/mt/corpus/bpe/flores_{split}.{lang}",
    log:
        "results/logs/mt/mt_apply_bpe_flores/{split}.{lang}.log",
    wildcard_constraints:
        split="dev|devtest",
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        chunks=1,
    script:
        "../../scripts/mt/apply_bpe.py"


rule mt_gather_bpe_train:
    input:
        expand("results/mt/corpus/bpe/chunks/train.{chunk}.{{lang}}", chunk=CHUNKS),
    output:
        "results/mt/corpus/bpe/train.{lang}",
    log:
        "results/logs/mt/mt_gather_bpe_train/{lang}.log",
    benchmark:
        "results/benchmarks/mt/mt_gather_bpe_train/{lang}.tsv"
    wildcard_constraints:
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    script:
        "../../scripts/mt/concatenate.py"


rule mt_take_size_prefix:
    input:
        "results/mt/corpus/bpe/train.{lang}",
    output:
        "results/mt/corpus/{size}/train.{lang}",
    log:
        "results/logs/mt/mt_take_size_prefix/{size}.{lang}.log",
    wildcard_constraints:
        size="|".join(SIZES),
        lang="|".join(LANGS),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/natcomp.yaml"
    params:
        lines=size_limit,
    script:
        "../../scripts/mt/take_size_prefix.py"


rule mt_binarise:
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
        "results/logs/mt/mt_binarise/{size}.log",
    benchmark:
        "results/benchmarks/mt/mt_binarise/{size}.tsv"
    wildcard_constraints:
        size="|".join(SIZES),
    priority: MT_CHAIN_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: lookup(dpath="mt/preprocess/binarise_workers", within=config, default=2)
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
