# Section 3.2 / appendix B: the two studies exported for a survey tool, responses
# (simulated in the demo, a survey export otherwise), exclusion, Krippendorff's alpha,
# the Study 1 filter and the Study 2 sentiment per stimulus.


rule noncompsst_export_study:
    input:
        stimuli=noncompsst_study_stimuli,
        sst=noncompsst_download("sst"),
    output:
        survey="results/noncompsst/{study}/survey.csv",
        practice="results/noncompsst/{study}/practice.tsv",
    log:
        "results/logs/noncompsst/noncompsst_export_study/{study}.log",
    wildcard_constraints:
        study="study1|study2",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        studies=lookup(dpath="noncompsst/studies", within=config),
        seed=lookup(dpath="noncompsst/seed", within=config),
    script:
        "../../scripts/noncompsst/export_study.py"


rule noncompsst_simulate_study:
    input:
        survey="results/noncompsst/{study}/survey.csv",
        practice="results/noncompsst/{study}/practice.tsv",
    output:
        "results/noncompsst/{study}/responses.csv",
    log:
        "results/logs/noncompsst/noncompsst_simulate_study/{study}.log",
    wildcard_constraints:
        study="study1|study2",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        studies=lookup(dpath="noncompsst/studies", within=config),
        seed=lookup(dpath="noncompsst/seed", within=config),
    script:
        "../../scripts/noncompsst/simulate_study.py"


rule noncompsst_analyse_study:
    input:
        survey="results/noncompsst/{study}/survey.csv",
        practice="results/noncompsst/{study}/practice.tsv",
        responses=noncompsst_responses,
    output:
        exclusion="results/noncompsst/{study}/exclusion.tsv",
        means="results/noncompsst/{study}/means.tsv",
        agreement=report_table(
            "results/tables/noncompsst/agreement_{study}.tsv",
            caption="../../report/noncompsst/agreement.rst",
            category="NonCompSST",
            subcategory="annotation studies",
        ),
    log:
        "results/logs/noncompsst/noncompsst_analyse_study/{study}.log",
    wildcard_constraints:
        study="study1|study2",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        studies=lookup(dpath="noncompsst/studies", within=config),
    script:
        "../../scripts/noncompsst/analyse_study.py"


rule noncompsst_study1_filter:
    input:
        stimuli="results/noncompsst/study1/stimuli.tsv",
        means="results/noncompsst/study1/means.tsv",
    output:
        "results/noncompsst/study2/stimuli.tsv",
    log:
        "results/logs/noncompsst/noncompsst_study1_filter/study1.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        studies=lookup(dpath="noncompsst/studies", within=config),
    script:
        "../../scripts/noncompsst/study1_filter.py"


rule noncompsst_study2_sentiment:
    input:
        "results/noncompsst/study2/means.tsv",
    output:
        sentiment="results/noncompsst/study2/sentiment.tsv",
        ungrammatical="results/noncompsst/study2/ungrammatical.tsv",
    log:
        "results/logs/noncompsst/noncompsst_study2_sentiment/study2.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    script:
        "../../scripts/noncompsst/study2_sentiment.py"
