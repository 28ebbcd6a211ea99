"""Tables of the MT compositionality tests from per-item scores.

Per-item score files (written by the ``mt_score`` rule, one per model checkpoint and
test) carry the model and test in their columns (:data:`natcomp.mt.scoring.MODEL_COLUMNS`:
size, seed, checkpoint, test, data_type, decode_signature) and the items with label
columns ``consistent``, ``synonym_consistent`` or ``overgeneralised`` (empty where an item
cannot be scored).

Aggregation follows the paper: a consistency or overgeneralisation score is the mean of
the labels of the scored items; summaries average over seeds (and templates, pairs or
idioms) like its Tables 4, 6 and 8. Per-model tables keep each model's decode signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES, TESTS
from natcomp.mt.scoring import MODEL_COLUMNS
from natcomp.tsv import read_tsv, write_tsv

_LABELS = sorted({label for test in TESTS.values() for label in test.labels})
_METRICS = {metric for test in TESTS.values() for metric in test.labels.values()}
_INTEGER_COLUMNS = ("seed", "template", "checkpoint", "n")


def read_scores(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Concatenate score files (labels as numbers, seed and template as integers)."""
    if not paths:
        raise InputError("scores", "no score files given")
    frame = pd.concat([read_tsv(path, MODEL_COLUMNS) for path in paths], ignore_index=True)
    for label in _LABELS:
        if label in frame.columns:
            frame[label] = pd.to_numeric(frame[label].replace("", None), errors="raise")
    for column in ("seed", "template"):
        frame[column] = frame[column].astype(int)
    return frame


def read_table(path: str | Path) -> pd.DataFrame:
    """A table written by :func:`write_table`, with its numbers as numbers again."""
    table = read_tsv(path)
    for column in table.columns:
        if column in _INTEGER_COLUMNS:
            table[column] = table[column].astype(int)
        elif column in _METRICS or column in {"peak", "peak_sd"}:
            table[column] = pd.to_numeric(table[column].replace("", None))
    return table


def _rate(frame: pd.DataFrame, keys: list[str], label: str, name: str) -> pd.DataFrame:
    """Mean of a boolean label over the scored (non-empty) items, and their number."""
    scored = frame.assign(**{label: pd.to_numeric(frame[label], errors="raise")}).dropna(subset=[label])
    return scored.groupby(keys, sort=False)[label].agg(**{name: "mean", "n": "count"}).reset_index()


def _order(table: pd.DataFrame, sizes: Sequence[str], by: list[str]) -> pd.DataFrame:
    """Sort by ``by`` with sizes in config order and data types in the paper's order."""
    orders = {"size": list(sizes), "data_type": list(DATA_TYPES), "condition": list(CONDITION_NAMES)}
    # Synonym pairs and idioms keep the order of the resource lists, in which items are made.
    for column in ("pair", "idiom"):
        if column in table.columns:
            orders[column] = list(pd.unique(table[column]))
    table = table.copy()
    for column, order in orders.items():
        if column in table.columns:
            table[column] = pd.Categorical(table[column], categories=order, ordered=True)
    table = table.sort_values(by, kind="stable").reset_index(drop=True)
    for column in orders:
        if column in table.columns:
            table[column] = table[column].astype(str)
    return table


