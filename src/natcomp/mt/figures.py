"""Figures of the MT compositionality tests, in the manner of the paper's Figures 1, 3 and 4."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from natcomp.files import atomic_path  # noqa: E402
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES  # noqa: E402


def _save(figure: plt.Figure, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    plt.close(figure)


def _data_types(table: pd.DataFrame) -> list[str]:
    present = set(table["data_type"])
    return [d for d in DATA_TYPES if d in present]


def _strip_and_mean(ax, data: pd.DataFrame, y: str, sizes: Sequence[str], order: list[str]) -> None:
    """Points per unit (template or pair) and a diamond for their mean, per data type and size."""
    sns.stripplot(data=data, x="data_type", y=y, hue="size", hue_order=sizes, order=order,
                  dodge=True, alpha=0.5, size=4, ax=ax, legend=False)
    sns.pointplot(data=data, x="data_type", y=y, hue="size", hue_order=sizes, order=order,
                  dodge=0.53, linestyle="none", markers="D", errorbar=None, ax=ax)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("")


def systematicity_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> None:
    """Figure 1: consistency per condition, data type and size; points are templates."""
    per_template = table.groupby(["condition", "data_type", "template", "size"], as_index=False)["consistency"].mean()
    conditions = [c for c in CONDITION_NAMES if c in set(per_template["condition"])]
    figure, axes = plt.subplots(1, len(conditions), figsize=(4 * len(conditions), 3.6), squeeze=False)
    for ax, condition in zip(axes[0], conditions):
        data = per_template[per_template["condition"] == condition]
        _strip_and_mean(ax, data, "consistency", sizes, _data_types(data))
        ax.set_title(CONDITION_NAMES[condition])
    _save(figure, path)


def substitutivity_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> None:
    """Figure 3a: consistency and synonym consistency per data type and size; points are pairs."""
    per_pair = table.groupby(["data_type", "pair", "size"], as_index=False)[["consistency", "synonym_consistency"]].mean()
    figure, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, metric in zip(axes, ["consistency", "synonym_consistency"]):
        _strip_and_mean(ax, per_pair, metric, sizes, _data_types(per_pair))
        ax.set_title(metric.replace("_", " "))
    _save(figure, path)


def synonym_figure(table: pd.DataFrame, path: str | Path) -> None:
    """Figure 3b: per synonym pair, both consistencies averaged over sizes and data types."""
    per_pair = table.groupby("pair")[["consistency", "synonym_consistency"]].mean().reset_index()
    long = per_pair.melt(id_vars="pair", var_name="metric", value_name="score")
    figure, ax = plt.subplots(figsize=(6, 0.3 * len(per_pair) + 1))
    sns.pointplot(data=long, y="pair", x="score", hue="metric", linestyle="none", ax=ax,
                  order=sorted(per_pair["pair"]))
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("consistency")
    ax.set_ylabel("")
    _save(figure, path)


def overgeneralisation_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> None:
    """Figure 4: overgeneralisation over training, a thin line per idiom and the mean, per size."""
    curves = table.groupby(["data_type", "size", "idiom", "checkpoint"], as_index=False)["overgeneralisation"].mean()
    data_types = _data_types(curves)
    palette = dict(zip(sizes, sns.color_palette(n_colors=len(sizes))))
    figure, axes = plt.subplots(1, len(data_types), figsize=(4 * len(data_types), 3.6), squeeze=False, sharey=True)
    for ax, data_type in zip(axes[0], data_types):
        for size in sizes:
            subset = curves[(curves["data_type"] == data_type) & (curves["size"] == size)]
            for _, idiom in subset.groupby("idiom"):
                ax.plot(idiom["checkpoint"], idiom["overgeneralisation"], color=palette[size], alpha=0.15, lw=0.8)
            mean = subset.groupby("checkpoint")["overgeneralisation"].mean()
            ax.plot(mean.index, mean.values, color=palette[size], lw=2.5, label=size)
        ax.set_title(data_type.replace("_", "-"))
        ax.set_xlabel("epoch")
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel("overgeneralisation")
    axes[0][-1].legend(title="size")
    _save(figure, path)
