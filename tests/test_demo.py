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


def test_report_lists_tables_and_figures(demo_run):
    report = (demo_run / "results" / "report.html").read_text()
    for name in ("bleu.tsv", "systematicity.tsv", "substitutivity.tsv", "overgeneralisation.tsv",
                 "systematicity.png", "overgeneralisation.png", "manual_analysis.tsv"):
        assert name in report, name


def read_table(demo_run, name):
    return pd.read_csv(demo_run / "results" / "tables" / name, sep="\t")


def test_systematicity_is_meaningful(demo_run):
    table = read_table(demo_run, "systematicity.tsv")
    assert set(table["condition"]) == {"np_prime", "vp_prime", "s1_prime", "s3"}
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural"}
    semi_natural = table[table["data_type"] == "semi_natural"]
    assert set(semi_natural["condition"]) == {"np_prime", "s1_prime", "s3"}, "no VP' on semi-natural data"
    assert table["n"].min() > 0
    by_size = table.groupby("size")["consistency"].mean()
    assert by_size["full"] > by_size["small"], "the better model is more consistent"
    by_condition = table.groupby("condition")["consistency"].mean()
    assert by_condition["s1_prime"] > by_condition["s3"], "a minimal change disturbs S2 less than a new S1"


def test_substitutivity_is_meaningful(demo_run):
    table = read_table(demo_run, "substitutivity.tsv")
    assert table["pair"].nunique() == 20
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural"}
    assert table["synonym_consistency"].mean() > table["consistency"].mean()


def test_overgeneralisation_changes_over_checkpoints(demo_run):
    table = read_table(demo_run, "overgeneralisation.tsv")
    assert table["idiom"].nunique() == 20
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural", "random_words"}
    curve = table[table["data_type"] == "synthetic"].groupby(["size", "checkpoint"])["overgeneralisation"].mean()
    assert (curve.groupby("size").max() - curve.groupby("size").min()).max() > 0.05, curve


def test_figures_are_pngs(demo_run):
    for name in ("systematicity", "substitutivity", "substitutivity_per_synonym", "overgeneralisation"):
        assert (demo_run / "results" / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_second_run_has_nothing_to_do(demo_run):
    result = run_snakemake(demo_run, "-n", "--cores", "2")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_demo_data_is_reproducible(demo_run, tmp_path):
    first = (demo_run / "results" / "demo" / "releases" / "eng-nld.tar").read_bytes()
    again = copy_workflow(tmp_path / "again")
    run_snakemake(again, "--cores", "1", "results/demo/releases/eng-nld.tar")
    assert (again / "results" / "demo" / "releases" / "eng-nld.tar").read_bytes() == first


def test_semi_natural_fragments_were_chosen_and_matched(demo_run):
    chosen = pd.read_csv(demo_run / "results" / "mt" / "semi_natural" / "chosen_fragments.tsv", sep="\t")
    assert chosen["id"].tolist() == ["VP1", "VP2", "VP3", "NP1", "NP2", "NP3", "NP4", "NP5"]
    assert chosen["nonterminals"].min() >= 15
    phrases = pd.read_csv(demo_run / "results" / "mt" / "semi_natural" / "phrases.tsv", sep="\t")
    assert set(phrases["id"]) == set(chosen["id"])
