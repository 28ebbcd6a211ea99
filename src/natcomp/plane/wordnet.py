"""WordNet look-ups for PLANE: the noun's first synset and its unigram hypernyms.

Definitions (paper, Section 3.2, checked against the released files; docs/plane.md):

- a noun's synset is the first noun synset NLTK gives for the surface form
  (``wn.synsets(noun, pos=NOUN)[0]``; NLTK's morphy maps plurals to their lemma);
- hypernyms follow ``hypernyms()`` only (not instance hypernyms), by default only the
  first (synset-name order) at each step (``reading="first"``; ``"all"``: every branch,
  the distance of a hypernym synset is then the shortest hypernym path from the noun's synset);
- a hypernym's word is the first lemma name of its synset, lower-cased; words with ``_``
  (bigrams and multi-word expressions) are dropped, hyphenated words kept;
- a hypernym word equal to the noun is dropped (it would make "A x is a x" items).

NLTK 3.10 keeps a synset's pointers in a set, so the order of ``hypernyms()`` changes with
``PYTHONHASHSEED``; every list here is sorted (by distance, then synset name), so results
do not depend on the hash seed.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from natcomp.errors import NatcompError
from natcomp.wordnet import wordnet


class NoNounSynset(NatcompError):
    """A word has no noun synset in WordNet."""

    def __init__(self, noun: str):
        self.noun = noun
        super().__init__(f"{noun!r} has no noun synset in WordNet; expected a noun")


class Hypernym(NamedTuple):
    word: str
    distance: int
    synset: str


def word_of(synset) -> str:
    """The word PLANE uses for a synset: its first lemma name, lower-cased."""
    return synset.lemma_names()[0].lower()


def is_unigram(word: str) -> bool:
    return "_" not in word and " " not in word


def noun_synset(noun: str):
    """The first noun synset of ``noun`` (:class:`NoNounSynset` if there is none)."""
    synsets = wordnet().synsets(noun, pos="n")
    if not synsets:
        raise NoNounSynset(noun)
    return synsets[0]


def has_noun_synset(noun: str) -> bool:
    return bool(wordnet().synsets(noun, pos="n"))


def _sorted_hypernyms(synset):
    return sorted(synset.hypernyms(), key=lambda s: s.name())


READINGS = ("first", "all")


@functools.lru_cache(maxsize=None)
def hypernym_synsets(noun: str, max_distance: int, reading: str = "first") -> tuple[Hypernym, ...]:
    """Hypernym synsets up to ``max_distance`` with their word and distance (MWEs kept).

    ``reading`` says what "always following the first synset" (paper, Section 3.2) means:

    - ``first`` (default): from the noun's first synset, follow the first direct hypernym
      (synset-name order) at each step: one synset per distance;
    - ``all``: every hypernym branch of the noun's first synset (breadth first; distance =
      shortest path).

    The released files agree with ``first`` (docs/plane.md: where the first synset has two
    direct unigram hypernyms, the released OoD pair is the name-first one, 44 of 44 nouns).
    """
    if max_distance < 1:
        raise ValueError(f"max_distance must be at least 1, got {max_distance}")
    if reading not in READINGS:
        raise ValueError(f"unknown hypernym reading {reading!r}; expected one of {', '.join(READINGS)}")
    start = noun_synset(noun)
    found: dict[str, Hypernym] = {}
    frontier = [start]
    for distance in range(1, max_distance + 1):
        following = []
        for synset in frontier:
            parents = _sorted_hypernyms(synset)
            for parent in parents[:1] if reading == "first" else parents:
                if parent.name() not in found and parent != start:
                    found[parent.name()] = Hypernym(word_of(parent), distance, parent.name())
                    following.append(parent)
        frontier = sorted(following, key=lambda s: s.name())
    return tuple(sorted(found.values(), key=lambda h: (h.distance, h.synset)))


def unigram_hypernyms(noun: str, max_distance: int, reading: str = "first") -> list[Hypernym]:
    """Hypernyms up to ``max_distance`` whose word is a unigram (one entry per word, nearest first)."""
    own = word_of(noun_synset(noun))
    seen: set[str] = set()
    kept = []
    for hypernym in hypernym_synsets(noun, max_distance, reading):
        if is_unigram(hypernym.word) and hypernym.word not in seen and hypernym.word not in (noun, own):
            seen.add(hypernym.word)
            kept.append(hypernym)
    return kept


def hypernyms(noun: str, max_distance: int = 3, reading: str = "first") -> list[str]:
    """The unigram hypernym words of ``noun`` up to ``max_distance``, nearest first
    (``reading``: see :func:`hypernym_synsets`).

    Words at the same distance are in the order of their synsets' names, so the list does
    not change with ``PYTHONHASHSEED``.
    """
    return [h.word for h in unigram_hypernyms(noun, max_distance, reading)]


@functools.lru_cache(maxsize=None)
def hypernym_chain(noun: str, length: int = 3) -> tuple[str, ...] | None:
    """The first chain ``(h1, ..., h_length)`` of successive direct hypernyms of the noun's
    synset whose words are all unigrams (and distinct from each other and the noun), or None.

    Chains are searched depth first with hypernyms in synset-name order, so the chain is
    the same under every hash seed. This is the One-IT chain [N, h1, h2, h3].
    """
    start = noun_synset(noun)
    own = {noun, word_of(start)}

    def extend(synset, chain: tuple[str, ...]) -> tuple[str, ...] | None:
        if len(chain) == length:
            return chain
        for parent in _sorted_hypernyms(synset):
            word = word_of(parent)
            if is_unigram(word) and word not in chain and word not in own:
                found = extend(parent, chain + (word,))
                if found:
                    return found
        return None

    return extend(start, ())
