"""PSS family: Polarity Sensitivity Scoring of sentence encoders (Bhathena et al., 2020, section 3).

Public API: pairs (:func:`read_pairs`, :func:`clean_pairs`), scoring
(:func:`polarity_sensitivity`, :func:`relative_pss`, :func:`score_pairs`), classifiers
(:func:`train_head`, :func:`fine_tune_encoder`), the demo data (:mod:`natcomp.pss.demo`).
"""

import importlib

# The public names, imported from their modules when first used, so that the command line
# (which imports natcomp.pss.cli) starts without numpy.
_MODULE_OF = {
    "CLEANING_RULES": "pairs",
    "CleanedPairs": "pairs",
    "Pair": "pairs",
    "clean_pairs": "pairs",
    "read_pairs": "pairs",
    "write_pairs": "pairs",
    "LabelledPairs": "scoring",
    "PssScore": "scoring",
    "polarity_sensitivity": "scoring",
    "read_predictions": "scoring",
    "relative_pss": "scoring",
    "score_pairs": "scoring",
}


def __getattr__(name: str):
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f"natcomp.pss.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module 'natcomp.pss' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])


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
