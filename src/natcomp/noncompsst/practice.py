"""The practice check of appendix B, on its own so that both the studies (the simulated
participants are replaced when they fail it) and the analysis (exclusion) use it without
importing each other: ``studies`` -> ``practice`` <- ``annotation`` -> ``studies``.

A participant is excluded when their practice answers are on average more than
``max_mean_error`` (1) points from the correct SST-7 labels (absolute errors: an answer
too high and one too low do not cancel), or when Spearman's rho between their practice
answers and the labels is below ``min_spearman`` (0.8); an undefined rho (constant
answers) excludes too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["practice_check"]


def practice_check(
    given: Sequence[float], correct: Sequence[float], *, max_mean_error: float = 1.0, min_spearman: float = 0.8
) -> tuple[float, float, list[str]]:
    """(mean absolute error, Spearman's rho, reasons to exclude) of one participant's practice answers."""
    given_array, correct_array = np.asarray(given, dtype=float), np.asarray(correct, dtype=float)
    if len(given_array) == 0:
        error, rho = math.nan, math.nan
    else:
        error = float(np.mean(np.abs(given_array - correct_array)))
        varied = len(set(given)) > 1 and len(set(correct)) > 1
        from scipy.stats import spearmanr  # here: the workflow's plan imports this module, scipy costs a second

        rho = float(spearmanr(given_array, correct_array).statistic) if varied else math.nan
    reasons = []
    if not error <= max_mean_error:
        reasons.append(
            f"practice answers {error:.2f} points off on average (> {max_mean_error:g})"
            if not math.isnan(error)
            else "no practice answers"
        )
    # rounded: floating point gives 0.7999999999999999 for a rho of exactly 0.8, which is not below 0.8
    if not round(rho, 9) >= min_spearman:
        reasons.append(
            f"practice Spearman {rho:.2f} < {min_spearman:g}" if not math.isnan(rho) else "practice Spearman undefined"
        )
    return error, rho, reasons
