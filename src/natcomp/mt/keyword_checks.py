"""Checks of a target language's idiom keyword lists: collisions with the templates'
words and the language file's probes.

*Collisions.* The synthetic and semi-natural items put the idiom's clause inside template
sentences, and a keyword is searched in the whole translation: a keyword that fires on a
word of the templates (Dutch ``rennen``, the template verb *run*, is a keyword of "in the
short run") marks items as overgeneralised whatever the model does with the idiom.
``resources/mt/template_words.tsv`` lists every word of the templates (the synthetic
templates' lexicon, the nouns of the random-word contexts, the clause frames ``that said``
and the semi-natural frames), one row per English word with its forms in each target
language as they stand in a translated template sentence (``rennt;rennen;läuft;laufen``).
:func:`keyword_collisions` matches every keyword of the language against every form; a
collision that must stay is listed in the language file's ``idiom_keywords.kept_collisions``
with its reason, and the overgeneralisation tables of that language say so.

*Probes.* ``idiom_probes`` of the language file: per idiom, idiomatic translations of its
clause (scored 0) and literal ones (scored 1), and ordinary sentences without an idiom on
which no keyword may fire (:func:`probe_failures`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from natcomp.mt.consistency import is_overgeneralised
from natcomp.mt.languages import Language, target_language

#: the columns of template_words.tsv besides the languages' own
TEMPLATE_WORD_COLUMNS = ("words", "en")
#: the lexicon files whose words the test items are made of (resources/lexicon/): the
#: synthetic templates' and the random-word contexts' nouns; template_words.tsv has a row
#: for each of their English words
TEMPLATE_LEXICON = (
    "nouns_people.tsv",
    "nouns_elite.tsv",
    "nouns_vehicles.tsv",
    "nouns_groups.tsv",
    "nouns_abstract.tsv",
    "transitive_verbs.tsv",
    "intransitive_verbs.tsv",
    "stative_verbs.tsv",
    "adverbs.tsv",
    "prepositions.tsv",
    "pronouns.tsv",
)


@dataclass(frozen=True)
class Collision:
    """A keyword of ``idiom`` that fires on ``form``, the translation of the template word
    ``english``."""

    idiom: str
    keyword: str
    english: str
    form: str

    def __str__(self) -> str:
        return f"{self.idiom}: keyword {self.keyword!r} fires on {self.form!r} ({self.english})"


@functools.lru_cache(maxsize=None)
def template_words(code: str) -> tuple[tuple[str, str], ...]:
    """``(english word, form)`` for every form of every template word in language ``code``
    (``resources/mt/template_words.tsv``)."""
    from natcomp.errors import InputError
    from natcomp.shipped import resource_path
    from natcomp.tsv import read_tsv

    path = resource_path("mt", "template_words.tsv")
    table = read_tsv(path, (*TEMPLATE_WORD_COLUMNS, code), non_empty=(*TEMPLATE_WORD_COLUMNS, code))
    words = []
    for line, english, forms in zip(table.attrs["lines"], table["en"], table[code], strict=True):
        split = [form.strip() for form in forms.split(";")]
        if not all(split):
            raise InputError(path, f"column {code}: an empty form in {forms!r}; expected forms separated by ;", line)
        words += [(english, form) for form in split]
    return tuple(words)


def keyword_collisions(code: str, matching: str = "inflected") -> list[Collision]:
    """Every keyword of language ``code`` that fires on a form of a template word."""
    language = target_language(code)
    if language.idiom_keywords is None:
        return []
    words = template_words(code)
    return [
        Collision(idiom, keyword, english, form)
        for idiom, keywords in language.idiom_keywords.keywords.items()
        for keyword in keywords
        for english, form in words
        if is_overgeneralised(form, [keyword], matching, language=code)
    ]


def unlisted_collisions(code: str) -> list[Collision]:
    """The collisions of :func:`keyword_collisions` whose keyword the language file does not
    keep on purpose (``idiom_keywords.kept_collisions``)."""
    language = target_language(code)
    kept = language.idiom_keywords.kept_collisions if language.idiom_keywords else {}
    return [collision for collision in keyword_collisions(code) if collision.keyword not in kept]


def probe_failures(code: str, matching: str = "inflected", *, ordinary: bool = True) -> list[str]:
    """One line per probe of the language file with the wrong answer (none: every probe
    passes): an idiomatic translation scored as overgeneralised, a literal one that is not,
    or (with ``ordinary``) an ordinary sentence on which a keyword fires."""
    language = target_language(code)
    probes, keywords = language.idiom_probes, language.idiom_keywords
    if probes is None or keywords is None:
        return []
    failures = []
    for idiom, sentences in probes.idiomatic.items():
        for sentence in sentences:
            if is_overgeneralised(sentence, keywords.keywords[idiom], matching, language=code):
                failures.append(f"{idiom}: idiomatic {sentence!r} is scored as overgeneralised")
    for idiom, sentences in probes.literal.items():
        for sentence in sentences:
            if not is_overgeneralised(sentence, keywords.keywords[idiom], matching, language=code):
                failures.append(f"{idiom}: literal {sentence!r} is not scored as overgeneralised")
    for sentence in probes.ordinary if ordinary else ():
        for idiom, words in keywords.keywords.items():
            if is_overgeneralised(sentence, words, matching, language=code):
                failures.append(f"ordinary {sentence!r} fires a keyword of {idiom}")
    return failures


def kept_collision_note(language: Language, idiom: str) -> str:
    """The keywords of ``idiom`` kept despite a collision with a template word, with their
    reasons, as the overgeneralisation tables say it (empty when none)."""
    if language.idiom_keywords is None:
        return ""
    kept = language.idiom_keywords.kept_collisions
    words = [word for word in language.idiom_keywords.keywords.get(idiom, ()) if word in kept]
    return "; ".join(f"keeps {word} although it fires on a template word: {kept[word]}" for word in words)
