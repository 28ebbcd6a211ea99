# The family's tables and figure: human ratings per variant, Table 2 (models x variants),
# the top phrases (Table 1/3), Figure 3a, and the demo's evidence that the method works.


rule noncompsst_ratings:
    input:
        stimuli=noncompsst_study2_stimuli,
        sentiment=(
            noncompsst_download("ratings")
            if NONCOMPSST_SOURCE == "released"
            else "results/noncompsst/study2/sentiment.tsv"
        ),
        ungrammatical=(
            []
            if NONCOMPSST_SOURCE == "released"
            else "results/noncompsst/study2/ungrammatical.tsv"
        ),
    output:
        report_table(
            "results/tables/noncompsst/ratings.tsv",
            title="Human non-compositionality ratings per phrase and variant",
            caption="../../report/noncompsst/ratings.rst",
            category="NonCompSST",
            subcategory="ratings",
        ),
    log:
        "results/logs/noncompsst/noncompsst_ratings/ratings.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        released=NONCOMPSST_SOURCE == "released",
    script:
        "../../scripts/noncompsst/ratings.py"


rule noncompsst_report:
    input:
        unpack(noncompsst_report_inputs),
    output:
        models=report_table(
            "results/tables/noncompsst/models.tsv",
            title="Sentiment models against the human ratings (paper Table 2)",
            caption="../../report/noncompsst/models.rst",
            category="NonCompSST",
            subcategory="models",
            summary=True,
        ),
        top=report_table(
            "results/tables/noncompsst/top_phrases.tsv",
            title="The most non-compositional phrases by human MAXABS",
            caption="../../report/noncompsst/top_phrases.rst",
            category="NonCompSST",
            subcategory="ratings",
            summary=True,
        ),
        figure=report(
            in_summary(
                "results/figures/noncompsst/maxabs_by_composition.png",
                "MAXABS by composition type",
            ),
            caption="../../report/noncompsst/maxabs_by_composition.rst",
            category="NonCompSST",
            subcategory="ratings",
        ),
        by_length=report(
            "results/figures/noncompsst/ratings_by_length.png",
            caption="../../report/noncompsst/ratings_by_length.rst",
            category="NonCompSST",
            subcategory="ratings",
        ),
        by_category=report(
            "results/figures/noncompsst/ratings_by_category.png",
            caption="../../report/noncompsst/ratings_by_category.rst",
            category="NonCompSST",
            subcategory="ratings",
        ),
        # the models' per-phrase outcomes in one table (natcomp compare pairs them)
        item_outcomes="results/tables/noncompsst/item_outcomes.tsv",
    log:
        "results/logs/noncompsst/noncompsst_report/report.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    params:
        top_k=lookup(dpath="noncompsst/evaluation/top_k", within=config),
        top_n=lookup(dpath="noncompsst/evaluation/top_phrases", within=config),
        sentiment_model=noncompsst_sentiment_model(),
    script:
        "../../scripts/noncompsst/report.py"


rule noncompsst_demo_summary:
    input:
        ratings="results/tables/noncompsst/ratings.tsv",
        planted="results/noncompsst/demo/planted.tsv",
        agreements=expand(
            "results/tables/noncompsst/agreement_{study}.tsv", study=NONCOMPSST_STUDIES
        ),
        evaluations=expand(
            "results/noncompsst/evaluation/{model}.tsv",
            model=list(noncompsst_models()),
        ),
    output:
        report_table(
            "results/tables/noncompsst/demo_summary.tsv",
            title="Demo: does the planted non-compositionality come out?",
            caption="../../report/noncompsst/demo_summary.rst",
            category="NonCompSST",
            subcategory="demo",
            summary=True,
        ),
    log:
        "results/logs/noncompsst/noncompsst_demo_summary/demo.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    script:
        "../../scripts/noncompsst/demo_summary.py"


rule noncompsst_stimulus_figure:
    input:
        means=expand("results/noncompsst/{study}/means.tsv", study=NONCOMPSST_STUDIES),
    output:
        report(
            "results/figures/noncompsst/stimulus_ratings.png",
            caption="../../report/noncompsst/stimulus_ratings.rst",
            category="NonCompSST",
            subcategory="annotation studies",
        ),
    log:
        "results/logs/noncompsst/noncompsst_stimulus_figure/figure.log",
    localrule: True
    conda:
        "../../../envs/noncompsst.yaml"
    script:
        "../../scripts/noncompsst/stimulus_figure.py"
