"""The PSS part of the demo run (conftest.demo_run): a real encoder must separate from a
tiny random one."""

import pandas as pd
import pytest

pytestmark = pytest.mark.demo


def test_the_real_encoder_is_more_polarity_sensitive(demo_run):
    table = pd.read_csv(demo_run.workdir / "results" / "tables" / "pss" / "table1.tsv", sep="\t")
    frozen = table[table["mode"] == "fb"].set_index(["encoder", "head"])
    for head in ("linear", "dnn"):
        assert frozen.loc[("minilm", head), "pss"] > frozen.loc[("tiny_random", head), "pss"] + 10, table
        assert frozen.loc[("minilm", head), "accuracy"] > 70, table
