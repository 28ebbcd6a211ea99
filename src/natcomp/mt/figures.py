"""Figures of the MT compositionality tests, in the manner of the paper's Figures 1, 3 and 4.

Every figure has a title and axis labels that name the metric and what it is a share of;
each function saves the figure (PNG, atomically) and returns it, closed, for inspection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from natcomp.files import atomic_path  # noqa: E402
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES  # noqa: E402

#: the y-axis label of each systematicity condition: what "consistent" means there
SYSTEMATICITY_LABELS = {
    "np_prime": "consistency (share of pairs whose\ntranslations differ in one word)",
    "vp_prime": "consistency (share of pairs whose\ntranslations differ in one word)",
    "s1_prime": "consistency (share of pairs with\nidentical translations of S2)",
    "s3": "consistency (share of pairs with\nidentical translations of S2)",
}
CONSISTENCY_LABEL = "consistency (share of pairs with\nidentical translations)"
SYNONYM_CONSISTENCY_LABEL = "synonym consistency (share of pairs\ntranslating the synonym identically)"
OVERGENERALISATION_LABEL = "overgeneralisation (share of translations\nwith a literal translation of the idiom)"
#: written in the VP -> VP' panel when the other conditions have semi-natural items
NO_SEMI_NATURAL_VP = "no semi-natural items:\nlike the paper, VP -> VP' is tested\non synthetic data only"


def _save(figure: plt.Figure, path: str | Path) -> plt.Figure:
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    plt.close(figure)
    return figure


def _data_types(table: pd.DataFrame) -> list[str]:
    present = set(table["data_type"])
    return [d for d in DATA_TYPES if d in present]


def _strip_and_mean(ax, data: pd.DataFrame, y: str, sizes: Sequence[str], order: list[str]) -> None:
    """Points per unit (template or pair) and a diamond for their mean, per data type and size."""
    sns.stripplot(
        data=data,
        x="data_type",
        y=y,
        hue="size",
        hue_order=sizes,
        order=order,
        dodge=True,
        alpha=0.5,
        size=4,
        ax=ax,
        legend=False,
    )
    sns.pointplot(
        data=data,
        x="data_type",
        y=y,
        hue="size",
        hue_order=sizes,
        order=order,
        dodge=0.53,
        linestyle="none",
        markers="D",
        errorbar=None,
        ax=ax,
    )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(range(len(order)), [DATA_TYPES[d] for d in order])
    ax.set_xlabel("evaluation data type")


def _one_legend(axes) -> None:
    """The size legend on the last panel only."""
    for ax in axes[:-1]:
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if axes[-1].get_legend() is not None:
        axes[-1].get_legend().set_title("corpus size")


def systematicity_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> plt.Figure:
    """Figure 1: consistency per condition, data type and size; points are templates."""
    per_template = table.groupby(["condition", "data_type", "template", "size"], as_index=False)["consistency"].mean()
    conditions = [c for c in CONDITION_NAMES if c in set(per_template["condition"])]
    figure, axes = plt.subplots(
        1, len(conditions), figsize=(4 * len(conditions), 4.2), squeeze=False, layout="constrained"
    )
    previous_label = None
    for ax, condition in zip(axes[0], conditions):
        data = per_template[per_template["condition"] == condition]
        _strip_and_mean(ax, data, "consistency", sizes, _data_types(data))
        ax.set_title(CONDITION_NAMES[condition])
        # A y label where the meaning of "consistent" changes (NP/VP, then S CONJ S).
        label = SYSTEMATICITY_LABELS.get(condition, "consistency")
        ax.set_ylabel(label if label != previous_label else "")
        previous_label = label
        if (
            condition == "vp_prime"
            and "semi_natural" in set(table["data_type"])
            and "semi_natural" not in set(data["data_type"])
        ):
            ax.text(
                0.5,
                0.04,
                NO_SEMI_NATURAL_VP,
                transform=ax.transAxes,
                ha="center",
                va="bottom",
                fontsize=8,
                style="italic",
            )
    _one_legend(axes[0])
    figure.suptitle(
        "Systematicity: consistency per condition, data type and corpus size\n"
        "(best checkpoint; small points are templates, diamonds their mean)"
    )
    return _save(figure, path)


def substitutivity_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> plt.Figure:
    """Figure 3a: consistency and synonym consistency per data type and size; points are pairs."""
    per_pair = table.groupby(["data_type", "pair", "size"], as_index=False)[
        ["consistency", "synonym_consistency"]
    ].mean()
    figure, axes = plt.subplots(1, 2, figsize=(9, 4.2), layout="constrained")
    labels = {"consistency": CONSISTENCY_LABEL, "synonym_consistency": SYNONYM_CONSISTENCY_LABEL}
    for ax, metric in zip(axes, labels):
        _strip_and_mean(ax, per_pair, metric, sizes, _data_types(per_pair))
        ax.set_title(metric.replace("_", " "))
        ax.set_ylabel(labels[metric])
    _one_legend(axes)
    figure.suptitle(
        "Substitutivity: consistency per data type and corpus size\n"
        "(best checkpoint; small points are synonym pairs, diamonds their mean)"
    )
    return _save(figure, path)


def synonym_figure(table: pd.DataFrame, path: str | Path) -> plt.Figure:
    """Figure 3b: per synonym pair, both consistencies averaged over sizes and data types."""
    per_pair = table.groupby("pair")[["consistency", "synonym_consistency"]].mean().reset_index()
    long = per_pair.melt(id_vars="pair", var_name="metric", value_name="score")
    long["metric"] = long["metric"].str.replace("_", " ")
    figure, ax = plt.subplots(figsize=(6, 0.3 * len(per_pair) + 1.5), layout="constrained")
    sns.pointplot(data=long, y="pair", x="score", hue="metric", linestyle="none", ax=ax, order=sorted(per_pair["pair"]))
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("consistency (share of pairs with identical translations:\nfull sentences or the synonym only)")
    ax.set_ylabel("synonym pair (British/American)")
    ax.set_title("Substitutivity per synonym pair\n(averaged over corpus sizes, data types and seeds)")
    return _save(figure, path)


def overgeneralisation_figure(table: pd.DataFrame, sizes: Sequence[str], path: str | Path) -> plt.Figure:
    """Figure 4: overgeneralisation over training, a thin line per idiom and the mean, per size."""
    curves = table.groupby(["data_type", "size", "idiom", "checkpoint"], as_index=False)["overgeneralisation"].mean()
    data_types = _data_types(curves)
    palette = dict(zip(sizes, sns.color_palette(n_colors=len(sizes))))
    figure, axes = plt.subplots(
        1, len(data_types), figsize=(4 * len(data_types), 4.2), squeeze=False, sharey=True, layout="constrained"
    )
    for ax, data_type in zip(axes[0], data_types):
        for size in sizes:
            subset = curves[(curves["data_type"] == data_type) & (curves["size"] == size)]
            for _, idiom in subset.groupby("idiom"):
                ax.plot(idiom["checkpoint"], idiom["overgeneralisation"], color=palette[size], alpha=0.15, lw=0.8)
            mean = subset.groupby("checkpoint")["overgeneralisation"].mean()
            ax.plot(mean.index, mean.values, color=palette[size], lw=2.5, label=size)
        ax.set_title(DATA_TYPES[data_type])
        ax.set_xlabel("training epoch (checkpoint)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel(OVERGENERALISATION_LABEL)
    axes[0][-1].legend(title="corpus size")
    figure.suptitle(
        "Overgeneralisation of idioms over training\n(seed means; thin lines are idioms, thick lines their mean)"
    )
    return _save(figure, path)
