"""Figures of the MT compositionality tests, in the manner of the paper's Figures 1, 3 and 4.

Every figure has a title and axis labels that name the metric and what it is a share of;
each function saves the figure (PNG, atomically) and returns it, closed, for inspection.

Colours are model groups (:func:`natcomp.mt.tables.model_group`): the corpus sizes of the
trained models in config order, then the pretrained systems by name in config order. With
trained models only, the legend is titled "corpus size" as in the paper; with pretrained
systems it is titled "model". A pretrained system has no training curve: in the
overgeneralisation figure it is a point at the x position "final", right of the epochs.
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

from natcomp.figures import save_png  # noqa: E402
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES  # noqa: E402
from natcomp.mt.scoring import TRAINED_SYSTEM  # noqa: E402
from natcomp.mt.tables import model_group, model_groups  # noqa: E402
from natcomp.published import PAPER_PREFIX  # noqa: E402

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
#: the legend title with trained models only (colours are corpus sizes), and with pretrained systems
SIZE_LEGEND = "corpus size"
MODEL_LEGEND = "model"
#: the x tick of the pretrained systems' point in the overgeneralisation figure
FINAL_TICK = "final"
#: the legend entry of the paper's published values (black bars at a model group's position)
PAPER_LABEL = "paper (published)"


def _save(figure: plt.Figure, path: str | Path) -> plt.Figure:
    # the MT figures place their own titles and legends
    return save_png(figure, path, tight_layout=False)


def paper_values(published: pd.DataFrame, our_table: str) -> dict[tuple[str, str, str], float]:
    """The published values of one summary table (resources/mt/published.tsv) keyed by
    (data type, condition or metric, corpus size), as the figures take them."""
    rows = published[published["our_table"] == our_table]
    return {(*row.our_row.split(" / "), row.our_column): float(row.value) for row in rows.itertuples(index=False)}


def _data_types(table: pd.DataFrame) -> list[str]:
    present = set(table["data_type"])
    return [d for d in DATA_TYPES if d in present]


def _with_models(table: pd.DataFrame, sizes: Sequence[str], systems: Sequence[str]) -> tuple[pd.DataFrame, list[str]]:
    """The table with a ``model`` column (corpus size or pretrained system) and the model
    groups in display order."""
    return table.assign(model=model_group(table)), model_groups(table, sizes, systems)


def _legend_title(table: pd.DataFrame) -> str:
    return SIZE_LEGEND if (table["system"] == TRAINED_SYSTEM).all() else MODEL_LEGEND


def _strip_and_mean(ax, data: pd.DataFrame, y: str, models: Sequence[str], order: list[str]) -> None:
    """Points per unit (template or pair) and a diamond for their mean, per data type and
    model group."""
    # The diamonds sit at the centres of the strips: stripplot gives each of n hue levels
    # 0.8 / n of a category's width.
    dodge = 0.8 * (len(models) - 1) / len(models) if len(models) > 1 else False
    sns.stripplot(
        data=data,
        x="data_type",
        y=y,
        hue="model",
        hue_order=models,
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
        hue="model",
        hue_order=models,
        order=order,
        dodge=dodge,
        linestyle="none",
        markers="D",
        errorbar=None,
        ax=ax,
    )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(range(len(order)), [DATA_TYPES[d] for d in order])
    ax.set_xlabel("evaluation data type")


def _paper_marks(ax, paper: dict[tuple[str, str], float], models: Sequence[str], order: list[str]) -> bool:
    """The paper's value of each (data type, model group) it reports, as a black bar at
    that group's place beside its diamond; True if any was drawn."""
    dodge = 0.8 * (len(models) - 1) / len(models) if len(models) > 1 else 0.0
    offsets = [(-dodge / 2 + i * dodge / (len(models) - 1)) if len(models) > 1 else 0.0 for i in range(len(models))]
    xs, ys = [], []
    for x, data_type in enumerate(order):
        for offset, model in zip(offsets, models, strict=True):
            if (data_type, model) in paper:
                xs.append(x + offset)
                ys.append(paper[(data_type, model)])
    if xs:
        ax.scatter(xs, ys, marker="_", s=220, linewidths=2.5, color="black", label=PAPER_LABEL, zorder=5)
    return bool(xs)


