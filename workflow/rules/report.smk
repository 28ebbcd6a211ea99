# The report's renderings of final tables: one rule per table marked with report_table()
# (common.smk), so a family's new table is shown as a table without rules of its own.


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
        script:
            "../scripts/report_table.py"
