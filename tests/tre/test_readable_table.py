"""What makes Table 2 readable: the Gaussian and shuffled baselines, the partial correlation controlling for
length, and the held-out setting (primitives fitted on training phrases, errors on other sentences)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from natcomp.sst import parse_sst_tree
from natcomp.tre.correlation import paper_table2, partial_spearman, table2_rows
from natcomp.tre.experiment import (
    SCORE_COLUMNS,
    fit_scores,
    held_out_scores,
    random_targets,
    shuffled_targets,
    training_phrases,
)
from natcomp.tre.reconstruction import TreSettings


def residual_partial(x, y, z):
    """Partial Spearman the long way: residuals of ranks regressed on the control's ranks."""
    rx, ry, rz = (stats.rankdata(v) for v in (x, y, z))
    design = np.column_stack([np.ones_like(rz), rz])

    def residual(values):
        return values - design @ np.linalg.lstsq(design, values, rcond=None)[0]

    return np.corrcoef(residual(rx), residual(ry))[0, 1]


def test_partial_spearman_removes_what_length_explains():
    rng = np.random.default_rng(0)
    length = rng.integers(2, 40, size=300).astype(float)
    # both grow with length (skewed), and are otherwise independent
    tre = np.exp(length / 10) * (1 + 0.3 * rng.random(300))
    wns = -(length**2) + 200 * rng.normal(size=300)
    rho = stats.spearmanr(tre, wns).statistic
    partial, p_value = partial_spearman(tre, wns, length)
    assert rho < -0.5  # the plain correlation measures length
    assert abs(partial) < 0.15 and p_value > 0.01
    assert partial == pytest.approx(residual_partial(tre, wns, length), abs=1e-9)


def test_partial_spearman_keeps_a_real_association_and_its_sign():
    rng = np.random.default_rng(1)
    length = rng.integers(2, 40, size=200).astype(float)
    signal = rng.normal(size=200)
    tre = length + 5 * signal
    wns = -(signal**3) + 0.1 * rng.normal(size=200) + 0.2 * length
    partial, p_value = partial_spearman(tre, wns, length)
    assert partial < -0.5 and p_value < 1e-6
    assert partial == pytest.approx(residual_partial(tre, wns, length), abs=1e-9)
    assert np.isnan(partial_spearman([1, 2, 3, 4], [4, 3, 2, 1], [1, 1, 1, 1])[0])


TREES = [
    "(3 (3 good) (2 film))",
    "(1 (2 (2 the) (2 plot)) (1 (2 is) (1 dull)))",
    "(3 (2 (2 a) (2 film)) (3 (3 good) (2 .)))",
    "(2 (2 not) (2 (3 good) (2 .)))",
    "(1 (2 (2 the) (2 film)) (1 (2 is) (1 (2 not) (3 good))))",
    "(3 (3 (2 a) (3 good)) (2 plot))",
]


def sentence_trees():
    return [("dev", i, parse_sst_tree(text)) for i, text in enumerate(TREES, start=1)]


def test_fit_scores_adds_the_random_baseline_over_the_same_trees():
    trees = sentence_trees()
    embeddings = np.random.default_rng(3).normal(size=(len(trees), 5)).astype(np.float32)
    table = fit_scores(trees, embeddings, TreSettings(steps=30), baseline=True)
    assert list(table.columns) == list(SCORE_COLUMNS)
    assert table["words"].tolist() == [2, 4, 4, 3, 5, 3]
    assert not np.allclose(table["tre"], table["tre_random"])
    random_only = fit_scores(trees, random_targets(embeddings.shape, 0), TreSettings(steps=30))
    np.testing.assert_allclose(table["tre_random"], random_only["tre"], rtol=1e-5)
    shuffled_only = fit_scores(trees, shuffled_targets(embeddings, 0), TreSettings(steps=30))
    np.testing.assert_allclose(table["tre_shuffled"], shuffled_only["tre"], rtol=1e-5)
    assert not np.allclose(table["tre"], table["tre_shuffled"])


