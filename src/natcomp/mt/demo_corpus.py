"""A deterministic synthetic English-Dutch parallel corpus for the offline demo.

The demo cannot download OPUS / Tatoeba or FLORES-101, so it trains its tiny NMT models on
sentences generated here from a small bilingual grammar over the lexicon in
``resources/`` (see ``resources/README.md``). Every English sentence comes with its
Penn-Treebank-style parse tree, which stands in for the parsed OPUS sample of the
semi-natural pipeline (Double-DOP fragment extraction).

What the grammar covers (each frame is listed with an example in ``resources/README.md``):

* the ten synthetic templates of the paper's Table 3 (transitive, adverb, PP-modified
  subject, coordinated subject, "The group of N P the vehicle", clause-taking verbs
  with the three adverb placements, subject relative clauses), plain intransitives;
* semi-natural-like frames in the style of Table 2: ``to``-infinitives ("wants to",
  "is going to have to"), V NP PP, "reads an article about NP", "An article about NP is
  read by the N", "Did the N hear about NP ?", abstract subjects; NPs recurse through
  PPs (of / for / in / with), restrictive relative clauses (subject and object gap),
  non-restrictive "which" clauses and "to"-infinitives, so that NP and VP subtrees with
  10+ non-terminals are common;
* questions "Did the N V the N ?" (Dutch perfect: "Heeft de N de N ge...d ?");
* sentence coordination "S1 , and S2 ." -> "S1 , en S2 ." with conjuncts from all frames;
* every synonym pair of ``synonyms.tsv``: its clause attached to a person noun in both
  spellings (same Dutch), plus main-clause and "about NP" uses of the term;
* every idiom of ``idioms.tsv``: ``that said " CLAUSE "`` attached to a person noun with
  the idiomatic Dutch, the clause as a stand-alone sentence, and literal uses of every
  English keyword (nouns, "blue", "for a while", "run") with the literal Dutch.

Dutch: verb-second main clauses with the adverb after the finite verb, verb-final
subordinate clauses (``dat``-clauses, relative clauses), verb clusters at the end
("wil de koning bewonderen", "probeert ... te begrijpen"), relative clauses on objects
extraposed behind the verb cluster, a comma between a subject ending in a relative
clause and the following verb ("De jongen die rent, bewondert ..."), de/het agreement
of articles and relative pronouns (die/dat), subject-verb number agreement.

Output is untokenised text like the Tatoeba release (``The poet criticises the king.``);
the tree leaves are the Moses tokens of the English sentence.

Public API: :class:`SentencePair`, :class:`DemoGrammar`, :func:`generate_pairs`,
:func:`split_heldout`, :func:`write_tatoeba_release`, :func:`write_flores_release`,
:func:`build_demo_data`.
"""

from __future__ import annotations

import gzip
import io
import random
import re
import tarfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from natcomp.files import atomic_path, write_lines
from natcomp.mt.lexicon import (
    ControlVerb,
    Idiom,
    Lexicon,
    Noun,
    SynonymPair,
    Verb,
    load_idioms,
    load_lexicon,
    load_synonyms,
)
from natcomp.text import detokenize, unescape_bracket
from natcomp.trees import parse_tree

__all__ = [
    "CORPUS_ID",
    "DemoGrammar",
    "SentencePair",
    "build_demo_data",
    "generate_pairs",
    "split_heldout",
    "write_flores_release",
    "write_tatoeba_release",
]

#: the corpus name written to ``train.id.gz`` (``<corpus>-<version>``)
CORPUS_ID = "natcompdemo-v1"
MIN_TOKENS = 4
MAX_TOKENS = 25
_TAR_MTIME = 0  # fixed member mtime, so equal content gives equal bytes


@dataclass(frozen=True)
class SentencePair:
    """One generated sentence pair.

    ``frame`` names the grammar frame that produced it (e.g. ``t1``, ``reads_about``,
    ``coordination``), followed by ``|synonym:<index>:<british|american>``,
    ``|idiom:<index>`` or ``|literal:<keyword>`` for the rare constructions.
    """

    en: str  # untokenised English
    nl: str  # untokenised Dutch
    tree: str  # PTB bracketed tree of the English sentence; leaves = Moses tokens
    frame: str = ""


# --------------------------------------------------------------------------------------
# text


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------------------
# trees as strings

_LEAF = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")
_ESCAPES = {"(": "-LRB-", ")": "-RRB-"}


def _n(label: str, *children: str) -> str:
    return "(" + label + " " + " ".join(children) + ")"


def _l(tag: str, word: str) -> str:
    return "(" + tag + " " + _ESCAPES.get(word, word) + ")"


def _capitalise_first_leaf(tree: str) -> str:
    match = _LEAF.search(tree)
    if match is None:
        return tree
    start = match.start(2)
    return tree[:start] + tree[start].upper() + tree[start + 1 :]


# --------------------------------------------------------------------------------------
# phrases


@dataclass
class _NP:
    tree: str
    nl: list[str]
    plural: bool
    het: bool  # Dutch "het"-noun in the singular: takes "dat"
    rel: list[str] | None = None  # right-edge clause Dutch may extrapose (a suffix of nl)
    ends_rel: bool = False  # ends in a relative clause: Dutch comma before a following verb
    ends_nonrestrictive: bool = False  # ends in ", which ...": English comma before what follows

    @property
    def core(self) -> list[str]:
        return self.nl[: len(self.nl) - len(self.rel)] if self.rel else self.nl

    @property
    def pronoun(self) -> str:
        return "dat" if self.het else "die"


@dataclass
class _VP:
    tree: str  # English VP
    fin: str  # Dutch finite verb
    pre: list[str] = field(default_factory=list)  # middle field before the object
    obj: _NP | None = None
    post: list[str] = field(default_factory=list)  # middle field after the object
    cluster: list[str] = field(default_factory=list)  # non-finite verbs at the end
    extra: list[str] = field(default_factory=list)  # extraposed material (dat-clause, over-PP)
    adv_tree: str | None = None  # English ADVP placed between subject and VP

    def fields(self, subordinate: bool) -> tuple[list[str], list[str]]:
        """(middle field, extraposed part); an object's relative clause is extraposed
        unless the object ends a main clause."""
        obj = self.obj
        if obj is None:
            return self.pre + self.post, self.extra
        if not obj.rel or (not subordinate and not self.cluster and not self.post):
            return self.pre + obj.nl + self.post, self.extra
        return self.pre + obj.core + self.post, obj.rel + self.extra


@dataclass
class _Clause:
    tree: str  # S or SQ
    nl: list[str]
    question: bool = False


