# The report's renderings of final tables: one rule per table marked with report_table()
# (common.smk), so a family's new table is shown as a table without rules of its own;
# and the run's one-page summary (natcomp.summary) of the items marked with in_summary().

for _tsv, _table in REPORT_TABLES.items():

    rule:
        name:
            _table["rule"]
        input:
            _tsv,
        output:
            report(
                _table["html"],
                caption=_table["caption"],
                category=_table["category"],
                subcategory=_table["subcategory"],
            ),
        log:
            _table["log"],
        localrule: True
        conda:
            "../../envs/natcomp.yaml"
        params:
            title=_table["title"],
            run_settings=run_settings(_table["family"], config[_table["family"]]),
        script:
            "../scripts/report_table.py"


rule summary:
    input:
        config="results/config.yaml",
        shown=[
            path
            for section in summary_sections()
            for _, path in section["tables"] + section["figures"]
        ],
    output:
        html=report(
            "results/summary.html",
            caption="../report/summary.rst",
            category="Summary",
        ),
        tsv="results/summary.tsv",
    log:
        "results/logs/summary.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        sections=summary_sections(),
    script:
        "../scripts/summary.py"


FINAL_OUTPUTS["summary"] = lambda: ["results/summary.html", "results/summary.tsv"]
