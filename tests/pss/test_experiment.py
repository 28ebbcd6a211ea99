"""Which prediction is whose: the pair embeddings and predictions hold the originals first and the
rewrites second, in both modes; inputs where swapping the halves changes PSS."""

from __future__ import annotations

import numpy as np
import pytest

from natcomp.pss import classifiers
from natcomp.pss.classifiers import HeadSettings
from natcomp.pss.experiment import LabelledSentences, PairSentences, evaluate_fine_tuned, evaluate_frozen

# three negative originals (label 0) rewritten positive; the one positive original rewritten negative
PAIRS = PairSentences(
    ["bad food", "bad staff", "bad place", "good food"],
    ["good food", "good staff", "good place", "bad food"],
    np.array([0, 0, 0, 1]),
)


def by_row(rows):
    return {row["direction"]: row for row in rows}


def test_frozen_mode_scores_originals_first_then_rewrites():
    # one feature: its sign is the sentiment; the head learns that from well separated points
    train = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]] * 10, dtype=np.float32)
    labels = np.array([0, 0, 0, 1, 1, 1] * 10)
    sign = {"bad": -1.0, "good": 1.0}
    embedding = np.array([[2 * sign[text.split()[0]]] for text in PAIRS.sentences], dtype=np.float32)
    settings = HeadSettings(epochs=20, batch_size=8, learning_rate=1e-2, seed=0, device="cpu")
    rows = by_row(evaluate_frozen("linear", train, labels, train, labels, PAIRS, embedding, settings))
    assert rows["neg_to_pos"]["accuracy"] == 100.0
    # every original and rewrite is classified right; with the halves swapped, none would be
    assert rows["neg_to_pos"]["pss"] == 100.0 and rows["pos_to_neg"]["pss"] == 100.0
    swapped = np.concatenate([embedding[4:], embedding[:4]])
    rows = by_row(evaluate_frozen("linear", train, labels, train, labels, PAIRS, swapped, settings))
    assert rows["neg_to_pos"]["pss"] == 0.0


def test_fine_tuned_mode_scores_originals_first_then_rewrites(monkeypatch):
    seen = []

    def fine_tune(*args, **kwargs):
        return "classifier", "tokenizer"

    def predict(model, tokenizer, texts, **batch):
        seen.append(list(texts))
        return np.array([int(text.startswith("good")) for text in texts])

    monkeypatch.setattr(classifiers, "fine_tune_encoder", fine_tune)
    monkeypatch.setattr(classifiers, "predict_texts", predict)
    test = LabelledSentences(["bad day", "good day", "good one"], np.array([0, 1, 0]))
    settings = type("Settings", (), {"batch_size": 2, "max_length": 16})()
    rows = by_row(evaluate_fine_tuned("m", "linear", test, test, PAIRS, settings, pooling="mean"))
    assert seen[0] == PAIRS.originals + PAIRS.rewrites
    assert rows["neg_to_pos"]["pss"] == 100.0 and rows["pos_to_neg"]["pss"] == 100.0
    assert rows["neg_to_pos"]["accuracy"] == pytest.approx(200 / 3)