def _main(subj: _NP, vp: _VP) -> _Clause:
    children = [subj.tree]
    if subj.ends_nonrestrictive:
        children.append(_l(",", ","))
    if vp.adv_tree:
        children.append(vp.adv_tree)
    children.append(vp.tree)
    mid, extra = vp.fields(subordinate=False)
    nl = subj.nl + ([","] if subj.ends_rel else []) + [vp.fin] + mid + vp.cluster + extra
    return _Clause(_n("S", *children), nl)


def _subordinate(subj: _NP, vp: _VP) -> _Clause:
    children = [subj.tree] + ([vp.adv_tree] if vp.adv_tree else []) + [vp.tree]
    mid, extra = vp.fields(subordinate=True)
    return _Clause(_n("S", *children), subj.nl + mid + [vp.fin] + vp.cluster + extra)


def _question(subj: _NP, vp: _VP) -> _Clause:
    """``vp`` must be built with ``form="perfect"``: its tree is the bare VP."""
    mid, extra = vp.fields(subordinate=False)
    comma = [","] if subj.ends_rel and not mid else []
    nl = [vp.fin] + subj.nl + comma + mid + vp.cluster + extra
    return _Clause(_n("SQ", _l("VBD", "did"), subj.tree, vp.tree), nl, question=True)


class _Context:
    """Randomness plus an optional pending modifier (synonym / idiom clause) that the
    next eligible person NP takes with probability ``take``."""

    def __init__(self, rng: random.Random, modifier: tuple | None = None, take: float = 0.5):
        self.rng = rng
        self.modifier = modifier
        self.take = take


# --------------------------------------------------------------------------------------
# the grammar


