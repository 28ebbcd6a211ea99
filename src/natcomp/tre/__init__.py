"""TRE family: Tree Reconstruction Error of sentence encoders on SST trees (Bhathena et al., 2020, section 4).

Public API: :func:`tree_impurity`, :func:`weighted_node_switching` (SST label scores of a tree),
:func:`tree_reconstruction_error` with :class:`TreSettings`, :func:`correlate`.
"""

from natcomp.tre.correlation import correlate, scatter_figure
from natcomp.tre.reconstruction import TreResult, TreSettings, TreeTable, tree_reconstruction_error
from natcomp.tre.sentiment_trees import (
    as_sentiment_tree,
    read_sentiment_trees,
    sentence_text,
    tree_impurity,
    weighted_node_switching,
)

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
