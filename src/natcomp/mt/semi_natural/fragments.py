"""Double-DOP tree fragments, their selection, and tree search (appendix A, steps 3-6).

Dankers, Bruni & Hupkes (2022), appendix A: parse 100k OPUS sentences (step 2), compute
the treebank's recurring fragments with ``discodop fragments`` (step 3), keep the 100 most
frequent NP and VP fragments with at least 15 non-terminal nodes (step 4), pick three VP
and five NP fragments for their diversity (step 5) and collect the phrases matching them
with ``discodop treesearch`` (step 6). This module does steps 3-6 with a built-in
implementation (disco-dop 0.5.2 does not build on Python 3.11) and wraps the ``discodop``
command where it is installed.

Fragments (:func:`extract_fragments`)
    The Double-DOP fragments of Sangati & Zuidema (2011) as extracted by van Cranenburgh's
    disco-dop: for every pair of *distinct* trees (two trees at different positions of
    the treebank, even if they are identical), the maximal connected fragments they
    share. Two nodes *match* when they have the same production: same label and same
    sequence of child labels; a preterminal's production includes its word. The
    fragment of a matching node pair extends downward through every child pair (same
    child position) that matches again; a child pair that does not match becomes a
    frontier non-terminal ``(NP )``. The fragment is *maximal* for the pair unless the
    parents of the two nodes match too and the nodes are at the same child position (then
    it is part of the parents' fragment); a root node has no parent. Every fragment then
    gets its exact number of occurrences in the treebank: the number of nodes where it
    matches (the node has the fragment's root production and every non-frontier child
    matches recursively; a frontier non-terminal matches any subtree with its label).
    Occurrences inside one tree all count, so every count is at least 2.

    *Depth-1 fragments are kept*, as disco-dop does by default: a fragment that is a single
    production (``(S (NP ) (VP ) (. .))`` is depth 2 because of the word, ``(ROOT (S ))``
    and ``(DT the)`` are single productions) is output whenever it is the maximal shared
    fragment of some pair (disco-dop filters only with ``--twoterms``). They are harmless
    for the paper's use: step 4 keeps only fragments with 15 or more non-terminals.

    disco-dop binarizes n-ary trees internally (``X|<A.B,C>`` nodes that carry all
    sibling labels); the intermediate nodes always match when their parents do, so the
    fragments are the same as on n-ary trees once debinarized (``--debin``).

    Efficiency: subtrees are hash-consed into *types* (identical subtrees share one id),
    the maximal fragment of two types is computed once (memoised when one of the types
    occurs more than once), pairs are enumerated per production between groups of types
    that occur in different contexts (parent production and child position), so pairs
    whose parents match are skipped without being looked at, and exact counts come from
    sets of matching types. Run ``benchmarks/fragment_extraction.py`` for timings; the
    number of tree pairs still grows quadratically with the treebank (as in disco-dop).

Non-terminals (:func:`count_nonterminals`)
    The number of labelled nodes of a fragment: inner nodes, preterminals (with or
    without their word) and frontier non-terminals; words are not counted. Note that the
    structures printed in the paper's Table 2 have 12-14 such nodes, below the paper's
    "at least 15" (e.g. template 1's VP has 13): the paper's fragments were presumably
    larger than their printed skeletons (lexical anchors, more context) or counted
    differently; the threshold is a parameter (``min_nonterminals``).

Choice (:func:`choose_fragments`)
    Only fragments with at least one frontier non-terminal are eligible (a fragment
    without one matches a single fixed phrase). The first pick of a label is its most
    frequent eligible fragment; every next pick is the most frequent eligible fragment
    whose *structural distance* to each fragment already picked is at least
    ``min_distance`` (0.4), or, if there is none, the one whose smallest distance is the
    largest (ties: higher count). Frequency matters because tree search on the same
    treebank finds exactly ``count`` phrases for a fragment, and pure max-min diversity
    picks fragments seen twice. The distance is 1 - weighted Jaccard similarity of the
    multisets of unlexicalised productions of the fragments' inner nodes
    (``NP -> NP PP``; words, preterminals and frontier nodes count only as child labels),
    so fragments that differ only in words have distance 0 and are picked together only
    when no other eligible fragment is left.
    ``overrides`` (per label, a list of fragment strings, e.g. from the config) replace
    the automatic choice.

disco-dop command lines (cannot be run here; built from its documented CLI)
    ``discodop fragments TREEBANK --fmt=bracket --debin --numproc=N`` (stdout to a file;
    output ``fragment<TAB>count``) and ``discodop treesearch --engine=frag --brackets
    --only-matching --line-number --max-count=0 --numproc=N QUERY TREEBANK``. The
    treebank is first rewritten by our reader/writer (disco-dop does not accept the
    unlabeled ``( (S ..))`` root). See :func:`discodop_fragments_command` for the
    uncertainties.

Public API: :func:`extract_fragments`, :func:`write_fragments`, :func:`read_fragments`,
:func:`count_nonterminals`, :func:`fragment_label`, :func:`select_fragments`,
:func:`choose_fragments`, :class:`ChosenFragment`, :func:`write_choice_table`,
:func:`read_choice_table`, :func:`match_phrases`, :func:`find_matches`, :class:`Phrase`,
:func:`write_matches`, :func:`read_matches`, :func:`structural_distance`,
:func:`discodop_available`, :func:`discodop_fragments_command`,
:func:`discodop_fragments`, :func:`discodop_treesearch_command`,
:func:`discodop_treesearch`, :func:`parse_treesearch_output`.
"""