def _one_legend(axes, title: str) -> None:
    """The model legend on the last panel only, with the paper's bars where a panel has them."""
    for ax in axes[:-1]:
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if axes[-1].get_legend() is not None:
        axes[-1].get_legend().set_title(title)
        # Right of the last panel, where it hides no points.
        sns.move_legend(axes[-1], "upper left", bbox_to_anchor=(1.02, 1))
        legend = axes[-1].get_legend()
        paper = [c for ax in axes for c in ax.collections if c.get_label() == PAPER_LABEL]
        if paper:
            handles = [*legend.legend_handles, paper[0]]
            labels = [text.get_text() for text in legend.get_texts()] + [PAPER_LABEL]
            axes[-1].legend(handles, labels, title=title, loc="upper left", bbox_to_anchor=(1.02, 1))


def systematicity_figure(
    table: pd.DataFrame,
    sizes: Sequence[str],
    path: str | Path,
    *,
    systems: Sequence[str] = (),
    paper: dict[tuple[str, str, str], float] | None = None,
) -> plt.Figure:
    """Figure 1: consistency per condition, data type and model group (corpus size or
    pretrained system); points are templates. ``paper`` maps (data type, condition, corpus
    size) to the paper's value (Table 4a, the numbers behind its Figure 1): drawn as black
    bars beside the diamonds of the sizes this run has."""
    table, models = _with_models(table, sizes, systems)
    per_template = table.groupby(["condition", "data_type", "template", "model"], as_index=False)["consistency"].mean()
    conditions = [c for c in CONDITION_NAMES if c in set(per_template["condition"])]
    figure, axes = plt.subplots(
        1, len(conditions), figsize=(4 * len(conditions), 4.2), squeeze=False, layout="constrained"
    )
    previous_label = None
    for ax, condition in zip(axes[0], conditions):
        data = per_template[per_template["condition"] == condition]
        _strip_and_mean(ax, data, "consistency", models, _data_types(data))
        marks = {(d, size): value for (d, c, size), value in (paper or {}).items() if c == condition}
        _paper_marks(ax, marks, models, _data_types(data))
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
    legend = _legend_title(table)
    _one_legend(axes[0], legend)
    figure.suptitle(
        f"Systematicity: consistency per condition, data type and {legend}\n"
        "(best checkpoint; small points are templates, diamonds their mean)"
    )
    return _save(figure, path)


def substitutivity_figure(
    table: pd.DataFrame,
    sizes: Sequence[str],
    path: str | Path,
    *,
    systems: Sequence[str] = (),
    paper: dict[tuple[str, str, str], float] | None = None,
) -> plt.Figure:
    """Figure 3a: consistency and synonym consistency per data type and model group;
    points are pairs. ``paper`` maps (data type, metric, corpus size) to the paper's value
    (Table 6a, the numbers behind its Figure 3a), drawn as black bars."""
    table, models = _with_models(table, sizes, systems)
    per_pair = table.groupby(["data_type", "pair", "model"], as_index=False)[
        ["consistency", "synonym_consistency"]
    ].mean()
    figure, axes = plt.subplots(1, 2, figsize=(9, 4.2), layout="constrained")
    labels = {"consistency": CONSISTENCY_LABEL, "synonym_consistency": SYNONYM_CONSISTENCY_LABEL}
    for ax, metric in zip(axes, labels):
        _strip_and_mean(ax, per_pair, metric, models, _data_types(per_pair))
        marks = {(d, size): value for (d, m, size), value in (paper or {}).items() if m == metric}
        _paper_marks(ax, marks, models, _data_types(per_pair))
        ax.set_title(metric.replace("_", " "))
        ax.set_ylabel(labels[metric])
    legend = _legend_title(table)
    _one_legend(axes, legend)
    figure.suptitle(
        f"Substitutivity: consistency per data type and {legend}\n"
        "(best checkpoint; small points are synonym pairs, diamonds their mean)"
    )
    return _save(figure, path)


