"""PSS family: Polarity Sensitivity Scoring of sentence encoders (Bhathena et al., 2020, section 3).

Public API: pairs (:func:`read_pairs`, :func:`clean_pairs`), scoring
(:func:`polarity_sensitivity`, :func:`relative_pss`, :func:`score_pairs`), classifiers
(:func:`train_head`, :func:`fine_tune_encoder`), the demo data (:mod:`natcomp.pss.demo`).
"""

from natcomp.lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
