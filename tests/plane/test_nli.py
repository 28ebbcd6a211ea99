from __future__ import annotations

import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane.nli import NliSettings, entailment_index, evaluate_nli, figure1_table, table5


def test_entailment_label_from_the_config():
    assert entailment_index({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, "m") == 2
    assert entailment_index({0: "entailment", 1: "not_entailment"}, "m") == 0
    with pytest.raises(ConfigError, match="cannot tell which label of m is entailment"):
        entailment_index({0: "LABEL_0", 1: "LABEL_1"}, "m")


def test_nli_on_a_tiny_model(tmp_path, small_resource):
    _, items = small_resource
    sample = items.groupby(["class", "it"]).head(4).reset_index(drop=True)
    words = hf.words_for_vocabulary(list(sample["sentence"]))
    model = hf.build_tiny_model(
        tmp_path / "nli",
        words,
        kind="sequence_classification",
        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
        seed=2,
    )
    predictions = evaluate_nli(str(model), sample, NliSettings(device="cpu"))
    assert len(predictions) == len(sample) == 36
    assert set(predictions["predicted"]) <= {0, 1}
    assert ((predictions["predicted_label"] == "entailment") == (predictions["predicted"] == 1)).all()
    assert list(predictions["gold"]) == list(sample["label"])
    table = table5(predictions)
    assert list(table["class"]) == ["I", "S", "O", "Average"]
    figure = figure1_table(predictions)
    assert len(figure) == 9 and list(figure["it"][:3]) == ["IT1", "IT2", "IT3"]
