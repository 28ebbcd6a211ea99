"""The TRE part of the demo run (conftest.demo_run)."""

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.demo


def test_every_setting_has_encoder_and_baseline_rows_with_partial_correlations(demo_run):
    table = pd.read_csv(
        demo_run.workdir / "results" / "tables" / "tre" / "table2.tsv", sep="\t", dtype={"max_length": str}
    )
    assert set(zip(table["setting"], table["encoder"], table["targets"], table["score"])) == {
        (setting, encoder, targets, score)
        for setting in ("paper", "held_out")
        for encoder in ("minilm", "tiny_random")
        for targets in ("encoder", "random", "shuffled")
        for score in ("wns", "ti")
    }
    assert table["p_value"].between(0, 1).all() and table["spearman_rho"].between(-1, 1).all()
    # the demo's encoders set no max_length: one length setting each, no limit, nothing cut
    assert set(table["max_length"]) == {"none"} and (table["cut_sentences"] == 0).all()
    assert np.isfinite(table["partial_rho"]).all() and table["partial_rho"].between(-1, 1).all()
    paper = table[(table["setting"] == "paper") & (table["targets"] == "encoder")]
    tre = paper.groupby("encoder")["mean_tre"].first()
    assert tre["minilm"] > tre["tiny_random"], "a mean-pooled random encoder is nearly additive"
    minilm = table[(table["encoder"] == "minilm") & (table["targets"] == "encoder") & (table["score"] == "wns")]
    assert set(minilm["paper_encoder"]) == {"USE Transformer"}
    assert (minilm[minilm["setting"] == "paper"]["paper_rho"] == -0.168).all()
    held_out = table[(table["setting"] == "held_out") & (table["score"] == "wns")].set_index(["encoder", "targets"])
    # random vectors of unseen sentences cannot be composed from primitives fitted on other phrases
    assert held_out.loc[("minilm", "random"), "mean_tre"] > 0.5
