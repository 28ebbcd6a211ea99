"""The PLANE part of the demo run (conftest.demo_run)."""

import pandas as pd
import pytest

pytestmark = pytest.mark.demo


def test_fine_tuning_beats_chance_on_good(demo_run):
    table = pd.read_csv(demo_run.workdir / "results" / "tables" / "plane" / "table6_finetune.tsv", sep="\t")
    good = table[(table["setting"] == "good") & (table["test_set"] == "own")].iloc[0]
    assert good["accuracy_mean"] > good["chance"] + 0.1, table


def test_items_cover_every_class(demo_run):
    table = pd.read_csv(demo_run.workdir / "results" / "tables" / "plane" / "items_per_class_it.tsv", sep="\t")
    assert len(table) > 0
