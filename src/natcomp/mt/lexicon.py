"""Typed loaders for the bilingual English-Dutch vocabulary in ``resources/``.

Three kinds of resource are read here (their columns are documented in
``resources/README.md``):

* the lexicon directory (``resources/lexicon/*.tsv``): nouns, verbs, adverbs, ...;
  :func:`load_lexicon` returns a :class:`Lexicon`;
* ``resources/synonyms.tsv``: the 20 British/American synonym pairs of the paper's
  Table 5, with the Dutch candidate translations of each spelling that the original
  study found with probe sentences and checked by hand (appendix C; its
  ``model_translations1``/``2`` columns); :func:`load_synonyms` returns a list of
  :class:`SynonymPair`;
* ``resources/idioms.tsv``: the 20 idioms of the paper's Table 7; :func:`load_idioms`
  returns a list of :class:`Idiom`.

Every file is a UTF-8 TSV with a header row. The loaders check the header (all required
columns present, no duplicates), the number of fields on every line and the values of
typed columns, and raise :class:`natcomp.errors.InputError` naming the file and the line.
Extra columns are allowed and ignored.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError
from natcomp.tsv import iter_tsv
from natcomp.trees import parse_tree

__all__ = [
    "Adjective",
    "Adverbial",
    "ControlVerb",
    "Idiom",
    "Lexicon",
    "LEXICON_FILES",
    "Noun",
    "SynonymPair",
    "Verb",
    "Word",
    "load_idioms",
    "load_lexicon",
    "load_synonyms",
    "scoring_candidates",
    "tree_leaves",
]

NOUN_COLUMNS = ("en_singular", "en_plural", "nl_singular", "nl_plural", "nl_article")
VERB_COLUMNS = ("en_plural", "en_singular", "nl_plural", "nl_singular", "nl_past_participle", "nl_aux")
STATIVE_COLUMNS = ("en_plural", "en_singular", "nl_plural", "nl_singular")
CONTROL_COLUMNS = ("en_plural", "en_singular", "nl_plural", "nl_singular", "nl_te")
WORD_COLUMNS = ("en", "nl")
ADJECTIVE_COLUMNS = ("en", "nl_attributive", "nl_predicative")
ADVERBIAL_COLUMNS = ("en", "nl", "tree")
ABSTRACT_COLUMNS = NOUN_COLUMNS + ("takes_infinitive", "is_place")

#: file name in the lexicon directory -> required columns
LEXICON_FILES: dict[str, tuple[str, ...]] = {
    "nouns_people.tsv": NOUN_COLUMNS,
    "nouns_elite.tsv": NOUN_COLUMNS,
    "nouns_vehicles.tsv": NOUN_COLUMNS,
    "nouns_groups.tsv": NOUN_COLUMNS,
    "nouns_abstract.tsv": ABSTRACT_COLUMNS,
    "nouns_keywords.tsv": NOUN_COLUMNS,
    "transitive_verbs.tsv": VERB_COLUMNS,
    "intransitive_verbs.tsv": VERB_COLUMNS,
    "abstract_verbs.tsv": VERB_COLUMNS,
    "stative_verbs.tsv": STATIVE_COLUMNS,
    "control_verbs.tsv": CONTROL_COLUMNS,
    "adverbs.tsv": WORD_COLUMNS,
    "prepositions.tsv": WORD_COLUMNS,
    "pronouns.tsv": WORD_COLUMNS,
    "adjectives.tsv": ADJECTIVE_COLUMNS,
    "adverbials.tsv": ADVERBIAL_COLUMNS,
}

_LEXICON_FIELDS = {
    "nouns_people.tsv": "people",
    "nouns_elite.tsv": "elite",
    "nouns_vehicles.tsv": "vehicles",
    "nouns_groups.tsv": "groups",
    "nouns_abstract.tsv": "abstract_nouns",
    "nouns_keywords.tsv": "keyword_nouns",
    "transitive_verbs.tsv": "transitive_verbs",
    "intransitive_verbs.tsv": "intransitive_verbs",
    "abstract_verbs.tsv": "abstract_verbs",
    "stative_verbs.tsv": "stative_verbs",
    "control_verbs.tsv": "control_verbs",
    "adverbs.tsv": "adverbs",
    "prepositions.tsv": "prepositions",
    "pronouns.tsv": "pronouns",
    "adjectives.tsv": "adjectives",
    "adverbials.tsv": "adverbials",
}

SYNONYM_COLUMNS = (
    "en_british",
    "en_american",
    "nl",
    "clause_singular",
    "clause_plural",
    "candidates_british",
    "candidates_american",
    "clause_nl_singular",
    "clause_nl_plural",
    "en_det",
    "nl_np",
    "tags_british",
    "tags_american",
)
IDIOM_COLUMNS = ("idiom", "english_keywords", "dutch_keywords", "clause", "clause_nl_idiomatic", "clause_tree")


# --------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class Noun:
    """A countable noun with its Dutch translation and Dutch gender (``de``/``het``)."""

    en_singular: str
    en_plural: str
    nl_singular: str
    nl_plural: str
    nl_article: str  # article of the Dutch singular: "de" or "het"; plurals always take "de"
    takes_infinitive: bool = False  # "a plan to ..." (abstract nouns only)
    is_place: bool = False  # "in the city" (abstract nouns only)

    def en(self, plural: bool) -> str:
        return self.en_plural if plural else self.en_singular

    def nl(self, plural: bool) -> str:
        return self.nl_plural if plural else self.nl_singular

    def is_het(self, plural: bool) -> bool:
        """True when the Dutch noun phrase takes ``het`` / ``dat`` (het-noun, singular)."""
        return self.nl_article == "het" and not plural

    def nl_definite(self, plural: bool) -> str:
        return "het" if self.is_het(plural) else "de"

    def nl_relative_pronoun(self, plural: bool) -> str:
        return "dat" if self.is_het(plural) else "die"


@dataclass(frozen=True)
class Verb:
    """A verb with present-tense forms; participle and auxiliary are ``None`` when not listed."""

    en_plural: str  # also the English base form ("admire")
    en_singular: str  # 3rd person singular ("admires")
    nl_plural: str  # also the Dutch infinitive ("bewonderen")
    nl_singular: str  # 3rd person singular ("bewondert")
    nl_past_participle: str | None = None
    nl_aux: str | None = None  # perfect auxiliary: "hebben" or "zijn"

    def en(self, plural: bool) -> str:
        return self.en_plural if plural else self.en_singular

    def nl(self, plural: bool) -> str:
        return self.nl_plural if plural else self.nl_singular

    def nl_aux_form(self, plural: bool) -> str:
        """Finite perfect auxiliary agreeing with a 3rd-person subject (heeft/hebben/is/zijn)."""
        if self.nl_aux == "zijn":
            return "zijn" if plural else "is"
        return "hebben" if plural else "heeft"


@dataclass(frozen=True)
class ControlVerb:
    """A verb taking a ``to``-infinitive (want to, try to, ...); ``nl_te`` if Dutch needs ``te``."""

    en_plural: str
    en_singular: str
    nl_plural: str
    nl_singular: str
    nl_te: bool

    def en(self, plural: bool) -> str:
        return self.en_plural if plural else self.en_singular

    def nl(self, plural: bool) -> str:
        return self.nl_plural if plural else self.nl_singular


@dataclass(frozen=True)
class Word:
    """An invariable word (adverb, preposition, object pronoun) and its translation."""

    en: str
    nl: str


@dataclass(frozen=True)
class Adjective:
    en: str
    nl_attributive: str  # after a definite article: "de blauwe auto"
    nl_predicative: str  # "de auto is blauw"


@dataclass(frozen=True)
class Adverbial:
    """A multi-word adverbial ("for a while" / "een tijdje") with its English subtree."""

    en: str
    nl: str
    tree: str


@dataclass(frozen=True)
class Lexicon:
    people: tuple[Noun, ...]
    elite: tuple[Noun, ...]
    vehicles: tuple[Noun, ...]
    groups: tuple[Noun, ...]
    abstract_nouns: tuple[Noun, ...]
    keyword_nouns: tuple[Noun, ...]
    transitive_verbs: tuple[Verb, ...]
    intransitive_verbs: tuple[Verb, ...]
    abstract_verbs: tuple[Verb, ...]
    stative_verbs: tuple[Verb, ...]
    control_verbs: tuple[ControlVerb, ...]
    adverbs: tuple[Word, ...]
    prepositions: tuple[Word, ...]
    pronouns: tuple[Word, ...]
    adjectives: tuple[Adjective, ...]
    adverbials: tuple[Adverbial, ...]


@dataclass(frozen=True)
class SynonymPair:
    """One British/American synonym pair of the substitutivity test (paper, Table 5)."""

    british: str
    american: str
    nl: str  # the Dutch translation given in the paper
    clause_singular: str  # English clause with the British term, e.g. "that eats the doughnut"
    clause_plural: str  # "that eat the doughnut"
    # Dutch spans counting as a translation of the synonym, in the order synonym_translation
    # tries them: nl first, then candidates_british, then the new ones of candidates_american.
    nl_candidates: tuple[str, ...]
    clause_nl_singular: str  # Dutch clause without relative pronoun: "de donut eet"
    clause_nl_plural: str  # "de donut eten"
    en_det: str | None  # determiner for a stand-alone NP ("the"), None for a bare noun
    nl_np: str  # the Dutch stand-alone NP used by the demo grammar ("de donut")
    tags_british: tuple[str, ...]  # PTB tags of the tokens of the British term
    tags_american: tuple[str, ...]
    # The spans the models yielded for probe sentences with each spelling, checked by hand
    # (the shipped lists are the original study's; a probe run can replace them).
    candidates_british: tuple[str, ...] = ()
    candidates_american: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """How items, tables and figures name the pair: ``aeroplane/airplane``."""
        return f"{self.british}/{self.american}"

    def term(self, spelling: str) -> str:
        """The term in ``"british"`` or ``"american"`` spelling."""
        if spelling == "british":
            return self.british
        if spelling == "american":
            return self.american
        raise ValueError(f"spelling must be 'british' or 'american', not {spelling!r}")

    def term_tags(self, spelling: str) -> tuple[str, ...]:
        return self.tags_british if spelling == "british" else self.tags_american

    @property
    def is_relative(self) -> bool:
        """True for a relative clause ("that ..."), False for a PP ("with the same postcode")."""
        return self.clause_singular.split()[0] == "that"

    def clause(self, spelling: str, plural: bool) -> str:
        """The English clause in the given spelling, agreeing with a (plural) antecedent."""
        text = self.clause_plural if plural else self.clause_singular
        return _replace_term(text, self.british, self.term(spelling))

    def clause_nl(self, plural: bool) -> str:
        return self.clause_nl_plural if plural else self.clause_nl_singular

    def candidates(self, spelling: str) -> tuple[str, ...]:
        """The candidate translations found for the term in ``spelling``."""
        self.term(spelling)  # checks the spelling
        return self.candidates_british if spelling == "british" else self.candidates_american

    def with_candidates(self, british: Sequence[str], american: Sequence[str]) -> SynonymPair:
        """A copy with other candidate lists (e.g. from probe sentences); ``nl_candidates``
        follows them (:func:`scoring_candidates`)."""
        british, american = tuple(british), tuple(american)
        return dataclasses.replace(
            self,
            candidates_british=british,
            candidates_american=american,
            nl_candidates=scoring_candidates(self.nl, british, american),
        )


def scoring_candidates(nl: str, british: Sequence[str], american: Sequence[str]) -> tuple[str, ...]:
    """The gold word ``nl`` followed by the candidates of both spellings, each once, in order.

    The original code used ``[nl] + list(set(british + american))``, whose order after
    ``nl`` changed with Python's string hash seed; the order here is fixed.
    """
    return tuple(dict.fromkeys([nl, *british, *american]))


@dataclass(frozen=True)
class Idiom:
    """One idiom of the overgeneralisation test (paper, Table 7)."""

    idiom: str  # "by heart"
    english_keywords: tuple[str, ...]  # ("heart",)
    dutch_keywords: tuple[str, ...]  # literal translations of the keywords ("hart", "hartje")
    clause: str  # "I knew the formula by heart"
    clause_nl_idiomatic: str  # "Ik kende de formule uit het hoofd"
    clause_tree: str  # PTB tree of the clause, leaves = its tokens

    @property
    def is_question(self) -> bool:
        return self.clause_tree.startswith("(SQ ")

    def has_keyword(self, dutch: str) -> bool:
        """The paper's test: any Dutch keyword is a case-insensitive substring of ``dutch``."""
        text = dutch.lower()
        return any(keyword.lower() in text for keyword in self.dutch_keywords)