class DemoGrammar:
    """Generates :class:`SentencePair` objects from a lexicon, synonyms and idioms."""

    def __init__(self, lexicon: Lexicon, synonyms: Sequence[SynonymPair], idioms: Sequence[Idiom]):
        self.lex = lexicon
        self.synonyms = list(synonyms)
        self.idioms = list(idioms)
        self.humans = lexicon.people + lexicon.elite
        self.places = tuple(n for n in lexicon.abstract_nouns if n.is_place)
        self.infinitive_nouns = tuple(n for n in lexicon.abstract_nouns if n.takes_infinitive)
        self.object_verbs = lexicon.transitive_verbs + lexicon.abstract_verbs
        self._synonym_parts = {
            (k, spelling, plural): self._build_synonym(pair, spelling, plural)
            for k, pair in enumerate(self.synonyms)
            for spelling in ("british", "american")
            for plural in (False, True)
        }
        self._idiom_sbar = [
            _n(
                "SBAR",
                _n("WHNP", _l("WDT", "that")),
                _n("S", _n("VP", _l("VBD", "said"), _l("``", '"'), idiom.clause_tree, _l("''", '"'))),
            )
            for idiom in self.idioms
        ]
        self._literal = [self._resolve_keyword(k) for idiom in self.idioms for k in idiom.english_keywords]

        decl = [
            ("t1", 6, self.f_t1),
            ("t2", 3, self.f_t2),
            ("t3", 3, self.f_t3),
            ("t4", 3, self.f_t4),
            ("t5", 3, self.f_t5),
            ("t6", 3, self.f_t6),
            ("t7", 2, self.f_t7),
            ("t8", 2, self.f_t8),
            ("t9", 3, self.f_t9),
            ("t10", 3, self.f_t10),
            ("intransitive", 3, self.f_intransitive),
            ("control", 5, self.f_control),
            ("v_np_pp", 3, self.f_v_np_pp),
            ("abstract_subject", 3, self.f_abstract_subject),
            ("reads_about", 4, self.f_reads_about),
            ("passive_about", 4, self.f_passive_about),
            ("copula", 1, self.f_copula),
        ]
        questions = [
            ("hear_about", 4, self.f_hear_about),
            ("question_transitive", 2, self.f_question_transitive),
            ("question_intransitive", 1, self.f_question_intransitive),
        ]
        self.decl_frames = decl
        self.question_frames = questions
        self.base_frames = decl + questions
        self.top = [
            ("base", 47),
            ("coordination", 14),
            ("synonym_clause", 9),
            ("synonym_main", 2),
            ("synonym_about", 2),
            # Literal uses of the idioms' keywords are several times more frequent than
            # the idioms, as in natural text: a model learns the literal translation first
            # and can overgeneralise it to the idiom before it memorises the idiom.
            ("idiom_clause", 3),
            ("idiom_alone", 1),
            ("literal", 14),
        ]

    @classmethod
    def from_paths(cls, lexicon_dir: str | Path, synonyms_path: str | Path, idioms_path: str | Path) -> DemoGrammar:
        return cls(load_lexicon(lexicon_dir), load_synonyms(synonyms_path), load_idioms(idioms_path))

    # ---------------------------------------------------------------- sentences

    def sentence(self, rng: random.Random) -> SentencePair:
        """One random sentence pair with 4-25 English tokens."""
        for _ in range(100):
            kind = _weighted(rng, self.top)
            clause, punct, frame = getattr(self, "_top_" + kind)(rng)
            pair = self._finish(clause, punct, frame)
            if MIN_TOKENS <= len(parse_tree(pair.tree).leaves()) <= MAX_TOKENS:
                return pair
        raise RuntimeError("could not generate a sentence within the length limits")  # pragma: no cover

    def _finish(self, clause: _Clause, punct: str, frame: str) -> SentencePair:
        tree = _capitalise_first_leaf(clause.tree)
        tree = "(ROOT " + tree[:-1] + " " + _l(".", punct) + "))"
        en = detokenize([unescape_bracket(t) for t in parse_tree(tree).leaves()])
        nl = _capitalise(detokenize(clause.nl + [punct]))
        return SentencePair(en, nl, tree, frame)

    def _frame(self, ctx: _Context, frames: Sequence[tuple[str, float, Callable]]) -> tuple[_Clause, str]:
        name, function = _weighted_item(ctx.rng, [(f[0], f[1], f[2]) for f in frames])
        return function(ctx), name

    def _top_base(self, rng: random.Random) -> tuple[_Clause, str, str]:
        clause, name = self._frame(_Context(rng), self.base_frames)
        return clause, "?" if clause.question else ".", name

    def _top_coordination(self, rng: random.Random) -> tuple[_Clause, str, str]:
        ctx = _Context(rng)
        first, name1 = self._frame(ctx, self.decl_frames)
        frames = self.question_frames if rng.random() < 0.1 else self.decl_frames
        second, name2 = self._frame(ctx, frames)
        tree = _n("S", first.tree, _l(",", ","), _l("CC", "and"), second.tree)
        nl = first.nl + [",", "en"] + second.nl
        return _Clause(tree, nl), "?" if second.question else ".", f"coordination:{name1}+{name2}"

    def _with_modifier(self, rng: random.Random, modifier: tuple) -> tuple[_Clause, str]:
        for _ in range(50):
            ctx = _Context(rng, modifier)
            clause, name = self._frame(ctx, self.base_frames)
            if ctx.modifier is None:
                return clause, name
        ctx = _Context(rng, modifier, take=1.0)  # rare fallback: object of a plain t1
        return self.f_t1(ctx), "t1"

    def _top_synonym_clause(self, rng: random.Random) -> tuple[_Clause, str, str]:
        k = rng.randrange(len(self.synonyms))
        spelling = rng.choice(("british", "american"))
        return self._synonym_clause(rng, k, spelling)

    def _synonym_clause(self, rng: random.Random, k: int, spelling: str) -> tuple[_Clause, str, str]:
        clause, name = self._with_modifier(rng, ("synonym", k, spelling))
        return clause, "?" if clause.question else ".", f"{name}|synonym:{k}:{spelling}"

    def _top_idiom_clause(self, rng: random.Random) -> tuple[_Clause, str, str]:
        return self._idiom_clause(rng, rng.randrange(len(self.idioms)))

    def _idiom_clause(self, rng: random.Random, i: int) -> tuple[_Clause, str, str]:
        clause, name = self._with_modifier(rng, ("idiom", i))
        return clause, "?" if clause.question else ".", f"{name}|idiom:{i}"

    def synonym_sentence(self, rng: random.Random, k: int, spelling: str) -> SentencePair:
        """A sentence with the clause of synonym pair ``k`` attached to a person noun.

        The random draws do not depend on ``spelling``: equal ``rng`` states give two
        sentences that differ only in the term, with the same Dutch.
        """
        return self._finish(*self._synonym_clause(rng, k, spelling))

    def idiom_sentence(self, rng: random.Random, i: int) -> SentencePair:
        """A sentence with ``that said " <clause of idiom i> "`` attached to a person noun."""
        return self._finish(*self._idiom_clause(rng, i))

    def _top_idiom_alone(self, rng: random.Random) -> tuple[_Clause, str, str]:
        i = rng.randrange(len(self.idioms))
        idiom = self.idioms[i]
        return (
            _Clause(idiom.clause_tree, [idiom.clause_nl_idiomatic]),
            "?" if idiom.is_question else ".",
            (f"idiom_alone|idiom:{i}"),
        )

    def _top_synonym_main(self, rng: random.Random) -> tuple[_Clause, str, str]:
        k = rng.randrange(len(self.synonyms))
        spelling = rng.choice(("british", "american"))
        if not self.synonyms[k].is_relative:  # "with the same postcode" has no verb
            return self._synonym_about(rng, k, spelling)
        ctx = _Context(rng)
        subj = self.human(ctx, eligible=False)
        _, vp_tree, nl_tokens = self._synonym_parts[(k, spelling, subj.plural)]
        vp = _VP(vp_tree, fin=nl_tokens[-1], pre=nl_tokens[:-1])
        return _main(subj, vp), ".", f"synonym_main|synonym:{k}:{spelling}"

    def _top_synonym_about(self, rng: random.Random) -> tuple[_Clause, str, str]:
        k = rng.randrange(len(self.synonyms))
        return self._synonym_about(rng, k, rng.choice(("british", "american")))

    def _synonym_about(self, rng: random.Random, k: int, spelling: str) -> tuple[_Clause, str, str]:
        pair = self.synonyms[k]
        leaves = [_l(tag, word) for tag, word in zip(pair.term_tags(spelling), pair.term(spelling).split())]
        if pair.en_det:
            leaves.insert(0, _l("DT", pair.en_det))
        np = _NP(_n("NP", *leaves), pair.nl_np.split(), plural=False, het=pair.nl_np.startswith("het "))
        ctx = _Context(rng)
        frame = rng.choice(("reads_about", "passive_about", "hear_about"))
        clause = getattr(self, "f_" + frame)(ctx, about=np)
        return clause, "?" if clause.question else ".", f"{frame}|synonym:{k}:{spelling}"

    def _top_literal(self, rng: random.Random) -> tuple[_Clause, str, str]:
        keyword, kind, entry = rng.choice(self._literal)
        clause = getattr(self, "_literal_" + kind)(_Context(rng), entry, keyword)
        return clause, "?" if clause.question else ".", f"literal|literal:{keyword}"

    # ---------------------------------------------------------------- modifiers

    def _build_synonym(self, pair: SynonymPair, spelling: str, plural: bool) -> tuple[str, str | None, list[str]]:
        """(English SBAR/PP tree, English VP tree or None, Dutch clause tokens)."""
        words = pair.clause(spelling, plural).split()
        term = pair.term(spelling).split()
        body = words[: len(words) - len(term)]
        term_leaves = [_l(tag, word) for tag, word in zip(pair.term_tags(spelling), term)]

        def np(rest: list[str]) -> str:
            if rest and rest[0] in ("by", "with", "for", "of", "in"):
                return _n("PP", _l("IN", rest[0]), np(rest[1:]))
            leaves = [_l("DT" if w in ("the", "a", "an") else "JJ", w) for w in rest]
            return _n("NP", *leaves, *term_leaves)

        nl = pair.clause_nl(plural).split()
        if body[0] == "that":
            if pair.clause_singular == pair.clause_plural:
                tag = "VBD"
            else:
                tag = "VBP" if plural else "VBZ"
            vp = _n("VP", _l(tag, body[1]), np(body[2:]))
            return _n("SBAR", _n("WHNP", _l("WDT", "that")), _n("S", vp)), vp, nl
        return np(body), None, nl

    def _attach(self, np: _NP, modifier: tuple) -> _NP:
        if modifier[0] == "synonym":
            _, k, spelling = modifier
            tree, _, nl = self._synonym_parts[(k, spelling, np.plural)]
            relative = self.synonyms[k].is_relative
            rel = ([np.pronoun] if relative else []) + nl
            return _NP(_n("NP", np.tree, tree), np.nl + rel, np.plural, np.het, rel, ends_rel=relative)
        _, i = modifier
        rel = [np.pronoun, "zeiden" if np.plural else "zei", '"', self.idioms[i].clause_nl_idiomatic, '"']
        return _NP(_n("NP", np.tree, self._idiom_sbar[i]), np.nl + rel, np.plural, np.het, rel, ends_rel=True)

    # ---------------------------------------------------------------- noun phrases

    def noun_np(self, noun: Noun, plural: bool, det: str = "the", adjective=None) -> _NP:
        """``the`` / ``a`` / bare (``-``) noun phrase; adjectives only with ``the``."""
        tag = "NNS" if plural else "NN"
        leaves, nl = [], []
        if det == "the":
            leaves.append(_l("DT", "the"))
            nl.append(noun.nl_definite(plural))
        elif det == "a":
            leaves.append(_l("DT", "an" if noun.en_singular[0] in "aeiou" else "a"))
            nl.append("een")
        if adjective is not None:
            leaves.append(_l("JJ", adjective.en))
            nl.append(adjective.nl_attributive)
        leaves.append(_l(tag, noun.en(plural)))
        nl.append(noun.nl(plural))
        return _NP(_n("NP", *leaves), nl, plural, noun.is_het(plural))

    def human(self, ctx: _Context, plural: bool | None = None, elite: float = 0.3, eligible: bool = True) -> _NP:
        rng = ctx.rng
        nouns = self.lex.elite if rng.random() < elite else self.lex.people
        if plural is None:
            plural = rng.random() < 0.5
        np = self.noun_np(rng.choice(nouns), plural)
        if eligible and ctx.modifier is not None and rng.random() < ctx.take:
            np = self._attach(np, ctx.modifier)
            ctx.modifier = None
        return np

    def vehicle(self, ctx: _Context, plural: bool = False, adjective: float = 0.0) -> _NP:
        adj = ctx.rng.choice(self.lex.adjectives) if ctx.rng.random() < adjective else None
        return self.noun_np(ctx.rng.choice(self.lex.vehicles), plural, adjective=adj)

    def _pp(self, head: _NP, prep_en: str, prep_nl: str, inner: _NP) -> _NP:
        tree = _n("NP", head.tree, _n("PP", _l("IN", prep_en), inner.tree))
        return _NP(
            tree,
            head.nl + [prep_nl] + inner.nl,
            head.plural,
            head.het,
            inner.rel,
            inner.ends_rel,
            inner.ends_nonrestrictive,
        )

    def abstract(
        self, ctx: _Context, depth: int, rel: str = "none", place: bool = False, avoid: Noun | None = None
    ) -> _NP:
        """An abstract NP with up to ``depth`` nested PPs; ``rel`` is ``none``,
        ``restrictive`` (that-clauses, to-infinitives) or ``any`` (also ", which ...").
        ``avoid``: the head noun of the enclosing NP, not repeated directly inside it."""
        rng = ctx.rng
        nouns = self.places if place else self.lex.abstract_nouns
        noun = rng.choice(nouns)
        if noun is avoid:
            noun = rng.choice(nouns)
        plural = rng.random() < 0.2
        det = "a" if not plural and rng.random() < 0.2 else "the"
        np = self.noun_np(noun, plural, det)
        if depth > 0 and rng.random() < 0.75:
            roll = rng.random()
            if roll < 0.5:
                prep = ("of", "van")
            elif roll < 0.7:
                prep = ("for", "voor")
            elif roll < 0.85:
                prep = ("in", "in")
            else:
                prep = ("with", "met")
            if prep[0] != "in" and rng.random() < 0.25:
                inner = self.noun_np(rng.choice(self.humans), rng.random() < 0.4)
                if rel != "none" and rng.random() < 0.3:  # people take "that", never "which"
                    inner = self._relative(ctx, inner, "restrictive")
            else:
                inner = self.abstract(ctx, depth - 1, rel, place=prep[0] == "in", avoid=noun)
            return self._pp(np, prep[0], prep[1], inner)
        if rel != "none" and rng.random() < 0.45:
            if noun.takes_infinitive and not plural and rng.random() < 0.5:
                return self._infinitival(ctx, np)
            return self._relative(ctx, np, rel)
        return np

    def _relative(self, ctx: _Context, np: _NP, rel: str) -> _NP:
        rng = ctx.rng
        nonrestrictive = rel == "any" and rng.random() < 0.25
        wh = "which" if nonrestrictive else "that"
        if rng.random() < 0.5:  # subject gap: "that changes the city"
            verb = rng.choice(self.lex.abstract_verbs)
            obj = self.noun_np(rng.choice(self.lex.abstract_nouns), rng.random() < 0.3)
            if rng.random() < 0.3:
                obj = self.noun_np(rng.choice(self.humans), rng.random() < 0.5)
            tag = "VBP" if np.plural else "VBZ"
            s = _n("S", _n("VP", _l(tag, verb.en(np.plural)), obj.tree))
            clause_nl = obj.nl + [verb.nl(np.plural)]
        else:  # object gap: "that the mayor criticises"
            verb = rng.choice(self.object_verbs)
            subj = self.noun_np(rng.choice(self.humans), rng.random() < 0.5)
            tag = "VBP" if subj.plural else "VBZ"
            s = _n("S", subj.tree, _n("VP", _l(tag, verb.en(subj.plural))))
            clause_nl = subj.nl + [verb.nl(subj.plural)]
        sbar = _n("SBAR", _n("WHNP", _l("WDT", wh)), s)
        if nonrestrictive:
            tree = _n("NP", np.tree, _l(",", ","), sbar)
            rel_nl = [",", np.pronoun] + clause_nl
        else:
            tree = _n("NP", np.tree, sbar)
            rel_nl = [np.pronoun] + clause_nl
        return _NP(tree, np.nl + rel_nl, np.plural, np.het, rel_nl, True, nonrestrictive)

    def _infinitival(self, ctx: _Context, np: _NP) -> _NP:
        """ "a plan to change the city" -> "een plan om de stad te veranderen"."""
        rng = ctx.rng
        verb = rng.choice(self.object_verbs)
        obj = self.abstract(ctx, rng.choice((0, 0, 1)), "none")
        s = _n("SBAR", _n("S", _n("VP", _l("TO", "to"), _n("VP", _l("VB", verb.en_plural), obj.tree))))
        clause = ["om"] + obj.nl + ["te", verb.nl_plural]
        return _NP(_n("NP", np.tree, s), np.nl + clause, np.plural, np.het, clause)

    def _object(self, ctx: _Context, rel: str = "restrictive", human: float = 0.6) -> _NP:
        """Object of a transitive verb: mostly people/elite, else vehicle or abstract NP."""
        rng = ctx.rng
        roll = rng.random()
        if roll < human:
            return self.human(ctx, elite=0.6)
        if roll < human + 0.12:
            return self.vehicle(ctx, plural=rng.random() < 0.3, adjective=0.3)
        return self.abstract(ctx, rng.choice((0, 0, 1)), rel)

    def _time(self, ctx: _Context, obj: _NP | None = None, p: float = 0.12):
        if obj is not None and obj.rel:
            return None
        return ctx.rng.choice(self.lex.adverbials) if ctx.rng.random() < p else None

    # ---------------------------------------------------------------- verb phrases

    def tv(self, verb: Verb, plural: bool, obj: _NP, form: str = "finite", time=None, adverb=None) -> _VP:
        if form == "finite":
            head = _l("VBP" if plural else "VBZ", verb.en(plural))
            fin, cluster = verb.nl(plural), []
        else:
            head = _l("VB", verb.en_plural)
            fin, cluster = verb.nl_aux_form(plural), [verb.nl_past_participle]
        children = [head, obj.tree] + ([time.tree] if time else [])
        return _VP(
            _n("VP", *children),
            fin,
            pre=[adverb.nl] if adverb else [],
            obj=obj,
            post=[time.nl] if time else [],
            cluster=cluster,
            adv_tree=_n("ADVP", _l("RB", adverb.en)) if adverb else None,
        )

    def iv(self, verb: Verb, plural: bool, form: str = "finite", adverb=None, end_adverb=None, time=None) -> _VP:
        if form == "finite":
            head = _l("VBP" if plural else "VBZ", verb.en(plural))
            fin, cluster = verb.nl(plural), []
        else:
            head = _l("VB", verb.en_plural)
            fin, cluster = verb.nl_aux_form(plural), [verb.nl_past_participle]
        children = [head]
        if end_adverb:
            children.append(_n("ADVP", _l("RB", end_adverb.en)))
        if time:
            children.append(time.tree)
        pre = [a.nl for a in (adverb, end_adverb) if a]
        return _VP(
            _n("VP", *children),
            fin,
            pre=pre,
            post=[time.nl] if time else [],
            cluster=cluster,
            adv_tree=_n("ADVP", _l("RB", adverb.en)) if adverb else None,
        )

    # ---------------------------------------------------------------- Table 3 frames

    def f_t1(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.25)
        obj = self._object(ctx)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj, time=self._time(ctx, obj)))

    def f_t2(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.2)
        obj = self._object(ctx)
        verb = rng.choice(self.lex.transitive_verbs)
        return _main(subj, self.tv(verb, subj.plural, obj, adverb=rng.choice(self.lex.adverbs)))

    def f_t3(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        prep = rng.choice(self.lex.prepositions)
        subj = self._pp(self.human(ctx, elite=0.2, eligible=False), prep.en, prep.nl, self.vehicle(ctx))
        obj = self._object(ctx, human=0.8)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj))

    def f_t4(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        first = self.human(ctx, elite=0.15, eligible=False)
        second = self.human(ctx, elite=0.15, eligible=False)
        subj = _NP(_n("NP", first.tree, _l("CC", "and"), second.tree), first.nl + ["en"] + second.nl, True, False)
        obj = self._object(ctx, human=0.8)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), True, obj))

    def f_t5(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        group = rng.choice(self.lex.groups)
        members = rng.choice(self.lex.people)
        prep = rng.choice(self.lex.prepositions)
        head = self.noun_np(group, False)
        of = _NP(_n("NP", _l("NNS", members.en_plural)), [members.nl_plural], True, False)
        subj = self._pp(self._pp(head, "of", "van", of), prep.en, prep.nl, self.vehicle(ctx))
        obj = self._object(ctx, human=0.8)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), False, obj))

    def _embedded(self, ctx: _Context, end_adverb=None) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, plural=rng.random() < 0.75, elite=0.15, eligible=False)
        if end_adverb is None and rng.random() < 0.25:
            obj = self.noun_np(rng.choice(self.humans), rng.random() < 0.3)
            vp = self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj)
        else:
            vp = self.iv(rng.choice(self.lex.intransitive_verbs), subj.plural, end_adverb=end_adverb)
        return _subordinate(subj, vp)

    def _stative(self, ctx: _Context, adverb=None, end_adverb=None) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.2)
        verb = rng.choice(self.lex.stative_verbs)
        emb = self._embedded(ctx, end_adverb)
        tree = _n(
            "VP", _l("VBP" if subj.plural else "VBZ", verb.en(subj.plural)), _n("SBAR", _l("IN", "that"), emb.tree)
        )
        vp = _VP(
            tree,
            verb.nl(subj.plural),
            pre=[adverb.nl] if adverb else [],
            extra=["dat"] + emb.nl,
            adv_tree=_n("ADVP", _l("RB", adverb.en)) if adverb else None,
        )
        return _main(subj, vp)

    def f_t6(self, ctx: _Context) -> _Clause:
        return self._stative(ctx)

    def f_t7(self, ctx: _Context) -> _Clause:
        return self._stative(ctx, adverb=ctx.rng.choice(self.lex.adverbs))

    def f_t8(self, ctx: _Context) -> _Clause:
        return self._stative(ctx, end_adverb=ctx.rng.choice(self.lex.adverbs))

    def _subject_relative(self, ctx: _Context, vp_of: Callable[[bool], tuple[str, list[str]]]) -> _NP:
        base = self.human(ctx, elite=0.15, eligible=False)
        vp_tree, nl = vp_of(base.plural)
        sbar = _n("SBAR", _n("WHNP", _l("WDT", "that")), _n("S", vp_tree))
        rel = [base.pronoun] + nl
        return _NP(_n("NP", base.tree, sbar), base.nl + rel, base.plural, base.het, rel, ends_rel=True)

    def f_t9(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        intr = rng.choice(self.lex.intransitive_verbs)

        def vp_of(plural: bool) -> tuple[str, list[str]]:
            return _n("VP", _l("VBP" if plural else "VBZ", intr.en(plural))), [intr.nl(plural)]

        subj = self._subject_relative(ctx, vp_of)
        obj = self._object(ctx, human=0.8)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj))

    def f_t10(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        inner = rng.choice(self.lex.transitive_verbs)
        pronoun = rng.choice(self.lex.pronouns)

        def vp_of(plural: bool) -> tuple[str, list[str]]:
            tree = _n("VP", _l("VBP" if plural else "VBZ", inner.en(plural)), _n("NP", _l("PRP", pronoun.en)))
            return tree, [pronoun.nl, inner.nl(plural)]

        subj = self._subject_relative(ctx, vp_of)
        obj = self._object(ctx, human=0.8)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj))

    def f_intransitive(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.2)
        verb = rng.choice(self.lex.intransitive_verbs)
        end_adverb = rng.choice(self.lex.adverbs) if rng.random() < 0.25 else None
        return _main(subj, self.iv(verb, subj.plural, end_adverb=end_adverb, time=self._time(ctx, p=0.3)))

    # ---------------------------------------------------------------- semi-natural-like frames

    def f_control(self, ctx: _Context) -> _Clause:
        """ "The N wants to V NP ." -> "De N wil NP V ." (and try/hope/have to, is going to)."""
        rng = ctx.rng
        subj = self.human(ctx, elite=0.2)
        controls = self.lex.control_verbs
        chain: list[ControlVerb | str] = ["going" if rng.random() < 0.2 else rng.choice(controls)]
        if rng.random() < 0.25:
            have = [c for c in controls if c.en_plural == "have"]
            tries = [c for c in controls if c.en_plural == "try"]
            if chain[0] == "going" and have:
                chain.append(have[0])
            elif chain[0] != "going" and chain[0].en_plural in ("want", "have") and tries:
                chain.append(tries[0])
        verb = rng.choice(self.object_verbs)
        if rng.random() < 0.5:
            obj = self.abstract(ctx, rng.choice((1, 2, 2)), "restrictive")
        else:
            obj = self.human(ctx, elite=0.6)
        vp_tree = _n("VP", _l("VB", verb.en_plural), obj.tree)
        for control in reversed(chain[1:]):
            vp_tree = _n("VP", _l("VB", control.en_plural), _n("S", _n("VP", _l("TO", "to"), vp_tree)))
        first = chain[0]
        tag = "VBP" if subj.plural else "VBZ"
        if first == "going":
            to_vp = _n("S", _n("VP", _l("TO", "to"), vp_tree))
            tree = _n("VP", _l(tag, "are" if subj.plural else "is"), _n("VP", _l("VBG", "going"), to_vp))
            fin, te = ("gaan" if subj.plural else "gaat"), False
        else:
            tree = _n("VP", _l(tag, first.en(subj.plural)), _n("S", _n("VP", _l("TO", "to"), vp_tree)))
            fin, te = first.nl(subj.plural), first.nl_te
        cluster: list[str] = []
        for control in chain[1:]:
            cluster += (["te"] if te else []) + [control.nl_plural]
            te = control.nl_te
        cluster += (["te"] if te else []) + [verb.nl_plural]
        return _main(subj, _VP(tree, fin, obj=obj, cluster=cluster))

    def f_v_np_pp(self, ctx: _Context) -> _Clause:
        """ "The N V NP PP ." e.g. "The mayor describes the plan for the city in the centre of the village ."."""
        rng = ctx.rng
        subj = self.human(ctx, elite=0.3)
        verb = rng.choice(self.object_verbs)
        obj = self.abstract(ctx, rng.choice((0, 1, 1)), "none")
        if rng.random() < 0.6:
            prep, inner = ("in", "in"), self.abstract(ctx, rng.choice((0, 1, 1)), "any", place=True)
        else:
            prep, inner = ("with", "met"), self.abstract(ctx, rng.choice((0, 1)), "any")
        pp_tree = _n("PP", _l("IN", prep[0]), inner.tree)
        tree = _n("VP", _l("VBP" if subj.plural else "VBZ", verb.en(subj.plural)), obj.tree, pp_tree)
        vp = _VP(tree, verb.nl(subj.plural), obj=obj, post=[prep[1]] + inner.nl)
        return _main(subj, vp)

    def f_abstract_subject(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.abstract(ctx, rng.choice((1, 1, 2)), "any")
        verb = rng.choice(self.lex.abstract_verbs)
        obj = (
            self.human(ctx, elite=0.5) if rng.random() < 0.6 else self.abstract(ctx, rng.choice((0, 1)), "restrictive")
        )
        return _main(subj, self.tv(verb, subj.plural, obj))

    def _about(self, ctx: _Context) -> _NP:
        return self.abstract(ctx, ctx.rng.choice((1, 2, 2, 3)), "any")

    @staticmethod
    def _article_about(about: _NP) -> _NP:
        head = _NP(_n("NP", _l("DT", "an"), _l("NN", "article")), ["een", "artikel"], False, True)
        tree = _n("NP", head.tree, _n("PP", _l("IN", "about"), about.tree))
        return _NP(
            tree, head.nl + ["over"] + about.nl, False, True, about.rel, about.ends_rel, about.ends_nonrestrictive
        )

    def f_reads_about(self, ctx: _Context, about: _NP | None = None) -> _Clause:
        subj = self.human(ctx, elite=0.2)
        about = about if about is not None else self._about(ctx)
        obj = self._article_about(about)
        tree = _n("VP", _l("VBP" if subj.plural else "VBZ", "read" if subj.plural else "reads"), obj.tree)
        return _main(subj, _VP(tree, "lezen" if subj.plural else "leest", obj=obj))

    def f_passive_about(self, ctx: _Context, about: _NP | None = None) -> _Clause:
        about = about if about is not None else self._about(ctx)
        subj = self._article_about(about)
        agent = self.human(ctx, elite=0.2)
        tree = _n("VP", _l("VBZ", "is"), _n("VP", _l("VBN", "read"), _n("PP", _l("IN", "by"), agent.tree)))
        vp = _VP(tree, "wordt", cluster=["gelezen"], extra=["door"] + agent.nl)
        subj_en = _NP(subj.tree, subj.nl, False, True, None, subj.ends_rel, subj.ends_nonrestrictive)
        return _main(subj_en, vp)

    def f_hear_about(self, ctx: _Context, about: _NP | None = None) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.2)
        about = about if about is not None else (self._about(ctx) if rng.random() < 0.8 else self.human(ctx, elite=0.6))
        tree = _n("VP", _l("VB", "hear"), _n("PP", _l("IN", "about"), about.tree))
        vp = _VP(tree, "hebben" if subj.plural else "heeft", cluster=["gehoord"], extra=["over"] + about.nl)
        return _question(subj, vp)

    def f_question_transitive(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.25)
        obj = self._object(ctx)
        return _question(subj, self.tv(rng.choice(self.object_verbs), subj.plural, obj, form="perfect"))

    def f_question_intransitive(self, ctx: _Context) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.25)
        verb = rng.choice(self.lex.intransitive_verbs)
        return _question(subj, self.iv(verb, subj.plural, form="perfect", time=self._time(ctx, p=0.3)))

    def f_copula(self, ctx: _Context, adjective=None) -> _Clause:
        """ "The car is blue ." -> "De auto is blauw ."."""
        rng = ctx.rng
        adjective = adjective or rng.choice(self.lex.adjectives)
        subj = self.vehicle(ctx, plural=rng.random() < 0.4)
        tag, be = ("VBP", "are") if subj.plural else ("VBZ", "is")
        tree = _n("VP", _l(tag, be), _n("ADJP", _l("JJ", adjective.en)))
        return _main(subj, _VP(tree, "zijn" if subj.plural else "is", pre=[adjective.nl_predicative]))

    # ---------------------------------------------------------------- literal keyword uses

    def _resolve_keyword(self, keyword: str) -> tuple[str, str, object]:
        for noun in self.lex.keyword_nouns:
            if keyword in (noun.en_singular, noun.en_plural):
                return keyword, "noun", noun
        for adjective in self.lex.adjectives:
            if keyword == adjective.en:
                return keyword, "adjective", adjective
        for adverbial in self.lex.adverbials:
            if keyword in adverbial.en.split():
                return keyword, "adverbial", adverbial
        for verb in self.lex.intransitive_verbs:
            if keyword == verb.en_plural:
                return keyword, "intransitive", verb
        raise ValueError(
            f"idiom keyword {keyword!r} has no literal use in the lexicon: add it to nouns_keywords.tsv, "
            "adjectives.tsv, adverbials.tsv or intransitive_verbs.tsv"
        )

    def _literal_noun(self, ctx: _Context, noun: Noun, keyword: str) -> _Clause:
        rng = ctx.rng
        plural = (keyword == noun.en_plural) if rng.random() < 0.8 else (keyword != noun.en_plural)
        kw = self.noun_np(noun, plural)
        roll = rng.random()
        if roll < 0.2:  # "This is the heart ." / "These are the eyes ."
            this = "these" if plural else "this"
            subj = _NP(_n("NP", _l("DT", this)), ["dit"], plural, True)
            tree = _n("VP", _l("VBP" if plural else "VBZ", "are" if plural else "is"), kw.tree)
            return _main(subj, _VP(tree, "zijn" if plural else "is", obj=kw))
        if roll < 0.35:
            return self.f_reads_about(ctx, about=kw)
        if roll < 0.45:
            subj = self.human(ctx, elite=0.25)
            return _question(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, kw, form="perfect"))
        if roll < 0.65:
            kw = self._pp(kw, "of", "van", self.noun_np(rng.choice(self.humans), rng.random() < 0.4))
        subj = self.human(ctx, elite=0.25)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, kw))

    def _literal_adjective(self, ctx: _Context, adjective, keyword: str) -> _Clause:
        rng = ctx.rng
        if rng.random() < 0.4:
            return self.f_copula(ctx, adjective)
        subj = self.human(ctx, elite=0.25)
        obj = self.noun_np(rng.choice(self.lex.vehicles), rng.random() < 0.3, adjective=adjective)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj))

    def _literal_adverbial(self, ctx: _Context, adverbial, keyword: str) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, elite=0.25)
        if rng.random() < 0.5:
            return _main(subj, self.iv(rng.choice(self.lex.intransitive_verbs), subj.plural, time=adverbial))
        obj = self.noun_np(rng.choice(self.humans), rng.random() < 0.4)
        return _main(subj, self.tv(rng.choice(self.lex.transitive_verbs), subj.plural, obj, time=adverbial))

    def _literal_intransitive(self, ctx: _Context, verb: Verb, keyword: str) -> _Clause:
        rng = ctx.rng
        subj = self.human(ctx, plural=True, elite=0.2)
        vp = self.iv(verb, True, time=self._time(ctx, p=0.2))
        if rng.random() < 0.5:
            return _main(subj, vp)
        outer = self.human(ctx, elite=0.2)
        stative = rng.choice(self.lex.stative_verbs)
        emb = _subordinate(subj, vp)
        tree = _n(
            "VP", _l("VBP" if outer.plural else "VBZ", stative.en(outer.plural)), _n("SBAR", _l("IN", "that"), emb.tree)
        )
        return _main(outer, _VP(tree, stative.nl(outer.plural), extra=["dat"] + emb.nl))


