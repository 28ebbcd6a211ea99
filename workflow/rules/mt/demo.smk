# The demo's own corpus: a synthetic English-Dutch corpus written in the release layouts
# of Tatoeba and FLORES-101, which the download rule then fetches like the real ones.


rule mt_demo_corpus:
    input:
        lexicon="resources/lexicon",
        synonyms="resources/synonyms.tsv",
        idioms="resources/idioms.tsv",
    output:
        tatoeba="results/mt/demo/releases/eng-nld.tar",
        flores="results/mt/demo/releases/flores101_dataset.tar.gz",
        treebank="results/mt/demo/treebank.mrg",
    log:
        "results/logs/mt/mt_demo_corpus.log",
    priority: MT_CHAIN_PRIORITY
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        seed=lookup(dpath="mt/demo_corpus/seed", within=config),
        train_pairs=lookup(dpath="mt/demo_corpus/train_pairs", within=config),
        dev_pairs=lookup(dpath="mt/demo_corpus/dev_pairs", within=config),
        test_pairs=lookup(dpath="mt/demo_corpus/test_pairs", within=config),
        flores_dev_pairs=lookup(dpath="mt/demo_corpus/flores_dev_pairs", within=config),
        flores_devtest_pairs=lookup(
            dpath="mt/demo_corpus/flores_devtest_pairs", within=config
        ),
    script:
        "../../scripts/mt/generate_demo_corpus.py"


rule mt_demo_pretrained_system:
    # The demo's stand-in for an off-the-shelf translation model: a tiny Hugging Face model
    # trained on the demo corpus and saved with save_pretrained; the system that names this
    # folder (mt.systems) loads it through from_pretrained like any released model.
    input:
        source=f"results/mt/corpus/raw/train.{SRC}",
        target=f"results/mt/corpus/raw/train.{TRG}",
    output:
        directory("results/mt/demo/pretrained/{family}"),
    log:
        "results/logs/mt/mt_demo_pretrained_system/{family}.log",
    benchmark:
        "results/benchmarks/mt/mt_demo_pretrained_system/{family}.tsv"
    wildcard_constraints:
        family="marian|m2m100",
    priority: MT_SYSTEM_TRAINING_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
        gpu=1,
    params:
        settings=lookup(dpath="mt/demo_pretrained", within=config),
        source=SRC,
        target=TRG,
    script:
        "../../scripts/mt/train_demo_pretrained_system.py"


rule mt_demo_causal_lm:
    # The demo's stand-in for an LLM: a tiny causal LM trained on the demo corpus in the
    # default prompt's format (natcomp.mt.prompting.DEFAULT_PROMPT, zero-shot), saved with
    # save_pretrained; the system tiny-llama then prompts it like a released decoder-only
    # model.
    input:
        source=f"results/mt/corpus/raw/train.{SRC}",
        target=f"results/mt/corpus/raw/train.{TRG}",
    output:
        directory("results/mt/demo/pretrained/causal"),
    log:
        "results/logs/mt/mt_demo_causal_lm.log",
    benchmark:
        "results/benchmarks/mt/mt_demo_causal_lm.tsv"
    priority: MT_SYSTEM_TRAINING_PRIORITY
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
        gpu=1,
    params:
        settings=lookup(dpath="mt/demo_causal_lm", within=config),
        source=SRC,
        target=TRG,
    script:
        "../../scripts/mt/train_demo_causal_lm.py"