def synonym_figure(table: pd.DataFrame, path: str | Path) -> plt.Figure:
    """Figure 3b: per synonym pair, both consistencies averaged over all models (every
    size and seed, and the pretrained systems) and data types."""
    per_pair = table.groupby("pair")[["consistency", "synonym_consistency"]].mean().reset_index()
    long = per_pair.melt(id_vars="pair", var_name="metric", value_name="score")
    long["metric"] = long["metric"].str.replace("_", " ")
    figure, ax = plt.subplots(figsize=(6, 0.3 * len(per_pair) + 1.5), layout="constrained")
    sns.pointplot(data=long, y="pair", x="score", hue="metric", linestyle="none", ax=ax, order=sorted(per_pair["pair"]))
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("consistency (share of pairs with identical translations:\nfull sentences or the synonym only)")
    ax.set_ylabel("synonym pair (British/American)")
    models = "corpus sizes" if _legend_title(table) == SIZE_LEGEND else "all models (corpus sizes, pretrained systems)"
    ax.set_title(f"Substitutivity per synonym pair\n(averaged over {models}, data types and seeds)")
    return _save(figure, path)


#: the overgeneralisation figure's title, by (trained models present, pretrained systems present)
_OVERGENERALISATION_TITLES = {
    (
        True,
        False,
    ): "Overgeneralisation of idioms over training\n(seed means; thin lines are idioms, thick lines their mean)",
    (True, True): "Overgeneralisation of idioms over training, and by pretrained systems\n(seed means; thin lines are "
    "idioms, thick lines their mean; at final, a pretrained system's idioms and their mean (diamond))",
    (False, True): "Overgeneralisation of idioms by pretrained systems\n(released models; small points are idioms, "
    "diamonds their mean)",
}
_OVERGENERALISATION_TITLES[False, False] = _OVERGENERALISATION_TITLES[True, False]


def _overgeneralisation_xlabel(trained: bool, pretrained: bool) -> str:
    if trained and pretrained:
        return "training epoch (checkpoint);\nfinal: pretrained systems' released models"
    return "training epoch (checkpoint)" if trained else "pretrained systems (released models)"


def _final_position(epochs: Sequence[int]) -> float:
    """The x position of the pretrained systems' point: a gap right of the last epoch."""
    if not len(epochs):
        return 0.0
    return max(epochs) + max(1.5, 0.15 * (max(epochs) - min(epochs)))


def _epoch_ticks(epochs: Sequence[int]) -> list[int]:
    """Integer ticks over the epochs, as an automatic integer locator would place them."""
    if not len(epochs):
        return []
    first, last = min(epochs), max(epochs)
    return [int(t) for t in MaxNLocator(integer=True).tick_values(first, last) if first <= t <= last]


def _paper_curves(trained: pd.DataFrame) -> dict[tuple[str, str], pd.Series]:
    """(data type, corpus size) -> the paper's mean over idioms per epoch (of its seed means,
    ``paper_overgeneralisation``), at the epochs of the table where the paper has a value."""
    column = PAPER_PREFIX + "overgeneralisation"
    if column not in trained.columns:
        return {}
    cells = trained.drop_duplicates(["data_type", "size", "idiom", "checkpoint"]).dropna(subset=[column])
    means = cells.groupby(["data_type", "size", "checkpoint"])[column].mean()
    return {key: curve.droplevel([0, 1]) for key, curve in means.groupby(level=[0, 1])}


