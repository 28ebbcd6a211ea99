"""The Stanford Sentiment Treebank (SST) in its release layout, and SST-7.

Readers for the members of the three SST archives and for the labelled PTB trees:

==============================  =====================================  ==============================
archive                         member                                 reader
==============================  =====================================  ==============================
``stanfordSentimentTreebank``   ``dictionary.txt``                     :func:`read_dictionary`
                                ``sentiment_labels.txt``               :func:`read_sentiment_labels`
                                ``datasetSentences.txt``               :func:`read_dataset_sentences`
                                ``datasetSplit.txt``                   :func:`read_dataset_split`
                                ``SOStr.txt``                          :func:`read_sostr`
                                ``STree.txt``                          :func:`read_stree`
``stanfordSentimentTreebankRaw`` ``rawscores_exp12.txt``               :func:`read_raw_scores`
``trainDevTestTrees_PTB``       ``trees/{train,dev,test}.txt``         :func:`read_ptb_trees`
==============================  =====================================  ==============================

Every reader takes the plain member file, a folder that holds it, or the release ``.zip``
(the member is found by its file name inside the archive, wherever the archive puts it). Quirks of the
real release that are accepted (see docs/noncompsst.md): a PTB leaf that contains a space
(``(2 8 1\\/2)``), the PTB escapes ``\\/`` and ``\\*`` (unescaped to ``/`` and ``*``;
``-LRB-``/``-RRB-`` are kept, as in the released SST-7 files), latin-1 mojibake in
``datasetSentences.txt`` (``clichÃ©s`` is repaired to ``clichés``) and raw-score lines
separated by commas or by spaces. Anything else raises :class:`natcomp.errors.InputError`
naming the file (``archive.zip:member`` for a member), the line and what was expected.

SST-7 (Dankers & Lucas 2023): the label of a phrase value ``v`` in [0, 1] is
``min(floor(7 v), 6)`` (:func:`sst7_label`).
"""

from __future__ import annotations

import io
import math
import re
import statistics
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import atomic_open
from natcomp.trees import Tree, parse_tree

__all__ = [
    "SPLIT_CODES",
    "PTB_MEMBERS",
    "SentimentNode",
    "format_ptb_tree",
    "member_name",
    "phrase_key",
    "ptb_tokens_to_text",
    "raw_score_sd",
    "raw_score_value",
    "read_dataset_sentences",
    "read_dataset_split",
    "read_dictionary",
    "read_ptb_trees",
    "read_raw_scores",
    "read_sentiment_labels",
    "read_sostr",
    "read_stree",
    "repair_mojibake",
    "sentiment_nodes",
    "sst5_label",
    "sst7_label",
    "unescape_ptb_word",
    "write_ptb_trees",
]

#: ``datasetSplit.txt`` codes.
SPLIT_CODES = {1: "train", 2: "test", 3: "dev"}
#: PTB tree members of ``trainDevTestTrees_PTB.zip`` per split.
PTB_MEMBERS = {"train": "trees/train.txt", "dev": "trees/dev.txt", "test": "trees/test.txt"}

# A leaf whose word contains spaces, e.g. ``(2 8 1\/2)``: a label, then two or more
# bracket-free words, then ``)``. The real train.txt writes these spaces as U+00A0 (no-break
# space), which natcomp.trees would split on like any whitespace; both are protected by a
# private-use stand-in while the tree is parsed and restored afterwards.
_SPACED_LEAF = re.compile(r"\((\S+) ([^\s()]+(?:[ \u00a0][^\s()]+)+)\)")
_PROTECT = str.maketrans({" ": "\ue000", "\u00a0": "\ue001"})
_RESTORE = str.maketrans({"\ue000": " ", "\ue001": "\u00a0"})
_MOJIBAKE = re.compile("[\u00c2-\u00c3\u00c5\u00e2][\u0080-\u00bf\u2018-\u203a\u0152\u0160\u0178\u017d\u02c6\u02dc]")


# ----------------------------------------------------------------------------- labels
def sst7_label(value: float) -> int:
    """SST-7 label of an SST phrase value ``v`` in [0, 1]: ``min(floor(7 v), 6)``."""
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"an SST sentiment value lies in [0, 1], not {value!r}")
    return min(math.floor(7 * value), 6)


def sst5_label(value: float) -> int:
    """SST-5 label (the PTB trees' 0-4): bins [0, .2], (.2, .4], (.4, .6], (.6, .8], (.8, 1]."""
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"an SST sentiment value lies in [0, 1], not {value!r}")
    return max(0, math.ceil(value * 5) - 1)


