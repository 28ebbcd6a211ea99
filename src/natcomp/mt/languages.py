"""The MT family's target languages: one resource file per language.

The test items are English; what depends on the target language is read from
``resources/mt/languages/<code>.yaml`` (``<code>`` is the ISO 639-1 code the config's
``mt.source_lang``/``mt.target_lang`` use) and nowhere else:

* ``name``: the language's English name, which a prompt names (``Dutch``);
* ``iso639_3``: the three-letter code of the Tatoeba pair folder (``eng-nld``, ``deu-eng``:
  the release orders the codes alphabetically) and the FLORES-101 file names (``nld.dev``);
* ``flores200``: the FLORES-200 code, NLLB-200's language token (``nld_Latn``);
* ``m2m100``: M2M100's language code (``__nl__``); ``marian``: the target part of the
  Helsinki-NLP opus-mt model names (``Helsinki-NLP/opus-mt-en-nl``);
* ``moses``: the Moses tokeniser's language; ``sacrebleu_tokenize``: sacrebleu's
  tokeniser (``13a``; ``zh``, ``ja-mecab`` or ``flores200`` for scripts without spaces);
* ``conjunctions``: the words that join two clauses (S -> S CONJ S), and
  ``min_first_conjunct``: how many tokens must precede the conjunction that splits a
  translation (the paper's 5, the token length of the shortest translation of a
  template-1 sentence);
* ``equivalent_tokens``: groups of words a noun's replacement may change in a correct
  translation (S -> NP VP): each group counts as one token (Dutch ``de``/``het``);
* ``contractions``: a preposition fused with an article (Spanish ``al`` -> ``a el``,
  German ``zum`` -> ``zu dem``), expanded before the S -> NP VP and S -> S CONJ S
  comparisons, so that ``al rey`` / ``a la reina`` is one edit as ``el rey`` / ``la
  reina`` is (Dutch has none);
* ``keyword_matching``: how ``inflected`` keyword matching finds an idiom's literal
  keyword in a translation: ``dutch_endings`` (the Dutch endings of
  :func:`natcomp.mt.consistency.inflected_forms`), ``snowball`` (equal Snowball stems,
  NLTK's stemmer named by ``snowball``) or ``word`` (whole words only);
  ``nouns_capitalised`` (German): a keyword written with a capital letter is a noun and
  matches only a token written with one (``Weg``, the noun, not ``weg``, the particle of
  ``wegsehen``);
* ``idiom_keywords``: the literal translations of the 20 idioms' English keywords
  (``keywords``: idiom -> list, or ``file``: a TSV column), who wrote them (``source``:
  ``paper`` or ``natcomp``) and a ``note``; ``word_for_word``: idiom -> why the
  language's own idiomatic translation is the literal one (its score measures accuracy,
  not overgeneralisation: tables mark it and means leave it out); ``kept_collisions``:
  keyword -> why it stays although it fires on a word of the test templates
  (:mod:`natcomp.mt.keyword_checks`). A keyword written ``=Weile`` matches that form only
  (no stem, no ending), ``*Analyse`` also as the head of a compound (``Endanalyse``). A
  language without this section runs every test but overgeneralisation;
* ``idiom_probes``: hand-written translations that check the keyword lists: per idiom
  (``idioms``) ``idiomatic`` translations of its clause that must not count as
  overgeneralised and ``literal`` ones that must, and ``ordinary`` sentences without an
  idiom that no keyword may fire on (:func:`natcomp.mt.keyword_checks.probe_failures`).

``drafted`` lists the fields the project drafted rather than took from a paper.
English (``en.yaml``) is the only source language: its file names the language only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from natcomp.errors import ConfigError, InputError

#: the language of the test items: the only source language
SOURCE_LANGUAGE = "en"
#: its ISO 639-3 code (Tatoeba and FLORES-101 names)
ENGLISH_ISO639_3 = "eng"
#: how ``inflected`` keyword matching works, per language (see the module doc)
KEYWORD_MATCHING_KINDS = ("dutch_endings", "snowball", "word")
#: who wrote an idiom keyword list: the paper's authors or the natcomp project
KEYWORD_SOURCES = {"paper": "the paper's", "natcomp": "drafted by natcomp"}
#: the prefix of a keyword that matches its own form only (no stem, no ending): ``=Weile``
EXACT_FORM = "="
#: the prefix of a keyword that also matches as the head of a compound: ``*Analyse``
COMPOUND_HEAD = "*"
#: sacrebleu tokenisers a language file may name
SACREBLEU_TOKENIZERS = ("13a", "intl", "zh", "ja-mecab", "ko-mecab", "flores101", "flores200", "char", "none")

_CODE = re.compile(r"[a-z]{2,3}")
_FIELDS = {
    "code",
    "name",
    "iso639_3",
    "flores200",
    "m2m100",
    "marian",
    "moses",
    "sacrebleu_tokenize",
    "conjunctions",
    "min_first_conjunct",
    "equivalent_tokens",
    "contractions",
    "keyword_matching",
    "snowball",
    "nouns_capitalised",
    "idiom_keywords",
    "idiom_probes",
    "drafted",
    "notes",
}
_TARGET_FIELDS = ("conjunctions", "min_first_conjunct", "keyword_matching")


@dataclass(frozen=True)
class IdiomKeywords:
    """One language's literal keyword translations of the idioms."""

    keywords: Mapping[str, tuple[str, ...]]
    source: str  # a key of KEYWORD_SOURCES
    note: str = ""
    #: idiom -> why the language's idiomatic translation of it is word for word the English
    word_for_word: Mapping[str, str] = field(default_factory=dict)
    #: keyword -> why it is kept although it fires on a word of the test templates
    kept_collisions: Mapping[str, str] = field(default_factory=dict)

    @property
    def source_label(self) -> str:
        """``the paper's`` or ``drafted by natcomp``, as tables show it."""
        return KEYWORD_SOURCES[self.source]


