"""PSS and relative PSS (section 3), and scoring any system's predictions."""

from __future__ import annotations

import pytest

from natcomp.errors import InputError
from natcomp.pss import LabelledPairs, Pair, polarity_sensitivity, read_predictions, relative_pss, score_pairs


def test_pss_counts_pairs_with_both_sentences_right():
    # originals labelled 0, 0, 1, 1; rewrites the opposite
    score = polarity_sensitivity([0, 0, 1, 1], [0, 0, 1, 0], [1, 0, 0, 0])
    # pair 1 both right; pair 2 rewrite wrong; pair 3 both right; pair 4 original wrong, rewrite right
    assert score.pss == pytest.approx(50.0)
    assert (score.pairs, score.originals_right, score.rewrites_right, score.both_right) == (4, 3, 3, 2)


def test_pss_is_not_accuracy():
    # a classifier that always says 1 is right on half of all sentences but on no pair
    score = polarity_sensitivity([0, 1], [1, 1], [1, 1])
    assert score.pss == 0.0


def test_relative_pss():
    assert relative_pss(59.5, 79.2) == pytest.approx(75.1, abs=0.05)  # paper, BERT Linear FB
    assert relative_pss(10.0, 0.0) != relative_pss(10.0, 0.0)  # NaN


def test_misaligned_pairs_are_refused():
    with pytest.raises(ValueError, match="aligned"):
        polarity_sensitivity([0, 1], [0], [1, 0])


def test_score_pairs_from_predictions(tmp_path):
    path = tmp_path / "predictions.tsv"
    path.write_text("sentence\tprediction\nbad food .\t0\nGood food.\t1\ngreat !\t1\nAwful!\t1\n", encoding="utf-8")
    groups = [
        LabelledPairs([Pair("bad food .", "Good food.", "reference.0", 1)], 0),
        LabelledPairs([Pair("great !", "Awful!", "reference.1", 1)], 1),
    ]
    score = score_pairs(groups, read_predictions(path), source=str(path))
    assert score.pss == pytest.approx(50.0)
    missing = [LabelledPairs([Pair("unseen .", "Good food.", "reference.0", 7)], 0)]
    with pytest.raises(InputError, match="reference.0, line 7"):
        score_pairs(missing, read_predictions(path), source=str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sentence\tprediction\nok\t2\n", "line 2: prediction '2'"),
        ("sentence\tlabel\nok\t1\n", "missing column"),
        ("sentence\tprediction\nok\t1\nok\t0\n", "line 3: sentence 'ok' has two different predictions"),
    ],
)
def test_bad_predictions(tmp_path, text, message):
    path = tmp_path / "predictions.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_predictions(path)