def test_shuffled_targets_are_the_embeddings_in_another_seeded_order():
    embeddings = np.arange(40, dtype=np.float32).reshape(10, 4)
    shuffled = shuffled_targets(embeddings, 3)
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, embeddings)), "the same rows"
    assert not np.array_equal(shuffled, embeddings), "not tied to their sentences"
    np.testing.assert_array_equal(shuffled, shuffled_targets(embeddings, 3))
    assert not np.array_equal(shuffled, shuffled_targets(embeddings, 4))


def test_training_phrases_are_every_labelled_node_once():
    phrases = training_phrases([parse_sst_tree(TREES[0]), parse_sst_tree(TREES[2])])
    texts = [" ".join(p.leaves()) for p in phrases]
    assert texts == ["good film", "good", "film", "a film good .", "a film", "a", "good .", "."]


def test_held_out_scores_fit_on_phrases_and_score_other_sentences():
    train = [tree for _, _, tree in sentence_trees()[:4]]
    phrases = training_phrases(train)
    rng = np.random.default_rng(5)
    vectors = {}

    def additive(tree):
        return sum(vectors.setdefault(w, rng.normal(size=6)) for w in tree.leaves())

    phrase_targets = np.stack([additive(p) for p in phrases])
    evaluated = sentence_trees()[4:]
    eval_targets = np.stack([additive(t) for _, _, t in evaluated])
    table = held_out_scores(train, phrase_targets, evaluated, eval_targets, TreSettings(steps=300), min_count=1)
    assert table["index"].tolist() == [5, 6]
    assert table["tre"].max() < 0.05  # additive targets of unseen sentences are composed
    assert table["tre_random"].min() > 0.2 and table["tre_shuffled"].min() > 0.2
    with pytest.raises(ValueError, match="phrase"):
        held_out_scores(train, phrase_targets[:-1], evaluated, eval_targets, TreSettings(steps=1))


def test_held_out_unknown_words_are_counted_in_sentences_and_trained():
    """A word seen in one training sentence falls under min_count 2 and trains the unknown-word
    vector, which then composes unseen words. Counted in the phrase list, that word occurs twice
    (its own phrase and its parent), every word is known, and the unknown vector stays random."""
    train = [
        parse_sst_tree(text)
        for text in (
            "(2 (2 rare) (2 a))",
            "(2 (2 a) (2 b))",
            "(2 (2 b) (2 (2 c) (2 a)))",
            "(2 (2 c) (2 d))",
            "(2 (2 d) (2 b))",
        )
    ]
    phrases = training_phrases(train)
    rng = np.random.default_rng(0)
    vectors = {word: rng.normal(size=8) for word in ("rare", "a", "b", "c", "d")}

    def additive(tree):  # an unseen word means what the rare one means
        return sum(vectors["rare" if word == "unseen" else word] for word in tree.leaves())

    evaluated = [
        ("dev", 1, parse_sst_tree("(2 (2 unseen) (2 a))")),
        ("dev", 2, parse_sst_tree("(2 (2 c) (2 (2 b) (2 unseen)))")),
    ]
    # the call of workflow/scripts/tre/held_out_fit.py, with the paper config's fit and min_count
    table = held_out_scores(
        train,
        np.stack([additive(p) for p in phrases]),
        evaluated,
        np.stack([additive(t) for _, _, t in evaluated]),
        TreSettings(),
        min_count=2,
    )
    assert table["tre"].max() < 0.05  # counted in the phrases: 0.45 and 0.67, an untrained <unk>


def test_the_shuffled_baseline_keeps_the_common_direction_the_gaussian_one_lacks():
    # embeddings that share one large direction, unrelated to the trees otherwise
    trees = sentence_trees()
    train, evaluated = [tree for _, _, tree in trees[:4]], trees
    phrases = training_phrases(train)
    rng = np.random.default_rng(7)
    common = 3 * rng.normal(size=6)
    phrase_targets = common + rng.normal(size=(len(phrases), 6))
    eval_targets = common + rng.normal(size=(len(evaluated), 6))
    table = held_out_scores(train, phrase_targets, evaluated, eval_targets, TreSettings(), min_count=1)
    assert table["tre_shuffled"].mean() < 0.5 < table["tre_random"].mean()