@dataclass(frozen=True)
class IdiomProbes:
    """Hand-written translations that check a language's keyword lists."""

    #: idiom -> translations of its clause that keep the idiom's meaning (must score 0)
    idiomatic: Mapping[str, tuple[str, ...]]
    #: idiom -> literal translations of its clause (must score 1)
    literal: Mapping[str, tuple[str, ...]]
    #: sentences without an idiom on which no keyword of any idiom may fire
    ordinary: tuple[str, ...] = ()


@dataclass(frozen=True)
class Language:
    """One language's resource file (see the module doc for each field)."""

    code: str
    name: str
    iso639_3: str
    flores200: str
    m2m100: str
    marian: str
    moses: str
    sacrebleu_tokenize: str = "13a"
    conjunctions: tuple[str, ...] = ()
    min_first_conjunct: int = 5
    equivalent_tokens: tuple[tuple[str, ...], ...] = ()
    contractions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    keyword_matching: str = "word"
    snowball: str | None = None
    nouns_capitalised: bool = False
    idiom_keywords: IdiomKeywords | None = None
    idiom_probes: IdiomProbes | None = None
    drafted: tuple[str, ...] = ()
    path: str = field(default="", compare=False)

    @property
    def is_target(self) -> bool:
        """Whether the file has what the tests need of a target language."""
        return bool(self.conjunctions)

    @property
    def tatoeba_pair(self) -> str:
        """The Tatoeba release's folder of the pair English -> this language: the two ISO
        639-3 codes in alphabetical order (``eng-nld``, ``deu-eng``;
        :func:`natcomp.mt.releases.tatoeba_folder`)."""
        from natcomp.mt.releases import tatoeba_folder

        return tatoeba_folder(ENGLISH_ISO639_3, self.iso639_3)

    def is_word_for_word(self, idiom: str) -> bool:
        """Whether the language's idiomatic translation of ``idiom`` is the literal one."""
        return self.idiom_keywords is not None and idiom in self.idiom_keywords.word_for_word

    @functools.cached_property
    def equivalents(self) -> Mapping[str, str]:
        """Lowercase word -> the first word of its group in :attr:`equivalent_tokens`."""
        return {word.lower(): group[0].lower() for group in self.equivalent_tokens for word in group}


def languages_dir() -> Path:
    """The folder of the shipped language files."""
    from natcomp.shipped import resource_path

    return resource_path("mt", "languages")


def shipped_codes() -> list[str]:
    """The codes of every shipped language file, sorted."""
    return sorted(path.stem for path in languages_dir().glob("*.yaml"))


def shipped_target_codes() -> list[str]:
    """The codes of the shipped languages a run can translate into."""
    return [code for code in shipped_codes() if load_language(code).is_target]


@functools.lru_cache(maxsize=None)
def load_language(code: str, key: str = "mt.target_lang") -> Language:
    """The language of ``resources/mt/languages/<code>.yaml``.

    An unknown code, a code without a file and a file with a bad field are a
    :class:`ConfigError` naming ``key`` (or an :class:`InputError` naming the file)."""
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        raise ConfigError(key, f"{code!r} is not a language code; expected an ISO 639-1 code such as nl or de")
    path = languages_dir() / f"{code}.yaml"
    if not path.is_file():
        raise ConfigError(
            key,
            f"no language resource for '{code}' (resources/mt/languages/{code}.yaml); shipped: "
            f"{', '.join(shipped_codes())}; docs/mt.md 'Other target languages' says how to add one",
        )
    return _parse(path, code)


