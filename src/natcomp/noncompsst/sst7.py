"""SST-7 train / validation / test files (section 5) from the SST release.

A phrase's label is ``natcomp.sst.sst7_label(v)`` of its value ``v`` in
``sentiment_labels.txt`` (found through ``dictionary.txt``). Validation and test hold the
sentences of the dev and test trees; train holds the *unrolled* training trees: every
distinct phrase (node) of the training sentences, sentences included (first occurrence
kept); validation and test keep every sentence, repeats included (the released
``validation.tsv`` has "Hey Arnold !" twice, as the dev trees). Every sentence that
contains a stimulus subphrase (a phrase's A or B or any of their controls, as a
case-insensitive token sequence) is removed first, with all its phrases, as the released
validation/test files show.

The released controls were edited for agreement ("the actor" for SST's "the actors",
"young women" for "young woman"), so a control's text is not always its source SST node.
:func:`stimulus_subphrases` therefore adds, for every control, its *number variants*:
the sequences with one token swapped for its singular/plural (or is/are, was/were,
has/have, this/these) form. On the real release this removes every sentence the released
``validation.tsv`` lacks and all but 4 of the sentences ``test.tsv`` lacks, and one
validation sentence the release keeps ("Half Submarine flick , Half Ghost Story ...":
the control "ghost stories" came from "a ghost story", so its variant "ghost story" is
too short here); see docs/noncompsst.md.

Where the released ``sst7/validation.tsv`` and ``sst7/test.tsv`` are given
(``sst7.evaluation_splits: released``, the paper config), :func:`use_released` puts them
in place of the rebuilt splits, so a paper run evaluates on exactly the paper's sentences,
and logs how they differ from the rebuilt ones. Train is always rebuilt (the released
``train.tsv`` was not available to check).

Files: ``sentence<TAB>label`` with a header line (:func:`read_sst7` also reads the
released files, which have none). Sentences are the tree's tokens joined by spaces, cased,
``-LRB-``/``-RRB-`` kept, ``\\/`` unescaped (as released).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import iter_lines
from natcomp.noncompsst.stimuli import Phrase, sst_tokenize
from natcomp.sst import sentiment_nodes, sst7_label
from natcomp.trees import Tree
from natcomp.tsv import write_tsv

__all__ = [
    "SST7_SPLITS",
    "build_sst7",
    "number_forms",
    "number_variants",
    "read_sst7",
    "stimulus_subphrases",
    "use_released",
    "write_sst7",
]

SST7_SPLITS = {"train": "train", "validation": "dev", "test": "test"}
log = logging.getLogger("natcomp.noncompsst.sst7")


_SWAPS = {"is": "are", "was": "were", "has": "have", "man": "men", "woman": "women", "this": "these", "that": "those"}
_SWAPS.update({plural: singular for singular, plural in list(_SWAPS.items())})


def number_forms(token: str) -> set[str]:
    """Other grammatical-number forms of a lower-case token (``actor`` -> ``actors``,
    ``studies`` -> ``study``, ``are`` -> ``is``); over-generating is harmless here since
    a form only matters where it occurs in a sentence next to the rest of a control."""
    forms = {token + "s"}
    if token.endswith("s"):
        forms.add(token[:-1])
    if token.endswith("es"):
        forms.add(token[:-2])
    if token.endswith("ies"):
        forms.add(token[:-3] + "y")
    if token.endswith("y"):
        forms.add(token[:-1] + "ies")
    if token.endswith(("s", "x", "ch", "sh")):
        forms.add(token + "es")
    if token in _SWAPS:
        forms.add(_SWAPS[token])
    forms.discard(token)
    return {form for form in forms if form}


def number_variants(tokens: Sequence[str]) -> set[tuple[str, ...]]:
    """The token sequences with exactly one token replaced by one of its :func:`number_forms`."""
    tokens = tuple(tokens)
    return {tokens[:i] + (form,) + tokens[i + 1 :] for i, token in enumerate(tokens) for form in number_forms(token)}


def stimulus_subphrases(phrases: Iterable[Phrase], *, control_variants: bool = True) -> set[tuple[str, ...]]:
    """Lower-cased SST token sequences of every A, B and control of the phrases; with
    ``control_variants`` also each control's :func:`number_variants` (the released
    controls were edited for agreement, so their text may differ from their SST node)."""
    out = set()
    for p in phrases:
        out.add(tuple(p.left.lower().split()))
        out.add(tuple(p.right.lower().split()))
        for control in (*p.left_controls, *p.right_controls):
            tokens = tuple(t.lower() for t in sst_tokenize(control))
            out.add(tokens)
            if control_variants:
                out |= number_variants(tokens)
    return {s for s in out if s}


def _contains(tokens: Sequence[str], subphrases: set[tuple[str, ...]], lengths: Sequence[int]) -> bool:
    lowered = [t.lower() for t in tokens]
    for n in lengths:
        for i in range(len(lowered) - n + 1):
            if tuple(lowered[i : i + n]) in subphrases:
                return True
    return False


def build_sst7(
    trees: Mapping[str, Sequence[Tree]],
    value: Callable[[Sequence[str]], float | None],
    excluded: set[tuple[str, ...]] = frozenset(),
    *,
    logger: logging.Logger = log,
) -> dict[str, list[tuple[str, int]]]:
    """{"train" | "validation" | "test": [(text, label)]} from the SST trees per split."""
    lengths = sorted({len(s) for s in excluded})
    out: dict[str, list[tuple[str, int]]] = {}
    for name, split in SST7_SPLITS.items():
        rows: list[tuple[str, int]] = []
        seen: set[str] = set()
        removed = missing = 0
        for tree in trees[split]:
            tokens, nodes = sentiment_nodes(tree)
            if excluded and _contains(tokens, excluded, lengths):
                removed += 1
                continue
            spans = nodes if name == "train" else nodes[:1]
            for node in spans:
                span = tokens[node.start : node.end]
                text = " ".join(span)
                if name == "train":  # unrolled: each distinct phrase once; sentences all kept
                    if text in seen:
                        continue
                    seen.add(text)
                v = value(span)
                if v is None:
                    missing += 1
                    continue
                rows.append((text, sst7_label(v)))
        logger.info(
            "SST-7 %s: %d rows; %d sentences removed (contain a stimulus subphrase); %d phrases without an SST value skipped",
            name,
            len(rows),
            removed,
            missing,
        )
        out[name] = rows
    return out


# a released split must share at least this share of its sentences with the rebuilt one
# (the real release: 966 of 971 and 1,975 of 1,975), else it is the wrong file
MIN_SHARED_WITH_RELEASE = 0.9


def use_released(
    name: str,
    rebuilt: Sequence[tuple[str, int]],
    released: Sequence[tuple[str, int]],
    path: str | Path,
    *,
    logger: logging.Logger = log,
) -> list[tuple[str, int]]:
    """The released rows of one evaluation split (``path``, read by :func:`read_sst7`),
    after checking that they are that split: most of their sentences are rebuilt ones (a
    test file given as validation fails here). Logs the sentences only one side has and the
    shared sentences whose labels differ."""
    rebuilt_labels = dict(rebuilt)
    released_labels = dict(released)
    shared = [text for text in released_labels if text in rebuilt_labels]
    if len(shared) < MIN_SHARED_WITH_RELEASE * len(released_labels):
        raise InputError(
            path,
            f"expected the released SST-7 {name} split: only {len(shared)} of its {len(released_labels)} "
            f"sentences are sentences of SST's {SST7_SPLITS[name]} trees",
        )
    only_released = [text for text in released_labels if text not in rebuilt_labels]
    only_rebuilt = [text for text in rebuilt_labels if text not in released_labels]
    relabelled = [text for text in shared if rebuilt_labels[text] != released_labels[text]]
    logger.info(
        "SST-7 %s: the released %d rows are used; %d sentences only in the release, %d only rebuilt, "
        "%d shared sentences labelled differently",
        name,
        len(released),
        len(only_released),
        len(only_rebuilt),
        len(relabelled),
    )
    for kind, texts in (("only in the release", only_released), ("only rebuilt", only_rebuilt)):
        for text in texts[:10]:
            logger.info("  %s: %s", kind, text)
    return list(released)


def write_sst7(path: str | Path, rows: Sequence[tuple[str, int]]) -> int:
    return write_tsv(path, ({"sentence": text, "label": label} for text, label in rows), ["sentence", "label"])


def read_sst7(path: str | Path) -> list[tuple[str, int]]:
    """``sentence<TAB>label`` rows (an optional ``sentence<TAB>label`` header line); labels 0-6."""
    rows = []
    for number, line in enumerate(iter_lines(path, allow_empty=True), start=1):
        if not line.strip() or (number == 1 and line == "sentence\tlabel"):
            continue
        if line.count("\t") != 1:
            raise InputError(path, "expected 'sentence<TAB>label'", number)
        text, label = line.split("\t")
        if label not in {str(k) for k in range(7)}:
            raise InputError(path, f"expected a label 0-6, got {label!r}", number)
        rows.append((text, int(label)))
    return rows
