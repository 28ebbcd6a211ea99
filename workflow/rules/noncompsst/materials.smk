# Appendix A: phrase candidates from the SST trees, and control subphrases (automatic
# choice plus a sheet a person can edit; an edited sheet given in config overrides).


rule noncompsst_candidates:
    input:
        unpack(noncompsst_candidate_inputs),
    output:
        "results/noncompsst/candidates.tsv",
    log:
        "results/logs/noncompsst/noncompsst_candidates/candidates.log",
    benchmark:
        "results/benchmarks/noncompsst/noncompsst_candidates/candidates.tsv"
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        settings=lookup(dpath="noncompsst/candidates", within=config),
    script:
        "../../scripts/noncompsst/candidates.py"


rule noncompsst_controls:
    input:
        candidates="results/noncompsst/candidates.tsv",
        sst=noncompsst_download("sst"),
    output:
        sheet="results/noncompsst/controls_sheet.tsv",
        stimuli="results/noncompsst/study1/stimuli.tsv",
    log:
        "results/logs/noncompsst/noncompsst_controls/controls.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        controls=lookup(dpath="noncompsst/controls", within=config),
        seed=lookup(dpath="noncompsst/seed", within=config),
    script:
        "../../scripts/noncompsst/controls.py"