from __future__ import annotations

import ast
import logging
import re
import shutil
import subprocess
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError, NatcompError
from natcomp.files import atomic_open, iter_lines
from natcomp.trees import Tree, iter_trees, parse_tree, write_trees

__all__ = [
    "CHOICE_COLUMNS",
    "MATCH_COLUMNS",
    "ChosenFragment",
    "Phrase",
    "choose_fragments",
    "count_nonterminals",
    "debinarize",
    "discodop_available",
    "discodop_fragments",
    "discodop_fragments_command",
    "discodop_treesearch",
    "discodop_treesearch_command",
    "extract_fragments",
    "find_matches",
    "format_fragments",
    "fragment_label",
    "match_phrases",
    "parse_treesearch_output",
    "read_choice_table",
    "read_fragments",
    "read_matches",
    "select_fragments",
    "structural_distance",
    "write_choice_table",
    "write_fragments",
    "write_matches",
]

_LOG = logging.getLogger(__name__)

CHOICE_COLUMNS = ("id", "label", "count", "nonterminals", "fragment")
MATCH_COLUMNS = ("id", "tokens", "tree")
DISCODOP = "discodop"

_ROOT_CONTEXT = -1  # context of a tree's root node
_MULTI = -2  # a type seen in several contexts
_UNSET = -3


# --------------------------------------------------------------------------------------
# extraction


class _Table:
    """Hash-consed subtrees ("types") and fragments of a treebank.

    One table holds both: an entry is ``(production id, children)`` where a child is the id
    of another entry or -1 for a frontier non-terminal. Types are the entries without
    frontier anywhere (a whole subtree of the treebank); for them ``occ`` counts their
    occurrences, ``tree_of`` is the only tree they occur in (or -1 for several trees) and
    ``ctx`` the only context (parent production id * 2**16 + child position, -1 for a
    root) they occur in, or ``_MULTI`` (then ``ctx_multi`` maps context -> tree or -1).
    """

    def __init__(self) -> None:
        self.prod_ids: dict[tuple, int] = {}
        self.prods: list[tuple] = []  # (label, child labels, word)
        self.ids: dict[tuple, int] = {}
        self.prod: list[int] = []
        self.kids: list[tuple[int, ...]] = []
        self.occ: list[int] = []
        self.tree_of: list[int] = []
        self.ctx: list[int] = []
        self.ctx_multi: dict[int, dict[int, int]] = {}
        self.is_type: list[bool] = []
        self.parents: dict[int, list[int]] = defaultdict(list)  # child type -> parent types

    def _entry(self, pid: int, kids: tuple[int, ...], is_type: bool) -> int:
        key = (pid, kids)
        eid = self.ids.get(key)
        if eid is None:
            eid = len(self.prod)
            self.ids[key] = eid
            self.prod.append(pid)
            self.kids.append(kids)
            self.occ.append(0)
            self.tree_of.append(_UNSET)
            self.ctx.append(_UNSET)
            self.is_type.append(is_type)
            if is_type:
                for kid in set(kids):
                    self.parents[kid].append(eid)
        return eid

    def add_tree(self, tree: Tree, index: int) -> int:
        return self._visit(tree, _ROOT_CONTEXT, index)

    def _visit(self, node: Tree, context: int, index: int) -> int:
        if node.word is not None:
            key = (node.label, (), node.word)
        elif node.children:
            key = (node.label, tuple(child.label for child in node.children), None)
        else:
            raise ValueError(f"a treebank tree has a frontier node ({node.label} ); fragments cannot be trees")
        pid = self.prod_ids.get(key)
        if pid is None:
            pid = self.prod_ids[key] = len(self.prods)
            self.prods.append(key)
        base = pid << 16
        kids = tuple(self._visit(child, base + i, index) for i, child in enumerate(node.children))
        tid = self._entry(pid, kids, True)
        self.occ[tid] += 1
        # context first (it needs the trees seen before this occurrence)
        previous = self.ctx[tid]
        if previous == _UNSET:
            self.ctx[tid] = context
        elif previous == _MULTI:
            contexts = self.ctx_multi[tid]
            seen = contexts.get(context, _UNSET)
            contexts[context] = index if seen in (_UNSET, index) else -1
        elif previous != context:
            self.ctx_multi[tid] = {previous: self.tree_of[tid], context: index}
            self.ctx[tid] = _MULTI
        seen = self.tree_of[tid]
        self.tree_of[tid] = index if seen in (_UNSET, index) else -1
        return tid

    def contexts(self, tid: int) -> dict[int, int]:
        """context -> tree index (or -1 for several trees) of a type."""
        if self.ctx[tid] == _MULTI:
            return self.ctx_multi[tid]
        return {self.ctx[tid]: self.tree_of[tid]}

    # -- strings
    def to_string(self, fid: int, memo: dict[int, str]) -> str:
        text = memo.get(fid)
        if text is not None:
            return text
        label, child_labels, word = self.prods[self.prod[fid]]
        if word is not None:
            text = f"({label} {word})"
        else:
            parts = [f"({label}"]
            for child_label, kid in zip(child_labels, self.kids[fid]):
                parts.append(f"({child_label} )" if kid < 0 else self.to_string(kid, memo))
            text = " ".join(parts) + ")"
        memo[fid] = text
        return text


