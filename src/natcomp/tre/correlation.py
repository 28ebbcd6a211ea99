"""Spearman correlation of TRE with the tree scores (paper Table 2), the partial Spearman correlation
controlling for sentence length, and the TRE-vs-WNS scatter."""

from __future__ import annotations

from functools import lru_cache

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from natcomp.figures import save_png

__all__ = [
    "BASELINE_TARGETS",
    "CORRELATION_COLUMNS",
    "paper_table2",
    "ITEM_COLUMNS",
    "TABLE2_COLUMNS",
    "correlate",
    "sentence_outcomes",
    "partial_spearman",
    "scatter_figure",
    "table2_rows",
]


#: Spearman's rho of TRE and WNS per encoder, the paper's Table 2 (typed from the paper).
@lru_cache(maxsize=1)
def paper_table2() -> dict[str, float]:
    """The paper's Table 2 (Spearman rho of TRE and WNS on SST) by encoder, as typed in
    resources/tre/published.tsv."""
    from natcomp.published import paper_values, published_path, read_published

    values = paper_values(read_published(published_path("tre")))
    return {
        row: value
        for (table, row, column), value in values.items()
        if (table, column) == ("Table 2", "SST Correlation")
    }


#: Columns of the correlation table (one row per encoder and tree score).
CORRELATION_COLUMNS = (
    "encoder",
    "score",
    "spearman_rho",
    "p_value",
    "partial_rho",
    "partial_p_value",
    "sentences",
    "mean_tre",
)


def partial_spearman(x: Sequence[float], y: Sequence[float], control: Sequence[float]) -> tuple[float, float]:
    """Partial Spearman correlation of ``x`` and ``y`` controlling for ``control``, and its p-value.

    The partial correlation of the ranks (average ranks for ties):
    ``(r_xy - r_xz r_yz) / sqrt((1 - r_xz^2) (1 - r_yz^2))`` with Spearman's r of each pair;
    two-sided p-value from Student's t with n - 3 degrees of freedom. NaN when a column is
    constant or fewer than 4 values are given.
    """
    columns = [np.asarray(column, dtype=float) for column in (x, y, control)]
    if len({column.shape for column in columns}) != 1 or columns[0].ndim != 1:
        raise ValueError("x, y and control must be 1-d and of the same length")
    n = columns[0].size
    if n < 4 or any(np.ptp(column) == 0 for column in columns):
        return float("nan"), float("nan")
    ranks = [stats.rankdata(column) for column in columns]
    r_xy, r_xz, r_yz = (float(np.corrcoef(ranks[a], ranks[b])[0, 1]) for a, b in ((0, 1), (0, 2), (1, 2)))
    denominator = np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
    if denominator == 0:
        return float("nan"), float("nan")
    rho = float(np.clip((r_xy - r_xz * r_yz) / denominator, -1.0, 1.0))
    if abs(rho) == 1.0:
        return rho, 0.0
    t = rho * np.sqrt((n - 3) / (1 - rho**2))
    return rho, float(2 * stats.t.sf(abs(t), n - 3))


def correlate(
    encoder: str,
    tre: Sequence[float],
    scores: Mapping[str, Sequence[float]],
    *,
    control: Sequence[float] | None = None,
) -> list[dict[str, object]]:
    """Spearman's rho (and its two-sided p-value) of TRE with each tree score, and the mean TRE.

    A negative rho means: sentences whose labels compose less simply (higher WNS) are
    reconstructed less well by composing word vectors; the paper reads a more negative
    rho as a more compositional encoder. A constant column gives rho = NaN (undefined).
    With ``control`` (sentence length in words), ``partial_rho``/``partial_p_value`` are the
    partial Spearman correlation of TRE and the score with length held fixed
    (:func:`partial_spearman`); without it they are NaN.
    """
    tre = np.asarray(tre, dtype=float)
    rows = []
    for name, values in scores.items():
        values = np.asarray(values, dtype=float)
        if values.shape != tre.shape:
            raise ValueError(f"score {name!r} has {values.size} values for {tre.size} TRE values")
        if np.ptp(values) == 0 or np.ptp(tre) == 0:
            rho, p_value = float("nan"), float("nan")
        else:
            result = stats.spearmanr(tre, values)
            rho, p_value = float(result.statistic), float(result.pvalue)
        partial = (float("nan"), float("nan")) if control is None else partial_spearman(tre, values, control)
        rows.append(
            {
                "encoder": encoder,
                "score": name,
                "spearman_rho": rho,
                "p_value": p_value,
                "partial_rho": partial[0],
                "partial_p_value": partial[1],
                "sentences": int(tre.size),
                "mean_tre": float(tre.mean()),
            }
        )
    return rows


