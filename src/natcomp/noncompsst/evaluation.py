"""Scoring a system's stimulus predictions against the human ratings (section 5, Table 2).

Predictions: a TSV with the columns ``stimulus, prediction`` (a sentiment on the 0-6
scale; several rows for one stimulus, e.g. one per seed, are averaged: the paper averages
the predicted classes of three seeds). The model's ratings are computed from them by the
same function as the human ones (:func:`natcomp.noncompsst.ratings.compute_ratings`).

Scores:
* ``r_<VARIANT>``: Pearson r between model and human ratings of every variant the human
  table has (rows joined on phrase and side);
* ``f1_all``: macro-F1 of the natural phrases' sentiment, the human mean rounded to the
  nearest class (halves up) as gold, the model's mean prediction rounded as prediction;
* ``f1_top<k>``: the same on the k phrases with the highest human MAXABS (paper: 67).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd
from scipy.stats import pearsonr

from natcomp.errors import InputError
from natcomp.noncompsst.models import macro_f1
from natcomp.noncompsst.ratings import VARIANTS, compute_ratings
from natcomp.noncompsst.stimuli import Phrase, decode_utf7
from natcomp.tsv import iter_tsv, write_tsv

__all__ = ["evaluate", "read_predictions", "round_half_up", "write_predictions"]


def round_half_up(value: float) -> int:
    return int(math.floor(value + 0.5))


def read_predictions(path: str | Path) -> dict[str, float]:
    """{stimulus: mean prediction} of a ``stimulus<TAB>prediction`` file (predictions 0-6)."""
    values: dict[str, list[float]] = defaultdict(list)
    for number, row in iter_tsv(path, ("stimulus", "prediction")):
        try:
            prediction = float(row["prediction"])
        except ValueError:
            prediction = math.nan
        if not 0 <= prediction <= 6:
            raise InputError(path, f"expected a prediction in 0-6, got {row['prediction']!r}", number)
        values[decode_utf7(row["stimulus"]).strip()].append(prediction)
    return {stimulus: sum(v) / len(v) for stimulus, v in values.items()}


def write_predictions(path: str | Path, rows: Iterable[Mapping[str, object]]) -> int:
    return write_tsv(path, rows, ["stimulus", "prediction", "seed"])


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return float(pearsonr(x, y).statistic)


def evaluate(
    phrases: Sequence[Phrase],
    predictions: Mapping[str, float],
    human: pd.DataFrame,
    *,
    human_sentiment: Mapping[str, float] | None = None,
    ungrammatical: Iterable[str] = (),
    top_k: int = 67,
    predictions_source: str | Path = "predictions",
) -> tuple[dict[str, float], pd.DataFrame]:
    """Scores (see the module documentation) and the model's ratings table."""
    model = compute_ratings(phrases, predictions, ungrammatical, sentiment_source=predictions_source)
    scores: dict[str, float] = {}
    for variant in VARIANTS:
        wanted = human[human["variant"] == variant]
        if wanted.empty:
            scores[f"r_{variant}"] = math.nan
            continue
        joined = wanted.merge(model[model["variant"] == variant], on=["phrase", "side"], suffixes=("_human", "_model"))
        scores[f"r_{variant}"] = _pearson(joined["rating_human"].tolist(), joined["rating_model"].tolist())
        scores[f"n_{variant}"] = len(joined)
    naturals = [p.natural for p in phrases]
    if human_sentiment:
        missing = [n for n in naturals if n not in human_sentiment]
        if missing:
            raise InputError(
                "human sentiment", f"no human sentiment for the phrase {missing[0]!r} ({len(missing)} missing)"
            )
        gold = [round_half_up(human_sentiment[n]) for n in naturals]
        guess = [round_half_up(predictions[n]) for n in naturals]
        scores["f1_all"] = macro_f1(gold, guess)
        maxabs = human[human["variant"] == "MAXABS"].set_index("phrase")["rating"]
        ranked = sorted(range(len(naturals)), key=lambda i: -maxabs.get(naturals[i], -math.inf))
        top = ranked[: min(top_k, len(ranked))]
        scores[f"f1_top{top_k}"] = macro_f1([gold[i] for i in top], [guess[i] for i in top])
    else:
        scores["f1_all"] = scores[f"f1_top{top_k}"] = math.nan
    return scores, model
