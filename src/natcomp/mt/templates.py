"""The ten synthetic sentence templates of the MT compositionality tests.

Dankers, Bruni & Hupkes (2022), §3.2 and Table 3 (after Lakretz et al. 2019); the
vocabulary is ``resources/lexicon`` (see ``resources/README.md``):

====  ===================================================================================
 1    The N_people V_trans the N_elite .
 2    The N_people Adv V_trans the N_elite .
 3    The N_people P the N_vehicle V_trans the N_elite .
 4    The N_people and the N_people V_trans(pl) the N_elite .
 5    The N_group of N_people(pl) P the N_vehicle V_trans(sg) the N_elite .
 6    The N_people V_stative that the N_people(pl) V_intr(pl) .
 7    The N_people Adv V_stative that the N_people(pl) V_intr(pl) .
 8    The N_people V_stative that the N_people(pl) V_intr(pl) Adv .
 9    The N_people that V_intr V_trans the N_elite .
10    The N_people that V_trans Pro V_trans the N_elite .
====  ===================================================================================

Every N_people written without a number is singular or plural and its verbs agree with
it; the elite object, the vehicle and the group noun are always singular (anchor §2.1).
Table 3 writes the object as N_people, but all of the paper's examples, the original
data and the 1960-sentence size of template 1 (20 people x 2 numbers x 7 verbs x 7 elite
nouns) show the elite nouns there, so the object is elite.

Decisions:

* A template's sentences are the points of a mixed-radix space (one digit per lexical
  choice, the number being a two-valued choice). :func:`synthetic_sentences` samples
  ``n`` distinct indices uniformly (``random.Random(seed)``), so sentences are unique,
  N_people is singular or plural with probability 1/2 each, and when ``n`` is at least
  the size of the space (template 1: 1960) every sentence is returned, in a shuffled
  order, with a log message giving the count (no error).
* Within one sentence the people nouns differ: the two conjuncts of template 4 and the
  main and embedded subjects of templates 6-8 are different nouns ("The poet and the
  poet" / "The poet sees that the poets cry" are left out). Everything else is free.
* The number of template 4's second conjunct depends on ``sampling``
  (:data:`SYNTHETIC_SAMPLING`, config ``mt.tests.synthetic_sampling``): ``paper`` draws it
  independently of the first (Table 3 writes both conjuncts as N_people, which is singular
  or plural: "The poet and the children" can occur); ``released`` gives both conjuncts one number, as
  every template-4 sentence of the original study's released data does ("The bakers and
  the teachers", "The baker and the victim"). The template then has half as many
  sentences. The other templates do not depend on ``sampling``.
* Sentences are built as tokens and written out with the demo corpus' detokeniser
  (:func:`natcomp.text.detokenize`), so ``SyntheticSentence.text`` looks exactly
  like a training sentence of the demo corpus (``The poet criticises the king.``).
* A :class:`SyntheticSentence` records the position, role, category and number of each
  noun (:class:`NounSlot`), so the test items of :mod:`natcomp.mt.items` can replace
  a noun or attach a clause to it by position. Roles: ``subject`` (the head noun of the
  subject; the first conjunct in template 4), ``subject2`` (second conjunct of template
  4), ``group`` and ``members`` (template 5: "The group of friends"), ``vehicle``,
  ``object`` (the elite object) and ``embedded_subject`` (templates 6-8). Generators of
  other data types (semi-natural) can build the same record with their own ``data_type``
  and the roles ``subject`` / ``agent`` ("is read by the N").
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from natcomp.text import detokenize
from natcomp.mt.lexicon import Lexicon, Noun

__all__ = [
    "NounSlot",
    "SYNTHETIC_SAMPLING",
    "SyntheticSentence",
    "TEMPLATES",
    "check_sampling",
    "synthetic_sentences",
    "template_space_size",
]

_LOG = logging.getLogger(__name__)

#: the template numbers of the paper's Table 3
TEMPLATES = tuple(range(1, 11))

#: how synthetic test data is sampled: ``paper`` (this project's reading of the paper's
#: text) or ``released`` (the distributions of the original study's released items); see
#: this module (template 4) and :func:`natcomp.mt.items.s_conj_items` (S1' and S3)
SYNTHETIC_SAMPLING = ("paper", "released")


def check_sampling(sampling: str) -> None:
    """``ValueError`` unless ``sampling`` is one of :data:`SYNTHETIC_SAMPLING`."""
    if sampling not in SYNTHETIC_SAMPLING:
        raise ValueError(f"sampling must be one of {SYNTHETIC_SAMPLING}, not {sampling!r}")


@dataclass(frozen=True)
class NounSlot:
    """One noun of a template sentence: its role, token position, category and number."""

    role: str  # subject, subject2, group, members, vehicle, object, embedded_subject, agent
    position: int  # index into SyntheticSentence.tokens
    category: str  # people, elite, vehicle or group
    plural: bool


@dataclass(frozen=True)
class SyntheticSentence:
    """A template sentence as tokens (final ``.`` included) with its nouns by role."""

    template: int
    tokens: tuple[str, ...]
    nouns: tuple[NounSlot, ...]
    data_type: str = "synthetic"

    @property
    def text(self) -> str:
        """The untokenised sentence, as in the training corpus."""
        return detokenize(self.tokens)

    def slot(self, role: str) -> NounSlot | None:
        """The noun with this role, ``None`` if the sentence has none."""
        for slot in self.nouns:
            if slot.role == role:
                return slot
        return None

    def first_slot(self, roles: Iterable[str]) -> NounSlot:
        """The noun of the first role in ``roles`` the sentence has; ``ValueError`` if none."""
        roles = tuple(roles)
        for role in roles:
            slot = self.slot(role)
            if slot is not None:
                return slot
        raise ValueError(f"template {self.template} sentence {self.text!r} has no noun with a role in {roles}")

    def with_noun(self, slot: NounSlot, word: str, category: str) -> SyntheticSentence:
        """A copy with the noun of ``slot`` replaced by ``word`` of ``category`` (same number)."""
        if slot not in self.nouns:
            raise ValueError(f"{slot} is not a noun of {self.text!r}")
        tokens = list(self.tokens)
        tokens[slot.position] = word
        nouns = tuple(replace(s, category=category) if s == slot else s for s in self.nouns)
        return replace(self, tokens=tuple(tokens), nouns=nouns)

    def with_tokens_after(self, position: int, inserted: Sequence[str]) -> SyntheticSentence:
        """A copy with ``inserted`` placed right after token ``position``; later nouns shift."""
        if not 0 <= position < len(self.tokens):
            raise ValueError(f"position {position} outside the {len(self.tokens)} tokens of {self.text!r}")
        tokens = self.tokens[: position + 1] + tuple(inserted) + self.tokens[position + 1 :]
        shift = len(inserted)
        nouns = tuple(replace(s, position=s.position + shift) if s.position > position else s for s in self.nouns)
        return replace(self, tokens=tokens, nouns=nouns)

    def noun_words(self) -> set[str]:
        """The English forms of the sentence's nouns."""
        return {self.tokens[slot.position] for slot in self.nouns}


