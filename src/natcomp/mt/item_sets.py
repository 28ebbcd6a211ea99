"""Which items each MT test gets on each data type: the paper's design, in one place.

Every (test, data type) pair becomes one item file. Synthetic items come from the ten
templates of Table 3; semi-natural items from the ten templates of Table 2 filled with
treebank phrases that match the chosen Double-DOP fragments; natural items from the raw
training corpus; ``random_words`` is the overgeneralisation context of appendix D (the
idiom among ten random nouns).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from pathlib import Path

from natcomp.mt.semi_natural.fragments import read_matches
from natcomp.mt.lexicon import load_idioms, load_lexicon, load_synonyms
from natcomp.mt.registry import get_test
from natcomp.mt.templates import SyntheticSentence, synthetic_sentences
from natcomp.mt.semi_natural.sentences import DEFAULT_TEMPLATE_FRAGMENTS, semi_natural_sentences
from natcomp.mt.items import (
    natural_conjuncts,
    natural_overgeneralisation,
    natural_substitutivity,
    np_vp_items,
    overgeneralisation_items,
    random_word_items,
    s_conj_items,
    substitutivity_items,
)

TEMPLATES = range(1, 11)


@dataclass(frozen=True)
class ItemResources:
    """The word lists items are built from: the lexicon folder, synonyms.tsv, idioms.tsv."""

    lexicon: Path
    synonyms: Path
    idioms: Path


@dataclass(frozen=True)
class TestSettings:
    """The ``mt.tests`` configuration block."""

    seed: int
    synthetic_per_template: int
    samples_per_template: int
    natural_max_items: int
    random_word_samples: int
    semi_natural_per_template: int
    natural_conjunct_reference: str
    #: ``paper`` or ``released`` (natcomp.mt.templates.SYNTHETIC_SAMPLING)
    synthetic_sampling: str = "paper"

    @classmethod
    def from_config(cls, block: Mapping[str, object]) -> TestSettings:
        """The settings from a config block; keys with a default may be left out."""
        return cls(**{f.name: block[f.name] for f in fields(cls) if f.name in block or f.default is MISSING})


def build_items(
    test: str,
    data_type: str,
    settings: TestSettings,
    resources: ItemResources,
    corpus: tuple[Path, Path] | None = None,
    phrases: Path | None = None,
) -> list[dict]:
    """The item rows of one test on one data type (``corpus`` is the raw training corpus
    for natural data; ``phrases`` the fragment matches for semi-natural data)."""
    if data_type not in get_test(test).data_types:
        raise ValueError(f"test {test!r} is not defined on data type {data_type!r}")
    if data_type == "natural" and corpus is None:
        raise ValueError("natural items need the training corpus")
    lexicon = load_lexicon(resources.lexicon)
    synonyms = load_synonyms(resources.synonyms)
    idioms = load_idioms(resources.idioms)
    seed, n = settings.seed, settings.samples_per_template

    sampling = settings.synthetic_sampling
    synthetic = {
        t: synthetic_sentences(lexicon, t, settings.synthetic_per_template, seed, sampling=sampling) for t in TEMPLATES
    }
    conjuncts_match_semi_natural = test == "s_conj" and settings.natural_conjunct_reference == "semi_natural"
    if data_type == "semi_natural" or (data_type == "natural" and conjuncts_match_semi_natural):
        if phrases is None:
            raise ValueError(f"{test} items on {data_type} data need the semi-natural phrases")
        semi_natural = _semi_natural(lexicon, phrases, settings)
    sentences = semi_natural if data_type == "semi_natural" else synthetic

    rows: list[dict] = []
    if test == "np_vp":
        conditions = ("np_prime",) if data_type == "semi_natural" else ("np_prime", "vp_prime")
        for t in TEMPLATES:
            rows += np_vp_items(sentences[t], t, n, seed, lexicon=lexicon, conditions=conditions)
    elif test == "s_conj":
        first_conjuncts = [s for t in TEMPLATES for s in synthetic[t]]
        if data_type == "natural":
            reference_type = semi_natural if settings.natural_conjunct_reference == "semi_natural" else synthetic
            reference = {t: [s.text for s in reference_type[t]] for t in TEMPLATES}
            excluded = [p.british for p in synonyms] + [p.american for p in synonyms] + [i.idiom for i in idioms]
            second = natural_conjuncts(corpus[0], reference, n, seed, exclude_phrases=excluded)
        else:
            second = {t: [s.text for s in sentences[t]] for t in TEMPLATES}
        for t in TEMPLATES:
            rows += s_conj_items(
                first_conjuncts, second[t], t, n, seed, lexicon=lexicon, sampling=sampling, second_data_type=data_type
            )
    elif test == "substitutivity":
        if data_type == "natural":
            rows = natural_substitutivity(*corpus, synonyms, settings.natural_max_items, seed)
        else:
            for k in range(len(synonyms)):
                for t in TEMPLATES:
                    rows += substitutivity_items(sentences[t], synonyms, t, k, n, seed)
    elif test == "overgeneralisation":
        if data_type == "natural":
            rows = natural_overgeneralisation(*corpus, idioms, settings.natural_max_items, seed)
        elif data_type == "random_words":
            for i in range(len(idioms)):
                rows += random_word_items(idioms, lexicon, i, settings.random_word_samples, seed)
        else:
            for i in range(len(idioms)):
                for t in TEMPLATES:
                    rows += overgeneralisation_items(sentences[t], idioms, t, i, n, seed)
    return rows


def _semi_natural(lexicon, phrases: Path, settings: TestSettings) -> dict[int, list[SyntheticSentence]]:
    matches = read_matches(phrases)
    return {
        t: semi_natural_sentences(
            lexicon, matches, DEFAULT_TEMPLATE_FRAGMENTS, t, settings.semi_natural_per_template, settings.seed
        )
        for t in TEMPLATES
    }
