"""Which items each MT test gets on each data type: the paper's design, in one place.

Every (test, data type) pair becomes one item file. Synthetic items come from the ten
templates of Table 3; natural items from the raw training corpus; ``random_words`` is the
overgeneralisation context of appendix D (the idiom among ten random nouns).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from natcomp.lexicon import load_idioms, load_lexicon, load_synonyms
from natcomp.mt_templates import synthetic_sentences
from natcomp.mt_testdata import (
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
#: which data types each test is defined on (paper sections 4.1-4.3)
DATA_TYPES = {
    "np_vp": ("synthetic", "semi_natural"),
    "s_conj": ("synthetic", "semi_natural", "natural"),
    "substitutivity": ("synthetic", "semi_natural", "natural"),
    "overgeneralisation": ("synthetic", "semi_natural", "natural", "random_words"),
}


@dataclass(frozen=True)
class TestSettings:
    """The ``mt.tests`` configuration block."""

    seed: int
    synthetic_per_template: int
    samples_per_template: int
    natural_max_items: int
    random_word_samples: int

    @classmethod
    def from_config(cls, block: Mapping[str, object]) -> TestSettings:
        return cls(**{name: int(block[name]) for name in cls.__dataclass_fields__})


def build_items(
    test: str,
    data_type: str,
    settings: TestSettings,
    resources: Path,
    corpus: tuple[Path, Path] | None = None,
) -> list[dict]:
    """The item rows of one test on one data type (``resources`` holds the lexicon folder,
    synonyms.tsv and idioms.tsv; ``corpus`` is the raw training corpus for natural data)."""
    if data_type not in DATA_TYPES.get(test, ()):
        raise ValueError(f"test {test!r} is not defined on data type {data_type!r}")
    lexicon = load_lexicon(resources / "lexicon")
    synonyms = load_synonyms(resources / "synonyms.tsv")
    idioms = load_idioms(resources / "idioms.tsv")
    seed, n = settings.seed, settings.samples_per_template
    if data_type == "natural" and corpus is None:
        raise ValueError("natural items need the training corpus")
    if data_type == "semi_natural":
        raise NotImplementedError("semi-natural items need the Double-DOP pipeline, which is not built yet")

    synthetic = {t: synthetic_sentences(lexicon, t, settings.synthetic_per_template, seed) for t in TEMPLATES}
    rows: list[dict] = []
    if test == "np_vp":
        for t in TEMPLATES:
            rows += np_vp_items(synthetic[t], t, n, seed, lexicon=lexicon)
    elif test == "s_conj":
        first_conjuncts = [s for t in TEMPLATES for s in synthetic[t]]
        if data_type == "synthetic":
            second = {t: [s.text for s in synthetic[t]] for t in TEMPLATES}
        else:
            reference = {t: [s.text for s in synthetic[t]] for t in TEMPLATES}
            excluded = [p.british for p in synonyms] + [p.american for p in synonyms] + [i.idiom for i in idioms]
            second = natural_conjuncts(corpus[0], reference, n, seed, exclude_phrases=excluded)
        for t in TEMPLATES:
            rows += s_conj_items(first_conjuncts, second[t], t, n, seed, lexicon=lexicon)
    elif test == "substitutivity":
        if data_type == "natural":
            rows = natural_substitutivity(*corpus, synonyms, settings.natural_max_items, seed)
        else:
            for k in range(len(synonyms)):
                for t in TEMPLATES:
                    rows += substitutivity_items(synthetic[t], synonyms, t, k, n, seed)
    elif test == "overgeneralisation":
        if data_type == "natural":
            rows = natural_overgeneralisation(*corpus, idioms, settings.natural_max_items, seed)
        elif data_type == "random_words":
            for i in range(len(idioms)):
                rows += random_word_items(idioms, lexicon, i, settings.random_word_samples, seed)
        else:
            for i in range(len(idioms)):
                for t in TEMPLATES:
                    rows += overgeneralisation_items(synthetic[t], idioms, t, i, n, seed)
    return rows
