"""Semi-natural test sentences: OPUS noun and verb phrases in ten fixed frames.

Dankers, Bruni & Hupkes (2022), §3.2, Table 1b and appendix A, step 7: the NP and VP
phrases that match the chosen Double-DOP fragments (step 6, ``treesearch``) are embedded
in ten templates with one varied person noun (Table 2):

====  =====================================================  =============  =========
 n    template                                               fragment       noun role
====  =====================================================  =============  =========
 1    ``The N_people VP .``                                  VP1            subject
 2    ``The N_people VP .``                                  VP2            subject
 3    ``The N_people VP .``                                  VP3            subject
 4    ``The N_people reads/read an article about NP .``      NP1            subject
 5    ``The N_people reads/read an article about NP .``      NP2            subject
 6    ``An article about NP is read by the N_people .``      NP3            agent
 7    ``An article about NP , is read by the N_people .``    NP4            agent
 8    ``Did the N_people hear about NP ?``                   NP1            subject
 9    ``Did the N_people hear about NP ?``                   NP2            subject
10    ``Did the N_people hear about NP ?``                   NP5            subject
====  =====================================================  =============  =========

The fragment column is :data:`DEFAULT_TEMPLATE_FRAGMENTS`. Table 2 gives the internal
structure of each template's phrase: 4, 6 and 8 share one (an NP with a chain of three
nested PPs, ``(NP (NP ) (PP (IN ) (NP (NP ) (PP (IN ) (NP (NP ) (PP (IN ) (NP )))))))``),
5 and 9 share another (``(NP (NP (DT ) (NN )) (PP (IN ) (NP (NP ) (SBAR (S (WHNP (WDT ))
(VP ))))))``), 7 (``NP PP NP , SBAR``: a non-restrictive ``which`` clause) and 10 (an NP
with a ``to``-infinitive SBAR) have their own. Four structures, five NP fragments: the
three-PP chain, used by three templates, is taken to have two selected fragments (same
top structure as Table 2 prints it, different lexical anchors or inner expansions). The
ids follow Table 1b, which numbers the phrases of templates 4-7 NP1..NP4:

* ``NP1``: three-PP chain (templates 4 and 8);
* ``NP2``: ``DT NN`` + PP + ``WDT`` relative clause (templates 5 and 9);
* ``NP3``: the second three-PP-chain fragment (template 6);
* ``NP4``: NP + PP + ``, which ..`` clause (template 7);
* ``NP5``: NP + ``to``-infinitive (template 10).

Any other mapping can be passed as ``template_fragments``; every id it uses must be a key
of ``phrases`` (a missing id gives no sentences and a warning). Whoever selects the
fragments must number them as above or pass the mapping explicitly.

Decisions:

* **Agreement in templates 1-3.** The subject's number follows from the VP's first
  verb: the first verb-like preterminal among the VP's children, descending into a
  first VP child (``(VP (ADVP ..) (VBZ wants) ..)`` -> VBZ; coordinated VPs must all
  agree). ``VBZ`` -> singular; ``VBP`` -> plural (``am`` / ``'m``: skipped); ``VBD`` ->
  either, except ``was`` (singular) and ``were`` (plural); ``MD`` -> either; ``VB``
  (Table 2, template 3: ``The doctors retain ...``) -> plural, because an English base
  form equals the present plural, except ``be`` (skipped); ``TO`` (Table 2, template
  1: ``(VP (TO ) (VP (VB ) ..))`` with the example ``The woman wants to use ...``) ->
  the fixed verb ``wants`` / ``want`` (:data:`TO_VP_VERB`) is put before the phrase and
  the number is free. ``VBG``, ``VBN``, no verb at all, or a first token that is a clitic
  (``'s``, ``'re``) -> the phrase is skipped. Where the number is free it is singular or
  plural with probability 1/2; where the verb fixes it, the mix follows the phrases (a
  phrase of the requested number is preferred while there are any, so the split stays
  as close to half-half as the phrases allow).
* **Templates 4-10.** The number is singular or plural with probability 1/2; ``reads``
  / ``read`` agree. Template 7 has the comma of Table 2 (``.. , which was 27 % , is
  read by the child .``). Questions end in ``?``.
* **Phrase filter** (:func:`phrase_problem`): dropped are empty phrases, more than
  :data:`MAX_PHRASE_TOKENS` tokens, a token with whitespace in it, quotes (they would
  clash with the idiom clause ``that said " .. "``), a sentence-final ``. ! ? ...``
  token anywhere, a phrase starting or ending with ``, ; : -``, a tree that does not
  parse, a tree whose leaves differ from the tokens, a root label other than the
  template's (``VP`` for 1-3, ``NP`` otherwise; ``ROOT``/``TOP``/``S1`` wrappers with
  one child are looked through, and an unlabeled outer bracket ``( (NP ..))`` is read as
  ``ROOT``), and for 1-3 a VP whose agreement is unknown (above). The reasons are
  counted and logged.
* **Tokens** are kept as they are (case included: ``gOING TO HAVE TO`` stays, a first
  token is never capitalised), with two exceptions. Bracket escapes (``-LRB-`` ..) and
  Moses' XML escapes (``&apos;`` ..) are turned back into characters, because
  :attr:`SyntheticSentence.text` is untokenised text like the training corpus. A first
  token tagged ``DT`` or ``PRP$`` and written with only its first letter a capital
  (``The``, ``An``, ``A``, ``His``) is lowercased: it is the capital of a phrase taken
  from the start of a treebank sentence, which would otherwise show up mid-sentence
  (``.. reads an article about An article about ..``). Other first tokens (``Europe``,
  ``I``, all-capital ``THE``) are kept.
* **Sampling.** Phrases with equal tokens (after the changes above) count once (first
  occurrence). Each round shuffles the usable phrases (``random.Random`` seeded with
  template and seed) and uses each at most once, with a random person noun;
  ``max_uses_per_phrase`` rounds (default 1, so every sentence has its own phrase).
  Sentences are distinct; when the phrases run out, fewer than ``n`` are returned and a
  message is logged (no error).

The result is a list of :class:`SyntheticSentence` with ``data_type="semi_natural"`` and
one :class:`NounSlot` (role ``subject`` or ``agent``, category ``people``, its number),
so :mod:`natcomp.mt.items`'s builders work unchanged (``np_vp_items(..., conditions=
("np_prime",))``, ``substitutivity_items``, ``overgeneralisation_items``,
``s_conj_items``). The reference set for matching natural second conjuncts
(:func:`natcomp.mt.items.natural_conjuncts`) of a template is
``[s.text for s in sentences]``.

The phrases come as plain data (fragment id -> list of ``(tokens, bracketed subtree)``;
objects with ``tokens`` and ``tree`` attributes are accepted too, such as the
:class:`natcomp.mt.semi_natural.fragments.Phrase` lists that :func:`natcomp.mt.semi_natural.fragments.read_matches`
reads from the ``id<TAB>tokens<TAB>tree`` TSV of the treesearch step). Bracketed trees
are read by :func:`natcomp.trees.parse_tree`.
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from natcomp.errors import InputError
from natcomp.mt.lexicon import Lexicon
from natcomp.mt.templates import NounSlot, SyntheticSentence
from natcomp.trees import Tree, parse_tree

__all__ = [
    "DATA_TYPE",
    "DEFAULT_TEMPLATE_FRAGMENTS",
    "MAX_PHRASE_TOKENS",
    "NP_TEMPLATES",
    "TO_VP_VERB",
    "VP_TEMPLATES",
    "Phrase",
    "first_verbs",
    "phrase_problem",
    "semi_natural_sentences",
    "usable_phrases",
    "vp_numbers",
]

_LOG = logging.getLogger(__name__)

DATA_TYPE = "semi_natural"
VP_TEMPLATES = (1, 2, 3)
NP_TEMPLATES = (4, 5, 6, 7, 8, 9, 10)
#: template -> fragment id (see the module documentation)
DEFAULT_TEMPLATE_FRAGMENTS: dict[int, str] = {
    1: "VP1",
    2: "VP2",
    3: "VP3",
    4: "NP1",
    5: "NP2",
    6: "NP3",
    7: "NP4",
    8: "NP1",
    9: "NP2",
    10: "NP5",
}
#: phrases longer than this are dropped
MAX_PHRASE_TOKENS = 40
#: (singular, plural) verb put before a VP that starts with ``to``
TO_VP_VERB = ("wants", "want")

_SENTENCE_END = {".", "!", "?", "...", "…", ". . ."}
_EDGE_PUNCTUATION = {",", ";", ":", "-", "--", "–", "—"}
_QUOTE_CHARS = ('"', "“", "”", "„", "«", "»")
_QUOTE_TOKENS = {"``", "''"}
_VERB_TAGS = {"VB", "VBZ", "VBP", "VBD", "VBG", "VBN", "MD", "TO"}
_WRAPPERS = {"ROOT", "TOP", "S1"}
#: tags of a first token that loses a sentence-initial capital (see the module documentation)
_INITIAL_LOWERCASE_TAGS = {"DT", "PRP$"}
_UNESCAPE = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
}
_MOSES_ENTITY = re.compile(r"&(?:amp|lt|gt|apos|quot|#91|#93|#124);")
_MOSES_CHARS = {
    "&amp;": "&",
    "&lt;": "<",
    "&gt;": ">",
    "&apos;": "'",
    "&quot;": '"',
    "&#91;": "[",
    "&#93;": "]",
    "&#124;": "|",
}

SINGULAR = (False,)
PLURAL = (True,)
EITHER = (False, True)


# --------------------------------------------------------------------------------------
# trees: wrappers and VP agreement


def _unwrap(node: Tree) -> Tree:
    while node.label in _WRAPPERS and len(node.children) == 1:
        node = node.children[0]
    return node


def first_verbs(vp: Tree) -> list[tuple[str, str]] | None:
    """The ``(tag, word)`` of the VP's first verb, one per conjunct of a coordinated VP.

    The VP's children are read left to right: the first verb-like preterminal (``VB*``,
    ``MD``, ``TO``) is the verb; a VP child met before one is descended into; when the
    VP consists of coordinated VPs (``(VP (VP ..) (CC and) (VP ..))``) each conjunct
    gives its verb. ``None`` if no verb is found.
    """
    sub_vps = [c for c in vp.children if c.label == "VP"]
    direct = [c for c in vp.children if c.is_preterminal and c.label in _VERB_TAGS]
    if not direct and len(sub_vps) > 1:
        verbs: list[tuple[str, str]] = []
        for child in sub_vps:
            found = first_verbs(child)
            if found is None:
                return None
            verbs.extend(found)
        return verbs
    for child in vp.children:
        if child.is_preterminal:
            if child.label in _VERB_TAGS:
                return [(child.label, child.word)]
            continue
        if child.label == "VP":
            return first_verbs(child)
    return None


def _verb_numbers(tag: str, word: str) -> tuple[bool, ...] | None:
    """Subject numbers a verb allows (``(False,)`` singular, ``(True,)`` plural, both), or
    ``None`` when it does not fit a third-person subject / is not finite."""
    lower = word.lower()
    if tag == "VBZ":
        return SINGULAR
    if tag == "VBP":
        return None if lower in ("am", "'m") else PLURAL
    if tag == "VBD":
        if lower == "was":
            return SINGULAR
        if lower == "were":
            return PLURAL
        return EITHER
    if tag == "MD":
        return EITHER
    if tag == "VB":
        return None if lower == "be" else PLURAL
    return None  # VBG, VBN


def vp_numbers(tree: str | Tree) -> tuple[tuple[bool, ...], bool] | None:
    """``(numbers, needs_to_verb)`` for a VP: the subject numbers the VP agrees with and
    whether :data:`TO_VP_VERB` must precede it; ``None`` if agreement is unknown. A tree
    string is read by :func:`natcomp.trees.parse_tree` (``InputError`` if malformed)."""
    node = _unwrap(parse_tree(tree) if isinstance(tree, str) else tree)
    verbs = first_verbs(node)
    if not verbs:
        return None
    if len(verbs) == 1 and verbs[0][0] == "TO":
        return EITHER, True
    allowed = set(EITHER)
    for tag, word in verbs:
        numbers = _verb_numbers(tag, word)
        if numbers is None:
            return None
        allowed &= set(numbers)
    if not allowed:
        return None
    return tuple(sorted(allowed)), False


# --------------------------------------------------------------------------------------
# phrases


@dataclass(frozen=True)
class Phrase:
    """A usable phrase: its (unescaped) tokens, the subject numbers it allows and whether
    ``wants``/``want`` goes before it."""

    tokens: tuple[str, ...]
    numbers: tuple[bool, ...] = EITHER
    to_verb: bool = False


def _unescape(token: str) -> str:
    token = _UNESCAPE.get(token, token)
    return _MOSES_ENTITY.sub(lambda m: _MOSES_CHARS[m.group(0)], token)


def _kind(template: int) -> str:
    if template in VP_TEMPLATES:
        return "VP"
    if template in NP_TEMPLATES:
        return "NP"
    raise ValueError(f"template must be one of 1..10, not {template!r}")


def _lower_initial_capital(words: list[str], node: Tree) -> list[str]:
    """``words`` with a first ``DT`` / ``PRP$`` written ``The`` / ``An`` / ``His`` lowercased."""
    first = next(n for n in node.subtrees() if n.is_preterminal)
    word = words[0]
    if first.label in _INITIAL_LOWERCASE_TAGS and word[:1].isupper() and word[1:] == word[1:].lower():
        return [word.lower(), *words[1:]]
    return words


def _check(tokens: Sequence[str], tree: str, kind: str, max_tokens: int) -> tuple[str | None, Phrase | None]:
    if not tokens:
        return "empty phrase", None
    if len(tokens) > max_tokens:
        return f"more than {max_tokens} tokens", None
    if any(not t or re.search(r"\s", t) for t in tokens):
        return "empty token or whitespace inside a token", None
    if "\t" in tree or "\n" in tree or "\r" in tree:
        return "tab or line break in the tree", None
    words = [_unescape(t) for t in tokens]
    if any(w in _QUOTE_TOKENS or any(q in w for q in _QUOTE_CHARS) for w in words):
        return "quote", None
    if any(w in _SENTENCE_END for w in words):
        return "sentence-final punctuation inside", None
    if words[0] in _EDGE_PUNCTUATION or words[-1] in _EDGE_PUNCTUATION:
        return "starts or ends with punctuation", None
    try:
        node = _unwrap(parse_tree(tree))
    except InputError:
        return "malformed tree", None
    if [_unescape(t) for t in node.leaves()] != words:
        return "tokens differ from the tree's leaves", None
    if node.label != kind:
        return f"root {node.label}, expected {kind}", None
    words = _lower_initial_capital(words, node)
    if kind == "NP":
        return None, Phrase(tuple(words))
    if words[0].startswith("'"):
        return "starts with a clitic", None
    agreement = vp_numbers(node)
    if agreement is None:
        verbs = first_verbs(node)
        if not verbs:
            return "no verb", None
        return "agreement unknown (first verb " + "/".join(tag for tag, _ in verbs) + ")", None
    numbers, to_verb = agreement
    return None, Phrase(tuple(words), numbers, to_verb)


def phrase_problem(tokens: Sequence[str], tree: str, template: int, max_tokens: int = MAX_PHRASE_TOKENS) -> str | None:
    """Why the phrase cannot be used in ``template`` (a short reason), ``None`` if it can."""
    return _check(tokens, tree, _kind(template), max_tokens)[0]


def _as_pair(item) -> tuple[Sequence[str], str]:
    """``(tokens, tree string)`` from a pair, or from an object with ``tokens`` and ``tree``
    attributes (a tree object is written with its ``to_bracket()`` or ``str()``)."""
    if hasattr(item, "tokens") and hasattr(item, "tree"):
        tree = item.tree
        if not isinstance(tree, str):
            tree = tree.to_bracket() if hasattr(tree, "to_bracket") else str(tree)
        return item.tokens, tree
    tokens, tree = item
    return tokens, tree


def usable_phrases(
    phrases: Sequence[tuple[Sequence[str], str]],
    template: int,
    max_tokens: int = MAX_PHRASE_TOKENS,
) -> tuple[list[Phrase], Counter]:
    """The usable, distinct phrases (input order) and a count of the drop reasons."""
    kind = _kind(template)
    usable: list[Phrase] = []
    seen: set[tuple[str, ...]] = set()
    dropped: Counter = Counter()
    for item in phrases:
        tokens, tree = _as_pair(item)
        reason, phrase = _check(list(tokens), tree, kind, max_tokens)
        if phrase is None:
            dropped[reason] += 1
            continue
        if phrase.tokens in seen:
            dropped["duplicate"] += 1
            continue
        seen.add(phrase.tokens)
        usable.append(phrase)
    return usable, dropped


# --------------------------------------------------------------------------------------
# sentences


def _assemble(template: int, phrase: Phrase, noun: str, plural: bool) -> tuple[list[str], NounSlot]:
    if template in VP_TEMPLATES:
        tokens = ["The", noun]
        if phrase.to_verb:
            tokens.append(TO_VP_VERB[1] if plural else TO_VP_VERB[0])
        tokens += [*phrase.tokens, "."]
        return tokens, NounSlot("subject", 1, "people", plural)
    if template in (4, 5):
        verb = "read" if plural else "reads"
        return ["The", noun, verb, "an", "article", "about", *phrase.tokens, "."], NounSlot(
            "subject", 1, "people", plural
        )
    if template in (6, 7):
        comma = [","] if template == 7 else []
        tokens = ["An", "article", "about", *phrase.tokens, *comma, "is", "read", "by", "the", noun, "."]
        return tokens, NounSlot("agent", len(tokens) - 2, "people", plural)
    return ["Did", "the", noun, "hear", "about", *phrase.tokens, "?"], NounSlot("subject", 2, "people", plural)


def semi_natural_sentences(
    lexicon: Lexicon,
    phrases: Mapping[str, Sequence[tuple[Sequence[str], str]]],
    template_fragments: Mapping[int, str],
    template: int,
    n: int,
    seed: int,
    *,
    max_tokens: int = MAX_PHRASE_TOKENS,
    max_uses_per_phrase: int = 1,
) -> list[SyntheticSentence]:
    """Up to ``n`` distinct semi-natural sentences of ``template`` (1..10).

    ``phrases``: fragment id -> ``(tokens, bracketed subtree)`` matches;
    ``template_fragments``: template -> fragment id (:data:`DEFAULT_TEMPLATE_FRAGMENTS`).
    Deterministic for equal arguments. Fewer than ``n`` sentences (logged) when the
    usable phrases run out; each phrase is used at most ``max_uses_per_phrase`` times.
    """
    kind = _kind(template)
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    if max_uses_per_phrase < 1:
        raise ValueError(f"max_uses_per_phrase must be >= 1, not {max_uses_per_phrase}")
    if template not in template_fragments:
        raise ValueError(f"no fragment id given for template {template} (mapping: {dict(template_fragments)})")
    if not lexicon.people:
        raise ValueError("the lexicon has no people nouns")
    fragment = template_fragments[template]
    matches = phrases.get(fragment)
    if matches is None:
        _LOG.warning("template %d: no phrases for fragment %s (have: %s)", template, fragment, sorted(phrases))
        return []
    usable, dropped = usable_phrases(matches, template, max_tokens)
    _LOG.info(
        "template %d (%s fragment %s): %d phrases, %d usable; dropped: %s",
        template,
        kind,
        fragment,
        len(matches),
        len(usable),
        dict(sorted(dropped.items())) or "none",
    )
    rng = random.Random(f"semi_natural/{template}/{seed}")
    people = list(lexicon.people)
    out: list[SyntheticSentence] = []
    seen: set[tuple[str, ...]] = set()
    for _ in range(max_uses_per_phrase):
        if len(out) >= n:
            break
        order = list(usable)
        rng.shuffle(order)
        taken = [False] * len(order)
        pointer = {False: 0, True: 0}

        def take(plural: bool) -> Phrase | None:
            i = pointer[plural]
            while i < len(order) and (taken[i] or plural not in order[i].numbers):
                i += 1
            pointer[plural] = i
            if i == len(order):
                return None
            taken[i] = True
            return order[i]

        while len(out) < n:
            plural = rng.random() < 0.5
            phrase = take(plural)
            if phrase is None:
                plural = not plural
                phrase = take(plural)
            if phrase is None:
                break
            sentence = _new_sentence(template, phrase, plural, people, rng, seen)
            if sentence is not None:
                seen.add(sentence.tokens)
                out.append(sentence)
    if len(out) < n:
        _LOG.info(
            "template %d: only %d distinct sentences from %d usable phrases of fragment %s (%d requested)",
            template,
            len(out),
            len(usable),
            fragment,
            n,
        )
    return out


def _new_sentence(
    template: int,
    phrase: Phrase,
    plural: bool,
    people: Sequence,
    rng: random.Random,
    seen: set[tuple[str, ...]],
) -> SyntheticSentence | None:
    """The phrase with a random person noun of number ``plural`` (the other number if the
    phrase allows it and every noun of this number gives a sentence already made)."""
    numbers = [plural] + [p for p in phrase.numbers if p != plural]
    nouns = rng.sample(people, len(people))
    for number in numbers:
        for noun in nouns:
            tokens, slot = _assemble(template, phrase, noun.en(number), number)
            if tuple(tokens) not in seen:
                return SyntheticSentence(template, tuple(tokens), (slot,), DATA_TYPE)
    return None