# --------------------------------------------------------------------------------------
# building one sentence from a combination index


class _Digits:
    """The mixed-radix digits of a combination index, read one lexical choice at a time.

    With ``index=None`` every choice takes its first option and the radices are recorded,
    which gives the size of a template's space (the radices never depend on the choices).
    """

    def __init__(self, index: int | None):
        self.rest = index
        self.radices: list[int] = []

    def pick(self, options: Sequence):
        if not options:
            raise ValueError("a template slot has no vocabulary")
        self.radices.append(len(options))
        if self.rest is None:
            return options[0]
        self.rest, digit = divmod(self.rest, len(options))
        return options[digit]


class _Builder:
    """Collects the tokens and noun slots of one sentence."""

    def __init__(self, lex: Lexicon, digits: _Digits, sampling: str):
        self.lex = lex
        self.digits = digits
        self.sampling = sampling
        self.tokens: list[str] = []
        self.slots: list[NounSlot] = []

    def pick(self, options: Sequence):
        return self.digits.pick(options)

    def plural(self) -> bool:
        return self.pick((False, True))

    def words(self, *words: str) -> None:
        self.tokens.extend(words)

    def noun(self, role: str, category: str, noun: Noun, plural: bool) -> Noun:
        self.slots.append(NounSlot(role, len(self.tokens), category, plural))
        self.tokens.append(noun.en(plural))
        return noun

    def people(self, role: str, plural: bool, avoid: Noun | None = None) -> Noun:
        options = [n for n in self.lex.people if n is not avoid]
        return self.noun(role, "people", self.pick(options), plural)

    def subject(self) -> tuple[Noun, bool]:
        """``The N_people`` (sg or pl)."""
        plural = self.plural()
        self.words("The")
        return self.people("subject", plural), plural

    def transitive(self, plural: bool) -> None:
        self.words(self.pick(self.lex.transitive_verbs).en(plural))

    def elite_object(self) -> None:
        """``the N_elite .`` (singular), ending the sentence."""
        self.words("the")
        self.noun("object", "elite", self.pick(self.lex.elite), False)
        self.words(".")

    def vehicle_pp(self) -> None:
        """``P the N_vehicle`` (singular)."""
        self.words(self.pick(self.lex.prepositions).en, "the")
        self.noun("vehicle", "vehicle", self.pick(self.lex.vehicles), False)

    def adverb(self) -> None:
        self.words(self.pick(self.lex.adverbs).en)

    def that_clause(self, main: Noun, end_adverb: bool = False) -> None:
        """``that the N_people(pl) V_intr(pl) [Adv] .``"""
        self.words("that", "the")
        self.people("embedded_subject", True, avoid=main)
        self.words(self.pick(self.lex.intransitive_verbs).en(True))
        if end_adverb:
            self.adverb()
        self.words(".")


