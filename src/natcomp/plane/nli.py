"""NLI transfer (paper Section 5, Table 5, Figure 1).

Any sequence-pair classifier trained for NLI gets the pair (c1, c2) of an item (e.g.
("fake gun", "weapon")) as premise and hypothesis. Its label names come from its config
(``id2label``): the label whose name is "entailment" (case-insensitive; "entail..." also
matches) counts as 1, every other label (neutral, contradiction, not_entailment) as 0.
The prediction is the argmax label. F1 as in :mod:`natcomp.plane.scoring`.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane.tables import figure1_table, table5  # noqa: F401  (re-exported)

PREDICTION_COLUMNS = ["model", "class", "it", "adj", "noun", "hyp", "c1", "c2", "gold", "predicted", "predicted_label"]


@dataclasses.dataclass(frozen=True)
class NliSettings:
    batch_size: int = 64
    max_length: int = 32
    device: str = "auto"


def entailment_index(id2label, model_name: str, key: str = "plane.nli.models") -> int:
    """The index of the entailment label in a model's ``id2label``."""
    names = {int(i): str(name) for i, name in dict(id2label or {}).items()}
    matches = [i for i, name in names.items() if name.strip().lower() == "entailment"]
    if not matches:
        matches = [i for i, name in names.items() if name.strip().lower().startswith("entail")]
    if len(matches) != 1:
        raise ConfigError(
            key,
            f"cannot tell which label of {model_name} is entailment: its config has id2label {names}; "
            "expected exactly one label named 'entailment'",
        )
    return matches[0]


def evaluate_nli(
    model_name: str, items: pd.DataFrame, settings: NliSettings, log=None, name: str | None = None
) -> pd.DataFrame:
    """Predictions of one NLI model on items (columns class, it, adj, noun, hyp, c1, c2, label);
    ``name`` (default: ``model_name``) is what the ``model`` column says."""
    key = "plane.nli.models"
    hf.check_model_available(model_name, key)
    model = hf.load_sequence_classifier(model_name, key=key)
    tokenizer = hf.load_tokenizer(model_name, key)
    entail = entailment_index(model.config.id2label, model_name, key)
    pairs = list(zip(items["c1"], items["c2"]))
    probabilities = hf.classify(
        model,
        tokenizer,
        pairs,
        batch_size=settings.batch_size,
        max_length=settings.max_length,
        device=hf.device(settings.device),
    )
    top = probabilities.argmax(axis=1)
    names = [str(model.config.id2label[int(i)]) for i in top]
    if log:
        log.info(
            "%s: %d pairs, %.1f%% predicted entailment", model_name, len(pairs), 100 * float((top == entail).mean())
        )
    frame = items[["class", "it", "adj", "noun", "hyp", "c1", "c2"]].copy()
    frame.insert(0, "model", name or model_name)
    frame["gold"] = items["label"].astype(int).to_numpy()
    frame["predicted"] = (top == entail).astype(int)
    frame["predicted_label"] = names
    return frame[PREDICTION_COLUMNS].reset_index(drop=True)