def _pair_allowed(contexts_a: dict[int, int], contexts_b: dict[int, int]) -> bool:
    """Whether two types have occurrences in distinct trees whose node pair is maximal."""
    for ca, ta in contexts_a.items():
        for cb, tb in contexts_b.items():
            if ca == cb and ca != _ROOT_CONTEXT:
                continue  # parents match at the same position: not maximal
            if ta >= 0 and ta == tb:
                continue  # only in one and the same tree
            return True
    return False


def _self_pair_allowed(contexts: dict[int, int]) -> bool:
    """Whether two occurrences of one type form a maximal pair in distinct trees."""
    for ca, ta in contexts.items():
        if ca == _ROOT_CONTEXT and ta == -1:
            return True  # two identical whole trees
        for cb, tb in contexts.items():
            if ca != cb and not (ta >= 0 and ta == tb):
                return True
    return False


def _extract(table: _Table, types_by_prod: dict[int, list[int]]) -> set[int]:
    """Ids of the maximal fragments of all maximal node pairs in distinct trees."""
    prod, kids, occ, tree_of, ids = table.prod, table.kids, table.occ, table.tree_of, table.ids
    entry = table._entry
    shared = [count > 1 for count in occ]  # only pairs with a shared type can recur
    memo: dict[int, int] = {}
    shift = max(1, len(prod).bit_length())  # meet() only sees type ids, all created already

    def meet(a: int, b: int) -> int:
        # a != b, same production
        remember = shared[a] or shared[b]
        if remember:
            key = (a << shift) | b if a < b else (b << shift) | a
            found = memo.get(key)
            if found is not None:
                return found
        out = []
        for x, y in zip(kids[a], kids[b]):
            if x == y:
                out.append(x)
            elif prod[x] == prod[y]:
                out.append(meet(x, y))
            else:
                out.append(-1)
        key2 = (prod[a], tuple(out))
        fid = ids.get(key2)
        if fid is None:
            fid = entry(prod[a], key2[1], False)
        if remember:
            memo[key] = fid
        return fid

    result: set[int] = set()
    add = result.add
    for tids in types_by_prod.values():
        buckets: dict[int, list[int]] = defaultdict(list)
        multi: list[int] = []
        for t in tids:
            contexts = table.contexts(t)
            if (occ[t] > 1) and _self_pair_allowed(contexts):
                add(t)
            if len(contexts) == 1:
                buckets[next(iter(contexts))].append(t)
            else:
                multi.append(t)
        groups = list(buckets.items())
        for gi, (context, group) in enumerate(groups):
            if context == _ROOT_CONTEXT:
                # two different root types are roots of two distinct trees: a maximal pair
                for i, a in enumerate(group):
                    for b in group[i + 1 :]:
                        add(meet(a, b))
            for _, other in groups[gi + 1 :]:
                for a in group:
                    ta = tree_of[a]
                    if ta < 0:
                        for b in other:
                            add(meet(a, b))
                    else:
                        for b in other:
                            if ta != tree_of[b]:
                                add(meet(a, b))
        if multi:
            contexts_of = {t: table.contexts(t) for t in tids}
            done: set[int] = set()
            for m in multi:
                done.add(m)
                cm = contexts_of[m]
                for t in tids:
                    if t not in done and _pair_allowed(cm, contexts_of[t]):
                        add(meet(m, t))
    return result