def _t1(b: _Builder) -> None:
    _, plural = b.subject()
    b.transitive(plural)
    b.elite_object()


def _t2(b: _Builder) -> None:
    _, plural = b.subject()
    b.adverb()
    b.transitive(plural)
    b.elite_object()


def _t3(b: _Builder) -> None:
    _, plural = b.subject()
    b.vehicle_pp()
    b.transitive(plural)
    b.elite_object()


def _t4(b: _Builder) -> None:
    first, plural = b.subject()
    b.words("and", "the")
    # released: both conjuncts in one number (no digit is drawn for the second)
    b.people("subject2", plural if b.sampling == "released" else b.plural(), avoid=first)
    b.transitive(True)
    b.elite_object()


def _t5(b: _Builder) -> None:
    b.words("The")
    b.noun("group", "group", b.pick(b.lex.groups), False)
    b.words("of")
    b.people("members", True)
    b.vehicle_pp()
    b.transitive(False)
    b.elite_object()


def _stative(b: _Builder, adverb: bool = False, end_adverb: bool = False) -> None:
    main, plural = b.subject()
    if adverb:
        b.adverb()
    b.words(b.pick(b.lex.stative_verbs).en(plural))
    b.that_clause(main, end_adverb)


def _t6(b: _Builder) -> None:
    _stative(b)


def _t7(b: _Builder) -> None:
    _stative(b, adverb=True)


def _t8(b: _Builder) -> None:
    _stative(b, end_adverb=True)


def _t9(b: _Builder) -> None:
    _, plural = b.subject()
    b.words("that", b.pick(b.lex.intransitive_verbs).en(plural))
    b.transitive(plural)
    b.elite_object()


def _t10(b: _Builder) -> None:
    _, plural = b.subject()
    b.words("that")
    b.transitive(plural)
    b.words(b.pick(b.lex.pronouns).en)
    b.transitive(plural)
    b.elite_object()


_BUILDERS: dict[int, Callable[[_Builder], None]] = {
    1: _t1,
    2: _t2,
    3: _t3,
    4: _t4,
    5: _t5,
    6: _t6,
    7: _t7,
    8: _t8,
    9: _t9,
    10: _t10,
}


def _builder(template: int) -> Callable[[_Builder], None]:
    if template not in _BUILDERS:
        raise ValueError(f"template must be one of 1..10, not {template!r}")
    return _BUILDERS[template]


def _sentence(lexicon: Lexicon, template: int, index: int, sampling: str) -> SyntheticSentence:
    builder = _Builder(lexicon, _Digits(index), sampling)
    _builder(template)(builder)
    return SyntheticSentence(template, tuple(builder.tokens), tuple(builder.slots))


def template_space_size(lexicon: Lexicon, template: int, *, sampling: str = "paper") -> int:
    """The number of distinct sentences template ``template`` can produce from ``lexicon``."""
    check_sampling(sampling)
    digits = _Digits(None)
    _builder(template)(_Builder(lexicon, digits, sampling))
    size = 1
    for radix in digits.radices:
        size *= radix
    return size


def synthetic_sentences(
    lexicon: Lexicon, template: int, n: int, seed: int, *, sampling: str = "paper"
) -> list[SyntheticSentence]:
    """``n`` distinct sentences of ``template`` (fewer if the template has fewer; logged).

    Deterministic for equal arguments; the order is random. ``sampling`` (one of
    :data:`SYNTHETIC_SAMPLING`) only changes template 4.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    size = template_space_size(lexicon, template, sampling=sampling)
    rng = random.Random(f"synthetic/{template}/{seed}")
    if n >= size:
        if n > size:
            _LOG.info(
                "template %d has only %d distinct sentences; returning all of them (%d requested)", template, size, n
            )
        indices = list(range(size))
        rng.shuffle(indices)
    else:
        indices = rng.sample(range(size), n)
    return [_sentence(lexicon, template, index, sampling) for index in indices]