def overgeneralisation_figure(
    table: pd.DataFrame,
    sizes: Sequence[str],
    path: str | Path,
    *,
    systems: Sequence[str] = (),
    word_for_word: Sequence[str] = (),
) -> plt.Figure:
    """Figure 4: overgeneralisation over training, a thin line per idiom and the mean, per
    corpus size. Where the table carries the paper's values (``paper_overgeneralisation``:
    its mean over seeds of the same size, idiom and epoch), the paper's mean over idioms is
    a dashed line of the size's colour at the epochs the run kept. A pretrained system has
    no training curve: its idioms are small points and their mean a large marker at the x
    position "final", right of the epochs. A table without scores (a target language
    without idiom keywords) gives a figure of its note. Idioms of ``word_for_word`` (word
    for word in the target language: their score measures accuracy) keep their thin lines
    and points but are left out of the means, and the title says so."""
    if "overgeneralisation" not in table.columns:
        figure, ax = plt.subplots(figsize=(6, 1.5))
        ax.axis("off")
        ax.text(
            0.5,
            0.5,
            "\n".join(table.get("note", ["no overgeneralisation scores"])),
            ha="center",
            va="center",
            wrap=True,
        )
        return _save(figure, path)
    models = model_groups(table, sizes, systems)
    trained = table[table["system"] == TRAINED_SYSTEM].astype({"checkpoint": "int64"})
    curves = trained.groupby(["data_type", "size", "idiom", "checkpoint"], as_index=False)["overgeneralisation"].mean()
    points = (
        table[table["system"] != TRAINED_SYSTEM]
        .groupby(["data_type", "system", "idiom"], as_index=False, sort=False)["overgeneralisation"]
        .mean()
    )
    paper = _paper_curves(trained)
    trained_sizes = [model for model in models if model in set(curves["size"])]
    pretrained = [model for model in models if model in set(points["system"])]
    epochs = sorted(set(curves["checkpoint"]))
    final = _final_position(epochs)
    data_types = _data_types(table)
    palette = dict(zip(models, sns.color_palette(n_colors=len(models))))
    figure, axes = plt.subplots(
        1, len(data_types), figsize=(4 * len(data_types), 4.2), squeeze=False, sharey=True, layout="constrained"
    )
    for ax, data_type in zip(axes[0], data_types):
        for size in trained_sizes:
            subset = curves[(curves["data_type"] == data_type) & (curves["size"] == size)]
            for _, idiom in subset.groupby("idiom"):
                ax.plot(idiom["checkpoint"], idiom["overgeneralisation"], color=palette[size], alpha=0.15, lw=0.8)
            counted = subset[~subset["idiom"].isin(word_for_word)]
            mean = counted.groupby("checkpoint")["overgeneralisation"].mean()
            ax.plot(mean.index, mean.values, color=palette[size], lw=2.5, label=size)
            published = paper.get((data_type, size))
            if published is not None:
                label = f"{size}, {PAPER_LABEL}"
                ax.plot(published.index, published.values, color=palette[size], lw=1.8, ls="--", label=label)
        # Several pretrained systems stand side by side around the "final" position.
        for index, system in enumerate(pretrained):
            subset = points[(points["data_type"] == data_type) & (points["system"] == system)]
            x = final + 0.4 * (index - (len(pretrained) - 1) / 2)
            ax.scatter([x] * len(subset), subset["overgeneralisation"], color=palette[system], alpha=0.3, s=12)
            ax.scatter(
                [x],
                [subset.loc[~subset["idiom"].isin(word_for_word), "overgeneralisation"].mean()],
                color=palette[system],
                marker="D",
                s=60,
                edgecolor="black",
                linewidth=0.6,
                label=system,
                zorder=3,
            )
        if pretrained:
            # Fixed ticks: integer epochs, then "final" past a dotted separator.
            ticks = _epoch_ticks(epochs)
            if epochs:
                ax.axvline((epochs[-1] + final) / 2, color="grey", lw=0.8, ls=":")
            ax.set_xticks([*ticks, final], [*map(str, ticks), FINAL_TICK])
            half_width = 0.2 * len(pretrained) + 0.3
            ax.set_xlim(epochs[0] - 0.5 if epochs else final - half_width, final + half_width)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(DATA_TYPES[data_type])
        ax.set_xlabel(_overgeneralisation_xlabel(bool(epochs), bool(pretrained)))
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel(OVERGENERALISATION_LABEL)
    # one legend for every panel: a panel may lack an entry (no paper curve for random words)
    entries = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    axes[0][-1].legend(
        entries.values(), entries.keys(), title=_legend_title(table), loc="upper left", bbox_to_anchor=(1.02, 1)
    )
    title = _OVERGENERALISATION_TITLES[bool(epochs), bool(pretrained)]
    left_out = sorted(set(word_for_word) & set(table["idiom"]))
    if left_out:
        title += f"\nmeans without {', '.join(left_out)} (word for word in the target language)"
    figure.suptitle(title)
    return _save(figure, path)