#: Table 2's baseline rows: their ``targets`` and the ``scores`` column they read. ``random``:
#: Gaussian vectors of the encoder's dimension (isotropic); ``shuffled``: the encoder's own
#: embeddings shuffled across sentences (its distribution and common direction, no tree).
BASELINE_TARGETS = {"random": "tre_random", "shuffled": "tre_shuffled"}
#: the setting of the paper's own Table 2 (TRE of every phrase, primitives fitted on the same phrases)
PAPER_SETTING = "paper"
#: Table 2's columns: one row per setting, encoder, length setting (``max_length``: the tokens
#: its embeddings kept, ``none`` for the model's own maximum; ``cut_sentences``: the measured
#: sentences that limit cut, natcomp.tre.lengths), targets (the encoder's or a baseline) and score.
TABLE2_COLUMNS = (
    "setting",
    "encoder",
    "max_length",
    "cut_sentences",
    "targets",
    "paper_encoder",
    "paper_rho",
) + CORRELATION_COLUMNS[1:]


def table2_rows(
    setting: str,
    encoder: str,
    scores: pd.DataFrame,
    stands_in_for: str | None = None,
    *,
    max_length: str,
    cut_sentences: int,
    as_configured: bool,
) -> list[dict[str, object]]:
    """Table 2 rows of one encoder's ``scores`` table (columns ``tre``, ``tre_random``,
    ``tre_shuffled``, ``wns``, ``ti``, ``words``): the encoder's TRE and the two baselines'
    (:data:`BASELINE_TARGETS`), each correlated with WNS and TI, with the partial correlation
    controlling for length in words.

    ``max_length`` is the label of the length setting the embeddings were made at
    (:func:`natcomp.tre.lengths.length_label`: ``"25"``, ``"none"``) and ``cut_sentences`` the
    number of the table's sentences it cut; ``as_configured`` says whether it is the encoder's
    configured setting (the limit the paper's tool ran with). The paper's rho (WNS, encoder
    row) stands beside the encoder it stands in for, in the paper's setting at the configured
    length only: the held-out setting (primitives fitted on other phrases) asks another
    question, and another length limit measures other targets (issue 42), so neither rho is
    comparable with the paper's."""
    scores_by_name = {name: scores[name].astype(float) for name in ("wns", "ti")}
    length = scores["words"].astype(float)
    comparable = setting == PAPER_SETTING and as_configured
    rows = []
    for targets, column in (("encoder", "tre"), *BASELINE_TARGETS.items()):
        for row in correlate(encoder, scores[column].astype(float), scores_by_name, control=length):
            paper = comparable and targets == "encoder" and row["score"] == "wns" and stands_in_for
            rows.append(
                {
                    "setting": setting,
                    "max_length": max_length,
                    "cut_sentences": int(cut_sentences),
                    "targets": targets,
                    "paper_encoder": stands_in_for or "",
                    "paper_rho": paper_table2().get(stands_in_for) if paper else None,
                    **row,
                }
            )
    return rows


#: the tree scores' names in figure titles
TREE_SCORE_NAMES = {"wns": "Weighted Node Switching (WNS)", "ti": "Tree Impurity (TI)"}


def scatter_figure(per_encoder: Mapping[str, pd.DataFrame], path: str | Path, *, score: str = "wns") -> None:
    """One panel per encoder: TRE (y) against a tree score (x), with rho in the title; PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    encoders = list(per_encoder)
    figure, axes = plt.subplots(1, len(encoders), figsize=(4 * len(encoders), 3.6), squeeze=False)
    for axis, encoder in zip(axes[0], encoders):
        frame = per_encoder[encoder]
        axis.scatter(frame[score].astype(float), frame["tre"].astype(float), s=6, alpha=0.5)
        (row,) = correlate(encoder, frame["tre"].astype(float), {score: frame[score].astype(float)})
        axis.set_title(f"{encoder}\nSpearman rho = {row['spearman_rho']:.3f} (p = {row['p_value']:.2g})", fontsize=9)
        axis.set_xlabel(score.upper())
        axis.set_ylabel("TRE (cosine distance)")
    save_png(
        figure,
        path,
        title=f"TRE (Bhathena et al. 2020, Table 2): each sentence's tree reconstruction error against its "
        f"{TREE_SCORE_NAMES.get(score, score.upper())}, per encoder",
    )


#: item_outcomes.tsv: per setting, encoder, length setting and sentence, what Table 2's rhos
#: correlate: the encoder's TRE, the tree scores and the length in words
ITEM_COLUMNS = ("setting", "encoder", "max_length", "item", "tre", "wns", "ti", "words")


def sentence_outcomes(setting: str, encoder: str, max_length: str, scores: pd.DataFrame) -> pd.DataFrame:
    """:data:`ITEM_COLUMNS` of one score table; a sentence's id is :func:`natcomp.paired.item_id`
    of its split, index and words (the same for every encoder on one config)."""
    from natcomp.paired import item_id

    ids = [
        item_id(f"{split} {index}", split, index, sentence)
        for split, index, sentence in zip(scores["split"], scores["index"], scores["sentence"])
    ]
    return pd.DataFrame(
        {
            "setting": setting,
            "encoder": encoder,
            "max_length": max_length,
            "item": ids,
            **{column: scores[column].to_numpy() for column in ("tre", "wns", "ti", "words")},
        },
        columns=list(ITEM_COLUMNS),
    )