def target_language(code: str, key: str = "mt.target_lang") -> Language:
    """:func:`load_language` for a target language: refuses English and a file without the
    target fields."""
    language = load_language(code, key)
    if code == SOURCE_LANGUAGE:
        raise ConfigError(key, "English is the source language; expected a target language other than en")
    if not language.is_target:
        raise ConfigError(key, f"{language.path} has no conjunctions: it cannot be a target language")
    return language


def check_source_language(code: str, key: str = "mt.source_lang") -> Language:
    """The source language: English only, because the test items are English."""
    if code != SOURCE_LANGUAGE:
        raise ConfigError(key, f"{code!r}: the test items are English; expected en")
    return load_language(code, key)


def _parse(path: Path, code: str) -> Language:
    from natcomp.files import read_yaml

    data = read_yaml(path)
    if not isinstance(data, Mapping):
        raise InputError(path, "expected a mapping of language fields")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise InputError(path, f"unknown field {unknown[0]!r}; expected some of {', '.join(sorted(_FIELDS))}")
    if data.get("code") != code:
        raise InputError(path, f"code is {data.get('code')!r}; expected {code!r}, the file's name")
    for name in ("name", "iso639_3", "flores200", "m2m100", "marian", "moses"):
        if not isinstance(data.get(name), str) or not data[name].strip():
            raise InputError(path, f"{name}: expected a non-empty string")
    if data.get("conjunctions") is not None:
        missing = [name for name in _TARGET_FIELDS if name not in data]
        if missing:
            raise InputError(path, f"{missing[0]}: a target language needs it")
    tokenize = data.get("sacrebleu_tokenize", "13a")
    if tokenize not in SACREBLEU_TOKENIZERS:
        raise InputError(path, f"sacrebleu_tokenize {tokenize!r}; expected one of {', '.join(SACREBLEU_TOKENIZERS)}")
    conjunctions = _words(path, data, "conjunctions")
    minimum = data.get("min_first_conjunct", 5)
    if not isinstance(minimum, int) or isinstance(minimum, bool) or not 1 <= minimum <= 50:
        raise InputError(path, f"min_first_conjunct {minimum!r}; expected a whole number from 1 to 50")
    groups = data.get("equivalent_tokens") or []
    if not isinstance(groups, list) or not all(
        isinstance(g, list) and len(g) >= 2 and all(isinstance(w, str) and w for w in g) for g in groups
    ):
        raise InputError(path, "equivalent_tokens: expected a list of lists of two or more words")
    contractions = data.get("contractions") or {}
    if not isinstance(contractions, Mapping) or not all(
        isinstance(word, str)
        and " " not in word
        and isinstance(expansion, list)
        and len(expansion) >= 2
        and all(isinstance(w, str) and w and " " not in w for w in expansion)
        for word, expansion in contractions.items()
    ):
        raise InputError(path, "contractions: expected word -> a list of two or more words (al: [a, el])")
    capitalised = data.get("nouns_capitalised", False)
    if not isinstance(capitalised, bool):
        raise InputError(path, f"nouns_capitalised {capitalised!r}; expected true or false")
    matching = data.get("keyword_matching", "word")
    if matching not in KEYWORD_MATCHING_KINDS:
        raise InputError(path, f"keyword_matching {matching!r}; expected one of {', '.join(KEYWORD_MATCHING_KINDS)}")
    snowball = data.get("snowball")
    if matching == "snowball":
        from nltk.stem.snowball import SnowballStemmer

        if snowball not in SnowballStemmer.languages:
            raise InputError(
                path, f"snowball {snowball!r}; expected one of NLTK's {', '.join(SnowballStemmer.languages)}"
            )
    elif snowball is not None:
        raise InputError(path, "snowball: only read with keyword_matching: snowball")
    drafted = data.get("drafted") or []
    if not isinstance(drafted, list) or not set(drafted) <= _FIELDS:
        raise InputError(path, f"drafted: expected a list of field names ({', '.join(sorted(_FIELDS))})")
    return Language(
        code=code,
        name=data["name"],
        iso639_3=data["iso639_3"],
        flores200=data["flores200"],
        m2m100=data["m2m100"],
        marian=data["marian"],
        moses=data["moses"],
        sacrebleu_tokenize=tokenize,
        conjunctions=conjunctions,
        min_first_conjunct=minimum,
        equivalent_tokens=tuple(tuple(g) for g in groups),
        contractions={word.lower(): tuple(expansion) for word, expansion in contractions.items()},
        keyword_matching=matching,
        snowball=snowball,
        nouns_capitalised=capitalised,
        idiom_keywords=_idiom_keywords(path, data.get("idiom_keywords")),
        idiom_probes=_idiom_probes(path, data.get("idiom_probes")),
        drafted=tuple(drafted),
        path=str(path),
    )