# --------------------------------------------------------------------------------------
# reading


def _rows(path: str | Path, columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """Rows of a resource table: every column required and non-empty, values stripped."""
    return list(iter_tsv(path, columns, non_empty=columns, strip=True))


def _choice(path: Path, number: int, column: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise InputError(path, f"column {column} must be one of {', '.join(allowed)}, not {value!r}", number)
    return value


def _flag(path: Path, number: int, column: str, value: str) -> bool:
    return _choice(path, number, column, value, ("yes", "no")) == "yes"


def _nouns(path: Path, columns: Sequence[str] = NOUN_COLUMNS) -> tuple[Noun, ...]:
    out = []
    for number, row in _rows(path, columns):
        extra = {}
        if "takes_infinitive" in row:
            extra["takes_infinitive"] = _flag(path, number, "takes_infinitive", row["takes_infinitive"])
        if "is_place" in row:
            extra["is_place"] = _flag(path, number, "is_place", row["is_place"])
        out.append(
            Noun(
                en_singular=row["en_singular"],
                en_plural=row["en_plural"],
                nl_singular=row["nl_singular"],
                nl_plural=row["nl_plural"],
                nl_article=_choice(path, number, "nl_article", row["nl_article"], ("de", "het")),
                **extra,
            )
        )
    return tuple(out)


def _verbs(path: Path, columns: Sequence[str]) -> tuple[Verb, ...]:
    out = []
    for number, row in _rows(path, columns):
        aux = row.get("nl_aux")
        if aux is not None:
            _choice(path, number, "nl_aux", aux, ("hebben", "zijn"))
        out.append(
            Verb(
                en_plural=row["en_plural"],
                en_singular=row["en_singular"],
                nl_plural=row["nl_plural"],
                nl_singular=row["nl_singular"],
                nl_past_participle=row.get("nl_past_participle") or None,
                nl_aux=aux or None,
            )
        )
    return tuple(out)


def load_lexicon(directory: str | Path) -> Lexicon:
    """Load every file of :data:`LEXICON_FILES` from ``directory``."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(root, "lexicon directory not found")

    def path(name: str) -> Path:
        return root / name

    for name, columns in LEXICON_FILES.items():  # fail early, naming the first bad file
        if not path(name).is_file():
            raise InputError(path(name), f"file not found; the lexicon needs it with the columns {', '.join(columns)}")

    control = []
    for number, row in _rows(path("control_verbs.tsv"), CONTROL_COLUMNS):
        control.append(
            ControlVerb(
                row["en_plural"],
                row["en_singular"],
                row["nl_plural"],
                row["nl_singular"],
                _flag(path("control_verbs.tsv"), number, "nl_te", row["nl_te"]),
            )
        )

    def words(name: str) -> tuple[Word, ...]:
        return tuple(Word(row["en"], row["nl"]) for _, row in _rows(path(name), WORD_COLUMNS))

    adverbials = []
    for number, row in _rows(path("adverbials.tsv"), ADVERBIAL_COLUMNS):
        leaves = parse_tree(row["tree"], path=path("adverbials.tsv"), line=number).leaves()
        if leaves != row["en"].split():
            raise InputError(
                path("adverbials.tsv"),
                f"the leaves of the tree ({' '.join(leaves)}) differ from en {row['en']!r}",
                number,
            )
        adverbials.append(Adverbial(row["en"], row["nl"], row["tree"]))

    lexicon = Lexicon(
        people=_nouns(path("nouns_people.tsv")),
        elite=_nouns(path("nouns_elite.tsv")),
        vehicles=_nouns(path("nouns_vehicles.tsv")),
        groups=_nouns(path("nouns_groups.tsv")),
        abstract_nouns=_nouns(path("nouns_abstract.tsv"), ABSTRACT_COLUMNS),
        keyword_nouns=_nouns(path("nouns_keywords.tsv")),
        transitive_verbs=_verbs(path("transitive_verbs.tsv"), VERB_COLUMNS),
        intransitive_verbs=_verbs(path("intransitive_verbs.tsv"), VERB_COLUMNS),
        abstract_verbs=_verbs(path("abstract_verbs.tsv"), VERB_COLUMNS),
        stative_verbs=_verbs(path("stative_verbs.tsv"), STATIVE_COLUMNS),
        control_verbs=tuple(control),
        adverbs=words("adverbs.tsv"),
        prepositions=words("prepositions.tsv"),
        pronouns=words("pronouns.tsv"),
        adjectives=tuple(
            Adjective(row["en"], row["nl_attributive"], row["nl_predicative"])
            for _, row in _rows(path("adjectives.tsv"), ADJECTIVE_COLUMNS)
        ),
        adverbials=tuple(adverbials),
    )
    for name, field in _LEXICON_FIELDS.items():
        if not getattr(lexicon, field):
            raise InputError(path(name), "no entries; expected at least one row after the header")
    return lexicon


def _replace_term(text: str, old: str, new: str) -> str:
    return re.sub(r"(?<![\w-])" + re.escape(old) + r"(?![\w-])", new, text)


def load_synonyms(path: str | Path) -> list[SynonymPair]:
    """Load ``synonyms.tsv`` (see ``resources/README.md``), in file order."""
    path = Path(path)
    pairs = []
    for number, row in _rows(path, SYNONYM_COLUMNS):
        found = {}
        for spelling in ("british", "american"):
            column = f"candidates_{spelling}"
            found[spelling] = tuple(c.strip() for c in row[column].split(";"))
            if not all(found[spelling]):
                raise InputError(path, f"{column} has an empty entry; expected ';'-separated Dutch spans", number)
        candidates = scoring_candidates(row["nl"], found["british"], found["american"])
        for column in ("clause_singular", "clause_plural"):
            clause = row[column]
            words = clause.split()
            if words[0] not in ("that", "with"):
                raise InputError(path, f"{column} must start with 'that' or 'with', not {clause!r}", number)
            if not clause.endswith(" " + row["en_british"]):
                raise InputError(
                    path, f"{column} {clause!r} must end with the British term {row['en_british']!r}", number
                )
        tags = {}
        for spelling in ("british", "american"):
            tags[spelling] = tuple(row[f"tags_{spelling}"].split())
            if len(tags[spelling]) != len(row[f"en_{spelling}"].split()):
                raise InputError(
                    path, f"tags_{spelling} needs one PTB tag per token of {row[f'en_{spelling}']!r}", number
                )
        for column in ("clause_nl_singular", "clause_nl_plural", "nl_np"):
            if not any(c.lower() in row[column].lower() for c in candidates):
                raise InputError(
                    path, f"{column} {row[column]!r} contains neither nl nor any candidate translation", number
                )
        pairs.append(
            SynonymPair(
                british=row["en_british"],
                american=row["en_american"],
                nl=row["nl"],
                clause_singular=row["clause_singular"],
                clause_plural=row["clause_plural"],
                nl_candidates=candidates,
                clause_nl_singular=row["clause_nl_singular"],
                clause_nl_plural=row["clause_nl_plural"],
                en_det=None if row["en_det"] == "-" else row["en_det"],
                nl_np=row["nl_np"],
                tags_british=tags["british"],
                tags_american=tags["american"],
                candidates_british=found["british"],
                candidates_american=found["american"],
            )
        )
    return pairs


def _simple_tokens(text: str) -> list[str]:
    return re.findall(r"[^\s,.?!]+|[,.?!]", text)


def load_idioms(path: str | Path) -> list[Idiom]:
    """Load ``idioms.tsv`` (see ``resources/README.md``), in file order."""
    path = Path(path)
    idioms = []
    for number, row in _rows(path, IDIOM_COLUMNS):
        english = tuple(k.strip() for k in row["english_keywords"].split(";") if k.strip())
        dutch = tuple(k.strip() for k in row["dutch_keywords"].split(";") if k.strip())
        if not english or not dutch:
            raise InputError(
                path, "english_keywords and dutch_keywords need at least one ';'-separated keyword", number
            )
        clause = row["clause"]
        if row["idiom"].lower() not in clause.lower():
            raise InputError(path, f"the clause {clause!r} does not contain the idiom {row['idiom']!r}", number)
        tokens = _simple_tokens(clause)
        missing = [k for k in english if k not in tokens]
        if missing:
            raise InputError(path, f"english keyword(s) {', '.join(missing)} not in the clause {clause!r}", number)
        leaves = parse_tree(row["clause_tree"], path=path, line=number).leaves()
        if leaves != tokens:
            raise InputError(
                path, f"the leaves of clause_tree ({' '.join(leaves)}) differ from the clause tokens", number
            )
        idiom = Idiom(row["idiom"], english, dutch, clause, row["clause_nl_idiomatic"], row["clause_tree"])
        if idiom.has_keyword(idiom.clause_nl_idiomatic):
            found = [k for k in dutch if k.lower() in idiom.clause_nl_idiomatic.lower()]
            raise InputError(path, f"clause_nl_idiomatic contains the literal keyword(s) {', '.join(found)}", number)
        idioms.append(idiom)
    return idioms


# --------------------------------------------------------------------------------------
# bracketed trees


def tree_leaves(tree: str) -> list[str]:
    """Leaves of a PTB bracketed tree; ``ValueError`` if it is not well formed.

    Read by :func:`natcomp.trees.parse_tree` (see :mod:`natcomp.trees` for what is well
    formed); its :class:`~natcomp.errors.InputError` becomes a ``ValueError`` with the
    same message.
    """
    try:
        return parse_tree(tree).leaves()
    except InputError as error:
        raise ValueError(error.message) from None
