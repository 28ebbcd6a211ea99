"""Spearman correlation of TRE with the tree scores (paper Table 2) and the TRE-vs-WNS scatter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from natcomp.files import atomic_path

__all__ = ["CORRELATION_COLUMNS", "correlate", "scatter_figure"]

#: Columns of the correlation table (one row per encoder and tree score).
CORRELATION_COLUMNS = ("encoder", "score", "spearman_rho", "p_value", "sentences", "mean_tre")


def correlate(encoder: str, tre: Sequence[float], scores: Mapping[str, Sequence[float]]) -> list[dict[str, object]]:
    """Spearman's rho (and its two-sided p-value) of TRE with each tree score, and the mean TRE.

    A negative rho means: sentences whose labels compose less simply (higher WNS) are
    reconstructed less well by composing word vectors; the paper reads a more negative
    rho as a more compositional encoder. A constant column gives rho = NaN (undefined).
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
        rows.append(
            {
                "encoder": encoder,
                "score": name,
                "spearman_rho": rho,
                "p_value": p_value,
                "sentences": int(tre.size),
                "mean_tre": float(tre.mean()),
            }
        )
    return rows


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
    figure.tight_layout()
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120)
    plt.close(figure)
