"""NLI transfer (paper Section 5, Table 5, Figure 1).

Any sequence-pair classifier trained for NLI gets the pair (c1, c2) of an item (e.g.
("fake gun", "weapon")) as premise and hypothesis. Its label names come from its config
(``id2label``) and each gives a PLANE answer (:func:`label_answers`): entailment (any name
starting "entail") is the positive answer 1; contradiction, or not-entailment of a two-way
model, the negative answer 0; neutral is no answer (``NOT_A_LABEL``), wrong for both gold
labels. Section 5 scores with F1 "since, in contrast to PLANE's binary classification, NLI
also has a third label (2)" and blames AddOne's poor scores on "a strong preference for
neutral labelling": a neutral answer is a mistake, not a "no". The prediction is the argmax
label. F1 as in :mod:`natcomp.plane.scoring`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from natcomp import hf
from natcomp.hf.kinds import nli_label_answers
from natcomp.plane.scoring import NOT_A_LABEL
from natcomp.plane.tables import figure1_table, table5  # noqa: F401  (re-exported)

PREDICTION_COLUMNS = ["model", "class", "it", "adj", "noun", "hyp", "c1", "c2", "gold", "predicted", "predicted_label"]


@dataclasses.dataclass(frozen=True)
class NliSettings:
    batch_size: int = 64
    max_length: int = 32
    device: str = "auto"
    dtype: str = "auto"  # the run's inference dtype (config's top-level dtype)


def label_answers(id2label, model_name: str, key: str = "plane.nli.models") -> dict[int, int]:
    """The PLANE answer of each label index of a model's ``id2label``: 1 (entailment), 0
    (contradiction, not-entailment) or ``NOT_A_LABEL`` (neutral), as
    :func:`natcomp.hf.kinds.nli_label_answers` reads the labels (the same check ``natcomp
    evaluate`` makes when it plans)."""
    answers = nli_label_answers(id2label, model_name, key)
    return {i: NOT_A_LABEL if answer is None else answer for i, answer in answers.items()}


def evaluate_nli(
    model_name: str, items: pd.DataFrame, settings: NliSettings, log=None, name: str | None = None
) -> pd.DataFrame:
    """Predictions of one NLI model on items (columns class, it, adj, noun, hyp, c1, c2, label);
    ``name`` (default: ``model_name``) is what the ``model`` column says."""
    key = "plane.nli.models"
    hf.check_model_available(model_name, key)
    run_device = hf.device(settings.device)
    model = hf.load_sequence_classifier(
        model_name, key=key, dtype=hf.run_dtype(model_name, settings.dtype, run_device, key)
    )
    tokenizer = hf.load_tokenizer(model_name, key)
    answers = label_answers(model.config.id2label, model_name, key)
    pairs = list(zip(items["c1"], items["c2"]))
    probabilities = hf.classify(
        model,
        tokenizer,
        pairs,
        batch_size=settings.batch_size,
        max_length=settings.max_length,
        device=run_device,
    )
    top = probabilities.argmax(axis=1)
    names = [str(model.config.id2label[int(i)]) for i in top]
    predicted = np.array([answers[int(i)] for i in top], dtype=int)
    if log:
        log.info(
            "%s: %d pairs, %.1f%% predicted entailment, %.1f%% neutral (scored as wrong)",
            model_name,
            len(pairs),
            100 * float((predicted == 1).mean()),
            100 * float((predicted == NOT_A_LABEL).mean()),
        )
    frame = items[["class", "it", "adj", "noun", "hyp", "c1", "c2"]].copy()
    frame.insert(0, "model", name or model_name)
    frame["gold"] = items["label"].astype(int).to_numpy()
    frame["predicted"] = predicted
    frame["predicted_label"] = names
    return frame[PREDICTION_COLUMNS].reset_index(drop=True)
