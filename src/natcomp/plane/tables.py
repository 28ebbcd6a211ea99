"""The PLANE report tables, computed from predictions (no model code: cheap to import)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from natcomp.plane.adjectives import CLASSES, INFERENCE_TYPES
from natcomp.plane.scoring import f1_table, mean_sd


def table4(predictions: pd.DataFrame) -> pd.DataFrame:
    """Table 4 analogue: per model and class, mean and sd of F1 over template x verbaliser
    (F1 over all ITs and premise orders of the class), plus an ``Average`` row per model
    (mean and sd over all template x verbaliser x class cells)."""
    cells = f1_table(predictions, ["model", "template", "verbaliser", "class"])
    rows = []
    for model, group in cells.groupby("model", sort=False):
        for cls in [*CLASSES, "Average"]:
            values = group["f1"] if cls == "Average" else group.loc[group["class"] == cls, "f1"]
            mean, sd = mean_sd(values)
            rows.append({"model": model, "class": cls, "f1_mean": mean, "f1_sd": sd, "cells": len(values)})
    return pd.DataFrame(rows)


def table5(predictions: pd.DataFrame) -> pd.DataFrame:
    """Table 5 analogue: F1 per model and class, and the mean over the classes (``Average``)."""
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
                }
            )
        rows.append(
            {"model": model, "class": "Average", "f1": float(group["f1"].mean()), "items": int(group["items"].sum())}
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


def table6(results: pd.DataFrame) -> pd.DataFrame:
    """Table 6 analogue: accuracy mean and sd over splits per setting and test set (all classes)."""
    overall = results[results["class"] == "all"]
    rows = []
    for (setting, test_set), group in overall.groupby(["setting", "test_set"], sort=True):
        mean, sd = mean_sd(group["accuracy"])
        rows.append(
            {
                "setting": setting,
                "test_set": test_set,
                "splits": len(group),
                "accuracy_mean": mean,
                "accuracy_sd": sd,
                "chance": float(group["chance"].mean()),
            }
        )
    return pd.DataFrame(rows)
