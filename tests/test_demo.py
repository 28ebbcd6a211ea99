"""The whole demo workflow, end to end, in a fresh copy of the workflow (minutes)."""

import pandas as pd
import pytest

from natcomp.workflow_copy import copy_workflow, run_snakemake

pytestmark = pytest.mark.demo
pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("demo"))
    run_snakemake(workdir, "--cores", "2")
    run_snakemake(workdir, "--cores", "2", "--report", "results/report.html")
    return workdir


def test_bleu_table(demo_run):
    table = pd.read_csv(demo_run / "results" / "tables" / "bleu.tsv", sep="\t")
    assert list(table.columns) == ["size", "seed", "split", "bleu", "signature"]
    assert len(table) == 2 * 2 * 2
    # The demo language is small and regular: a model that learned it translates it well.
    assert table["bleu"].min() > 40, table
    full = table[table["size"] == "full"]["bleu"].mean()
    small = table[table["size"] == "small"]["bleu"].mean()
    assert full > small, "more training data must help on the demo language"


def test_report_lists_the_bleu_table(demo_run):
    report = (demo_run / "results" / "report.html").read_text()
    assert "bleu.tsv" in report


def test_second_run_has_nothing_to_do(demo_run):
    result = run_snakemake(demo_run, "-n", "--cores", "2")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_demo_data_is_reproducible(demo_run, tmp_path):
    first = (demo_run / "results" / "demo" / "releases" / "eng-nld.tar").read_bytes()
    again = copy_workflow(tmp_path / "again")
    run_snakemake(again, "--cores", "1", "results/demo/releases/eng-nld.tar")
    assert (again / "results" / "demo" / "releases" / "eng-nld.tar").read_bytes() == first
