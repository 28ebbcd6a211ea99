from __future__ import annotations

import pandas as pd
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane.nli import NliSettings, evaluate_nli, figure1_table, label_answers, table5
from natcomp.plane.scoring import NOT_A_LABEL

THREE_WAY = {0: "contradiction", 1: "entailment", 2: "neutral"}


def test_answers_of_the_nli_labels():
    """Entailment is the positive answer, contradiction (not-entailment of a two-way model)
    the negative one, neutral no answer at all."""
    assert label_answers({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, "m") == {0: 0, 1: NOT_A_LABEL, 2: 1}
    assert label_answers({0: "entailment", 1: "not_entailment"}, "m") == {0: 1, 1: 0}
    assert label_answers({0: "Entailment", 1: "Non-Entailment"}, "m") == {0: 1, 1: 0}
    with pytest.raises(ConfigError, match="cannot tell which label of m is entailment"):
        label_answers({0: "LABEL_0", 1: "LABEL_1"}, "m")
    with pytest.raises(ConfigError, match="cannot tell what label LABEL_2 of m answers"):
        label_answers({0: "entailment", 1: "contradiction", 2: "LABEL_2"}, "m")


def test_neutral_is_wrong_for_both_gold_labels():
    """Class O, gold 0, 0, 1 answered contradiction, neutral, entailment: the neutral answer
    misses its gold 0 (recall of 0 is 1/2, F1 2/3) and is a false positive of neither label,
    so weighted F1 = (2 * 2/3 + 1 * 1) / 3 = 7/9. Read as a "no" it would score 100."""
    answers = label_answers(THREE_WAY, "m")
    named = ["contradiction", "neutral", "entailment"]
    index = {name: i for i, name in THREE_WAY.items()}
    predictions = pd.DataFrame(
        {
            "model": "m",
            "class": "O",
            "it": ["IT1", "IT2", "IT3"],
            "gold": [0, 0, 1],
            "predicted": [answers[index[name]] for name in named],
        }
    )
    table = table5(predictions).set_index("class")
    assert table.loc["O", "f1"] == pytest.approx(100 * 7 / 9)


def test_nli_on_a_tiny_model(tmp_path, small_resource):
    _, items = small_resource
    sample = items.groupby(["class", "it"]).head(4).reset_index(drop=True)
    words = hf.words_for_vocabulary(list(sample["sentence"]))
    model = hf.build_tiny_model(
        tmp_path / "nli",
        words,
        kind="sequence_classification",
        id2label=THREE_WAY,
        seed=2,
    )
    predictions = evaluate_nli(str(model), sample, NliSettings(device="cpu"))
    assert len(predictions) == len(sample) == 36
    answers = {"contradiction": 0, "entailment": 1, "neutral": NOT_A_LABEL}
    assert list(predictions["predicted"]) == [answers[name] for name in predictions["predicted_label"]]
    assert list(predictions["gold"]) == list(sample["label"])
    table = table5(predictions)
    assert list(table["class"]) == ["I", "S", "O", "Average"]
    figure = figure1_table(predictions)
    assert len(figure) == 9 and list(figure["it"][:3]) == ["IT1", "IT2", "IT3"]


def test_an_all_neutral_classifier_scores_zero(tmp_path, small_resource):
    """A model that answers neutral to every pair is never right: F1 0 in every class (read
    as "no", neutral scored about 53 on class O, whose IT1 and IT2 items are negative)."""
    import torch

    _, items = small_resource
    sample = items.groupby(["class", "it"]).head(4).reset_index(drop=True)
    words = hf.words_for_vocabulary(list(sample["sentence"]))
    built = hf.build_tiny_model(tmp_path / "built", words, kind="sequence_classification", id2label=THREE_WAY)
    model = hf.load_sequence_classifier(built)
    with torch.no_grad():  # a head that ignores its input and always prefers neutral
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 5.0]))
    neutral = hf.save_model(model, hf.load_tokenizer(built), tmp_path / "neutral")
    predictions = evaluate_nli(str(neutral), sample, NliSettings(device="cpu"))
    assert set(predictions["predicted_label"]) == {"neutral"}
    assert set(predictions["predicted"]) == {NOT_A_LABEL}
    table = table5(predictions).set_index("class")
    assert list(table["f1"]) == [0.0, 0.0, 0.0, 0.0]
    assert table.loc["O", "items"] == 12
