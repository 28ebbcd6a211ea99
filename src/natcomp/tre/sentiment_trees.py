"""Sentiment-labelled trees (SST's PTB files) and two scores of how compositional a sentence's labels are.

Bhathena, Willis & Dass (2020), section 4, score each SST sentence by its phrase-level sentiment
labels (0-4 on every node):

Tree Impurity (TI, section 4.1)
    ``|root label - mean label of all nodes of the tree|``. "All phrase labels within a tree"
    is read as every labelled node: the root, the inner phrases and the words (SST's
    preterminals). This reading reproduces the published values (Table 4, Figure 3) to within
    0.01; leaving out the root or the words does not (see docs/pss_tre.md).

Weighted Node Switching (WNS, section 4.2)
    For every inner node (a node whose children carry labels): ``|label - mean of the
    children's labels|``, weighted by ``2 ** -depth`` (depth 0 at the root: nodes nearer the
    root weigh more), averaged over the inner nodes and multiplied by 5 (the number of SST
    classes). The prose leaves the weighting open; this reading reproduces all five published
    values exactly, which the tests check.

Higher means more compositional (in the paper's sense: the whole differs from its parts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError
from natcomp.sst import parse_sst_tree, ptb_tokens_to_text, read_ptb_trees
from natcomp.trees import Tree

__all__ = [
    "SENTIMENT_LABELS",
    "ScoredTree",
    "as_sentiment_tree",
    "read_sentiment_trees",
    "sentence_text",
    "tree_impurity",
    "weighted_node_switching",
]

#: SST's five sentiment classes, 0 (very negative) to 4 (very positive).
SENTIMENT_LABELS = ("0", "1", "2", "3", "4")
_NUMBER_OF_CLASSES = len(SENTIMENT_LABELS)


def as_sentiment_tree(tree: str | Tree, *, path: str | Path = "<string>", line: int | None = None) -> Tree:
    """A tree whose every node has an SST label 0-4, from an SST PTB line or a :class:`Tree`.

    Strings are read by :func:`natcomp.sst.parse_sst_tree` (SST's escapes and its leaf with
    a space). Raises :class:`InputError` naming ``path`` and ``line`` for a malformed tree or a
    label outside 0-4.
    """
    if not isinstance(tree, Tree):
        return parse_sst_tree(tree, path=path, line=line)
    for node in tree.subtrees():
        if node.label not in SENTIMENT_LABELS:
            raise InputError(
                path,
                f"node label {node.label!r} (above {' '.join(node.leaves())[:60]!r}) is not a sentiment "
                "label; expected an SST label 0-4 on every node",
                line,
            )
    return tree


def read_sentiment_trees(path: str | Path, split: str | None = None) -> list[Tree]:
    """SST trees of a PTB file or of ``trainDevTestTrees_PTB.zip`` (``split``): :func:`natcomp.sst.read_ptb_trees`."""
    return read_ptb_trees(path, split)


def sentence_text(tree: Tree) -> str:
    """The sentence of an SST tree as an encoder reads it: words joined by spaces, ``-LRB-`` as ``(``."""
    return ptb_tokens_to_text(tree.leaves())


def tree_impurity(tree: str | Tree) -> float:
    """Tree Impurity: ``|root label - mean label over all nodes|`` (words' labels included)."""
    tree = as_sentiment_tree(tree)
    labels = [int(node.label) for node in tree.subtrees()]
    return abs(int(tree.label) - sum(labels) / len(labels))


def weighted_node_switching(tree: str | Tree) -> float:
    """Weighted Node Switching: depth-discounted label switches of inner nodes (module docs)."""
    tree = as_sentiment_tree(tree)
    weighted: list[float] = []
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if not node.children:
            continue
        children = [int(child.label) for child in node.children]
        switch = abs(int(node.label) - sum(children) / len(children))
        weighted.append(switch * 2.0**-depth)
        stack.extend((child, depth + 1) for child in node.children)
    if not weighted:  # a one-word sentence: nothing composes
        return 0.0
    return _NUMBER_OF_CLASSES * sum(weighted) / len(weighted)


@dataclass(frozen=True)
class ScoredTree:
    """One sentence with its TI and WNS."""

    sentence: str
    tree_impurity: float
    weighted_node_switching: float

    @classmethod
    def of(cls, tree: Tree) -> ScoredTree:
        return cls(" ".join(tree.leaves()), tree_impurity(tree), weighted_node_switching(tree))
