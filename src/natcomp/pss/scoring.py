"""Polarity Sensitivity Scoring (Bhathena et al., 2020, section 3).

    PSS = 1/N sum_n 1[ y_hat(s_n) = y(s_n)  and  z_hat(s'_n) = z(s'_n) ]

over N pairs of an original sentence ``s`` (label ``y``) and its polarity-switched rewrite
``s'`` (label ``z``, the opposite polarity): the share of pairs where a sentiment classifier
gets both sentences right. Relative PSS = PSS / test accuracy x 100. Both are reported in
percent, like the paper's Table 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from natcomp.errors import InputError
from natcomp.pss.pairs import Pair
from natcomp.tsv import iter_tsv

__all__ = [
    "LabelledPairs",
    "PssScore",
    "polarity_sensitivity",
    "read_predictions",
    "relative_pss",
    "score_pairs",
]


@dataclass(frozen=True)
class PssScore:
    """PSS in percent, over ``pairs`` pairs; how many originals and rewrites were right."""

    pss: float
    pairs: int
    originals_right: int
    rewrites_right: int
    both_right: int


def polarity_sensitivity(
    original_labels: Sequence[int],
    original_predictions: Sequence[int],
    rewrite_predictions: Sequence[int],
    rewrite_labels: Sequence[int] | None = None,
) -> PssScore:
    """PSS of predictions on aligned pairs; ``rewrite_labels`` default to the flipped binary labels."""
    y = np.asarray(original_labels, dtype=int)
    y_hat = np.asarray(original_predictions, dtype=int)
    z_hat = np.asarray(rewrite_predictions, dtype=int)
    z = 1 - y if rewrite_labels is None else np.asarray(rewrite_labels, dtype=int)
    if not (len(y) == len(y_hat) == len(z_hat) == len(z)):
        raise ValueError(
            f"pairs must be aligned: {len(y)} original labels, {len(y_hat)} original predictions, "
            f"{len(z_hat)} rewrite predictions, {len(z)} rewrite labels"
        )
    if rewrite_labels is None and not np.isin(y, (0, 1)).all():
        raise ValueError("rewrite labels can only be implied (flipped) for binary labels 0/1; give rewrite_labels")
    if not len(y):
        raise ValueError("no pairs to score")
    original_right = y_hat == y
    rewrite_right = z_hat == z
    both = original_right & rewrite_right
    return PssScore(
        pss=100.0 * float(both.mean()),
        pairs=len(y),
        originals_right=int(original_right.sum()),
        rewrites_right=int(rewrite_right.sum()),
        both_right=int(both.sum()),
    )


def relative_pss(pss: float, accuracy: float) -> float:
    """PSS / accuracy x 100 (both in percent); NaN when the accuracy is 0."""
    return float("nan") if accuracy == 0 else 100.0 * pss / accuracy


@dataclass(frozen=True)
class LabelledPairs:
    """Pairs whose originals all have ``original_label`` (``reference.0``: 0, ``reference.1``: 1)."""

    pairs: Sequence[Pair]
    original_label: int


def read_predictions(path: str | Path) -> dict[str, int]:
    """A system's predictions: TSV with a header and the columns ``sentence``, ``prediction`` (0/1).

    The same sentence may appear more than once only with the same prediction.
    """
    predictions: dict[str, int] = {}
    for number, row in iter_tsv(path, ("sentence", "prediction")):
        sentence, text = row["sentence"].strip(), row["prediction"].strip()
        if text not in ("0", "1"):
            raise InputError(path, f"prediction {text!r} is not a label; expected 0 (negative) or 1 (positive)", number)
        if not sentence:
            raise InputError(path, "empty sentence; expected the sentence a prediction is for", number)
        if predictions.get(sentence, int(text)) != int(text):
            raise InputError(path, f"sentence {sentence[:60]!r} has two different predictions", number)
        predictions[sentence] = int(text)
    if not predictions:
        raise InputError(path, "no predictions; expected rows sentence<TAB>prediction after the header")
    return predictions


def score_pairs(
    groups: Sequence[LabelledPairs], predictions: Mapping[str, int], *, source: str = "predictions"
) -> PssScore:
    """PSS of a system's sentence predictions (``{sentence: label}``) on labelled pair groups.

    Every original and rewrite must have a prediction; the first missing one raises
    :class:`InputError` naming ``source`` and the pair's file and line.
    """
    original_labels, original_predictions, rewrite_predictions = [], [], []
    for group in groups:
        for pair in group.pairs:
            for sentence in (pair.original, pair.rewrite):
                if sentence not in predictions:
                    raise InputError(
                        source,
                        f"no prediction for {sentence[:60]!r} (pair at {pair.source}, line {pair.line}); "
                        "expected a row for every original and rewrite",
                    )
            original_labels.append(group.original_label)
            original_predictions.append(predictions[pair.original])
            rewrite_predictions.append(predictions[pair.rewrite])
    return polarity_sensitivity(original_labels, original_predictions, rewrite_predictions)
