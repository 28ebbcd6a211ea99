"""Penn-Treebank bracketed trees: reading, writing, leaves, productions.

One tree per line, e.g. ``(ROOT (S (NP (DT The) (NN poet)) (VP (VBZ sleeps)) (. .)))``.
Accepted variants: a tree without a ``ROOT`` wrapper (``(S ...)``) and the WSJ-style
unlabeled outer bracket ``( (S ...) )``, which is read as a node labelled ``ROOT``
(``unlabeled_root``), so ``( (S ..))`` and ``(ROOT (S ..))`` give the same tree.

Well formed means: balanced brackets; every node is ``(LABEL child ...)`` with a
non-empty label; a word (leaf) is the only child of its node (a preterminal); nothing
after the closing bracket of the tree. Tree *fragments* (Double-DOP, disco-dop's
``fragments`` output) may in addition have frontier non-terminals, nodes without
children written ``(NP )``; they are accepted with ``allow_frontier=True`` only.
Malformed input raises :class:`natcomp.errors.InputError` naming the file, the line and
the column of the problem.

Words cannot contain brackets or whitespace; PTB escapes brackets as ``-LRB-`` /
``-RRB-``, which are ordinary words here (not unescaped).

Public API: :class:`Tree`, :class:`Production`, :func:`parse_tree`, :func:`iter_trees`,
:func:`read_trees`, :func:`write_trees`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from natcomp.errors import InputError
from natcomp.files import atomic_open, iter_lines

__all__ = ["Production", "Tree", "iter_trees", "parse_tree", "read_trees", "write_trees"]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_SNIPPET = 40


class Production(NamedTuple):
    """The production (grammar rule) of a node.

    ``children`` are the children's labels; for a preterminal ``children`` is empty and
    ``word`` is its word (a preterminal's production includes its word). A frontier node
    has neither.
    """

    label: str
    children: tuple[str, ...] = ()
    word: str | None = None

    def __str__(self) -> str:
        if self.word is not None:
            return f"{self.label} -> {self.word!r}"
        return f"{self.label} -> {' '.join(self.children)}"


class Tree:
    """An immutable node of a bracketed tree.

    Exactly one of: ``word`` is a string (preterminal ``(DT the)``), ``children`` is a
    non-empty tuple of trees (inner node), or neither (frontier non-terminal ``(NN )`` of
    a fragment).
    """

    __slots__ = ("label", "children", "word", "_hash")

    def __init__(self, label: str, children: Iterable[Tree] = (), word: str | None = None):
        children = tuple(children)
        if not label:
            raise ValueError("a tree node needs a non-empty label")
        if word is not None and children:
            raise ValueError("a preterminal has a word and no children")
        self.label = label
        self.children = children
        self.word = word
        self._hash = None

    # -- kinds of nodes
    @property
    def is_preterminal(self) -> bool:
        return self.word is not None

    @property
    def is_frontier(self) -> bool:
        """A frontier non-terminal of a fragment: no children and no word."""
        return self.word is None and not self.children

    # -- content
    def leaves(self) -> list[str]:
        """The words, left to right (frontier nodes have none)."""
        out: list[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.word is not None:
                out.append(node.word)
            else:
                stack.extend(reversed(node.children))
        return out

    def production(self) -> Production:
        return Production(self.label, tuple(child.label for child in self.children), self.word)

    def subtrees(self) -> Iterator[Tree]:
        """Every node, in pre-order (the node itself first)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def productions(self) -> list[Production]:
        """Productions of the nodes that have one (not frontier nodes), in pre-order."""
        return [node.production() for node in self.subtrees() if not node.is_frontier]

    def count_nodes(self) -> int:
        """Number of labelled nodes (inner nodes, preterminals and frontier nodes; not words)."""
        return sum(1 for _ in self.subtrees())

    def height(self) -> int:
        """1 for a preterminal or frontier node, 1 + the highest child otherwise."""
        if not self.children:
            return 1
        return 1 + max(child.height() for child in self.children)

    # -- writing
    def to_bracket(self) -> str:
        """Bracket notation on one line; frontier nodes are written ``(NP )``."""
        parts: list[str] = []
        stack: list[Tree | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
            elif item.word is not None:
                parts.append(f"({item.label} {item.word})")
            elif not item.children:
                parts.append(f"({item.label} )")
            else:
                parts.append(f"({item.label}")
                stack.append(")")
                for child in reversed(item.children):
                    stack.append(child)
                    stack.append(" ")
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_bracket()

    def __repr__(self) -> str:
        return f"Tree({self.to_bracket()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return self is other or self.to_bracket() == other.to_bracket()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.to_bracket())
        return self._hash


def _snippet(text: str, column: int) -> str:
    start = max(0, column - 1 - _SNIPPET // 2)
    piece = text[start : start + _SNIPPET]
    return ("..." if start else "") + piece + ("..." if start + _SNIPPET < len(text) else "")


def parse_tree(
    text: str,
    *,
    path: str | Path = "<string>",
    line: int | None = None,
    allow_frontier: bool = False,
    unlabeled_root: str = "ROOT",
) -> Tree:
    """Parse one bracketed tree (see the module documentation for what is accepted).

    ``path`` and ``line`` name the origin in the :class:`InputError` raised for malformed
    input. ``allow_frontier`` accepts childless nodes ``(NP )`` (fragments).
    """

    def fail(message: str, column: int | None) -> InputError:
        where = "" if column is None else f" at column {column} ({_snippet(text, column)!r})"
        return InputError(path, f"malformed tree{where}: {message}", line)

    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(text)]
    if not tokens:
        raise fail("empty; expected a bracketed tree like (S (NP ..) (VP ..))", None)
    if tokens[0][0] != "(":
        raise fail("a tree must start with '('", tokens[0][1])
    # stack of [label, children, word, column of '(']
    stack: list[list] = []
    root: Tree | None = None
    i = 0
    n = len(tokens)
    while i < n:
        token, column = tokens[i]
        if root is not None:
            if token == ")":
                raise fail("unbalanced brackets: ')' without a matching '('", column)
            raise fail(f"text after the end of the tree: {token!r}", column)
        if token == "(":
            if stack and stack[-1][2] is not None:
                raise fail(f"a word must be the only child of its node; node {stack[-1][0]!r} has a word", column)
            label = None
            if i + 1 < n and tokens[i + 1][0] not in "()":
                label = tokens[i + 1][0]
                i += 1
            elif stack or not (i + 1 < n and tokens[i + 1][0] == "("):
                # only the outermost bracket may lack a label, and only around a subtree
                raise fail("empty label: every node needs a label right after '('", column)
            stack.append([label, [], None, column])
            i += 1
        elif token == ")":
            if not stack:
                raise fail("unbalanced brackets: ')' without a matching '('", column)
            label, children, word, open_column = stack.pop()
            if label is None:
                if len(children) != 1:
                    raise fail(
                        f"an unlabeled outer bracket must hold exactly one tree, not {len(children)}", open_column
                    )
                label = unlabeled_root
            if word is None and not children and not allow_frontier:
                raise fail(f"node {label!r} has no children and no word", open_column)
            node = Tree(label, children, word)
            if stack:
                stack[-1][1].append(node)
            else:
                root = node
            i += 1
        else:  # a word
            if not stack:
                raise fail(f"stray text {token!r} outside brackets", column)
            top = stack[-1]
            if top[0] is None:
                raise fail(f"stray text {token!r}: the unlabeled outer bracket must hold a tree", column)
            if top[1] or top[2] is not None:
                raise fail(f"stray text {token!r}: a word must be the only child of its node {top[0]!r}", column)
            top[2] = token
            i += 1
    if root is None:
        unclosed = len(stack)
        raise fail(f"unbalanced brackets: {unclosed} '(' not closed", stack[0][3] if stack else None)
    return root


def iter_trees(path: str | Path, *, allow_frontier: bool = False, unlabeled_root: str = "ROOT") -> Iterator[Tree]:
    """Trees of a treebank file, one per line (UTF-8, ``.gz`` allowed).

    Empty lines are errors (the n-th tree is on line n), as are malformed trees.
    """
    for number, text in enumerate(iter_lines(path, allow_empty=True), start=1):
        if not text.strip():
            raise InputError(path, "empty line; expected one bracketed tree per line", number)
        yield parse_tree(text, path=path, line=number, allow_frontier=allow_frontier, unlabeled_root=unlabeled_root)


def read_trees(path: str | Path, *, allow_frontier: bool = False, unlabeled_root: str = "ROOT") -> list[Tree]:
    """All trees of a treebank file (see :func:`iter_trees`)."""
    return list(iter_trees(path, allow_frontier=allow_frontier, unlabeled_root=unlabeled_root))


def write_trees(trees: Iterable[Tree], path: str | Path) -> int:
    """Write one tree per line, atomically; returns the number of trees."""
    count = 0
    with atomic_open(path) as out:
        for tree in trees:
            out.write(tree.to_bracket())
            out.write("\n")
            count += 1
    return count
