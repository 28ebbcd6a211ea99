"""The TRE experiment of section 4.3: SST sentences, their TI/WNS, TRE per encoder, Spearman.

Tables (unquoted TSV):

``sentences``: ``split``, ``index`` (1-based line in the split's file), ``sentence`` (the text an
encoder reads), ``words`` (the tree's leaves: sentence length), ``ti``, ``wns``.
``scores`` (per encoder): the ``sentences`` columns, ``tre`` (the encoder's embeddings as targets)
and two baselines fitted over the same trees with the same settings: ``tre_random`` (Gaussian
targets of the same shape: isotropic) and ``tre_shuffled`` (the encoder's own embeddings shuffled
across sentences: their distribution, common direction included, without their trees).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from natcomp.errors import InputError
from natcomp.tre.sentiment_trees import read_sentiment_trees, sentence_text, tree_impurity, weighted_node_switching
from natcomp.trees import Tree

if TYPE_CHECKING:  # torch is imported by the fits only, not by the tables that read this module
    from natcomp.tre.reconstruction import TreSettings

__all__ = [
    "PHRASE_COLUMNS",
    "SENTENCE_COLUMNS",
    "SCORE_COLUMNS",
    "fit_scores",
    "held_out_scores",
    "load_embeddings",
    "load_trees",
    "random_targets",
    "score_trees",
    "shuffled_targets",
    "training_phrases",
]

SENTENCE_COLUMNS = ("split", "index", "sentence", "words", "ti", "wns")
SCORE_COLUMNS = SENTENCE_COLUMNS + ("tre", "tre_random", "tre_shuffled")
#: What each TRE column of ``scores`` fits, in log messages.
TARGETS_OF = {"tre": "encoder", "tre_random": "Gaussian baseline", "tre_shuffled": "shuffled baseline"}
#: The held-out setting's training targets: one row per distinct phrase.
PHRASE_COLUMNS = ("sentence",)


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
        if Path(path).suffix == ".zip":
            raise InputError(path, f"no trees in the split(s) {', '.join(splits)}")
        raise InputError(path, "no trees; expected SST PTB trees, one a line (as dev.txt of the release)")
    return loaded


def load_embeddings(path: str | Path, n_trees: int) -> np.ndarray:
    """The sentence embeddings of a ``.npy`` file, checked: ``[n_trees, dim]`` of finite numbers.

    Raises :class:`InputError` naming the file for an unreadable or wrongly shaped array and
    naming the first row (1-based, the tree's position) that holds NaN or infinity, which
    would blank every TRE and the correlations.
    """
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic != b"\x93NUMPY":
        # np.load would take it for a pickle and say so (issue 45)
        raise InputError(path, "not a NumPy file (no .npy header); expected a .npy file [sentences, dim]")
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
            "words": len(tree.leaves()),
            "ti": tree_impurity(tree),
            "wns": weighted_node_switching(tree),
        }
        for split, index, tree in trees
    ]
    return pd.DataFrame(rows, columns=list(SENTENCE_COLUMNS))


def random_targets(shape: tuple[int, int], seed: int) -> np.ndarray:
    """The random-vector baseline's targets: independent N(0, 1) entries (float32), seeded."""
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def shuffled_targets(embeddings: np.ndarray, seed: int) -> np.ndarray:
    """The matched baseline's targets: the rows of ``embeddings`` in a seeded random order.

    Encoder embeddings share a large common direction, which alone brings any composition
    closer to them than to isotropic Gaussian vectors; shuffled across sentences they keep
    that distribution (and every other one of their statistics) but lose the tie to their tree.
    """
    return np.asarray(embeddings)[np.random.default_rng(seed).permutation(len(embeddings))]


def _baselines(embeddings: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """The baseline columns' targets for ``embeddings``, seeded with ``seed``."""
    return {
        "tre_random": random_targets(np.shape(embeddings), seed),
        "tre_shuffled": shuffled_targets(embeddings, seed),
    }


def fit_scores(
    trees: Sequence[tuple[str, int, Tree]],
    embeddings: np.ndarray,
    settings: TreSettings,
    *,
    baseline: bool = False,
    log: logging.Logger | None = None,
) -> pd.DataFrame:
    """The ``scores`` table: TRE of each sentence's embedding (row i for tree i) next to TI and WNS.

    With ``baseline``, the column ``tre_random`` is the TRE of random Gaussian vectors of the
    embeddings' shape and ``tre_shuffled`` that of the embeddings shuffled across sentences
    (both seeded with ``settings.seed``), over the same trees (the workflow always adds them).
    """
    from natcomp.tre.reconstruction import tree_reconstruction_error

    if len(embeddings) != len(trees):
        raise ValueError(f"{len(embeddings)} embeddings for {len(trees)} trees; expected one per tree, same order")
    just_trees = [tree for _, _, tree in trees]
    table = score_trees(trees)
    targets = {"tre": embeddings, **(_baselines(embeddings, settings.seed) if baseline else {})}
    for column, column_targets in targets.items():
        result = tree_reconstruction_error(column_targets, just_trees, settings, log=log)
        table[column] = result.errors
        if log is not None:
            log.info(
                "TRE (%s): %d sentences, %d word types, final mean cosine distance %.4f",
                TARGETS_OF[column],
                len(trees),
                len(result.vocabulary),
                float(result.errors.mean()),
            )
    return table


def training_phrases(trees: Sequence[Tree]) -> list[Tree]:
    """Every labelled node of ``trees`` (words, inner phrases, roots) as a tree of its own, one
    per distinct text (:func:`sentence_text`), in order of first occurrence: the held-out
    setting's training targets."""
    seen: set[str] = set()
    phrases = []
    for tree in trees:
        for node in tree.subtrees():
            text = sentence_text(node)
            if text not in seen:
                seen.add(text)
                phrases.append(node)
    return phrases


def held_out_scores(
    train_trees: Sequence[Tree],
    phrase_embeddings: np.ndarray,
    eval_trees: Sequence[tuple[str, int, Tree]],
    eval_embeddings: np.ndarray,
    settings: TreSettings,
    *,
    min_count: int = 2,
    baseline: bool = True,
    log: logging.Logger | None = None,
) -> pd.DataFrame:
    """The held-out setting's ``scores`` table for ``eval_trees``.

    The primitives are fitted on every distinct phrase of ``train_trees``
    (:func:`training_phrases`, row i of ``phrase_embeddings`` for phrase i) and the TRE of
    each evaluated sentence is the distance of its composition to its embedding
    (:func:`natcomp.tre.reconstruction.held_out_reconstruction_error`). Words are counted
    for ``min_count`` in ``train_trees``, the sentences, not in their phrase list, where
    every word of a sentence of two or more words occurs at least twice (its own phrase and
    its parent): words seen fewer than ``min_count`` times in the training sentences share the
    unknown-word vector, which is then trained on their phrases and composes every unseen word.
    With ``baseline``, ``tre_random`` does the same with random Gaussian vectors in place of
    every phrase's and sentence's embedding, and ``tre_shuffled`` with the phrase embeddings
    shuffled across phrases and the sentence embeddings across sentences (seeds
    ``settings.seed`` for the phrases and ``settings.seed + 1`` for the sentences).
    """
    from natcomp.tre.reconstruction import held_out_reconstruction_error

    phrases = training_phrases(train_trees)
    if len(phrase_embeddings) != len(phrases):
        raise ValueError(f"{len(phrase_embeddings)} phrase embeddings for {len(phrases)} distinct training phrases")
    if len(eval_embeddings) != len(eval_trees):
        raise ValueError(f"{len(eval_embeddings)} embeddings for {len(eval_trees)} evaluated trees")
    evaluated = [tree for _, _, tree in eval_trees]
    table = score_trees(eval_trees)
    targets = {"tre": (phrase_embeddings, eval_embeddings)}
    if baseline:
        train_baselines = _baselines(phrase_embeddings, settings.seed)
        eval_baselines = _baselines(eval_embeddings, settings.seed + 1)
        targets.update((column, (train_baselines[column], eval_baselines[column])) for column in train_baselines)
    for column, (train_targets, eval_targets) in targets.items():
        result = held_out_reconstruction_error(
            train_targets,
            phrases,
            eval_targets,
            evaluated,
            settings,
            min_count=min_count,
            counted_trees=train_trees,
            log=log,
        )
        table[column] = result.errors
        if log is not None:
            log.info(
                "held-out TRE (%s): %d training phrases (mean TRE %.4f), %d word types; %d evaluated sentences "
                "(mean TRE %.4f, %.1f%% of their words unknown)",
                TARGETS_OF[column],
                len(phrases),
                result.training_error,
                len(result.vocabulary),
                len(evaluated),
                float(result.errors.mean()),
                100 * result.unknown_share,
            )
    return table
