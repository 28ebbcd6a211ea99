"""The NonCompSST part of the demo run (conftest.demo_run): the method must work on data
with a planted effect."""

import pandas as pd
import pytest

pytestmark = pytest.mark.demo


@pytest.fixture(scope="module")
def summary(demo_run):
    table = pd.read_csv(demo_run.workdir / "results" / "tables" / "noncompsst" / "demo_summary.tsv", sep="\t")
    return dict(zip(table["measure"], table["value"]))


def test_planted_phrases_rank_at_the_top_of_maxabs(summary):
    assert int(summary["planted_rated"]) >= 3
    assert float(summary["share_of_top_k"]) >= 0.6, summary


def test_agreement_is_plausible(summary):
    for study in ("study1", "study2"):
        assert 0.4 < float(summary[f"alpha_{study}"]) < 0.95, summary


def test_the_fine_tuned_model_beats_chance(demo_run):
    models = pd.read_csv(demo_run.workdir / "results" / "tables" / "noncompsst" / "models.tsv", sep="\t")
    assert (models["sst7_f1"] > 1 / 7).all(), models


def test_ratings_table_has_every_variant(demo_run):
    ratings = pd.read_csv(demo_run.workdir / "results" / "tables" / "noncompsst" / "ratings.tsv", sep="\t")
    assert set(ratings["variant"]) == {"ALL", "ALLABS", "MAX", "MAXABS", "ALLCLEAN"}
