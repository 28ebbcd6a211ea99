"""Per-encoder settings of the PSS experiment and the paper's figures each encoder row stands beside.

Light on purpose (no torch): the workflow's rule files import it while the DAG is built.

Learning rates (section 3.1): "static hyperparameter configurations (learning rate=2e-5 for
BERT and 3e-3 for others)", for both modes; :func:`learning_rate_for`.

Table 1 of Bhathena, Willis & Dass (2020), typed from the paper: :data:`PAPER_TABLE1`, keyed by
(paper encoder, head, mode); :func:`paper_figures` gives the row an encoder stands in for.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["PAPER_ENCODERS", "PAPER_TABLE1", "learning_rate_for", "paper_figures"]

#: (test accuracy, PSS, relative PSS) in percent, by (paper encoder, head, mode): Table 1.
PAPER_TABLE1: dict[tuple[str, str, str], tuple[float, float, float]] = {
    ("BERT", "linear", "fb"): (79.2, 59.5, 75.1),
    ("BERT", "linear", "ft"): (81.3, 73.7, 90.7),
    ("ELMo", "linear", "fb"): (75.3, 57.2, 76.0),
    ("ELMo", "linear", "ft"): (75.8, 67.9, 89.6),
    ("ELMo", "dnn", "fb"): (77.0, 57.5, 74.7),
    ("ELMo", "dnn", "ft"): (77.2, 70.0, 90.7),
    ("USE DAN", "dnn", "fb"): (75.3, 62.3, 82.8),
    ("USE DAN", "dnn", "ft"): (79.6, 69.4, 87.2),
    ("USE DAN", "linear", "fb"): (69.3, 49.9, 71.9),
    ("USE DAN", "linear", "ft"): (78.1, 69.1, 88.5),
    ("USE Transformer", "linear", "fb"): (76.5, 65.7, 85.9),
    ("USE Transformer", "linear", "ft"): (82.3, 73.7, 89.5),
    ("USE Transformer", "dnn", "fb"): (78.7, 65.7, 83.5),
    ("USE Transformer", "dnn", "ft"): (80.2, 69.4, 86.5),
}
#: The paper's four encoders, the values of an encoder's ``stands_in_for``.
PAPER_ENCODERS = ("BERT", "ELMo", "USE DAN", "USE Transformer")


def learning_rate_for(encoder: Mapping[str, object], mode: str, shared: float) -> float:
    """The learning rate of one encoder's heads in ``mode`` (``fb`` or ``ft``).

    An encoder's ``learning_rate`` applies to both modes (the paper's rate is per encoder);
    ``fine_tune_learning_rate`` overrides it for FT only; without either, the mode's shared
    rate ``shared`` (``frozen.learning_rate`` or ``fine_tune.learning_rate``).
    """
    if mode not in ("fb", "ft"):
        raise ValueError(f"mode must be fb or ft, not {mode!r}")
    own = encoder.get("fine_tune_learning_rate") if mode == "ft" else None
    if own is None:
        own = encoder.get("learning_rate")
    return float(shared if own is None else own)


def paper_figures(stands_in_for: str | None, head: str, mode: str) -> dict[str, object]:
    """``paper_encoder``, ``paper_accuracy``, ``paper_pss``, ``paper_relative_pss`` of the Table 1
    row an encoder stands in for (empty figures where the paper has no such row, or for none)."""
    figures = PAPER_TABLE1.get((stands_in_for, head, mode)) if stands_in_for else None
    accuracy, pss, relative = figures if figures else (None, None, None)
    return {
        "paper_encoder": stands_in_for or "",
        "paper_accuracy": accuracy,
        "paper_pss": pss,
        "paper_relative_pss": relative,
    }