def _weighted(rng: random.Random, items: Sequence[tuple[str, float]]) -> str:
    total = sum(weight for _, weight in items)
    roll = rng.random() * total
    for name, weight in items:
        roll -= weight
        if roll < 0:
            return name
    return items[-1][0]


def _weighted_item(rng: random.Random, items: Sequence[tuple[str, float, Callable]]) -> tuple[str, Callable]:
    total = sum(item[1] for item in items)
    roll = rng.random() * total
    for name, weight, function in items:
        roll -= weight
        if roll < 0:
            return name, function
    return items[-1][0], items[-1][2]


# --------------------------------------------------------------------------------------
# corpus generation and release files


def generate_pairs(
    lexicon_dir: str | Path, synonyms_path: str | Path, idioms_path: str | Path, n: int, seed: int
) -> list[SentencePair]:
    """``n`` sentence pairs, deterministic for a given seed (duplicates possible)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    grammar = DemoGrammar.from_paths(lexicon_dir, synonyms_path, idioms_path)
    rng = random.Random(seed)
    return [grammar.sentence(rng) for _ in range(n)]


def split_heldout(
    pairs: Sequence[SentencePair], sizes: Sequence[int]
) -> tuple[list[SentencePair], list[list[SentencePair]]]:
    """Split ``pairs`` into (rest, [held-out set per size]).

    Held-out pairs are taken from the end of ``pairs`` and are pairs whose English and
    whose Dutch side each occur exactly once in ``pairs``; so no held-out sentence (on
    either side) is in ``rest`` or in another held-out set. ``rest`` keeps the order of
    ``pairs``; each held-out set is in corpus order too.
    """
    en_count = Counter(p.en for p in pairs)
    nl_count = Counter(p.nl for p in pairs)
    wanted = sum(sizes)
    chosen: list[int] = []
    for index in range(len(pairs) - 1, -1, -1):
        if len(chosen) == wanted:
            break
        pair = pairs[index]
        if en_count[pair.en] == 1 and nl_count[pair.nl] == 1:
            chosen.append(index)
    if len(chosen) < wanted:
        raise ValueError(
            f"only {len(chosen)} of {len(pairs)} pairs are unique, but {wanted} held-out pairs were requested"
        )
    chosen.reverse()
    taken = set(chosen)
    rest = [pair for index, pair in enumerate(pairs) if index not in taken]
    sets, start = [], 0
    for size in sizes:
        sets.append([pairs[index] for index in chosen[start : start + size]])
        start += size
    return rest, sets


def _lines(texts: Sequence[str]) -> bytes:
    for text in texts:
        if "\n" in text or "\r" in text:
            raise ValueError(f"line break inside a sentence: {text!r}")
    return "".join(text + "\n" for text in texts).encode("utf-8")


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def _write_tar(path: str | Path, members: Sequence[tuple[str, bytes]], compress: bool) -> None:
    """A tar with fixed metadata (mtime 0, uid/gid 0, mode 0644/0755), members in order,
    parent directories first; gzip-compressed with mtime 0 if ``compress``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        seen: set[str] = set()
        for name, data in members:
            parts = name.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                directory = "/".join(parts[:depth])
                if directory not in seen:
                    seen.add(directory)
                    tar.addfile(_tarinfo(directory + "/", 0, directory=True))
            tar.addfile(_tarinfo(name, len(data)), io.BytesIO(data))
    data = buffer.getvalue()
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(_gz(data) if compress else data)


