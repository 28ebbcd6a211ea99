# Synonym translation candidates (appendix C): probe sentences ("This is the {term} .")
# decoded by every trained model with the n best hypotheses of the beam kept, the spans
# they yield pooled into a sheet a person checks, and the candidate lists scoring uses
# (the shipped lists of resources/synonyms.tsv, the checked sheet, or the pooled spans).


rule mt_synonym_probes:
    input:
        checkpoint="results/mt/models/{size}/seed{seed}/checkpoint_best.pt",
        databin="results/mt/data-bin/{size}",
        codes="results/mt/corpus/bpe/codes",
        synonyms="resources/synonyms.tsv",
    output:
        "results/mt/synonyms/probes/{size}/seed{seed}.tsv",
    log:
        "results/logs/mt/mt_synonym_probes/{size}.seed{seed}.log",
    benchmark:
        "results/benchmarks/mt/mt_synonym_probes/{size}.seed{seed}.tsv"
    wildcard_constraints:
        size="|".join(SIZES),
        seed=r"\d+",
    conda:
        "../../../envs/nmt.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=1,
    params:
        # The same cache folder as the model's other decodes: n-best has its own signature.
        cache_dir="results/mt/translation_cache/{size}/seed{seed}",
        source=SRC,
        target=TRG,
        # A function: Snakemake would read "{term}" in a plain string as a wildcard.
        templates=lambda wildcards: list(MT["synonyms"]["probe_templates"]),
        nbest=lookup(dpath="mt/synonyms/nbest", within=config),
        beam=lookup(dpath="mt/translate/beam", within=config),
        max_len_a=lookup(dpath="mt/translate/max_len_a", within=config),
        max_len_b=lookup(dpath="mt/translate/max_len_b", within=config),
        max_tokens=lookup(dpath="mt/translate/max_tokens", within=config),
        precision=lookup(dpath="mt/translate/precision", within=config),
    script:
        "../../scripts/mt/synonym_probes.py"


rule mt_synonym_sheet:
    input:
        probes=synonym_probe_files(),
        synonyms="resources/synonyms.tsv",
    output:
        report(
            "results/mt/synonyms/candidates_sheet.tsv",
            caption="../../report/mt/synonym_candidates_sheet.rst",
            category="MT compositionality",
            subcategory="synonym candidates",
        ),
    log:
        "results/logs/mt/mt_synonym_sheet.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    script:
        "../../scripts/mt/synonym_sheet.py"


rule mt_synonym_candidates:
    input:
        unpack(synonym_candidate_inputs),
    output:
        "results/mt/synonyms/candidates.tsv",
    log:
        "results/logs/mt/mt_synonym_candidates.log",
    localrule: True
    conda:
        "../../../envs/natcomp.yaml"
    params:
        source=lookup(dpath="mt/synonyms/candidates", within=config),
    script:
        "../../scripts/mt/synonym_candidates.py"