def test_table2_rows_have_baseline_rows_partial_rho_and_the_paper_figure():
    rng = np.random.default_rng(2)
    n = 40
    words = rng.integers(2, 30, size=n)
    frame = pd.DataFrame(
        {
            "words": words.astype(str),
            "wns": rng.random(n).astype(str),
            "ti": rng.random(n).astype(str),
            "tre": (words / 100 + rng.random(n) / 50).astype(str),
            "tre_random": rng.random(n).astype(str),
            "tre_shuffled": rng.random(n).astype(str),
        }
    )
    lengths = {"max_length": "25", "cut_sentences": 3}
    rows = table2_rows("paper", "bert_base", frame, "BERT", **lengths, as_configured=True)
    assert [(r["targets"], r["score"]) for r in rows] == [
        ("encoder", "wns"),
        ("encoder", "ti"),
        ("random", "wns"),
        ("random", "ti"),
        ("shuffled", "wns"),
        ("shuffled", "ti"),
    ]
    assert rows[0]["paper_rho"] == paper_table2()["BERT"] == -0.1997
    assert all(r["paper_rho"] is None for r in rows[1:])
    assert {(r["max_length"], r["cut_sentences"]) for r in rows} == {("25", 3)}
    held_out = table2_rows("held_out", "bert_base", frame, "BERT", **lengths, as_configured=True)
    assert all(r["paper_rho"] is None for r in held_out), "only the paper's setting is comparable with the paper"
    assert {r["paper_encoder"] for r in held_out} == {"BERT"}, "the encoder it stands in for is still named"
    no_limit = table2_rows("paper", "bert_base", frame, "BERT", max_length="none", cut_sentences=0, as_configured=False)
    assert all(r["paper_rho"] is None for r in no_limit), "only the length the paper's tool ran is comparable"
    assert {r["paper_encoder"] for r in no_limit} == {"BERT"}
    expected, _ = partial_spearman(frame["tre"].astype(float), frame["wns"].astype(float), words)
    assert rows[0]["partial_rho"] == pytest.approx(expected)
    assert rows[2]["mean_tre"] == pytest.approx(frame["tre_random"].astype(float).mean())
    assert rows[4]["mean_tre"] == pytest.approx(frame["tre_shuffled"].astype(float).mean())


SST = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "sst"


@pytest.mark.skipif(not (SST / "dev.txt").exists(), reason=f"real SST trees not found at {SST}")
def test_held_out_setting_on_the_real_sst_trees():
    from natcomp.tre.experiment import load_trees
    from natcomp.tre.reconstruction import TreeTable

    train = [tree for _, _, tree in load_trees(SST / "train.txt", [None], max_sentences=200)]
    phrases = training_phrases(train)
    # every labelled node once: fewer phrases than nodes, more than sentences
    assert len(train) < len(phrases) < sum(len(list(t.subtrees())) for t in train)
    assert len({" ".join(p.leaves()) for p in phrases}) == len(phrases)
    dev = load_trees(SST / "dev.txt", [None], max_sentences=50)
    vocabulary = TreeTable.build(phrases).vocabulary
    rng = np.random.default_rng(0)
    vectors = {word: rng.normal(size=8) for word in vocabulary}
    phrase_targets = np.stack([sum(vectors[w] for w in p.leaves()) for p in phrases])
    dev_targets = rng.normal(size=(len(dev), 8))
    table = held_out_scores(train, phrase_targets, dev, dev_targets, TreSettings(steps=50), baseline=False)
    assert len(table) == 50 and table["tre"].between(0, 2).all()
    assert "tre_random" not in table
