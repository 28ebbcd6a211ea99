"""TRE family: Tree Reconstruction Error of sentence encoders on SST trees (Bhathena et al., 2020, section 4).

Public API: :func:`tree_impurity`, :func:`weighted_node_switching` (SST label scores of a tree),
:func:`tree_reconstruction_error` with :class:`TreSettings`, :func:`correlate`.
"""

import importlib

# The public names, imported from their modules when first used: ``import natcomp.tre`` (and the
# command line, which imports natcomp.tre.cli) must not import torch, pandas and scipy up front.
_MODULE_OF = {
    "correlate": "correlation",
    "scatter_figure": "correlation",
    "TreResult": "reconstruction",
    "TreSettings": "reconstruction",
    "TreeTable": "reconstruction",
    "tree_reconstruction_error": "reconstruction",
    "as_sentiment_tree": "sentiment_trees",
    "read_sentiment_trees": "sentiment_trees",
    "sentence_text": "sentiment_trees",
    "tree_impurity": "sentiment_trees",
    "weighted_node_switching": "sentiment_trees",
}


def __getattr__(name: str):
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f"natcomp.tre.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module 'natcomp.tre' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])


__all__ = [
    "TreResult",
    "TreSettings",
    "TreeTable",
    "as_sentiment_tree",
    "correlate",
    "read_sentiment_trees",
    "scatter_figure",
    "sentence_text",
    "tree_impurity",
    "tree_reconstruction_error",
    "weighted_node_switching",
]