def raw_score_value(scores: Sequence[int]) -> float:
    """The SST value of a phrase from its raw 1-25 slider scores: ``(mean - 1) / 24``."""
    return (statistics.fmean(scores) - 1) / 24


def raw_score_sd(scores: Sequence[int]) -> float:
    """Population standard deviation of raw scores (on the 25-point scale)."""
    return statistics.pstdev(scores)


# ----------------------------------------------------------------------------- sources
def member_name(path: str | Path, member: str) -> str:
    """How errors name a member of an archive: ``archive.zip:member``."""
    return f"{path}:{member}"


def _find_member(archive: zipfile.ZipFile, path: str | Path, basename: str) -> str:
    """The member of ``archive`` whose path ends with ``basename`` (``trees/train.txt`` or ``SOStr.txt``)."""
    wanted = basename.strip("/")
    names = [
        name
        for name in archive.namelist()
        if not name.endswith("/") and "__MACOSX" not in name and (name == wanted or name.endswith("/" + wanted))
    ]
    if not names:
        raise InputError(path, f"the archive has no member {wanted!r}; expected the SST release layout")
    if len(names) > 1:
        raise InputError(path, f"the archive has several members named {wanted!r}: {', '.join(names)}")
    return names[0]


def _raw_lines(path: str | Path, member: str, encoding: str = "utf-8") -> tuple[str, Iterator[tuple[int, str]]]:
    """(name for errors, iterator of (line number, text without line end)) of a file or an archive member."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    if path.is_dir():
        path = path / Path(member).name
        if not path.exists():
            raise InputError(path, "file not found (expected in the SST release folder)")
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            inner = _find_member(archive, path, member)
            data = archive.read(inner)
        name = member_name(path, inner)
    else:
        data = path.read_bytes()
        name = str(path)
    return name, _decode_lines(name, data, encoding)


def _decode_lines(name: str, data: bytes, encoding: str) -> Iterator[tuple[int, str]]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for number, raw in enumerate(io.BytesIO(data), start=1):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise InputError(name, f"not valid UTF-8 ({error.reason} at byte {error.start})", number) from None
        yield number, text.rstrip("\r\n")


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 read as latin-1/cp1252 (``clichÃ©s`` -> ``clichés``); other text is returned as it is."""
    if not _MOJIBAKE.search(text):
        return text
    for codec in ("latin-1", "cp1252"):
        try:
            return text.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
    return text


# ----------------------------------------------------------------------------- readers
def _split_last(name: str, number: int, text: str, separator: str, what: str) -> tuple[str, str]:
    if separator not in text:
        raise InputError(name, f"expected {what} separated by {separator!r}, got {text[:80]!r}", number)
    left, right = text.rsplit(separator, 1)
    return left, right