def _count(table: _Table, fids: Iterable[int], types_by_prod: dict[int, list[int]]) -> dict[int, int]:
    """Exact number of occurrences (matching nodes) of each fragment id."""
    prod, kids, occ, is_type, parents = table.prod, table.kids, table.occ, table.is_type, table.parents
    matches: dict[int, frozenset[int]] = {}

    def match_set(fid: int) -> frozenset[int]:
        if is_type[fid]:
            return frozenset((fid,))
        found = matches.get(fid)
        if found is not None:
            return found
        pid = prod[fid]
        constraints = [(i, match_set(kid)) for i, kid in enumerate(kids[fid]) if kid >= 0]
        if not constraints:
            found = frozenset(types_by_prod.get(pid, ()))
        else:
            # start from the constraint with the fewest candidate parents
            constraints.sort(key=lambda c: sum(len(parents.get(t, ())) for t in c[1]))
            i0, first = constraints[0]
            candidates = [p for c in first for p in parents.get(c, ()) if prod[p] == pid and kids[p][i0] == c]
            for i, allowed in constraints[1:]:
                candidates = [p for p in candidates if kids[p][i] in allowed]
                if not candidates:
                    break
            found = frozenset(candidates)
        matches[fid] = found
        return found

    return {fid: sum(occ[t] for t in match_set(fid)) for fid in fids}


def _as_trees(trees: Iterable[Tree | str]) -> Iterable[Tree]:
    for number, tree in enumerate(trees, start=1):
        yield parse_tree(tree, path="<trees>", line=number) if isinstance(tree, str) else tree


def extract_fragments(trees: Iterable[Tree | str]) -> dict[str, int]:
    """The recurring maximal fragments of a treebank with their exact counts.

    ``trees``: :class:`~natcomp.trees.Tree` objects or bracketed strings (one per tree).
    Returns fragment (bracket notation, frontier non-terminals as ``(NP )``) -> number of
    occurrences in the treebank (see the module documentation for the definitions).
    """
    table = _Table()
    n_trees = 0
    for index, tree in enumerate(_as_trees(trees)):
        table.add_tree(tree, index)
        n_trees += 1
    types_by_prod: dict[int, list[int]] = defaultdict(list)
    for tid in range(len(table.prod)):
        types_by_prod[table.prod[tid]].append(tid)
    fids = _extract(table, types_by_prod)
    counts = _count(table, fids, types_by_prod)
    memo: dict[int, str] = {}
    out = {table.to_string(fid, memo): count for fid, count in counts.items()}
    _LOG.info("%d trees, %d subtree types, %d fragments", n_trees, len(types_by_prod), len(out))
    return out


# --------------------------------------------------------------------------------------
# fragment files


