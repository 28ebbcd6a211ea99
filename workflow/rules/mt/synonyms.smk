# Synonym translation candidates (appendix C): probe sentences ("This is the {term} .")
# decoded by every trained model with the n best hypotheses of the beam kept (in its
# mt_translate job, tests.smk; a system's in its mt_system_translate job, systems.smk), the spans
# they yield pooled into a sheet a person checks, and the candidate lists scoring uses
# (the shipped lists of resources/synonyms.tsv, the checked sheet, or the pooled spans).


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
