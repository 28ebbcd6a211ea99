from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane.prompting import PromptSettings, build_prompts, evaluate_prompting, table4
from natcomp.plane.scoring import f1

TRIPLETS = pd.DataFrame(
    [("big", "car", "vehicle", "S"), ("fake", "gun", "weapon", "O"), ("red", "car", "vehicle", "I")],
    columns=["adj", "noun", "hyp", "class"],
)


def test_internal_prompt_is_the_papers_example():
    prompts = build_prompts(TRIPLETS.iloc[:1], "internal", ("good", "poor"), "[MASK]")
    assert len(prompts) == 3 * 2
    first = prompts[(prompts["it"] == "IT2") & (prompts["premises"] == "IT1,IT3")].iloc[0]
    assert first["prompt"] == (
        "A big car is a good example of a car. A big car is a poor example of a big vehicle. "
        "A big car is a [MASK] example of a vehicle."
    )
    assert first["gold"] == 1
    swapped = prompts[(prompts["it"] == "IT2") & (prompts["premises"] == "IT3,IT1")].iloc[0]
    assert swapped["prompt"].startswith("A big car is a poor example of a big vehicle. A big car is a good")


def test_external_prompt():
    prompts = build_prompts(TRIPLETS.iloc[1:2], "external", ("true", "false"), "<mask>")
    row = prompts[(prompts["it"] == "IT3") & (prompts["premises"] == "IT1,IT2")].iloc[0]
    assert row["prompt"] == (
        "A fake gun is a type of gun:false. A fake gun is a type of weapon:false. A fake gun is a type of fake weapon:<mask>."
    )
    assert row["gold"] == 1


def test_f1_counts_non_verbaliser_answers_as_wrong():
    assert f1([1, 1, 1, 1], [1, 1, 1, 1]) == 100.0
    assert f1([0, 0], [0, 0]) == 100.0  # a negative cell: F1 of the negative label
    assert f1([1, 1, 1, 1], [1, 1, -1, -1]) == pytest.approx(100 * 2 * 0.5 / 1.5)
    assert f1([1, 1], [-1, -1]) == 0.0


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory):
    words = hf.words_for_vocabulary(
        ["A big fake red car gun is a good poor true false positive negative example of vehicle weapon type : ."]
    )
    return str(hf.build_tiny_model(tmp_path_factory.mktemp("mlm") / "model", words, kind="masked_lm", seed=3))


def test_prompting_runs_every_template_verbaliser_order(tiny_mlm):
    for answer in ("vocabulary", "verbalisers"):
        predictions = evaluate_prompting(tiny_mlm, TRIPLETS, PromptSettings(answer=answer, device="cpu"))
        assert len(predictions) == 3 * 3 * 2 * 2 * 3
        allowed = {-1, 0, 1} if answer == "vocabulary" else {0, 1}
        assert set(predictions["predicted"]) <= allowed
    table = table4(predictions)
    assert list(table["class"]) == ["I", "S", "O", "Average"]
    assert (table["cells"].iloc[:3] == 6).all() and np.isfinite(table["f1_mean"]).all()


def test_a_verbaliser_that_is_not_one_token_is_a_config_error(tiny_mlm):
    settings = PromptSettings(verbalisers={"GP": ["good", "unfathomable"]}, device="cpu")
    with pytest.raises(ConfigError, match="plane.prompting.verbalisers.GP: 'unfathomable' is not one token"):
        evaluate_prompting(tiny_mlm, TRIPLETS, settings)


def test_unknown_template_or_answer():
    with pytest.raises(ValueError, match="unknown template"):
        PromptSettings(templates=["inner"])
    with pytest.raises(ValueError, match="answer must be one of"):
        PromptSettings(answer="top5")
