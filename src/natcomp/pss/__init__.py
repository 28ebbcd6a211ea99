"""PSS family: Polarity Sensitivity Scoring of sentence encoders (Bhathena et al., 2020, section 3).

Public API: pairs (:func:`read_pairs`, :func:`clean_pairs`), scoring
(:func:`polarity_sensitivity`, :func:`relative_pss`, :func:`score_pairs`), classifiers
(:func:`train_head`, :func:`fine_tune_encoder`), the demo data (:mod:`natcomp.pss.demo`).
"""

from natcomp.pss.pairs import CLEANING_RULES, CleanedPairs, Pair, clean_pairs, read_pairs, write_pairs
from natcomp.pss.scoring import (
    LabelledPairs,
    PssScore,
    polarity_sensitivity,
    read_predictions,
    relative_pss,
    score_pairs,
)

__all__ = [
    "CLEANING_RULES",
    "CleanedPairs",
    "LabelledPairs",
    "Pair",
    "PssScore",
    "clean_pairs",
    "polarity_sensitivity",
    "read_pairs",
    "read_predictions",
    "relative_pss",
    "score_pairs",
    "write_pairs",
]
