"""PSS as the paper ran it: sentences prepared one way, per-direction tables, per-encoder learning
rates, the cleaning counts in the table's title, the paper's figures beside each row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from natcomp.pss.encoders import paper_table1, learning_rate_for, paper_figures
from natcomp.pss.experiment import (
    SCORE_COLUMNS,
    TABLE_COLUMNS,
    PairSentences,
    read_labelled_set,
    read_pair_set,
    score_predictions,
    score_rows,
    write_sets,
)
from natcomp.pss.lengths import SentenceLengths
from natcomp.pss.pairs import Pair, clean_pairs, prepare_sentence, read_pairs
from natcomp.pss.tables import cleaning_summary, pss_tables

YELP = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "yelp"
needs_yelp = pytest.mark.skipif(not (YELP / "reference.0").exists(), reason=f"real Yelp references not found at {YELP}")


def test_prepare_sentence_lowercases_and_tokenises_like_the_yelp_data():
    assert prepare_sentence("It didn't taste watered down at all.") == "it did n't taste watered down at all ."
    assert prepare_sentence('He said "great" !') == "he said `` great '' !"
    prepared = "i replied , '' um ... no i 'm cool ."
    assert prepare_sentence(prepared) == prepared  # a closing quote stays closing


@needs_yelp
@pytest.mark.parametrize("name", ["reference.0", "reference.1"])
def test_real_rewrites_are_prepared_like_the_originals(name):
    pairs = read_pairs(YELP / name)
    # the originals are already prepared: preparing them changes none of the 500
    assert [prepare_sentence(p.original) for p in pairs] == [p.original for p in pairs]
    rewrites = [prepare_sentence(p.rewrite) for p in pairs]
    assert not any(any(c.isupper() for c in text) for text in rewrites)
    assert sum(any(c.isupper() for c in p.rewrite) for p in pairs) == {"reference.0": 210, "reference.1": 129}[name]
    assert "it 's" in " ".join(rewrites) and "it's" not in " ".join(rewrites)


@needs_yelp
def test_write_sets_prepares_every_sentence_the_model_sees(tmp_path):
    train0, train1 = tmp_path / "train.0", tmp_path / "train.1"
    train0.write_text("The food was BAD.\n", encoding="utf-8")
    train1.write_text("it 's great .\n", encoding="utf-8")
    pairs = clean_pairs(read_pairs(YELP / "reference.0")).kept
    out = {name: tmp_path / f"{name}.tsv" for name in ("train", "test", "pairs")}
    write_sets([(train0, 0), (train1, 1)], [(train0, 0), (train1, 1)], [(pairs, 0)], out)
    assert read_labelled_set(out["train"]).texts == ["the food was bad .", "it 's great ."]
    pair_set = read_pair_set(out["pairs"])
    assert len(pair_set.rewrites) == 482
    assert pair_set.rewrites == [prepare_sentence(p.rewrite) for p in pairs]
    assert pair_set.originals == [p.original for p in pairs]


def test_pss_is_scored_per_direction():
    pairs = PairSentences(["a", "b", "c", "d"], ["A", "B", "C", "D"], np.array([0, 0, 0, 1]))
    rows = score_predictions(np.array([0, 1]), np.array([0, 0]), pairs, np.array([0, 0, 1, 1]), np.array([1, 0, 1, 0]))
    by_direction = {row["direction"]: row for row in rows}
    # neg -> pos: pair 1 right on both sides, pair 2 rewrite wrong, pair 3 original wrong
    assert by_direction["neg_to_pos"]["pss"] == pytest.approx(100 / 3)
    assert by_direction["neg_to_pos"]["pairs"] == 3
    assert by_direction["pos_to_neg"]["pss"] == pytest.approx(100.0)
    assert by_direction["pos_to_neg"]["relative_pss"] == pytest.approx(200.0)  # accuracy 50 %


def test_learning_rate_per_encoder_as_the_paper():
    bert = {"learning_rate": 2e-5}
    assert learning_rate_for(bert, "fb", 3e-3) == 2e-5  # the paper's BERT FB rate, not the mode's
    assert learning_rate_for(bert, "ft", 1e-4) == 2e-5
    assert learning_rate_for({}, "fb", 3e-3) == 3e-3
    assert learning_rate_for({"learning_rate": 3e-3, "fine_tune_learning_rate": 1e-3}, "ft", 2e-5) == 1e-3
    assert learning_rate_for({"learning_rate": 3e-3, "fine_tune_learning_rate": 1e-3}, "fb", 2e-5) == 3e-3
    assert learning_rate_for({"learning_rate": 3e-3, "fine_tune_learning_rate": 1e-3}, "ft_fb", 2e-5) == 1e-3, "as FT"
    with pytest.raises(ValueError):
        learning_rate_for({}, "xx", 1.0)


def test_paper_config_sets_the_paper_rates_and_bert_layer():
    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[2] / "config" / "paper.yaml").read_text())
    encoders = config["pss"]["encoders"]
    assert learning_rate_for(encoders["bert_base"], "fb", config["pss"]["frozen"]["learning_rate"]) == 2e-5
    for name in ("mpnet", "minilm"):
        for mode, section in (("fb", "frozen"), ("ft", "fine_tune")):
            assert learning_rate_for(encoders[name], mode, config["pss"][section]["learning_rate"]) == 3e-3
    assert encoders["bert_base"]["layer"] == -2 and config["tre"]["encoders"]["bert_base"]["layer"] == -2
    # bert-as-service's default max_seq_len, [CLS] and [SEP] included
    assert encoders["bert_base"]["max_length"] == 25 and config["tre"]["encoders"]["bert_base"]["max_length"] == 25
    assert "max_length" not in encoders["minilm"] and "max_length" not in encoders["mpnet"]


def test_tables_split_directions_and_carry_the_paper_figures():
    scores = pd.DataFrame(
        [
            {
                "encoder": "m",
                "head": "linear",
                "mode": "fb",
                "layer": -1,
                "max_length": 128,
                "cut_sentences": 0,
                "direction": d,
                "accuracy": 80,
                "pss": p,
                "relative_pss": p / 0.8,
                "pairs": 10,
                "test_sentences": 20,
            }
            for d, p in (("neg_to_pos", 60.0), ("pos_to_neg", 70.0))
        ],
        columns=list(SCORE_COLUMNS),
    )
    tables = pss_tables(scores, {"m": "USE Transformer"}, TABLE_COLUMNS)
    assert tables["neg_to_pos"]["pss"].tolist() == [60.0] and tables["pos_to_neg"]["pss"].tolist() == [70.0]
    row = tables["neg_to_pos"].iloc[0]
    assert (row["paper_encoder"], row["paper_accuracy"], row["paper_pss"], row["paper_relative_pss"]) == (
        "USE Transformer",
        76.5,
        65.7,
        85.9,
    )
    assert paper_figures("BERT", "dnn", "fb")["paper_pss"] is None  # the paper ran BERT with a linear head only
    assert paper_figures("BERT", "linear", "ft_fb") == paper_figures("BERT", "linear", "ft"), "the paper's FT"
    assert paper_figures("BERT", "linear", "ft_fb")["paper_pss"] == 73.7
    assert paper_figures(None, "linear", "fb")["paper_encoder"] == ""
    assert len(paper_table1()) == 14


@needs_yelp
def test_cleaning_counts_of_the_real_references_in_the_title_beside_the_papers():
    counts = pd.DataFrame(
        [{"file": name, **clean_pairs(read_pairs(YELP / name)).counts} for name in ("reference.0", "reference.1")]
    )
    title = cleaning_summary(counts, "neg_to_pos")
    assert "500 pairs, 0 removed as identical, 18 as deletion-only, 482 kept (the paper kept 353 of its 500)" in title
    assert "500 kept" in cleaning_summary(counts, "pos_to_neg")


def test_cleaning_summary_counts_each_rule():
    counts = pd.DataFrame([{"file": "reference.0", "total": 9, "identical": 2, "deletion_only": 3, "kept": 4}])
    assert "9 pairs, 2 removed as identical, 3 as deletion-only, 4 kept" in cleaning_summary(counts, "neg_to_pos")
    assert Pair("a", "b").original == "a"


def test_each_table_row_states_the_layer_and_length_its_mode_read():
    """The paper's BERT: FB as bert-as-service embedded it (layer -2, 25 tokens, 2 sentences
    cut), FT through the last layer with every sentence whole (issue 42.4)."""
    pairs = PairSentences(["a", "b"], ["A", "B"], np.array([0, 1]))
    scored = score_predictions(np.array([0, 1]), np.array([0, 1]), pairs, np.array([0, 1]), np.array([1, 0]))
    rows = score_rows("bert_base", "linear", "fb", -2, SentenceLengths(25, 29, 2, 2000), scored)
    rows += score_rows("bert_base", "linear", "ft", -1, SentenceLengths(29, 29, 0, 2000), scored)
    rows += score_rows("bert_base", "linear", "ft_fb", -2, SentenceLengths(25, 29, 2, 2000), scored)
    assert all(list(row) == list(SCORE_COLUMNS) for row in rows)
    assert list(SCORE_COLUMNS[:6]) == ["encoder", "head", "mode", "layer", "max_length", "cut_sentences"]
    table = pss_tables(pd.DataFrame(rows, columns=list(SCORE_COLUMNS)), {"bert_base": "BERT"}, TABLE_COLUMNS)
    reading = table["neg_to_pos"].set_index("mode")[["layer", "max_length", "cut_sentences", "paper_pss"]]
    assert reading.loc["fb"].tolist() == [-2, 25, 2, 59.5]
    assert reading.loc["ft"].tolist() == [-1, 29, 0, 73.7]
    # the second FT row reads as FB and stands beside the paper's FT, as FT does
    assert reading.loc["ft_fb"].tolist() == [-2, 25, 2, 73.7]
    assert list(table["neg_to_pos"]["mode"]) == ["fb", "ft", "ft_fb"], "in the order of the score files"
    with pytest.raises(ValueError, match="mode"):
        score_rows("bert_base", "linear", "xx", -1, SentenceLengths(29, 29, 0, 1), scored)
