"""Figures of the PLANE report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from natcomp.figures import save_png
from natcomp.plane.adjectives import CLASSES, INFERENCE_TYPES


def plot_f1_by_class_and_it(data: pd.DataFrame, out_png: str | Path) -> None:
    """One panel per model: F1 (y) per inference type (x), one line per adjective class."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(data["model"]))
    figure, axes = plt.subplots(
        1, max(1, len(models)), figsize=(3.6 * max(1, len(models)), 3.2), sharey=True, squeeze=False
    )
    for axis, model in zip(axes[0], models):
        part = data[data["model"] == model]
        for cls in CLASSES:
            line = part[part["class"] == cls].set_index("it").reindex(INFERENCE_TYPES)
            axis.plot(INFERENCE_TYPES, line["f1"], marker="o", label=cls)
        axis.set_title(Path(model).name or model, fontsize=9)
        axis.set_xlabel("inference type")
        axis.set_ylim(-2, 102)
    axes[0][0].set_ylabel("F1 (%)")
    axes[0][-1].legend(title="adjective class", fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save_png(
        figure, out_png, title="PLANE Figure 1: NLI-transfer F1 (%) per inference type and adjective class, per model"
    )


def plot_accuracy_by_length(table: pd.DataFrame, out_png: str | Path) -> None:
    """Figure 8 analogue: accuracy (y, mean with sd bars over splits) per maximum input
    length (x), one line per setting, chance as a dotted line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(4.2, 3.2))
    for setting, part in table.groupby("setting", sort=True):
        part = part.sort_values("max_length")
        axis.errorbar(
            part["max_length"], part["accuracy_mean"], yerr=part["accuracy_sd"].fillna(0), marker="o", label=setting
        )
    if len(table):
        axis.axhline(float(table["chance"].mean()), linestyle=":", color="grey", label="chance")
    axis.set_xlabel("maximum input length (tokens)")
    axis.set_ylabel("accuracy")
    axis.set_ylim(0, 1.02)
    axis.legend(title="test set", fontsize=8)
    save_png(
        figure, out_png, title="PLANE Figure 8: fine-tuned accuracy by maximum input length (mean and sd over splits)"
    )


def plot_subword_analysis(table: pd.DataFrame, out_png: str | Path) -> None:
    """Figures 2 and 3 analogue: one panel per setting (GOoD, One-IT, ...): accuracy (y)
    against the share of test items with subwords (x), one point per test split and class,
    a least-squares line per class where it has two or more points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    panels = sorted(set(zip(table["train_set"], table["setting"])))
    figure, axes = plt.subplots(1, max(1, len(panels)), figsize=(3.8 * max(1, len(panels)), 3.3), squeeze=False)
    for axis, (train_set, setting) in zip(axes[0], panels):
        part = table[(table["train_set"] == train_set) & (table["setting"] == setting)]
        for index, cls in enumerate(CLASSES):
            points = part[part["class"] == cls]
            colour = f"C{index}"
            axis.scatter(points["subword_share"], points["accuracy"], color=colour, label=cls, s=18)
            if points["subword_share"].nunique() > 1:
                slope, intercept = np.polyfit(points["subword_share"], points["accuracy"], 1)
                xs = np.linspace(points["subword_share"].min(), points["subword_share"].max(), 10)
                axis.plot(xs, slope * xs + intercept, color=colour, linewidth=1)
        axis.set_title(f"{setting} ({train_set} splits)", fontsize=9)
        axis.set_xlabel("share of test items with subwords")
        axis.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel("accuracy")
    axes[0][-1].legend(title="adjective class", fontsize=8, loc="lower right")
    save_png(
        figure,
        out_png,
        title="PLANE Figures 2 and 3: fine-tuned accuracy per adjective class against the share of test items "
        "with a word split into subwords, per test split",
    )
