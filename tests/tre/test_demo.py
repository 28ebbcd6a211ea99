"""The TRE part of the demo run (conftest.demo_run)."""

import pandas as pd
import pytest

pytestmark = pytest.mark.demo


def test_both_encoders_have_a_correlation_per_score(demo_run):
    table = pd.read_csv(demo_run.workdir / "results" / "tables" / "tre" / "table2.tsv", sep="\t")
    assert set(zip(table["encoder"], table["score"])) == {
        (encoder, score) for encoder in ("minilm", "tiny_random") for score in ("wns", "ti")
    }
    assert table["p_value"].between(0, 1).all() and table["spearman_rho"].between(-1, 1).all()
    tre = table.groupby("encoder")["mean_tre"].first()
    assert tre["minilm"] > tre["tiny_random"], "a mean-pooled random encoder is nearly additive"
