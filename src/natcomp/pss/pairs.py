"""Polarity-switched sentence pairs in the layout of Li et al. (2018)'s Yelp references.

A pair file has one pair per line, ``original<TAB>rewrite``, no header: ``reference.0`` holds
negative originals with positive rewrites, ``reference.1`` positive originals with negative
rewrites. The switched sentences of any polarity-switching system can be given in the same
layout.

Cleaning (Bhathena et al., 2020, appendix B), :func:`clean_pairs`, applies two rules in this
order and counts what each removes:

``identical``
    the rewrite is the original (the system copied its input);
``deletion_only``
    the rewrite adds no word that is not in the original (it only deletes, or reorders).

Sentences are compared as lower-cased Penn-Treebank tokens (NLTK's Treebank tokenizer), since
the Yelp originals are tokenised and lower-cased while rewrites are raw text ("it 's" vs
"it's"); punctuation is not a word, so a rewrite that only adds "!" counts as adding nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import atomic_open, iter_lines

__all__ = [
    "CLEANING_RULES",
    "CleanedPairs",
    "Pair",
    "added_words",
    "clean_pairs",
    "comparison_tokens",
    "prepare_sentence",
    "read_pairs",
    "write_pairs",
]

#: The cleaning rules in the order they are applied.
CLEANING_RULES = ("identical", "deletion_only")


@dataclass(frozen=True)
class Pair:
    """An original sentence, its polarity-switched rewrite, and where it came from."""

    original: str
    rewrite: str
    source: str = ""
    line: int | None = None


def read_pairs(path: str | Path) -> list[Pair]:
    """The pairs of a file in the ``original<TAB>rewrite`` layout.

    Surrounding white space of each side is dropped (the Yelp rewrites have trailing spaces).
    A line without exactly one tab, or with an empty side, raises :class:`InputError` naming
    the file and line.
    """
    pairs = []
    for number, text in enumerate(iter_lines(path, allow_empty=True), start=1):
        if not text.strip():
            raise InputError(path, "empty line; expected original<TAB>rewrite", number)
        fields = text.split("\t")
        if len(fields) != 2:
            found = "no tab" if len(fields) == 1 else f"{len(fields) - 1} tabs"
            raise InputError(path, f"{found}; expected exactly two fields, original<TAB>rewrite", number)
        original, rewrite = (field_.strip() for field_ in fields)
        for side, value in (("original", original), ("rewrite", rewrite)):
            if not value:
                raise InputError(path, f"the {side} is empty; expected a sentence on both sides of the tab", number)
        pairs.append(Pair(original, rewrite, str(path), number))
    if not pairs:
        raise InputError(path, "no pairs; expected lines original<TAB>rewrite")
    return pairs


def write_pairs(path: str | Path, pairs: Iterable[Pair]) -> int:
    """Write pairs as ``original<TAB>rewrite`` lines, atomically; returns the number written."""
    count = 0
    with atomic_open(path) as out:
        for pair in pairs:
            for side in (pair.original, pair.rewrite):
                if "\t" in side or "\n" in side:
                    raise ValueError(f"a sentence with a tab or line break cannot be written: {side[:60]!r}")
            out.write(f"{pair.original}\t{pair.rewrite}\n")
            count += 1
    return count


@lru_cache(maxsize=1)
def _tokenizer():
    from natcomp.text import treebank_word_tokenizer  # NLTK's, without importing all of NLTK

    return treebank_word_tokenizer()


# PTB quote tokens already in a text: kept as they are (the tokenizer would turn a closing
# '' at the start of a token run into an opening ``); raw " is converted by the tokenizer.
_QUOTE_PLACEHOLDERS = {"``": " natcompopenquote ", "''": " natcompclosequote "}
_QUOTE_TOKENS = {placeholder.strip(): quote for quote, placeholder in _QUOTE_PLACEHOLDERS.items()}


@lru_cache(maxsize=8192)  # clean_pairs tokenizes each sentence twice
def comparison_tokens(sentence: str) -> tuple[str, ...]:
    """The lower-cased Penn-Treebank tokens of a sentence: how the Yelp data was prepared.

    Idempotent on prepared text (``it 's`` stays ``it 's``, ``` `` `` and ``''`` stay), so
    the tokenised originals come out as they are and raw rewrites (``It's great.``) come
    out as ``it 's great .``.
    """
    text = sentence.lower()
    for quote, placeholder in _QUOTE_PLACEHOLDERS.items():
        text = text.replace(quote, placeholder)
    return tuple(_QUOTE_TOKENS.get(token, token) for token in _tokenizer().tokenize(text))


def prepare_sentence(sentence: str) -> str:
    """A sentence as every PSS model sees it: lower-cased Treebank tokens joined by spaces."""
    return " ".join(comparison_tokens(sentence))


def _is_word(token: str) -> bool:
    return any(character.isalnum() for character in token)


def added_words(pair: Pair) -> set[str]:
    """Words (tokens with a letter or digit) of the rewrite that are not in the original."""
    original = set(comparison_tokens(pair.original))
    return {token for token in comparison_tokens(pair.rewrite) if _is_word(token) and token not in original}


@dataclass
class CleanedPairs:
    """The kept pairs and, per rule, the pairs it removed (in :data:`CLEANING_RULES` order)."""

    kept: list[Pair]
    removed: dict[str, list[Pair]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """``total``, one count per rule, ``kept``."""
        total = len(self.kept) + sum(len(pairs) for pairs in self.removed.values())
        return {
            "total": total,
            **{rule: len(self.removed.get(rule, [])) for rule in CLEANING_RULES},
            "kept": len(self.kept),
        }


def clean_pairs(pairs: Sequence[Pair]) -> CleanedPairs:
    """Appendix B's rules: drop identical rewrites, then rewrites that add no word; keep the rest."""
    result = CleanedPairs(kept=[], removed={rule: [] for rule in CLEANING_RULES})
    for pair in pairs:
        if comparison_tokens(pair.original) == comparison_tokens(pair.rewrite):
            result.removed["identical"].append(pair)
        elif not added_words(pair):
            result.removed["deletion_only"].append(pair)
        else:
            result.kept.append(pair)
    return result