def _with_signature(table: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Add each model's decode signature (one per size, seed and checkpoint)."""
    signatures = scores[["size", "seed", "checkpoint", "decode_signature"]].drop_duplicates()
    per_model = signatures.groupby(["size", "seed"], sort=False)["decode_signature"].agg(
        lambda values: values.iloc[0] if len(values) == 1 else "; ".join(values)
    )
    return table.merge(per_model.reset_index(), on=["size", "seed"], how="left")


def systematicity_table(scores: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, condition, template, consistency, n, decode_signature``."""
    keys = ["size", "seed", "data_type", "condition", "template"]
    table = _order(_rate(scores, keys, "consistent", "consistency"), sizes, keys)
    return _with_signature(table, scores)


def substitutivity_table(scores: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, pair, template, consistency, synonym_consistency, n, decode_signature``."""
    keys = ["size", "seed", "data_type", "pair", "template"]
    full = _rate(scores, keys, "consistent", "consistency")
    synonym = _rate(scores, keys, "synonym_consistent", "synonym_consistency").drop(columns="n")
    table = _order(full.merge(synonym, on=keys, how="left"), sizes, keys)
    return _with_signature(table[[*keys, "consistency", "synonym_consistency", "n"]], scores)


def overgeneralisation_table(scores: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """``size, seed, data_type, idiom, checkpoint, overgeneralisation, n, decode_signature``
    (the checkpoint as its epoch; templates pooled). Each epoch checkpoint has a signature
    of its own, so the one of each row's checkpoint is kept."""
    scores = scores.assign(epoch=scores["checkpoint"].str.removeprefix("epoch").astype(int))
    keys = ["size", "seed", "data_type", "idiom", "epoch"]
    table = _order(_rate(scores, keys, "overgeneralised", "overgeneralisation"), sizes, keys)
    signatures = scores[["size", "seed", "epoch", "decode_signature"]].drop_duplicates(["size", "seed", "epoch"])
    table = table.merge(signatures, on=["size", "seed", "epoch"], how="left").rename(columns={"epoch": "checkpoint"})
    return table[["size", "seed", "data_type", "idiom", "checkpoint", "overgeneralisation", "n", "decode_signature"]]


#: suffix of the column with the standard deviation over seeds next to each size's mean
SD_SUFFIX = "_sd"

#: the ``note`` of an idiom whose curve is zero at every checkpoint (it has no peak)
NEVER_OVERGENERALISED = "never overgeneralised"


def _with_seed_sd(means: pd.DataFrame, per_seed: pd.Series, keys: list[str], sizes: Sequence[str]) -> pd.DataFrame:
    """Put the standard deviation over seeds of ``per_seed`` (one score per seed; sample
    sd, ddof 1) next to each size's mean column: ``small, small_sd, medium, ...``. With one
    seed the sd is undefined and stays empty."""
    spread = per_seed.groupby([*keys, "size"], sort=False).std(ddof=1).unstack("size")
    columns = []
    for size in sizes:
        if size in means.columns:
            columns.append(size)
            means[size + SD_SUFFIX] = spread[size].reindex(pd.MultiIndex.from_frame(means[keys])).to_numpy()
            columns.append(size + SD_SUFFIX)
    return means[[*keys, *columns]]


def systematicity_summary(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 4a: per data type and condition, consistency per size (seed means, then
    template mean), and next to it (``<size>_sd``) the standard deviation over seeds of each
    seed's score (its mean over templates)."""
    keys = ["data_type", "condition"]
    per_template = table.groupby([*keys, "template", "size"], sort=False)["consistency"].mean()
    summary = per_template.groupby([*keys, "size"], sort=False).mean().unstack("size").reset_index()
    per_seed = table.groupby([*keys, "size", "seed"], sort=False)["consistency"].mean()
    summary = _with_seed_sd(summary, per_seed, keys, sizes)
    return _order(summary, sizes, keys)


def substitutivity_summary(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 6a: per data type, (synonym) consistency per size, averaged over pairs,
    templates and seeds, and next to it (``<size>_sd``) the standard deviation over seeds of
    each seed's score (its mean over pairs and templates)."""
    keys = ["data_type", "metric"]
    long = table.melt(
        id_vars=["data_type", "size", "pair", "template", "seed"],
        value_vars=["consistency", "synonym_consistency"],
        var_name="metric",
    )
    summary = long.groupby([*keys, "size"], sort=False)["value"].mean().unstack("size").reset_index()
    per_seed = long.groupby([*keys, "size", "seed"], sort=False)["value"].mean()
    summary = _with_seed_sd(summary, per_seed, keys, sizes)
    return _order(summary, sizes, keys)


def overgeneralisation_peaks(table: pd.DataFrame, sizes: Sequence[str]) -> pd.DataFrame:
    """Paper Table 8: per data type, size and idiom the peak of the seed-averaged curve and
    its epoch (``peak_checkpoint``), with ``peak_sd`` the standard deviation over seeds at
    that epoch. An idiom whose curve is zero throughout has no peak: its
    ``peak_checkpoint`` is empty and ``note`` says :data:`NEVER_OVERGENERALISED`."""
    keys = ["data_type", "size", "idiom"]
    curve = table.groupby([*keys, "checkpoint"], sort=False)["overgeneralisation"].agg(peak="mean", peak_sd="std")
    curve = curve.reset_index()
    peaks = curve.loc[curve.groupby(keys, sort=False)["peak"].idxmax()].rename(
        columns={"checkpoint": "peak_checkpoint"}
    )
    never = peaks["peak"] == 0
    peaks["peak_checkpoint"] = peaks["peak_checkpoint"].astype("Int64").mask(never)
    peaks["note"] = [NEVER_OVERGENERALISED if flag else "" for flag in never]
    columns = [*keys, "peak", "peak_checkpoint", "peak_sd", "note"]
    return _order(peaks, sizes, ["data_type", "size"])[columns]


def write_table(table: pd.DataFrame, path: str | Path) -> None:
    """Write a table atomically, scores to 4 decimal places."""
    write_tsv(path, table, float_format="%.4f")


#: the heading of each final table's HTML rendering in the report, by output name
TITLES = {
    "systematicity": "Systematicity per model, data type, condition and template (best checkpoint)",
    "substitutivity": "Substitutivity per model, data type, synonym pair and template (best checkpoint)",
    "overgeneralisation": "Overgeneralisation per model, data type, idiom and epoch checkpoint",
    "systematicity_summary": "Systematicity summary (paper Table 4a): mean consistency per size, sd over seeds",
    "substitutivity_summary": "Substitutivity summary (paper Table 6a): mean consistency per size, sd over seeds",
    "overgeneralisation_peaks": "Peak overgeneralisation per idiom (paper Table 8)",
    "manual_analysis": "Manual analysis: annotated categories of inconsistent pairs (paper Figure 5)",
}
