"""The PLANE report tables, computed from predictions (no model code: cheap to import)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from natcomp.plane.adjectives import CLASSES, INFERENCE_TYPES
from natcomp.plane.scoring import f1_table, mean_sd


def table4(predictions: pd.DataFrame) -> pd.DataFrame:
    """Table 4 analogue: per model and class, mean and sd of F1 over template x verbaliser
    (F1 over all ITs and premise orders of the class), plus an ``Average`` row per model
    (mean and sd over all template x verbaliser x class cells); ``chance_f1``: the mean over
    the same cells of the best constant answer's F1 (:func:`natcomp.plane.scoring.chance_f1`)."""
    cells = f1_table(predictions, ["model", "template", "verbaliser", "class"])
    rows = []
    for model, group in cells.groupby("model", sort=False):
        for cls in [*CLASSES, "Average"]:
            values = group["f1"] if cls == "Average" else group.loc[group["class"] == cls, "f1"]
            mean, sd = mean_sd(values)
            chance = group["chance_f1"] if cls == "Average" else group.loc[group["class"] == cls, "chance_f1"]
            rows.append(
                {
                    "model": model,
                    "class": cls,
                    "f1_mean": mean,
                    "f1_sd": sd,
                    "cells": len(values),
                    "chance_f1": float(chance.mean()),
                }
            )
    return pd.DataFrame(rows)


def table5(predictions: pd.DataFrame) -> pd.DataFrame:
    """Table 5 analogue: F1 per model and class, and the mean over the classes (``Average``),
    each with the chance F1 of the same items (the mean of the classes' for ``Average``)."""
    cells = f1_table(predictions, ["model", "class"])
    rows = []
    for model, group in cells.groupby("model", sort=False):
        for cls in CLASSES:
            cell = group[group["class"] == cls]
            rows.append(
                {
                    "model": model,
                    "class": cls,
                    "f1": float(cell["f1"].iloc[0]) if len(cell) else np.nan,
                    "items": int(cell["items"].iloc[0]) if len(cell) else 0,
                    "chance_f1": float(cell["chance_f1"].iloc[0]) if len(cell) else np.nan,
                }
            )
        rows.append(
            {
                "model": model,
                "class": "Average",
                "f1": float(group["f1"].mean()),
                "items": int(group["items"].sum()),
                "chance_f1": float(group["chance_f1"].mean()),
            }
        )
    return pd.DataFrame(rows)


def figure1_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """F1 per model, class and IT (the data of Figure 1)."""
    table = f1_table(predictions, ["model", "class", "it"])
    order = {c: i for i, c in enumerate(CLASSES)}
    its = {it: i for i, it in enumerate(INFERENCE_TYPES)}
    return table.sort_values(
        ["model", "class", "it"],
        key=lambda s: s.map(order) if s.name == "class" else (s.map(its) if s.name == "it" else s),
    ).reset_index(drop=True)


TABLE6_COLUMNS = [
    "train_set",
    "setting",
    "test_set",
    "splits",
    "accuracy_mean",
    "accuracy_sd",
    "chance",
]
#: the key columns of Table 6's rows (the ``our_row`` of resources/plane/published.tsv)
TABLE6_KEYS = ["train_set", "setting", "test_set"]


def table6(results: pd.DataFrame) -> pd.DataFrame:
    """Table 6 analogue: accuracy mean and sd over splits per train set (released / own),
    setting (good / one_it / ...) and test set (all classes). The paper's numbers are put
    beside the rows of its own setting (released train splits tested on the released test
    splits) by :func:`natcomp.published.add_paper_columns` with :data:`TABLE6_KEYS`."""
    overall = results[results["class"] == "all"]
    if "train_set" not in overall:
        overall = overall.assign(train_set="own")
    rows = []
    for (train_set, setting, test_set), group in overall.groupby(["train_set", "setting", "test_set"], sort=True):
        mean, sd = mean_sd(group["accuracy"])
        rows.append(
            {
                "train_set": train_set,
                "setting": setting,
                "test_set": test_set,
                "splits": len(group),
                "accuracy_mean": mean,
                "accuracy_sd": sd,
                "chance": float(group["chance"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=TABLE6_COLUMNS)


def table8(predictions: pd.DataFrame) -> pd.DataFrame:
    """Table 8 analogue (zero-shot): per model and class, mean and sd over prompt templates
    of the F1 of the class (all its ITs); ``Average``: the mean of the three class means and
    the mean of their sds (how the paper's Average row follows from its class rows, e.g.
    BERT-base: (35.8 + 21.9 + 5.9) / 3 = 21.2, (25.2 + 14.8 + 2.2) / 3 = 14.1)."""
    cells = f1_table(predictions, ["model", "template", "class"])
    rows = []
    for model, group in cells.groupby("model", sort=False):
        per_class = []
        for cls in CLASSES:
            values = group.loc[group["class"] == cls, "f1"]
            mean, sd = mean_sd(values)
            chance = float(group.loc[group["class"] == cls, "chance_f1"].mean())
            per_class.append((mean, sd, chance))
            rows.append(
                {
                    "model": model,
                    "class": cls,
                    "f1_mean": mean,
                    "f1_sd": sd,
                    "templates": len(values),
                    "chance_f1": chance,
                }
            )
        rows.append(
            {
                "model": model,
                "class": "Average",
                "f1_mean": float(np.mean([m for m, _, _ in per_class])),
                "f1_sd": float(np.mean([s for _, s, _ in per_class])),
                "templates": int(group["template"].nunique()),
                "chance_f1": float(np.mean([c for _, _, c in per_class])),
            }
        )
    return pd.DataFrame(rows, columns=["model", "class", "f1_mean", "f1_sd", "templates", "chance_f1"])


def length_table(results: pd.DataFrame) -> pd.DataFrame:
    """Figure 8 data: accuracy (all classes) mean and sample sd over splits per setting and
    maximum input length, with the chance level."""
    overall = results[results["class"] == "all"]
    rows = []
    for (setting, length), group in overall.groupby(["setting", "max_length"], sort=True):
        mean, sd = mean_sd(group["accuracy"])
        rows.append(
            {
                "setting": setting,
                "max_length": int(length),
                "splits": len(group),
                "accuracy_mean": mean,
                "accuracy_sd": sd,
                "chance": float(group["chance"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=["setting", "max_length", "splits", "accuracy_mean", "accuracy_sd", "chance"])