def _words(path: Path, data: Mapping, name: str) -> tuple[str, ...]:
    words = data.get(name) or []
    if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() and " " not in w for w in words):
        raise InputError(path, f"{name}: expected a list of single words")
    return tuple(words)


def _idiom_keywords(path: Path, section) -> IdiomKeywords | None:
    if section is None:
        return None
    if not isinstance(section, Mapping) or section.get("source") not in KEYWORD_SOURCES:
        raise InputError(path, f"idiom_keywords.source: expected one of {', '.join(KEYWORD_SOURCES)}")
    if ("file" in section) == ("keywords" in section):
        raise InputError(path, "idiom_keywords: expected either keywords (idiom -> list) or file, not both")
    if "file" in section:
        from natcomp.mt.lexicon import load_idioms
        from natcomp.shipped import resource_path

        keywords = {idiom.idiom: idiom.dutch_keywords for idiom in load_idioms(resource_path(section["file"]))}
    else:
        given = section["keywords"]
        if not isinstance(given, Mapping) or not all(
            isinstance(words, list) and words and all(isinstance(w, str) and w.strip() for w in words)
            for words in given.values()
        ):
            raise InputError(path, "idiom_keywords.keywords: expected idiom -> a non-empty list of keywords")
        keywords = {str(idiom): tuple(words) for idiom, words in given.items()}
    for idiom, words in keywords.items():
        for word in words:
            bare = word.removeprefix(EXACT_FORM).removeprefix(COMPOUND_HEAD)
            if not bare.strip() or bare[0] in (EXACT_FORM, COMPOUND_HEAD):
                raise InputError(path, f"idiom_keywords of {idiom!r}: {word!r} has no word after its prefix")
            if word.startswith(COMPOUND_HEAD) and " " in bare.strip():
                raise InputError(path, f"idiom_keywords of {idiom!r}: {word!r}: a compound head is one word")
    reasons = {}
    for name in ("word_for_word", "kept_collisions"):
        given = section.get(name) or {}
        if not isinstance(given, Mapping) or not all(
            isinstance(reason, str) and reason.strip() for reason in given.values()
        ):
            raise InputError(path, f"idiom_keywords.{name}: expected a mapping to a reason (a non-empty text)")
        reasons[name] = {str(key): reason.strip() for key, reason in given.items()}
    listed = {word for words in keywords.values() for word in words}
    unknown = sorted(set(reasons["kept_collisions"]) - listed)
    if unknown:
        raise InputError(path, f"idiom_keywords.kept_collisions names {unknown[0]!r}, which is no keyword of the file")
    return IdiomKeywords(keywords, section["source"], str(section.get("note", "")).strip(), **reasons)


def _sentences(path: Path, value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
        raise InputError(path, f"{where}: expected a list of sentences")
    return tuple(s.strip() for s in value)


def _idiom_probes(path: Path, section) -> IdiomProbes | None:
    if section is None:
        return None
    if not isinstance(section, Mapping) or set(section) - {"ordinary", "idioms"}:
        raise InputError(path, "idiom_probes: expected ordinary (a list) and idioms (idiom -> idiomatic, literal)")
    idiomatic, literal = {}, {}
    idioms = section.get("idioms") or {}
    if not isinstance(idioms, Mapping):
        raise InputError(path, "idiom_probes.idioms: expected idiom -> {idiomatic: [...], literal: [...]}")
    for idiom, probes in idioms.items():
        if not isinstance(probes, Mapping) or set(probes) != {"idiomatic", "literal"}:
            raise InputError(path, f"idiom_probes.idioms.{idiom}: expected idiomatic and literal, lists of sentences")
        idiomatic[str(idiom)] = _sentences(path, probes["idiomatic"], f"idiom_probes.idioms.{idiom}.idiomatic")
        literal[str(idiom)] = _sentences(path, probes["literal"], f"idiom_probes.idioms.{idiom}.literal")
    ordinary = _sentences(path, section.get("ordinary") or [], "idiom_probes.ordinary")
    return IdiomProbes(idiomatic, literal, ordinary)


def check_idiom_names(language: Language, idioms: Sequence[str]) -> None:
    """A keyword list that names an idiom the resources do not have is an error in the
    language file (a misspelt idiom would silently never be scored)."""
    keywords, probes = language.idiom_keywords, language.idiom_probes
    named = {
        "idiom_keywords": set(keywords.keywords) if keywords else set(),
        "idiom_keywords.word_for_word": set(keywords.word_for_word) if keywords else set(),
        "idiom_probes.idioms": set(probes.idiomatic) if probes else set(),
    }
    for where, names in named.items():
        unknown = sorted(names - set(idioms))
        if unknown:
            raise InputError(
                language.path,
                f"{where} names {unknown[0]!r}, which is not an idiom of idioms.tsv ({len(idioms)} idioms)",
            )
