"""TRE family: Tree Reconstruction Error of sentence encoders on SST trees (Bhathena et al., 2020, section 4).

Public API: :func:`tree_impurity`, :func:`weighted_node_switching` (SST label scores of a tree),
:func:`tree_reconstruction_error` with :class:`TreSettings`, :func:`correlate`.
"""

from natcomp.lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
