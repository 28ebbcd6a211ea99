"""F1 as PLANE reports it, and small aggregation helpers shared by the evaluations.

The paper reports "F1" per adjective class and inference type without saying which
average. Within one class x IT cell every item has the same gold label (Table 1), so a
positive-class F1 would be 0 for every negative cell. natcomp uses the support-weighted F1
over the two labels (``sklearn.metrics.f1_score(average="weighted", labels=[0, 1])``): in a
one-label cell it is the F1 of that label; a prediction that is neither label (a masked
LM's top token that is no verbaliser, an NLI model's neutral; coded -1) counts as wrong: a
miss for its gold label and a false positive for neither. Scores are in percent.

Chance (:func:`chance_f1`): the F1 of the best constant answer on the same gold labels,
i.e. the majority label's share p gives 100 * 2p^2 / (1 + p) (100 in a one-label cell: a
model that always answers "yes" scores 100 on class I).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

NOT_A_LABEL = -1


def f1(gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Support-weighted F1 (percent) over the labels 0 and 1; -1 predictions count as wrong."""
    gold, predicted = np.asarray(gold, dtype=int), np.asarray(predicted, dtype=int)
    if gold.size == 0:
        return float("nan")
    # imported here: sklearn.metrics takes 0.7 s (scipy with it), and most jobs that read
    # this module (model building, figures, tables without F1) never score
    from sklearn.metrics import f1_score

    return 100.0 * float(f1_score(gold, predicted, labels=[0, 1], average="weighted", zero_division=0.0))


def chance_f1(gold: Sequence[int]) -> float:
    """The F1 (percent, as :func:`f1`) of the better of the two constant answers on ``gold``."""
    gold = np.asarray(gold, dtype=int)
    if gold.size == 0:
        return float("nan")
    return max(f1(gold, np.full(gold.size, label)) for label in (0, 1))


def f1_table(predictions: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """F1, item count and chance F1 (:func:`chance_f1`) per group of ``by`` (columns
    ``gold`` and ``predicted`` are used)."""
    rows = []
    for key, group in predictions.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(by, key)),
                "f1": f1(group["gold"], group["predicted"]),
                "items": len(group),
                "chance_f1": chance_f1(group["gold"]),
            }
        )
    return pd.DataFrame(rows, columns=[*by, "f1", "items", "chance_f1"])


def mean_sd(values: pd.Series) -> tuple[float, float]:
    """Mean and sample standard deviation (NaN, written as an empty cell, for a single value)."""
    values = values.astype(float)
    return float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else float("nan")
