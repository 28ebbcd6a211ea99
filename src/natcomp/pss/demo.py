"""Demo polarity-switched pairs and labelled sentences in the layout of Li et al. (2018)'s Yelp data.

Sentences come from a few review templates over the demo sentiment lexicon of
:mod:`natcomp.sst_demo` (the same words and rules as the demo sentiment treebank); a
sentence's label is the sign of :func:`natcomp.sst_demo.compose_polarity` (negation and
"X but Y" included), so labels follow the lexicon's rules, not the template.

Pairs: originals are the test sentences (as in the Yelp references); a simulated
polarity-switching system rewrites each: it swaps every sentiment word for one of the
opposite polarity, or negates a plain sentence; like a real system it sometimes copies its
input (``copy_rate``) or only deletes a word (``deletion_rate``), which the cleaning rules of
appendix B must remove. Rewrites are written like the human references: first letter upper
case, final full stop attached.

Files (``write_demo_yelp``): ``sentiment.{train,dev,test}.{0,1}`` (one lower-cased tokenised
sentence per line; 0 negative, 1 positive) and ``reference.{0,1}`` (``original<TAB>rewrite``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from natcomp.files import write_lines
from natcomp.pss.pairs import Pair, write_pairs
from natcomp.sst_demo import Lexicon, compose_polarity, demo_lexicon

__all__ = ["DemoYelp", "generate_demo_yelp", "write_demo_yelp", "YELP_FILES"]

SPLITS = ("train", "dev", "test")
#: The files of the Yelp layout, by name.
YELP_FILES = tuple(f"sentiment.{split}.{label}" for split in SPLITS for label in (0, 1)) + (
    "reference.0",
    "reference.1",
)


@dataclass
class DemoYelp:
    """Sentences per (split, label) and pairs per original label."""

    sentences: dict[tuple[str, int], list[str]]
    pairs: dict[int, list[Pair]]


def _sign(tokens: list[str], lexicon: Lexicon) -> int:
    polarity = compose_polarity(tokens, lexicon)
    return 0 if polarity == 0 else (1 if polarity > 0 else -1)


class _Writer:
    def __init__(self, lexicon: Lexicon, rng: random.Random):
        self.lexicon, self.rng = lexicon, rng
        self.adjective = {1: sorted(lexicon.pos["JJ+"]), -1: sorted(lexicon.pos["JJ-"])}
        self.noun = {1: sorted(lexicon.pos["NN+"]), -1: sorted(lexicon.pos["NN-"])}
        self.swap = {}
        for polarity in (1, -1):
            for word in self.adjective[polarity]:
                self.swap[word] = self.adjective[-polarity]
            for word in self.noun[polarity]:
                self.swap[word] = self.noun[-polarity]

    def pick(self, tag: str) -> str:
        return self.rng.choice(sorted(self.lexicon.pos[tag]))

    def subject(self) -> list[str]:
        words = [self.rng.choice(["the", "this", "its"])]
        if self.rng.random() < 0.3:
            words.append(self.pick("JJ"))
        return words + [self.pick("NN")]

    def sentence(self, polarity: int) -> list[str]:
        """A review sentence meant to have ``polarity`` (+1/-1) under the lexicon's rules."""
        kind = self.rng.choices(["plain", "intensified", "negated", "contrast", "noun"], [4, 2, 2, 2, 1])[0]
        verb = self.pick("VBZ")
        if kind == "plain":
            return self.subject() + [verb, self.rng.choice(self.adjective[polarity]), "."]
        if kind == "intensified":
            return self.subject() + [verb, self.pick("RB"), self.rng.choice(self.adjective[polarity]), "."]
        if kind == "negated":
            return self.subject() + [verb, "not", self.rng.choice(self.adjective[-polarity]), "."]
        if kind == "contrast":
            first = self.subject() + [verb, self.rng.choice(self.adjective[-polarity])]
            return first + ["but"] + self.subject() + [self.pick("VBZ"), self.rng.choice(self.adjective[polarity]), "."]
        return self.subject() + [verb, "a", self.rng.choice(self.noun[polarity]), "."]

    def rewrite(self, tokens: list[str], copy_rate: float, deletion_rate: float) -> list[str]:
        """A simulated polarity-switching system's output for ``tokens``."""
        draw = self.rng.random()
        if draw < copy_rate:
            return list(tokens)
        if draw < copy_rate + deletion_rate:
            removable = [
                i for i, word in enumerate(tokens) if word in self.lexicon.negators or word in self.lexicon.intensifiers
            ]
            if removable:
                index = self.rng.choice(removable)
                return tokens[:index] + tokens[index + 1 :]
            return list(tokens)
        sentiment = [i for i, word in enumerate(tokens) if word in self.swap]
        if "not" not in tokens and "but" not in tokens and self.rng.random() < 0.4:
            position = sentiment[-1]
            return tokens[:position] + ["not"] + tokens[position:]
        return [self.rng.choice(self.swap[word]) if word in self.swap else word for word in tokens]


def _surface(tokens: list[str]) -> str:
    """A rewrite as the human references write it: capitalised, full stop attached."""
    text = " ".join(tokens)
    if text.endswith(" ."):
        text = text[:-2] + "."
    return text[:1].upper() + text[1:]


def generate_demo_yelp(
    *,
    train_per_label: int = 600,
    dev_per_label: int = 100,
    test_per_label: int = 100,
    copy_rate: float = 0.06,
    deletion_rate: float = 0.06,
    seed: int = 1,
    lexicon: Lexicon | None = None,
) -> DemoYelp:
    """Labelled sentences and switched pairs (see the module documentation); deterministic from ``seed``."""
    lexicon = lexicon or demo_lexicon()
    rng = random.Random(seed)
    writer = _Writer(lexicon, rng)
    sizes = {"train": train_per_label, "dev": dev_per_label, "test": test_per_label}
    sentences: dict[tuple[str, int], list[str]] = {}
    seen: set[str] = set()
    for split in SPLITS:
        for label in (0, 1):
            polarity = 1 if label else -1
            chosen: list[str] = []
            attempts = 0
            while len(chosen) < sizes[split]:
                attempts += 1
                if attempts > 200 * max(sizes[split], 1):
                    raise ValueError(f"cannot generate {sizes[split]} distinct {split} sentences of label {label}")
                tokens = writer.sentence(polarity)
                text = " ".join(tokens)
                if text in seen or _sign(tokens, lexicon) != polarity:
                    continue
                seen.add(text)
                chosen.append(text)
            sentences[(split, label)] = chosen
    pairs: dict[int, list[Pair]] = {}
    for label in (0, 1):
        pairs[label] = [
            Pair(text, _surface(writer.rewrite(text.split(), copy_rate, deletion_rate)))
            for text in sentences[("test", label)]
        ]
    return DemoYelp(sentences, pairs)


def write_demo_yelp(data: DemoYelp, directory: str | Path) -> dict[str, Path]:
    """Write the Yelp-layout files into ``directory`` (atomically each); returns them by file name."""
    directory = Path(directory)
    written = {}
    for (split, label), lines in data.sentences.items():
        name = f"sentiment.{split}.{label}"
        write_lines(directory / name, lines)
        written[name] = directory / name
    for label, pairs in data.pairs.items():
        name = f"reference.{label}"
        write_pairs(directory / name, pairs)
        written[name] = directory / name
    return written
