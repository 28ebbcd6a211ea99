"""Tables of the MT compositionality tests from per-item scores.

Per-item score files (written by the ``score_test`` rule) live at
``results/mt/scores/{size}/seed{seed}/{checkpoint}/{test}.{data_type}.tsv``; their path
carries the model and test, their rows the items with label columns ``consistent``,
``synonym_consistent`` or ``overgeneralised`` (empty where an item cannot be scored).

Aggregation follows the paper: a consistency or overgeneralisation score is the mean of
the labels of the scored items; summaries average over seeds (and templates, pairs or
idioms) like its Tables 4, 6 and 8.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.files import atomic_open

SCORE_PATH = re.compile(
    r"(?P<size>[^/]+)/seed(?P<seed>\d+)/(?P<checkpoint>best|epoch\d+)/(?P<test>[a-z_]+)\.(?P<data_type>[a-z_]+)\.tsv$"
)
DATA_TYPES = ("synthetic", "semi_natural", "natural", "random_words")
CONDITION_NAMES = {"np_prime": "NP -> NP'", "vp_prime": "VP -> VP'", "s1_prime": "S1 -> S1'", "s3": "S1 -> S3"}


def read_scores(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Concatenate score files, adding size, seed, checkpoint, test and data_type columns."""
    frames = []
    for path in paths:
        match = SCORE_PATH.search(Path(path).as_posix())
        if not match:
            raise InputError(path, "not a score file path (.../{size}/seed{seed}/{checkpoint}/{test}.{data_type}.tsv)")
        frame = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""], quoting=3)
        for key, value in match.groupdict().items():
            frame[key] = int(value) if key == "seed" else value
        frames.append(frame)
    if not frames:
        raise InputError("scores", "no score files given")
    return pd.concat(frames, ignore_index=True)


def _rate(frame: pd.DataFrame, keys: list[str], label: str, name: str) -> pd.DataFrame:
    """Mean of a boolean label over the scored (non-empty) items, and their number."""
    scored = frame.assign(**{label: pd.to_numeric(frame[label], errors="raise")}).dropna(subset=[label])
    return scored.groupby(keys, sort=False)[label].agg(**{name: "mean", "n": "count"}).reset_index()


def _order(table: pd.DataFrame, sizes: Sequence[str], by: list[str]) -> pd.DataFrame:
    """Sort by ``by`` with sizes in config order and data types in the paper's order."""
    orders = {"size": list(sizes), "data_type": list(DATA_TYPES), "condition": list(CONDITION_NAMES)}
    table = table.copy()
    for column, order in orders.items():
        if column in table.columns:
            table[column] = pd.Categorical(table[column], categories=order, ordered=True)
    table = table.sort_values(by, kind="stable").reset_index(drop=True)
    for column in orders:
        if column in table.columns:
            table[column] = table[column].astype(str)
    return table


def systematicity_table(scores: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, condition, template, consistency, n``."""
    keys = ["size", "seed", "data_type", "condition", "template"]
    table = _rate(scores, keys, "consistent", "consistency")
    return _order(table, sizes, keys)


def substitutivity_table(scores: pd.DataFrame, sizes: Sequence[str], pair_names: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, pair, template, consistency, synonym_consistency, n``."""
    keys = ["size", "seed", "data_type", "pair", "template"]
    full = _rate(scores, keys, "consistent", "consistency")
    synonym = _rate(scores, keys, "synonym_consistent", "synonym_consistency").drop(columns="n")
    table = full.merge(synonym, on=keys, how="left")
    table = _order(table, sizes, keys)
    table["pair"] = table["pair"].map(lambda k: pair_names[int(k)])
    return table[[*keys, "consistency", "synonym_consistency", "n"]]


def overgeneralisation_table(scores: pd.DataFrame, sizes: Sequence[str], idioms: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, idiom, checkpoint, overgeneralisation, n``; templates pooled."""
    scores = scores.assign(epoch=scores["checkpoint"].str.removeprefix("epoch").astype(int))
    keys = ["size", "seed", "data_type", "idiom", "epoch"]
    table = _order(_rate(scores, keys, "overgeneralised", "overgeneralisation"), sizes, keys)
    table["idiom"] = table["idiom"].map(lambda i: idioms[int(i)])
    table = table.rename(columns={"epoch": "checkpoint"})
    return table[["size", "seed", "data_type", "idiom", "checkpoint", "overgeneralisation", "n"]]


def systematicity_summary(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 4a: per data type and condition, consistency per size (seed means, then template mean)."""
    per_template = table.groupby(["data_type", "condition", "template", "size"], sort=False)["consistency"].mean()
    summary = per_template.groupby(["data_type", "condition", "size"], sort=False).mean().unstack("size")
    summary = summary[[s for s in sizes if s in summary.columns]].reset_index()
    return _order(summary, sizes, ["data_type", "condition"])


def substitutivity_summary(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 6a: per data type, (synonym) consistency per size, averaged over pairs, templates, seeds."""
    long = table.melt(
        id_vars=["data_type", "size", "pair", "template", "seed"],
        value_vars=["consistency", "synonym_consistency"],
        var_name="metric",
    )
    summary = long.groupby(["data_type", "metric", "size"], sort=False)["value"].mean().unstack("size")
    summary = summary[[s for s in sizes if s in summary.columns]].reset_index()
    return _order(summary, sizes, ["data_type", "metric"])


def overgeneralisation_peaks(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 8: per data type, size and idiom the peak of the seed-averaged curve."""
    curve = table.groupby(["data_type", "size", "idiom", "checkpoint"], sort=False)["overgeneralisation"].mean()
    curve = curve.reset_index()
    best = curve.loc[curve.groupby(["data_type", "size", "idiom"], sort=False)["overgeneralisation"].idxmax()]
    peaks = best.rename(columns={"overgeneralisation": "peak", "checkpoint": "peak_checkpoint"})
    return _order(peaks, sizes, ["data_type", "size"])[["data_type", "size", "idiom", "peak", "peak_checkpoint"]]


def write_table(table: pd.DataFrame, path: str | Path) -> None:
    with atomic_open(path) as out:
        table.to_csv(out, sep="\t", index=False, float_format="%.4f")