def _int(name: str, number: int, text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(name, f"expected {what} (an integer), got {text!r}", number) from None


def read_dictionary(path: str | Path) -> dict[str, int]:
    """``dictionary.txt``: ``phrase|phrase_id`` lines (no header) as {phrase: id}."""
    name, lines = _raw_lines(path, "dictionary.txt")
    out: dict[str, int] = {}
    for number, text in lines:
        if not text:
            continue
        phrase, ident = _split_last(name, number, text, "|", "a phrase and its id")
        out[phrase] = _int(name, number, ident, "a phrase id")
    if not out:
        raise InputError(name, "empty; expected phrase|phrase_id lines")
    return out


def read_sentiment_labels(path: str | Path) -> dict[int, float]:
    """``sentiment_labels.txt``: header ``phrase ids|sentiment values``, rows ``id|value`` (value in [0, 1])."""
    name, lines = _raw_lines(path, "sentiment_labels.txt")
    out: dict[int, float] = {}
    for number, text in lines:
        if number == 1:
            if text.strip().lower() != "phrase ids|sentiment values":
                raise InputError(name, f"expected the header 'phrase ids|sentiment values', got {text[:80]!r}", 1)
            continue
        if not text:
            continue
        ident, value = _split_last(name, number, text, "|", "a phrase id and a sentiment value")
        try:
            number_value = float(value)
        except ValueError:
            number_value = math.nan
        if not 0.0 <= number_value <= 1.0:
            raise InputError(name, f"expected a sentiment value in [0, 1], got {value!r}", number)
        out[_int(name, number, ident, "a phrase id")] = number_value
    return out


def read_dataset_sentences(path: str | Path) -> dict[int, str]:
    """``datasetSentences.txt``: header ``sentence_index<TAB>sentence``; latin-1 mojibake is repaired."""
    name, lines = _raw_lines(path, "datasetSentences.txt")
    out: dict[int, str] = {}
    for number, text in lines:
        if number == 1:
            if text.split("\t") != ["sentence_index", "sentence"]:
                raise InputError(name, f"expected the header 'sentence_index<TAB>sentence', got {text[:80]!r}", 1)
            continue
        if not text:
            continue
        if "\t" not in text:
            raise InputError(name, f"expected 'index<TAB>sentence', got {text[:80]!r}", number)
        index, sentence = text.split("\t", 1)
        out[_int(name, number, index, "a sentence index")] = repair_mojibake(sentence)
    return out


def read_dataset_split(path: str | Path) -> dict[int, str]:
    """``datasetSplit.txt``: header ``sentence_index,splitset_label``; {index: "train"|"test"|"dev"}."""
    name, lines = _raw_lines(path, "datasetSplit.txt")
    out: dict[int, str] = {}
    for number, text in lines:
        if number == 1:
            if text.strip() != "sentence_index,splitset_label":
                raise InputError(name, f"expected the header 'sentence_index,splitset_label', got {text[:80]!r}", 1)
            continue
        if not text:
            continue
        index, code = _split_last(name, number, text, ",", "a sentence index and a split code")
        split = SPLIT_CODES.get(_int(name, number, code, "a split code"))
        if split is None:
            raise InputError(name, f"expected a split code 1 (train), 2 (test) or 3 (dev), got {code!r}", number)
        out[_int(name, number, index, "a sentence index")] = split
    return out


def read_sostr(path: str | Path) -> list[list[str]]:
    """``SOStr.txt``: one sentence per line, tokens joined by ``|``."""
    name, lines = _raw_lines(path, "SOStr.txt")
    out = []
    for number, text in lines:
        if not text:
            if number == 1:
                raise InputError(name, "empty line; expected tokens joined by '|'", number)
            continue
        tokens = text.split("|")
        if any(not token for token in tokens):
            raise InputError(name, f"empty token; expected tokens joined by '|', got {text[:80]!r}", number)
        out.append(tokens)
    return out


def read_stree(path: str | Path) -> list[list[int]]:
    """``STree.txt``: parent pointers per sentence (1-based; the root's parent is 0).

    Checked: exactly one root, every parent is a node after the leaves and in range.
    """
    name, lines = _raw_lines(path, "STree.txt")
    out = []
    for number, text in lines:
        if not text:
            continue
        parents = [_int(name, number, field, "a parent index") for field in text.split("|")]
        size = len(parents)
        if parents.count(0) != 1 or any(not 0 <= p <= size for p in parents):
            raise InputError(name, f"expected parent pointers 0..{size} with exactly one 0 (the root)", number)
        out.append(parents)
    return out


def read_raw_scores(path: str | Path) -> dict[int, tuple[int, ...]]:
    """``rawscores_exp12.txt``: a phrase id then 3-6 raw scores in 1-25, separated by commas or spaces."""
    name, lines = _raw_lines(path, "rawscores_exp12.txt")
    out: dict[int, tuple[int, ...]] = {}
    for number, text in lines:
        if not text.strip():
            continue
        fields = [field for field in re.split(r"[,\s]+", text.strip()) if field]
        ident = _int(name, number, fields[0], "a phrase id")
        scores = tuple(_int(name, number, field, "a raw score") for field in fields[1:])
        if not 3 <= len(scores) <= 6 or any(not 1 <= s <= 25 for s in scores):
            raise InputError(
                name, f"expected a phrase id followed by 3-6 raw scores in 1-25, got {text[:80]!r}", number
            )
        out[ident] = scores
    return out


# ----------------------------------------------------------------------------- PTB trees
def unescape_ptb_word(word: str) -> str:
    """SST's PTB escapes: ``\\/`` -> ``/``, ``\\*`` -> ``*`` (``-LRB-``/``-RRB-`` are kept)."""
    return word.replace("\\/", "/").replace("\\*", "*")


def ptb_tokens_to_text(tokens: Iterable[str]) -> str:
    """The dictionary form of PTB tokens: ``-LRB-``/``-RRB-`` as brackets, joined by spaces."""
    return " ".join({"-LRB-": "(", "-RRB-": ")"}.get(token, token) for token in tokens)


def phrase_key(text: str) -> str:
    """Normalised phrase text for matching (lower case, single spaces)."""
    return " ".join(text.lower().split())


def _check_labels(tree: Tree, name: str, number: int) -> None:
    for node in tree.subtrees():
        if node.label not in {"0", "1", "2", "3", "4"}:
            raise InputError(name, f"expected a sentiment label 0-4 on every node, got {node.label!r}", number)
        if not node.is_preterminal and len(node.children) not in (1, 2):
            raise InputError(name, f"expected a binarised tree, a node has {len(node.children)} children", number)


def _unescape_tree(tree: Tree) -> Tree:
    if tree.is_preterminal:
        return Tree(tree.label, word=unescape_ptb_word(tree.word.translate(_RESTORE)))
    return Tree(tree.label, [_unescape_tree(child) for child in tree.children])


def parse_sst_tree(text: str, *, path: str | Path = "<string>", line: int | None = None) -> Tree:
    """One SST PTB line as a :class:`natcomp.trees.Tree` with labels "0"-"4" and unescaped words.

    A leaf with a space (``(2 8 1\\/2)``; in the release a no-break space) becomes one word
    ``8 1/2`` (keeping the space character it had).
    """
    protected = _SPACED_LEAF.sub(lambda m: f"({m.group(1)} {m.group(2).translate(_PROTECT)})", text)
    tree = parse_tree(protected, path=path, line=line)
    _check_labels(tree, str(path), line or 0)
    return _unescape_tree(tree)


def read_ptb_trees(path: str | Path, split: str | None = None) -> list[Tree]:
    """Labelled SST trees of a PTB file (``train.txt``) or of ``trainDevTestTrees_PTB.zip`` (``split`` needed)."""
    path = Path(path)
    if path.is_file() and zipfile.is_zipfile(path):
        if split not in PTB_MEMBERS:
            raise ValueError(f"reading {path}: name the split ({', '.join(PTB_MEMBERS)})")
        member = PTB_MEMBERS[split]
    else:
        member = path.name
    name, lines = _raw_lines(path, member)
    trees = []
    for number, text in lines:
        if not text.strip():
            raise InputError(name, "empty line; expected one labelled tree per line", number)
        trees.append(parse_sst_tree(text, path=name, line=number))
    return trees


def _escape_word(word: str) -> str:
    return word.replace("/", "\\/").replace("*", "\\*")


def format_ptb_tree(tree: Tree) -> str:
    """One SST PTB line (the inverse of :func:`parse_sst_tree`): escapes ``/`` and ``*``."""
    if tree.is_preterminal:
        return f"({tree.label} {_escape_word(tree.word)})"
    return f"({tree.label} " + " ".join(format_ptb_tree(child) for child in tree.children) + ")"


def write_ptb_trees(trees: Iterable[Tree], path: str | Path) -> int:
    """Write SST PTB lines atomically; returns the number of trees."""
    count = 0
    with atomic_open(path) as out:
        for tree in trees:
            out.write(format_ptb_tree(tree) + "\n")
            count += 1
    return count


@dataclass(frozen=True)
class SentimentNode:
    """One node of an SST tree with its token span.

    ``index`` is the node's pre-order number in its sentence (0 = the root); ``start``
    and ``end`` delimit its tokens in the sentence; ``label`` is the 0-4 PTB label;
    ``children`` are the indices of its child nodes.
    """

    index: int
    start: int
    end: int
    label: int
    children: tuple[int, ...]

    def tokens(self, sentence: Sequence[str]) -> list[str]:
        return list(sentence[self.start : self.end])


def sentiment_nodes(tree: Tree) -> tuple[list[str], list[SentimentNode]]:
    """(tokens, nodes in pre-order) of an SST tree; preterminals are nodes too."""
    tokens: list[str] = []
    nodes: list[SentimentNode | None] = []

    def visit(node: Tree) -> int:
        index = len(nodes)
        nodes.append(None)
        start = len(tokens)
        if node.is_preterminal:
            tokens.append(node.word)
            children: tuple[int, ...] = ()
        else:
            children = tuple(visit(child) for child in node.children)
        nodes[index] = SentimentNode(index, start, len(tokens), int(node.label), children)
        return index

    # SST trees are at most a few hundred nodes deep; recursion is fine.
    visit(tree)
    return tokens, [node for node in nodes if node is not None]
