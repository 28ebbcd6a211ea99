import base64
import io
import re

import pandas as pd
import pytest
from workflow_copy import run_snakemake

from natcomp.report_table import numeric_columns, table_html, write_html_table
from natcomp.tsv import write_tsv


def write_example(path):
    write_tsv(
        path,
        pd.DataFrame(
            {
                "data_type": ["synthetic", "semi_natural"],
                "condition": ["np_prime", "s3"],
                "small": [0.123456, 0.5],
                "small_sd": [0.01, None],
                "note": ["<never>", ""],
            }
        ),
        float_format="%.4f",
    )


def test_the_html_shows_the_tsv_as_a_table_with_its_exact_cells(tmp_path):
    write_example(tmp_path / "summary.tsv")
    write_html_table(tmp_path / "summary.tsv", tmp_path / "summary.html", "Systematicity summary")
    page = (tmp_path / "summary.html").read_text()
    assert "<h1>Systematicity summary</h1>" in page
    [shown] = pd.read_html(io.StringIO(page), flavor="lxml", keep_default_na=False, converters={"small": str})
    assert list(shown.columns) == ["data_type", "condition", "small", "small_sd", "note"]
    assert shown["small"].tolist() == ["0.1235", "0.5000"], "the numbers as written in the TSV"
    assert shown["small_sd"].astype(str).tolist()[1] == "", "a missing value is an empty cell"
    assert shown["note"].tolist() == ["<never>", ""], "text is escaped, not markup"
    assert "&lt;never&gt;" in page


def test_the_html_shows_the_runs_settings_above_the_table(tmp_path):
    write_example(tmp_path / "summary.tsv")
    write_html_table(tmp_path / "summary.tsv", tmp_path / "a.html", "t", settings="demo scale; seeds 1, 2 <&>")
    page = (tmp_path / "a.html").read_text()
    assert "<p class=settings>This run: demo scale; seeds 1, 2 &lt;&amp;&gt;</p>" in page
    assert page.index("This run:") < page.index("<table")
    write_html_table(tmp_path / "summary.tsv", tmp_path / "b.html", "t")
    assert "This run:" not in (tmp_path / "b.html").read_text(), "no settings line without settings"


def test_the_html_carries_the_tsv_as_a_download(tmp_path):
    write_example(tmp_path / "summary.tsv")
    write_html_table(tmp_path / "summary.tsv", tmp_path / "summary.html", "t")
    page = (tmp_path / "summary.html").read_text()
    match = re.search(
        r'<a download="summary.tsv" href="data:text/tab-separated-values;charset=utf-8;base64,([^"]+)"', page
    )
    assert match, page[:500]
    assert base64.b64decode(match.group(1)) == (tmp_path / "summary.tsv").read_bytes()


def test_numeric_columns_are_right_aligned():
    table = pd.DataFrame({"size": ["small", "full"], "seed": ["1", "2"], "sd": ["0.1000", ""], "empty": ["", ""]})
    assert numeric_columns(table) == ["seed", "sd"]
    page = table_html(table, "t")
    assert "td:nth-child(2)" in page and "td:nth-child(3)" in page
    assert "td:nth-child(1)" not in page and "td:nth-child(4)" not in page


def test_an_empty_table_keeps_its_header(tmp_path):
    (tmp_path / "empty.tsv").write_text("family\tsize\n")
    write_html_table(tmp_path / "empty.tsv", tmp_path / "empty.html", "nothing yet")
    page = (tmp_path / "empty.html").read_text()
    assert "<th>family</th>" in page and "(0 rows)" in page


REPORT_SNAKEFILE = """
report: "front.rst"


rule table:
    output:
        tsv="results/summary.tsv",
        html=report("results/summary.html", caption="caption.rst", category="MT compositionality"),
    run:
        import pandas as pd
        from natcomp.report_table import write_html_table
        from natcomp.tsv import write_tsv

        write_tsv(output.tsv, pd.DataFrame({"size": ["small"], "consistency": [0.75]}), float_format="%.4f")
        write_html_table(output.tsv, output.html, "Summary")
"""


@pytest.mark.workflow
def test_snakemakes_report_shows_the_html_table_inline(tmp_path):
    """Snakemake's report embeds an HTML result as text/html (shown in the page), where a
    .tsv result would only be a download: the report carries the rendered table."""
    (tmp_path / "Snakefile").write_text(REPORT_SNAKEFILE)
    (tmp_path / "front.rst").write_text("Front page.\n")
    (tmp_path / "caption.rst").write_text("A summary.\n")
    run_snakemake(tmp_path, "--cores", "1", "--quiet")
    run_snakemake(tmp_path, "--report", "report.html")
    report = (tmp_path / "report.html").read_text()
    embedded = re.findall(r"data:text/html;charset=[^;]+;filename=summary\.html;base64,([A-Za-z0-9+/=]+)", report)
    assert len(embedded) == 1, "the table is a text/html result of the report"
    page = base64.b64decode(embedded[0]).decode()
    assert "<table" in page and "<td>0.7500</td>" in page