def _sorted_items(fragments: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(fragments.items(), key=lambda item: (-item[1], item[0]))


def format_fragments(fragments: Mapping[str, int]) -> Iterable[str]:
    """``fragment<TAB>count`` lines (without line ends), by count descending, then fragment."""
    for fragment, count in _sorted_items(fragments):
        yield f"{fragment}\t{count}"


def write_fragments(fragments: Mapping[str, int], path: str | Path) -> int:
    """Write ``fragment<TAB>count`` lines atomically (count descending, then fragment)."""
    n = 0
    with atomic_open(path) as out:
        for line in format_fragments(fragments):
            out.write(line + "\n")
            n += 1
    return n


_INDEX_LIST = re.compile(r"^\[[\d,\s]*\]$")
_RELFREQ = re.compile(r"^(\d+)/(\d+)$")
_BINARIZED = re.compile(r"^(?P<parent>.+)\|<.*>$")


def _parse_count(text: str, path: str | Path, number: int) -> int:
    text = text.strip()
    if text.isdigit():
        return int(text)
    if _INDEX_LIST.match(text):  # disco-dop --indices: one tree index per occurrence
        return len(ast.literal_eval(text))
    match = _RELFREQ.match(text)
    if match:  # disco-dop --relfreq: count / total count of the root label
        return int(match.group(1))
    raise InputError(path, f"count {text!r} is not a number, a list of tree indices ([0, 3, 3]) or n/m", number)


def debinarize(tree: Tree) -> Tree:
    """Undo disco-dop's binarization: splice ``X|<...>`` children of an ``X`` node into it.

    A binarization node that is a frontier (nothing to splice) is left as it is.
    """
    if not tree.children:
        return tree
    own = _BINARIZED.match(tree.label)
    base = own.group("parent") if own else tree.label
    children: list[Tree] = []
    for child in tree.children:
        child = debinarize(child)
        match = _BINARIZED.match(child.label)
        if match and child.children and match.group("parent") == base:
            children.extend(child.children)  # already spliced recursively
        else:
            children.append(child)
    return Tree(tree.label, children)


def read_fragments(path: str | Path) -> dict[str, int]:
    """Read ``fragment<TAB>count`` lines (our output and ``discodop fragments --fmt=bracket``).

    Tolerated: a count field that is disco-dop's ``--indices`` list (``[0, 3, 3]``: the
    count is its length), ``--relfreq``'s ``n/m`` (count n), CRLF line ends, blank lines,
    spaces around fields, binarized fragments (``X|<..>`` nodes are spliced back). Each
    fragment is re-written in our bracket notation; equal fragments are summed. Rejected
    with an error naming the line: a missing count, disco-dop's discontinuous output
    (``tree<TAB>sentence<TAB>count``; run it with ``--fmt=bracket``), ``--alt`` notation and
    malformed brackets.
    """
    out: dict[str, int] = {}
    for number, line in enumerate(iter_lines(path, allow_empty=True), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) == 3:
            raise InputError(
                path,
                "three fields (tree, sentence, count) is disco-dop's discontinuous output; "
                "run discodop fragments with --fmt=bracket",
                number,
            )
        if len(fields) != 2:
            raise InputError(path, f"expected 'fragment<TAB>count', found {len(fields)} tab-separated fields", number)
        tree = parse_tree(fields[0].strip(), path=path, line=number, allow_frontier=True)
        if any(_BINARIZED.match(node.label) for node in tree.subtrees()):
            tree = debinarize(tree)
        fragment = tree.to_bracket()
        out[fragment] = out.get(fragment, 0) + _parse_count(fields[1], path, number)
    return out


# --------------------------------------------------------------------------------------
# selection


def _as_tree(fragment: str | Tree) -> Tree:
    if isinstance(fragment, Tree):
        return fragment
    return parse_tree(fragment, path="<fragment>", allow_frontier=True)


def fragment_label(fragment: str | Tree) -> str:
    """The root label of a fragment."""
    if isinstance(fragment, Tree):
        return fragment.label
    text = fragment.lstrip()
    end = 1
    while end < len(text) and text[end] not in " \t()":
        end += 1
    return text[1:end]


def count_nonterminals(fragment: str | Tree) -> int:
    """Number of non-terminal nodes: inner nodes, preterminals and frontier non-terminals.

    Words are not counted. ``(NP (NP (DT the) (NN )) (PP ))`` has 5.
    """
    if isinstance(fragment, Tree):
        return fragment.count_nodes()
    return fragment.count("(")  # one '(' per node; words cannot contain brackets


def select_fragments(
    fragments: Mapping[str, int],
    labels: Sequence[str] = ("NP", "VP"),
    top: int = 100,
    min_nonterminals: int = 15,
) -> dict[str, list[tuple[str, int]]]:
    """Per root label: the ``top`` most frequent fragments with >= ``min_nonterminals``.

    Root labels are compared exactly (``NP-SBJ`` is not ``NP``). Ties in count are broken
    by the fragment string, so the result does not depend on the input order.
    """
    wanted = set(labels)
    pools: dict[str, list[tuple[str, int]]] = {label: [] for label in labels}
    for fragment, count in fragments.items():
        label = fragment_label(fragment)
        if label in wanted and count_nonterminals(fragment) >= min_nonterminals:
            pools[label].append((fragment, count))
    return {label: sorted(pool, key=lambda item: (-item[1], item[0]))[:top] for label, pool in pools.items()}


# --------------------------------------------------------------------------------------
# choice


@dataclass(frozen=True)
class ChosenFragment:
    """One fragment chosen for the semi-natural templates (id ``VP1``, ``NP3``, ..)."""

    id: str
    label: str
    fragment: str
    count: int
    nonterminals: int


def _structure(fragment: str | Tree) -> Counter:
    tree = _as_tree(fragment)
    return Counter(
        (node.label, tuple(child.label for child in node.children)) for node in tree.subtrees() if node.children
    )


def structural_distance(a: str | Tree, b: str | Tree) -> float:
    """1 - weighted Jaccard similarity of the unlexicalised inner productions (0 .. 1)."""
    pa, pb = _structure(a), _structure(b)
    union = sum((pa | pb).values())
    if union == 0:
        return 0.0
    return 1.0 - sum((pa & pb).values()) / union


def _has_frontier(fragment: str | Tree) -> bool:
    return any(node.is_frontier for node in _as_tree(fragment).subtrees())


def _auto_choice(label: str, pool: Sequence[tuple[str, int]], n: int, min_distance: float) -> list[tuple[str, int]]:
    eligible = [(fragment, count) for fragment, count in pool if _has_frontier(fragment)]
    if len(eligible) < n:
        raise NatcompError(
            f"only {len(eligible)} of the {len(pool)} selected {label} fragments have a frontier non-terminal, "
            f"{n} are needed: use a larger treebank, a lower minimum of non-terminals, or choose them by hand"
        )
    structures = [_structure(fragment) for fragment, _ in eligible]

    def distance(i: int, j: int) -> float:
        union = sum((structures[i] | structures[j]).values())
        return 0.0 if union == 0 else 1.0 - sum((structures[i] & structures[j]).values()) / union

    # eligible is in selection order (count descending, then fragment)
    chosen = [0]
    nearest = [1.0] * len(eligible)  # smallest distance to the fragments chosen so far
    while len(chosen) < n:
        last = chosen[-1]
        for i in range(len(eligible)):
            nearest[i] = min(nearest[i], distance(i, last))
        rest = [i for i in range(len(eligible)) if i not in chosen]
        far_enough = [i for i in rest if nearest[i] >= min_distance]
        if far_enough:
            pick = far_enough[0]  # the most frequent one that is different enough
        else:  # the most different one; ties: the more frequent
            pick = max(rest, key=lambda i: (nearest[i], eligible[i][1], -i))
        chosen.append(pick)
    return [eligible[i] for i in chosen]


def choose_fragments(
    selected: Mapping[str, Sequence[tuple[str, int]]],
    n_vp: int = 3,
    n_np: int = 5,
    overrides: Mapping[str, Sequence[str]] | None = None,
    min_distance: float = 0.4,
) -> list[ChosenFragment]:
    """Choose ``n_vp`` VP and ``n_np`` NP fragments: ``VP1..``, then ``NP1..``.

    ``selected``: the output of :func:`select_fragments`. Without an override for a label
    the choice is automatic (module documentation): the most frequent eligible fragment,
    then each time the most frequent one whose structural distance to every fragment
    chosen so far is at least ``min_distance``, or if there is none the most distant one.
    ``overrides[label]`` lists fragment strings (whitespace may differ) that must all be
    in ``selected[label]``; they are used in that order and must be exactly as many as
    requested. A :class:`NatcompError` names the offending fragments.
    """
    overrides = dict(overrides or {})
    unknown_labels = set(overrides) - {"VP", "NP"}
    if unknown_labels:
        raise NatcompError(f"fragment overrides for unknown labels {sorted(unknown_labels)}; expected VP and NP")
    out: list[ChosenFragment] = []
    for label, n in (("VP", n_vp), ("NP", n_np)):
        if n <= 0:
            continue
        pool = list(selected.get(label, ()))
        wanted = overrides.get(label)
        if wanted:
            by_form = {_as_tree(fragment).to_bracket(): (fragment, count) for fragment, count in pool}
            picks, missing = [], []
            for text in wanted:
                try:
                    form = _as_tree(text).to_bracket()
                except InputError as error:
                    raise NatcompError(f"{label} fragment override {text!r} is not a fragment: {error}") from None
                if form in by_form:
                    picks.append(by_form[form])
                else:
                    missing.append(text)
            if missing:
                raise NatcompError(
                    f"{label} fragment overrides not among the {len(pool)} selected {label} fragments: "
                    + "; ".join(missing)
                )
            if len({fragment for fragment, _ in picks}) != len(picks):
                raise NatcompError(f"{label} fragment overrides list a fragment twice: {list(wanted)}")
            if len(picks) != n:
                raise NatcompError(f"{len(picks)} {label} fragment overrides given, {n} needed")
        else:
            picks = _auto_choice(label, pool, n, min_distance)
        for k, (fragment, count) in enumerate(picks, start=1):
            out.append(ChosenFragment(f"{label}{k}", label, fragment, count, count_nonterminals(fragment)))
    return out


def write_choice_table(chosen: Iterable[ChosenFragment], path: str | Path) -> int:
    """TSV with a header ``id label count nonterminals fragment``, one chosen fragment a row."""
    n = 0
    with atomic_open(path) as out:
        out.write("\t".join(CHOICE_COLUMNS) + "\n")
        for item in chosen:
            out.write(f"{item.id}\t{item.label}\t{item.count}\t{item.nonterminals}\t{item.fragment}\n")
            n += 1
    return n


def read_choice_table(path: str | Path) -> list[ChosenFragment]:
    """Read the table written by :func:`write_choice_table` (e.g. after a manual edit)."""
    out: list[ChosenFragment] = []
    ids: set[str] = set()
    for number, line in enumerate(iter_lines(path, allow_empty=True), start=1):
        if number == 1:
            if tuple(line.split("\t")) != CHOICE_COLUMNS:
                raise InputError(path, f"expected the header {' '.join(CHOICE_COLUMNS)} (tab-separated)", number)
            continue
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(CHOICE_COLUMNS):
            raise InputError(path, f"expected {len(CHOICE_COLUMNS)} tab-separated fields, found {len(fields)}", number)
        fid, label, count, nonterminals, fragment = (field.strip() for field in fields)
        if not count.isdigit() or not nonterminals.isdigit():
            raise InputError(path, "count and nonterminals must be whole numbers", number)
        tree = parse_tree(fragment, path=path, line=number, allow_frontier=True)
        if tree.label != label:
            raise InputError(path, f"label {label!r} differs from the fragment's root label {tree.label!r}", number)
        if fid in ids:
            raise InputError(path, f"id {fid!r} occurs twice", number)
        ids.add(fid)
        out.append(ChosenFragment(fid, label, tree.to_bracket(), int(count), int(nonterminals)))
    return out


# --------------------------------------------------------------------------------------
# tree search


@dataclass(frozen=True)
class Phrase:
    """A matching subtree: its tokens (leaves) and the subtree itself."""

    tokens: tuple[str, ...]
    tree: Tree

    @classmethod
    def of(cls, tree: Tree) -> Phrase:
        return cls(tuple(tree.leaves()), tree)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def _matches(fragment: Tree, node: Tree) -> bool:
    if fragment.label != node.label:
        return False
    if fragment.word is not None:
        return node.word == fragment.word
    if not fragment.children:
        return True  # frontier: any subtree with this label
    if len(fragment.children) != len(node.children):
        return False
    if any(f.label != c.label for f, c in zip(fragment.children, node.children)):
        return False
    return all(f.is_frontier or _matches(f, c) for f, c in zip(fragment.children, node.children))


def match_phrases(fragment: str | Tree, trees: Iterable[Tree | str]) -> list[Tree]:
    """Every subtree of ``trees`` where ``fragment`` matches, in treebank order (pre-order).

    Same rule as the counts of :func:`extract_fragments`: the node has the fragment's root
    production and every non-frontier child matches recursively; frontier non-terminals
    match any subtree with their label.
    """
    query = _as_tree(fragment)
    return [node for tree in _as_trees(trees) for node in tree.subtrees() if _matches(query, node)]


def _fragment_items(chosen: Iterable[ChosenFragment] | Mapping[str, str | Tree]) -> list[tuple[str, Tree]]:
    if isinstance(chosen, Mapping):
        return [(fid, _as_tree(fragment)) for fid, fragment in chosen.items()]
    return [(item.id, _as_tree(item.fragment)) for item in chosen]


def find_matches(
    chosen: Iterable[ChosenFragment] | Mapping[str, str | Tree], treebank_path: str | Path
) -> dict[str, list[Phrase]]:
    """Tree search: fragment id -> every matching phrase of the treebank file (streamed).

    ``chosen``: :class:`ChosenFragment` objects or a mapping id -> fragment. Every id is a
    key of the result, with an empty list when nothing matches.
    """
    items = _fragment_items(chosen)
    by_label: dict[str, list[tuple[str, Tree]]] = defaultdict(list)
    for fid, query in items:
        by_label[query.label].append((fid, query))
    out: dict[str, list[Phrase]] = {fid: [] for fid, _ in items}
    for tree in iter_trees(treebank_path):
        for node in tree.subtrees():
            for fid, query in by_label.get(node.label, ()):
                if _matches(query, node):
                    out[fid].append(Phrase.of(node))
    return out


def write_matches(matches: Mapping[str, Sequence[Phrase]], path: str | Path) -> int:
    """TSV with a header ``id tokens tree``; tokens separated by spaces."""
    n = 0
    with atomic_open(path) as out:
        out.write("\t".join(MATCH_COLUMNS) + "\n")
        for fid, phrases in matches.items():
            for phrase in phrases:
                out.write(f"{fid}\t{phrase.text}\t{phrase.tree.to_bracket()}\n")
                n += 1
    return n


def read_matches(path: str | Path) -> dict[str, list[Phrase]]:
    """Read :func:`write_matches` output (ids in first-seen order; the header is optional).

    The tokens must be the leaves of the tree (an error names the line otherwise). Ids
    without any match are not in the file, hence not in the result.
    """
    out: dict[str, list[Phrase]] = {}
    for number, line in enumerate(iter_lines(path, allow_empty=True), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if number == 1 and tuple(fields) == MATCH_COLUMNS:
            continue
        if len(fields) != 3:
            raise InputError(path, f"expected 3 tab-separated fields (id, tokens, tree), found {len(fields)}", number)
        fid, tokens, text = (field.strip() for field in fields)
        tree = parse_tree(text, path=path, line=number)
        if tuple(tokens.split()) != tuple(tree.leaves()):
            raise InputError(path, f"tokens {tokens!r} differ from the leaves of the tree", number)
        out.setdefault(fid, []).append(Phrase.of(tree))
    return out


# --------------------------------------------------------------------------------------
# disco-dop backend


def discodop_available() -> bool:
    """Whether the ``discodop`` command is on PATH."""
    return shutil.which(DISCODOP) is not None


def discodop_fragments_command(treebank: str | Path, threads: int = 1) -> list[str]:
    """``discodop fragments`` command line for one bracket treebank.

    From disco-dop's documented CLI (``discodop fragments <treebank1> [options]``):
    ``--fmt=bracket`` (continuous trees, words as leaves, output ``fragment<TAB>count``),
    ``--debin`` (disco-dop binarizes n-ary trees internally and prints binarized
    fragments without it) and ``--numproc=N`` (0 = all CPUs). Output goes to stdout.
    Uncertain, not testable here: whether ``--debin`` is needed with every version (kept:
    it is harmless on already n-ary output, and :func:`read_fragments` also debinarizes).
    """
    if threads < 0:
        raise ValueError(f"threads must be >= 0, not {threads}")
    return [DISCODOP, "fragments", str(treebank), "--fmt=bracket", "--debin", f"--numproc={threads}"]


def _normalised_treebank(treebank: str | Path, directory: Path) -> Path:
    """A copy of the treebank as written by our writer (checks it, labels unlabeled roots)."""
    copy = directory / "treebank.mrg"
    write_trees(iter_trees(treebank), copy)
    return copy


def _run(command: list[str], stdout) -> None:
    try:
        process = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, check=False)
    except FileNotFoundError:
        raise NatcompError(
            f"the {DISCODOP} command is not on PATH (install disco-dop from its git source; "
            "or use the built-in backend)"
        ) from None
    if process.returncode != 0:
        tail = "\n".join(process.stderr.strip().splitlines()[-15:])
        raise NatcompError(f"{' '.join(command)} failed with exit status {process.returncode}:\n{tail}")


def discodop_fragments(treebank: str | Path, output: str | Path | None = None, threads: int = 1) -> dict[str, int]:
    """Run ``discodop fragments`` and normalise its output to our format.

    The treebank is checked and re-written by our reader first; the fragments are read
    with :func:`read_fragments` and, when ``output`` is given, written with
    :func:`write_fragments` (sorted, our notation). Returns fragment -> count.
    """
    with tempfile.TemporaryDirectory(prefix="natcomp-discodop-") as tmp:
        directory = Path(tmp)
        copy = _normalised_treebank(treebank, directory)
        raw = directory / "fragments.txt"
        command = discodop_fragments_command(copy, threads)
        _LOG.info("running %s", " ".join(command))
        with open(raw, "w", encoding="utf-8") as handle:
            _run(command, handle)
        fragments = read_fragments(raw)
    if output is not None:
        write_fragments(fragments, output)
    return fragments


def discodop_treesearch_command(fragment: str | Tree, treebank: str | Path, threads: int = 1) -> list[str]:
    """``discodop treesearch`` command line printing every subtree that matches ``fragment``.

    From disco-dop's documented CLI (``discodop treesearch [--engine=X] [-t|-s|-c] <query>
    <treebank>...``): ``--engine=frag`` (tree-fragment queries), ``--brackets`` (raw trees),
    ``--only-matching`` (only the matching part), ``--line-number`` (prefix the sentence
    number), ``--max-count=0`` (no limit), ``--numproc=N``. Uncertain, not testable here:
    the exact output layout (parsed tolerantly by :func:`parse_treesearch_output`), and
    whether the matched subtree is printed binarized (we debinarize); disco-dop also
    binarizes the searched treebank, which gives the same matches as our n-ary rule
    because binarization nodes carry all sibling labels.
    """
    query = _as_tree(fragment).to_bracket()
    return [
        DISCODOP,
        "treesearch",
        "--engine=frag",
        "--brackets",
        "--only-matching",
        "--line-number",
        "--max-count=0",
        f"--numproc={max(threads, 1)}",
        query,
        str(treebank),
    ]


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def parse_treesearch_output(text: str, source: str = "<discodop treesearch>") -> list[tuple[int | None, Tree]]:
    """(sentence number or None, matched subtree) per output line of ``treesearch -b -o -n``.

    Tolerant: colour escapes are removed; anything before the first ``(`` is taken as a
    prefix like ``file:12:`` or ``12:`` (the last number in it is the sentence number);
    lines without a tree are skipped; binarized subtrees are debinarized.
    """
    out: list[tuple[int | None, Tree]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = _ANSI.sub("", line).rstrip()
        start = line.find("(")
        if start < 0:
            continue
        numbers = re.findall(r"\d+", line[:start])
        tree = parse_tree(line[start:], path=source, line=number)
        if any(_BINARIZED.match(node.label) for node in tree.subtrees()):
            tree = debinarize(tree)
        out.append((int(numbers[-1]) if numbers else None, tree))
    return out


def discodop_treesearch(
    chosen: Iterable[ChosenFragment] | Mapping[str, str | Tree], treebank: str | Path, threads: int = 1
) -> dict[str, list[Phrase]]:
    """Like :func:`find_matches`, with ``discodop treesearch`` doing the search."""
    out: dict[str, list[Phrase]] = {}
    with tempfile.TemporaryDirectory(prefix="natcomp-discodop-") as tmp:
        copy = _normalised_treebank(treebank, Path(tmp))
        for fid, query in _fragment_items(chosen):
            command = discodop_treesearch_command(query, copy, threads)
            _LOG.info("running %s", " ".join(command))
            with tempfile.TemporaryFile("w+", encoding="utf-8") as handle:
                _run(command, handle)
                handle.seek(0)
                found = parse_treesearch_output(handle.read())
            out[fid] = [Phrase.of(tree) for _, tree in found]
    return out
