"""The PSS part of the demo run (conftest.demo_run): a real encoder must separate from a
tiny random one; the paper's direction is the headline table, the other direction a second one."""

import pandas as pd
import pytest

pytestmark = pytest.mark.demo


def test_the_real_encoder_is_more_polarity_sensitive(demo_run):
    tables = demo_run.workdir / "results" / "tables" / "pss"
    table = pd.read_csv(tables / "table1.tsv", sep="\t")
    assert set(table["direction"]) == {"neg_to_pos"}
    assert set(pd.read_csv(tables / "table1_pos_to_neg.tsv", sep="\t")["direction"]) == {"pos_to_neg"}
    frozen = table[table["mode"] == "fb"].set_index(["encoder", "head"])
    for head in ("linear", "dnn"):
        assert frozen.loc[("minilm", head), "pss"] > frozen.loc[("tiny_random", head), "pss"] + 10, table
        assert frozen.loc[("minilm", head), "accuracy"] > 70, table
    assert frozen.loc[("minilm", "linear"), "paper_encoder"] == "USE Transformer"
    assert frozen.loc[("minilm", "linear"), "paper_pss"] == 65.7
    # a second FT row (ft_fb) reads its sentences as FB does: FB -> ft_fb changes only the training
    tiny = table[table["encoder"] == "tiny_random"].set_index(["head", "mode"])
    for head in ("linear", "dnn"):
        reading = ["layer", "max_length", "cut_sentences"]
        assert tiny.loc[(head, "ft_fb"), reading].tolist() == tiny.loc[(head, "fb"), reading].tolist(), table
    title = (tables / "table1.html").read_text(encoding="utf-8")
    assert "kept" in title and "353" in title
