"""The demo's report and summary page, as a reader gets them (the session's demo run)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.demo

FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")


@pytest.fixture(scope="module")
def results(demo_run):
    return demo_run.workdir / "results"


def test_every_final_table_is_an_html_table_of_the_report(results):
    """A table marked for the report is in it as its HTML rendering (shown in the page),
    never as a bare .tsv item (a download button only); every family has such tables."""
    report = (results / "report.html").read_text(encoding="utf-8")
    embedded = set(re.findall(r"data:([\w/+.-]+);charset=[^;]+;filename=([^;]+);base64,", report))
    renderings = sorted((results / "tables").rglob("*.html"))
    assert {path.parent.name for path in renderings} == set(FAMILIES)
    for path in renderings:
        assert path.with_suffix(".tsv").is_file()
        assert ("text/html", path.name) in embedded, f"{path.relative_to(results)} is not in the report"
        shown = path.read_text(encoding="utf-8")
        assert "<p class=settings>This run: demo scale; " in shown, f"{path.name} does not say how the run was set"
    downloads = {name for _, name in embedded if name.endswith(".tsv")}
    assert downloads <= {"chosen_fragments.tsv", "candidates_sheet.tsv"}, "only the sheets to edit stay TSV items"
    for table in ("mt/systematicity_summary", "noncompsst/models", "plane/table6_finetune", "pss/table1", "tre/table2"):
        assert (results / "tables" / f"{table}.html").is_file(), table


def test_the_landing_page_starts_with_its_title_and_the_summary_link(results):
    report = (results / "report.html").read_text(encoding="utf-8")
    assert "natcomp: how compositionally do NLP models treat natural language?" in report
    assert "align-items: flex-start" in report, "the report's stylesheet keeps the text at the top"


def test_the_summary_page_has_every_family(results):
    page = (results / "summary.html").read_text(encoding="utf-8")
    assert re.findall(r'<h2 id="(\w+)">', page) == list(FAMILIES)
    assert "<script" not in page.lower()
    assert "paper_small" in page, "the MT summaries carry the paper's Tables 4a and 6a"
    assert page.count("<p class=settings>This run: demo scale; ") == len(FAMILIES), "each family's settings"
    numbers = (results / "summary.tsv").read_text(encoding="utf-8").splitlines()
    assert numbers[0] == "family\tscale\ttable\trow\tcolumn\tvalue"
    assert {line.split("\t")[0] for line in numbers[1:]} == set(FAMILIES)
