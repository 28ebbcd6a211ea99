"""SST-7 train / validation / test files (section 5) from the SST release.

A phrase's label is ``natcomp.sst.sst7_label(v)`` of its value ``v`` in
``sentiment_labels.txt`` (found through ``dictionary.txt``). Validation and test hold the
sentences of the dev and test trees; train holds the *unrolled* training trees: every
distinct phrase (node) of the training sentences, sentences included (first occurrence
kept); validation and test keep every sentence, repeats included (the released
``validation.tsv`` has "Hey Arnold !" twice, as the dev trees). Every sentence that
contains a stimulus subphrase (a phrase's A or B or any of their controls) is removed
first, with all its phrases, as the released validation/test files show.

A subphrase is found in a sentence by its *lemmas* (:class:`StimulusFilter`, ``match=
"lemmas"``, the default): the released controls were edited for agreement ("the actor"
for SST's "the actors", "decent glimpses" for "decent glimpse", "of this film" for "of
these films"), so a control's text is not always the SST node it was made from, while its
lemmas are. Lemmas are WordNet's (NLTK's ``morphy``, noun before verb) with the agreement
forms WordNet gets wrong mapped by hand (am/are/was -> be, has -> have, does -> do,
these -> this, those -> that, men -> man); a word capitalised inside a sentence is a proper noun
and keeps its case, so it matches no stimulus (stimuli are lower case): the release keeps
"Half Submarine flick , Half Ghost Story , ..." although the control "ghost stories" has
the lemmas of "ghost story". On the real release this gives the released
``validation.tsv`` sentence for sentence and ``test.tsv`` but for 3 sentences the release
also lacks and that no released subphrase explains; ``match="tokens"`` (the plain
case-insensitive token sequences) misses 26 sentences the release removes; see
docs/noncompsst.md.

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

import functools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import iter_lines
from natcomp.noncompsst.stimuli import Phrase, sst_tokenize
from natcomp.sst import sentiment_nodes, sst7_label
from natcomp.trees import Tree
from natcomp.tsv import write_tsv
from natcomp.wordnet import wordnet

__all__ = [
    "SST7_SPLITS",
    "MATCH_MODES",
    "StimulusFilter",
    "build_sst7",
    "lemma",
    "read_sst7",
    "use_released",
    "write_sst7",
]

SST7_SPLITS = {"train": "train", "validation": "dev", "test": "test"}
log = logging.getLogger("natcomp.noncompsst.sst7")


MATCH_MODES = ("lemmas", "tokens")

# Agreement forms whose WordNet lemma is wrong here: WordNet's noun reading comes first and
# knows "are" (a unit of area), "am", "was" -> "wa", "has" -> "ha" (hectare), "does" ->
# "doe", "men" (a noun of its own), and it has no demonstratives. "is" and "were" need no
# entry (no noun reading; the verb's lemma is "be").
_CLOSED_CLASS_LEMMAS = {
    "am": "be",
    "are": "be",
    "was": "be",
    "has": "have",
    "does": "do",
    "these": "this",
    "those": "that",
    "men": "man",
}


@functools.lru_cache(maxsize=None)
def lemma(word: str) -> str:
    """Lemma of a lower-case word: the closed-class map above, else WordNet's noun lemma,
    else its verb lemma, else the word (``actors`` -> ``actor``, ``stories`` -> ``story``,
    ``needs`` -> ``need``, ``women`` -> ``woman``, ``as`` -> ``as``)."""
    if word in _CLOSED_CLASS_LEMMAS:
        return _CLOSED_CLASS_LEMMAS[word]
    if not word.isalpha():
        return word
    wn = wordnet()
    return wn.morphy(word, wn.NOUN) or wn.morphy(word, wn.VERB) or word


class StimulusFilter:
    """Finds the stimulus subphrases (every A, B and control of the phrases) in SST sentences.

    ``match="lemmas"``: a subphrase is found where the sentence has its lemma sequence
    (:func:`lemma`; a capitalised word after the sentence's first word keeps its case, a
    proper noun that no lower-case stimulus matches); ``match="tokens"``: where the
    sentence has its tokens, case aside. Controls (clean form) are tokenised SST-style.
    """

    def __init__(self, phrases: Iterable[Phrase], *, match: str = "lemmas"):
        if match not in MATCH_MODES:
            raise ValueError(f"unknown stimulus match {match!r}; expected one of {MATCH_MODES}")
        self.match = match
        keys = set()
        for p in phrases:
            subphrases = [p.left.split(), p.right.split()]
            subphrases += [sst_tokenize(control) for control in (*p.left_controls, *p.right_controls)]
            keys |= {self.key(tokens) for tokens in subphrases if tokens}
        self.keys = frozenset(keys)
        self._lengths = sorted({len(key) for key in keys})

    def key(self, tokens: Sequence[str], *, sentence: bool = False) -> tuple[str, ...]:
        """What is compared: lower-cased tokens, or their lemmas (in a ``sentence``, proper
        nouns keep their case)."""
        if self.match == "tokens":
            return tuple(token.lower() for token in tokens)
        if not sentence:
            return tuple(lemma(token.lower()) for token in tokens)
        first = next((i for i, token in enumerate(tokens) if any(c.isalpha() for c in token)), 0)
        return tuple(
            token if i > first and _proper_noun(token) else lemma(token.lower()) for i, token in enumerate(tokens)
        )

    def found_in(self, tokens: Sequence[str]) -> bool:
        """Whether the sentence ``tokens`` contain a stimulus subphrase."""
        key = self.key(tokens, sentence=True)
        return any(key[i : i + n] in self.keys for n in self._lengths for i in range(len(key) - n + 1))


def _proper_noun(token: str) -> bool:
    return token[:1].isupper() and token != "I" and token not in ("-LRB-", "-RRB-")


def build_sst7(
    trees: Mapping[str, Sequence[Tree]],
    value: Callable[[Sequence[str]], float | None],
    excluded: StimulusFilter | None = None,
    *,
    logger: logging.Logger = log,
) -> dict[str, list[tuple[str, int]]]:
    """{"train" | "validation" | "test": [(text, label)]} from the SST trees per split,
    without the sentences in which ``excluded`` finds a stimulus subphrase."""
    out: dict[str, list[tuple[str, int]]] = {}
    for name, split in SST7_SPLITS.items():
        rows: list[tuple[str, int]] = []
        seen: set[str] = set()
        removed = missing = 0
        for tree in trees[split]:
            tokens, nodes = sentiment_nodes(tree)
            if excluded is not None and excluded.found_in(tokens):
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
            "SST-7 %s: %d rows; %d sentences removed (contain a stimulus subphrase, matched on %s); "
            "%d phrases without an SST value skipped",
            name,
            len(rows),
            removed,
            excluded.match if excluded is not None else "-",
            missing,
        )
        out[name] = rows
    return out


# a released split must share at least this share of its sentences with the rebuilt one
# (the real release: 971 of 971 and 1,975 of 1,975), else it is the wrong file
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
