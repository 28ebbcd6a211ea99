"""The TRE experiment of section 4.3: SST sentences, their TI/WNS, TRE per encoder, Spearman.

Tables (unquoted TSV):

``sentences``: ``split``, ``index`` (1-based line in the split's file), ``sentence`` (the text an
encoder reads), ``ti``, ``wns``.
``scores`` (per encoder): the ``sentences`` columns and ``tre``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from natcomp.errors import InputError
from natcomp.tre.reconstruction import TreSettings, tree_reconstruction_error
from natcomp.tre.sentiment_trees import read_sentiment_trees, sentence_text, tree_impurity, weighted_node_switching
from natcomp.trees import Tree

__all__ = ["SENTENCE_COLUMNS", "SCORE_COLUMNS", "load_trees", "load_embeddings", "score_trees", "fit_scores"]

SENTENCE_COLUMNS = ("split", "index", "sentence", "ti", "wns")
SCORE_COLUMNS = SENTENCE_COLUMNS + ("tre",)


def load_trees(
    path: str | Path, splits: Sequence[str], *, max_sentences: int | None = None
) -> list[tuple[str, int, Tree]]:
    """``(split, line, tree)`` of the SST PTB release (zip or, for one split, its file), split by split.

    ``max_sentences`` keeps the first that many of each split (None: all).
    """
    loaded = []
    for split in splits:
        trees = read_sentiment_trees(path, split)
        for index, tree in enumerate(trees[:max_sentences] if max_sentences else trees, start=1):
            loaded.append((split, index, tree))
    if not loaded:
        raise InputError(path, f"no trees in the split(s) {', '.join(splits)}")
    return loaded


def load_embeddings(path: str | Path, n_trees: int) -> np.ndarray:
    """The sentence embeddings of a ``.npy`` file, checked: ``[n_trees, dim]`` of finite numbers.

    Raises :class:`InputError` naming the file for an unreadable or wrongly shaped array and
    naming the first row (1-based, the tree's position) that holds NaN or infinity, which
    would blank every TRE and the correlations.
    """
    try:
        embeddings = np.load(path, allow_pickle=False)
    except (EOFError, ValueError) as error:
        raise InputError(path, f"cannot read a NumPy array ({error}); expected a .npy file [sentences, dim]") from None
    if embeddings.ndim != 2 or len(embeddings) != n_trees:
        raise InputError(path, f"array of shape {list(embeddings.shape)}; expected [{n_trees} trees, dim]")
    if not np.issubdtype(embeddings.dtype, np.number):
        raise InputError(path, f"array of {embeddings.dtype}; expected numbers")
    bad = np.flatnonzero(~np.isfinite(embeddings).all(axis=1))
    if len(bad):
        raise InputError(
            path,
            f"row {bad[0] + 1} (the embedding of tree {bad[0] + 1}) holds NaN or infinity"
            f"{f' ({len(bad)} rows in all)' if len(bad) > 1 else ''}; expected finite numbers",
        )
    return embeddings


def score_trees(trees: Sequence[tuple[str, int, Tree]]) -> pd.DataFrame:
    """The ``sentences`` table: each sentence's text, Tree Impurity and Weighted Node Switching."""
    rows = [
        {
            "split": split,
            "index": index,
            "sentence": sentence_text(tree),
            "ti": tree_impurity(tree),
            "wns": weighted_node_switching(tree),
        }
        for split, index, tree in trees
    ]
    return pd.DataFrame(rows, columns=list(SENTENCE_COLUMNS))


def fit_scores(
    trees: Sequence[tuple[str, int, Tree]],
    embeddings: np.ndarray,
    settings: TreSettings,
    *,
    log: logging.Logger | None = None,
) -> pd.DataFrame:
    """The ``scores`` table: TRE of each sentence's embedding (row i for tree i) next to TI and WNS."""
    if len(embeddings) != len(trees):
        raise ValueError(f"{len(embeddings)} embeddings for {len(trees)} trees; expected one per tree, same order")
    result = tree_reconstruction_error(embeddings, [tree for _, _, tree in trees], settings, log=log)
    table = score_trees(trees)
    table["tre"] = result.errors
    if log is not None:
        log.info(
            "TRE: %d sentences, %d word types, final mean cosine distance %.4f",
            len(trees),
            len(result.vocabulary),
            float(result.errors.mean()),
        )
    return table
