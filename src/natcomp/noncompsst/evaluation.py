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
* ``f1_top<k>``: the same on the k phrases with the highest human MAXABS (paper: 67);
* ``f1_all_chance``, ``f1_top<k>_chance``: the baseline of those two, the macro-F1 of the
  best constant answer (one sentiment class for every phrase) on the same gold classes
  (:func:`chance_phrase_f1`; the paper gives none: the profile's baseline column).

The paper evaluates each of its three seeds; :func:`seed_f1` gives the F1 scores per
seed (each seed's own predicted class as the prediction) and their mean and standard
deviation, which the models table reports (``f1_seeds: per_seed``, the default); the F1
of the seed-averaged classes (``seed_mean``) is the alternative. The r columns always
compare the ratings of the seed-averaged classes, as the released ``create_ranking.py``.
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

__all__ = [
    "F1_SEED_MODES",
    "ITEM_COLUMNS",
    "chance_phrase_f1",
    "evaluate",
    "mean_sd",
    "phrase_f1",
    "phrase_outcomes",
    "read_predictions",
    "round_half_up",
    "seed_f1",
    "write_predictions",
]

F1_SEED_MODES = ("per_seed", "seed_mean")


def round_half_up(value: float) -> int:
    return int(math.floor(value + 0.5))


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n - 1; NaN for a single value) of the values."""
    values = list(values)
    if not values:
        return math.nan, math.nan
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


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
    f1_all, f1_top = phrase_f1(phrases, predictions, human, human_sentiment, top_k=top_k)
    scores["f1_all"], scores[f"f1_top{top_k}"] = f1_all, f1_top
    chance_all, chance_top = chance_phrase_f1(phrases, human, human_sentiment, top_k=top_k)
    scores["f1_all_chance"], scores[f"f1_top{top_k}_chance"] = chance_all, chance_top
    return scores, model


def _top_indices(naturals: Sequence[str], human: pd.DataFrame, top_k: int) -> list[int]:
    """Indices of the ``top_k`` phrases with the highest human MAXABS (ties: file order)."""
    maxabs = human[human["variant"] == "MAXABS"].set_index("phrase")["rating"]
    ranked = sorted(range(len(naturals)), key=lambda i: -maxabs.get(naturals[i], -math.inf))
    return ranked[: min(top_k, len(ranked))]


def phrase_f1(
    phrases: Sequence[Phrase],
    predictions: Mapping[str, float],
    human: pd.DataFrame,
    human_sentiment: Mapping[str, float] | None,
    *,
    top_k: int = 67,
) -> tuple[float, float]:
    """(F1 on all natural phrases, F1 on the top-k by human MAXABS); NaN without human sentiment."""
    if not human_sentiment:
        return math.nan, math.nan
    naturals, gold, top = _gold_classes(phrases, human, human_sentiment, top_k)
    guess = [round_half_up(predictions[n]) for n in naturals]
    return macro_f1(gold, guess), macro_f1([gold[i] for i in top], [guess[i] for i in top])


def chance_phrase_f1(
    phrases: Sequence[Phrase], human: pd.DataFrame, human_sentiment: Mapping[str, float] | None, *, top_k: int = 67
) -> tuple[float, float]:
    """The baseline of :func:`phrase_f1`: (all, top-k) macro-F1 of the best constant answer,
    the one sentiment class (0-6) that scores highest when given for every phrase."""
    if not human_sentiment:
        return math.nan, math.nan
    _, gold, top = _gold_classes(phrases, human, human_sentiment, top_k)

    def best_constant(classes: list[int]) -> float:
        return max(macro_f1(classes, [answer] * len(classes)) for answer in range(7)) if classes else math.nan

    return best_constant(gold), best_constant([gold[i] for i in top])


def _gold_classes(
    phrases: Sequence[Phrase], human: pd.DataFrame, human_sentiment: Mapping[str, float], top_k: int
) -> tuple[list[str], list[int], list[int]]:
    """The natural phrases, their gold classes (the human mean rounded, halves up) and the
    indices of the top k by human MAXABS."""
    naturals = [p.natural for p in phrases]
    missing = [n for n in naturals if n not in human_sentiment]
    if missing:
        raise InputError(
            "human sentiment", f"no human sentiment for the phrase {missing[0]!r} ({len(missing)} missing)"
        )
    gold = [round_half_up(human_sentiment[n]) for n in naturals]
    return naturals, gold, _top_indices(naturals, human, top_k)


def seed_f1(
    phrases: Sequence[Phrase],
    seed_predictions: Sequence[Mapping[str, float]],
    human: pd.DataFrame,
    human_sentiment: Mapping[str, float] | None,
    *,
    top_k: int = 67,
) -> dict[str, float]:
    """Per-seed F1 (all and top-k) and ``f1_all``, ``f1_all_sd``, ``f1_top<k>``,
    ``f1_top<k>_sd``: the mean and sample sd over the seeds."""
    per_seed = [phrase_f1(phrases, p, human, human_sentiment, top_k=top_k) for p in seed_predictions]
    out: dict[str, float] = {}
    for index, name in enumerate(("f1_all", f"f1_top{top_k}")):
        out[name], out[f"{name}_sd"] = mean_sd([scores[index] for scores in per_seed])
    return out


#: the columns of a model's per-phrase outcomes (natcomp compare pairs two models on them)
ITEM_COLUMNS = ("model", "measure", "seed", "item", "outcome", "gold")


def phrase_outcomes(
    model_name: str,
    phrases: Sequence[Phrase],
    seed_predictions: Sequence[Mapping[str, float]],
    model_ratings: pd.DataFrame,
    human: pd.DataFrame,
    human_sentiment: Mapping[str, float] | None,
    *,
    top_k: int,
    f1_seeds: str,
) -> pd.DataFrame:
    """What ``r_MAXABS`` and ``f1_top<k>`` are computed from, per phrase (:data:`ITEM_COLUMNS`;
    the item is the natural phrase with a hash of it, :func:`natcomp.paired.item_id`):
    ``r_MAXABS``: the model's MAXABS rating (of the seed-averaged predictions) against the
    humans'; ``f1_top<k>``: per seed (``f1_seeds: per_seed``; one row of the seed-averaged
    classes with ``seed_mean``) the predicted class of each top-k phrase against its gold class."""
    from natcomp.paired import item_id

    rows = []
    wanted = human[human["variant"] == "MAXABS"]
    joined = wanted.merge(
        model_ratings[model_ratings["variant"] == "MAXABS"], on=["phrase", "side"], suffixes=("_human", "_model")
    )
    for record in joined.to_dict("records"):
        rows.append(
            {
                "model": model_name,
                "measure": "r_MAXABS",
                "seed": "",
                "item": item_id(record["phrase"], record["phrase"]),
                "outcome": float(record["rating_model"]),
                "gold": float(record["rating_human"]),
            }
        )
    if human_sentiment:
        naturals, gold, top = _gold_classes(phrases, human, human_sentiment, top_k)
        if f1_seeds == "per_seed":
            runs = {str(number): predictions for number, predictions in enumerate(seed_predictions, 1)}
        else:
            merged: dict[str, list[float]] = {}
            for predictions in seed_predictions:
                for stimulus, prediction in predictions.items():
                    merged.setdefault(stimulus, []).append(prediction)
            runs = {"": {stimulus: sum(values) / len(values) for stimulus, values in merged.items()}}
        for seed, predictions in runs.items():
            for index in top:
                rows.append(
                    {
                        "model": model_name,
                        "measure": f"f1_top{top_k}",
                        "seed": seed,
                        "item": item_id(naturals[index], naturals[index]),
                        "outcome": round_half_up(predictions[naturals[index]]),
                        "gold": gold[index],
                    }
                )
    return pd.DataFrame(rows, columns=list(ITEM_COLUMNS))