def _tarinfo(name: str, size: int, directory: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = _TAR_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o755 if directory else 0o644
    info.type = tarfile.DIRTYPE if directory else tarfile.REGTYPE
    return info


_TATOEBA_README = """# Synthetic stand-in for the Tatoeba Challenge release {version}, {pair}

Generated by natcomp.mt.demo_corpus (corpus id {corpus}) from the bilingual demo grammar in
natcomp's resources/: {n_train} training pairs, {n_dev} dev pairs, {n_test} test pairs.
This is NOT Tatoeba / OPUS data. The layout follows the real release:
train.src.gz ({src}), train.trg.gz ({trg}), train.id.gz (corpus and language ids),
dev.src/dev.trg/dev.id and test.src/test.trg/test.id; one untokenised sentence per line.
No dev or test sentence (English or Dutch) occurs in the training data or twice in dev/test.
"""


def write_tatoeba_release(
    pairs: Sequence[SentencePair],
    tar_path: str | Path,
    n_dev: int,
    n_test: int,
    pair: str = "eng-nld",
    version: str = "v2020-07-28",
    trees_path: str | Path | None = None,
) -> None:
    """Write a Tatoeba-Challenge-style release tar of ``pairs``.

    dev and test are chosen by :func:`split_heldout` (unique pairs from the end of
    ``pairs``; dev before test in corpus order); the remaining pairs are the training
    set, in order. With ``trees_path``, the English trees of the training set are written
    there, one per line, line-aligned with ``train.src.gz``.
    """
    src, trg = pair.split("-")
    train, (dev, test) = split_heldout(pairs, [n_dev, n_test])
    base = f"data/release/{version}/{pair}/"
    readme = _TATOEBA_README.format(
        version=version,
        pair=pair,
        corpus=CORPUS_ID,
        n_train=len(train),
        n_dev=len(dev),
        n_test=len(test),
        src=src,
        trg=trg,
    )
    members = [
        (base + "README.md", readme.encode("utf-8")),
        (base + "train.src.gz", _gz(_lines([p.en for p in train]))),
        (base + "train.trg.gz", _gz(_lines([p.nl for p in train]))),
        (base + "train.id.gz", _gz(_lines([f"{CORPUS_ID}\t{src}\t{trg}"] * len(train)))),
    ]
    for name, subset in (("dev", dev), ("test", test)):
        members += [
            (base + f"{name}.src", _lines([p.en for p in subset])),
            (base + f"{name}.trg", _lines([p.nl for p in subset])),
            (base + f"{name}.id", _lines([f"{src}\t{trg}"] * len(subset))),
        ]
    if trees_path is not None:
        write_lines(trees_path, (p.tree for p in train))
    _write_tar(tar_path, members, compress=False)


def write_flores_release(pairs: Sequence[SentencePair], tar_path: str | Path, n_dev: int, n_devtest: int) -> None:
    """Write a FLORES-101-style ``.tar.gz`` with ``flores101_dataset/{dev,devtest}/{eng,nld}.*``.

    The first ``n_dev`` pairs are dev, the next ``n_devtest`` devtest; all must be unique
    (English and Dutch) and there must be exactly ``n_dev + n_devtest`` pairs.
    """
    if len(pairs) != n_dev + n_devtest:
        raise ValueError(f"expected {n_dev + n_devtest} pairs for FLORES dev+devtest, got {len(pairs)}")
    if len({p.en for p in pairs}) != len(pairs) or len({p.nl for p in pairs}) != len(pairs):
        raise ValueError("FLORES pairs must be unique on both sides")
    dev, devtest = pairs[:n_dev], pairs[n_dev:]
    readme = (
        "Synthetic stand-in for FLORES-101, generated by natcomp.mt.demo_corpus from the demo grammar.\n"
        "NOT the FLORES-101 data; same layout: dev/<lang>.dev and devtest/<lang>.devtest, line-aligned.\n"
    )
    members = [
        ("flores101_dataset/README", readme.encode("utf-8")),
        ("flores101_dataset/dev/eng.dev", _lines([p.en for p in dev])),
        ("flores101_dataset/dev/nld.dev", _lines([p.nl for p in dev])),
        ("flores101_dataset/devtest/eng.devtest", _lines([p.en for p in devtest])),
        ("flores101_dataset/devtest/nld.devtest", _lines([p.nl for p in devtest])),
    ]
    _write_tar(tar_path, members, compress=True)


def build_demo_data(
    lexicon_dir: str | Path,
    synonyms_path: str | Path,
    idioms_path: str | Path,
    n_train: int,
    n_dev: int,
    n_test: int,
    n_flores_dev: int,
    n_flores_devtest: int,
    seed: int,
    tatoeba_tar: str | Path,
    flores_tar: str | Path,
    treebank_path: str | Path,
) -> None:
    """Generate the demo corpus and write the Tatoeba tar, the FLORES tar.gz and the treebank.

    One pool of ``n_train + n_dev + n_test + n_flores_dev + n_flores_devtest`` pairs is
    generated; FLORES dev/devtest and then Tatoeba dev/test are taken from its unique pairs
    (:func:`split_heldout`), the rest (exactly ``n_train`` pairs, duplicates kept as in a
    real corpus) is the training set.
    """
    for name, value in (
        ("n_train", n_train),
        ("n_dev", n_dev),
        ("n_test", n_test),
        ("n_flores_dev", n_flores_dev),
        ("n_flores_devtest", n_flores_devtest),
    ):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, not {value}")
    total = n_train + n_dev + n_test + n_flores_dev + n_flores_devtest
    pool = generate_pairs(lexicon_dir, synonyms_path, idioms_path, total, seed)
    rest, (flores,) = split_heldout(pool, [n_flores_dev + n_flores_devtest])
    write_flores_release(flores, flores_tar, n_flores_dev, n_flores_devtest)
    write_tatoeba_release(rest, tatoeba_tar, n_dev, n_test, trees_path=treebank_path)
