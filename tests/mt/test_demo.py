"""The whole demo workflow, end to end, in a fresh copy of the workflow (minutes; conftest.demo_run)."""

import pandas as pd
import pytest

from natcomp.mt.bleu import BLEU_TABLE_COLUMNS
from workflow_copy import copy_workflow, run_snakemake

pytestmark = pytest.mark.demo
pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")


@pytest.fixture(scope="module")
def demo(demo_run):
    """The working copy in which the session's demo run finished (see conftest.demo_run)."""
    return demo_run.workdir


def test_bleu_table(demo):
    table = pd.read_csv(demo / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
    # the demo's sizes and seeds are named like the paper's: Table 9 stands beside
    # bleu_tokenised, section 3.1's mean and sd beside each size's devtest mean row
    at = BLEU_TABLE_COLUMNS.index("sacrebleu_signature")
    paper = BLEU_TABLE_COLUMNS.index("tokenised_signature")
    assert list(table.columns) == [
        *BLEU_TABLE_COLUMNS[:at],
        "paper_bleu_sacrebleu",
        "paper_bleu_sacrebleu_sd",
        *BLEU_TABLE_COLUMNS[at:paper],
        "paper_bleu_tokenised",
        *BLEU_TABLE_COLUMNS[paper:],
    ]
    # the models only: 2 sizes x 2 seeds x 2 splits; each size's mean rows apart
    trained = table[(table["system"] == "trained") & (table["kind"] == "model")]
    assert trained["decode_signature"].str.contains("|beam:5|maxlen:1.2*src+10|", regex=False).all()
    assert len(trained) == 2 * 2 * 2 and trained["seed"].notna().all()
    means = table[table["kind"] == "size_mean"].set_index(["size", "split"])
    assert len(means) == 2 * 2 and means["seed"].isna().all() and (means["seeds"] == 2).all()
    by_size = trained.groupby(["size", "split"])
    assert means["bleu_sacrebleu"].to_dict() == pytest.approx(by_size["bleu_sacrebleu"].mean().to_dict())
    assert means["bleu_sacrebleu_sd"].to_dict() == pytest.approx(by_size["bleu_sacrebleu"].std(ddof=1).to_dict())
    assert means.loc[("small", "devtest"), "paper_bleu_sacrebleu"] == 20.6
    # The demo language is small and regular: a model that learned it translates it well.
    assert table["bleu_sacrebleu"].min() > 40 and table["bleu_tokenised"].min() > 0, table
    full = trained[trained["size"] == "full"]["bleu_sacrebleu"].mean()
    small = trained[trained["size"] == "small"]["bleu_sacrebleu"].mean()
    assert full > small, "more training data must help on the demo language"


def test_the_pretrained_system_has_its_own_rows_in_every_table(demo):
    """The demo's stand-in for a released model (a tiny Marian loaded through
    from_pretrained) goes through the same tests: its own rows, no size or seed, and one
    overgeneralisation point instead of a curve."""
    bleu = pd.read_csv(demo / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
    marian = bleu[bleu["system"] == "tiny-marian"]
    assert len(marian) == 2 and marian["size"].isna().all() and marian["seed"].isna().all()
    assert marian["decode_signature"].str.startswith("hf:").all()
    for name in ("systematicity.tsv", "substitutivity.tsv", "overgeneralisation.tsv"):
        table = read_table(demo, name)
        assert list(table.columns[:3]) == ["system", "size", "seed"], name
        assert set(table["system"]) == {"trained", "tiny-marian", "tiny-llama"}, name
        rows = table[table["system"] == "tiny-marian"]
        assert rows["size"].isna().all() and rows["n"].min() > 0, name
    overgeneralisation = read_table(demo, "overgeneralisation.tsv")
    points = overgeneralisation[overgeneralisation["system"] == "tiny-marian"]
    assert points["checkpoint"].isna().all(), "a released model has no epochs"
    assert not points.duplicated(["data_type", "idiom"]).any(), "one point per idiom, not a curve"
    summary = read_table(demo, "systematicity_summary.tsv")
    assert {"small", "full", "tiny-marian", "tiny-marian_sd"} <= set(summary.columns)
    # the paper's seed spread beside the demo's sizes named like the paper's (small, full)
    assert {"paper_small_sd", "small_vs_paper", "paper_full_sd", "full_vs_paper"} <= set(summary.columns)
    assert set(summary["small_vs_paper"]) <= {"within", "outside", ""} and (summary["small_vs_paper"] != "").any()
    assert "paper_consistency_sd" in read_table(demo, "systematicity.tsv").columns
    assert summary["tiny-marian_sd"].isna().all(), "one model: no spread over seeds"
    peaks = read_table(demo, "overgeneralisation_peaks.tsv")
    assert (peaks.loc[peaks["system"] == "tiny-marian", "note"] == "final model only: no training curve").all()
    for table in (overgeneralisation, peaks):  # the paper's Dutch keyword lists, marked as such
        assert set(table["keywords"]) == {"Dutch: the paper's"}
    probes = pd.read_csv(demo / "results" / "mt" / "synonyms" / "candidates_sheet.tsv", sep="\t")
    assert "count_tiny-marian" in probes.columns, "the system's synonym probes are pooled too"


def test_the_prompted_llm_translates_far_above_chance_beside_the_other_systems(demo):
    """The demo's stand-in LLM (a tiny Llama trained in the default prompt's format, then
    prompted zero-shot) is scored like every system, and its answers are accounted for."""
    bleu = pd.read_csv(demo / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
    llama = bleu[bleu["system"] == "tiny-llama"]
    assert len(llama) == 2 and llama["size"].isna().all()
    assert (
        llama["decode_signature"]
        .str.match(r"causal:[0-9a-f]{16}\|prompt:[0-9a-f]{12}\|shots:-\|chat:off\|dec:greedy\|")
        .all()
    )
    assert llama["bleu_sacrebleu"].min() > 30, "a model that learned the demo language translates it"
    for name in ("systematicity.tsv", "substitutivity.tsv", "overgeneralisation.tsv"):
        rows = read_table(demo, name).query("system == 'tiny-llama'")
        assert len(rows) and rows["n"].min() > 0, name
    generation = read_table(demo, "generation.tsv")
    assert set(generation["system"]) == {"tiny-marian", "tiny-llama"}
    counted = generation[generation["system"] == "tiny-llama"]
    assert counted["cut_off"].notna().all() and (counted["empty"] + counted["cut_off"] < counted["sentences"]).all()
    assert generation.loc[generation["system"] == "tiny-marian", "cut_off"].isna().all(), "not recorded"
    few_shot = pd.read_csv(demo / "results" / "mt" / "systems" / "tiny-llama" / "few_shot.tsv", sep="\t")
    assert list(few_shot.columns) == ["line", "source", "target"] and few_shot.empty, "zero-shot"
    probes = pd.read_csv(demo / "results" / "mt" / "synonyms" / "candidates_sheet.tsv", sep="\t")
    assert "count_tiny-llama" in probes.columns, "its beam n-best probes are pooled too"


def test_report_lists_tables_and_figures(demo):
    report = (demo / "results" / "report.html").read_text()
    for name in (
        "bleu.html",
        "systematicity.html",
        "substitutivity.html",
        "overgeneralisation.html",
        "systematicity_summary.html",
        "systematicity.png",
        "overgeneralisation.png",
        "manual_analysis.html",
    ):
        assert name in report, name


def read_table(demo, name):
    return pd.read_csv(demo / "results" / "tables" / "mt" / name, sep="\t")


def test_systematicity_is_meaningful(demo):
    table = read_table(demo, "systematicity.tsv")
    assert set(table["condition"]) == {"np_prime", "vp_prime", "s1_prime", "s3"}
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural"}
    semi_natural = table[table["data_type"] == "semi_natural"]
    assert set(semi_natural["condition"]) == {"np_prime", "s1_prime", "s3"}, "no VP' on semi-natural data"
    assert table["n"].min() > 0
    by_size = table.groupby("size")["consistency"].mean()
    assert by_size["full"] > by_size["small"], "the better model is more consistent"
    by_condition = table.groupby("condition")["consistency"].mean()
    assert by_condition["s1_prime"] > by_condition["s3"], "a minimal change disturbs S2 less than a new S1"


def test_substitutivity_is_meaningful(demo):
    table = read_table(demo, "substitutivity.tsv")
    assert table["pair"].nunique() == 20
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural"}
    assert table["synonym_consistency"].mean() > table["consistency"].mean()


def test_overgeneralisation_changes_over_checkpoints(demo):
    table = read_table(demo, "overgeneralisation.tsv")
    assert table["idiom"].nunique() == 20
    assert set(table["data_type"]) == {"synthetic", "semi_natural", "natural", "random_words"}
    curve = table[table["data_type"] == "synthetic"].groupby(["size", "checkpoint"])["overgeneralisation"].mean()
    assert (curve.groupby("size").max() - curve.groupby("size").min()).max() > 0.05, curve


def test_full_models_overgeneralise_and_then_memorise_the_idioms(demo):
    """The paper's Figure 4: overgeneralisation peaks early in training and declines as the
    models memorise the idiomatic translations. Mean over seeds, data types and idioms."""
    table = read_table(demo, "overgeneralisation.tsv")
    curve = table[table["size"] == "full"].groupby("checkpoint")["overgeneralisation"].mean().sort_index()
    peak_epoch = curve.idxmax()
    first, last = curve.index[0], curve.index[-1]
    assert first < peak_epoch < last, f"the peak is inside the training, not at its ends:\n{curve}"
    assert curve[peak_epoch] >= curve[first] + 0.05, f"a clear rise:\n{curve}"
    assert curve[last] <= 0.6 * curve[peak_epoch], f"a clear fall after the peak:\n{curve}"


def test_figures_are_pngs(demo):
    for name in ("systematicity", "substitutivity", "substitutivity_per_synonym", "overgeneralisation"):
        assert (demo / "results" / "figures" / "mt" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_second_run_has_nothing_to_do(demo):
    result = run_snakemake(demo, "-n", "--cores", "2")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_demo_data_is_reproducible(demo, tmp_path):
    first = (demo / "results" / "mt" / "demo" / "releases" / "eng-nld.tar").read_bytes()
    again = copy_workflow(tmp_path / "again")
    run_snakemake(again, "--cores", "1", "results/mt/demo/releases/eng-nld.tar")
    assert (again / "results" / "mt" / "demo" / "releases" / "eng-nld.tar").read_bytes() == first


def test_semi_natural_fragments_were_chosen_and_matched(demo):
    chosen = pd.read_csv(demo / "results" / "mt" / "semi_natural" / "chosen_fragments.tsv", sep="\t")
    assert chosen["id"].tolist() == ["VP1", "VP2", "VP3", "NP1", "NP2", "NP3", "NP4", "NP5"]
    assert chosen["nonterminals"].min() >= 15
    phrases = pd.read_csv(demo / "results" / "mt" / "semi_natural" / "phrases.tsv", sep="\t")
    assert set(phrases["id"]) == set(chosen["id"])
