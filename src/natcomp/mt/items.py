"""Test items of the MT compositionality tests and the natural data they use.

Dankers, Bruni & Hupkes (2022) test three properties of NMT models with pairs (or single
inputs) of English sentences, from synthetic (:mod:`natcomp.mt.templates`),
semi-natural and natural data; this module builds the English sides. Every sentence is
untokenised like the training corpus; all randomness comes from ``random.Random`` with
seeds derived from the ``seed`` argument, so equal arguments give equal output.

Systematicity, S -> NP VP (paper §4.1, anchor §2.4), :func:`np_vp_items`
    ``np_prime``: the subject's people noun (template 5: the plural noun of "The group of
    N"; semi-natural: the subject or the "by the N" agent) is replaced by a different
    people or elite noun of the same number, so the verb still agrees. ``vp_prime``
    (synthetic only): the noun in the VP, the elite object or in templates 6-8 the
    embedded subject, is replaced by a different people or elite noun of the same
    number. The two sources differ in exactly one token. The same base sentences are
    used for both conditions (item k of each condition shares ``source_a``, as the
    original's single ``_np.en`` file).

Systematicity, S -> S CONJ S, :func:`s_conj_items`
    ``S1 , and s2``: S1 is a synthetic sentence without its final period, s2 the
    second conjunct (synthetic, semi-natural or natural) with its first character
    lowercased (nothing else: the original did exactly this). ``s1_prime`` replaces the
    noun in S1's VP (§4.1: "changing the noun in its verb phrase"); ``s3`` replaces S1 by
    a sentence of another template than S1's. Within an item both conditions share S1
    and s2; s2 is byte-identical in all sources of an item. How S1, the new noun and S3
    are drawn is ``sampling`` (:data:`~natcomp.mt.templates.SYNTHETIC_SAMPLING`, config
    ``mt.tests.synthetic_sampling``):

    ``paper`` (this project's reading of the text; the default)
        S1's template is drawn uniformly among the templates other than the second
        conjunct's number (the paper: S1 and S2 "from different templates"), then a
        sentence of it. The new VP noun is of the other category (elite <-> people, same
        number). S3's template is drawn uniformly among those other than S1's and S2's.
    ``released`` (the original study's released items)
        S1 is drawn uniformly among all first-conjunct sentences of other templates than
        a synthetic second conjunct's (a semi-natural or natural second conjunct's number
        names no synthetic template, and the released S1 come from every template there);
        a template's share is thus proportional to its sentences (template 1 has 1960, the
        others 3000 at paper scale). The new VP noun is any other people or elite noun of
        the same number, as in VP -> VP' (the released S1' keep the noun's category in 38%
        of the items: of the about 25 alternatives, 6 are elite for an elite object and 19
        are people for the people noun of templates 6-8). S3 is drawn uniformly among the
        sentences of other templates than S1's, so it may share S2's template (565 of the
        5,000 released synthetic items; about 1/9 expected).

Substitutivity (§4.2, Table 5), :func:`substitutivity_items`
    The pair's clause (``clause_singular`` / ``clause_plural`` of ``synonyms.tsv`` by the
    number of the noun) follows a person noun: the elite object in templates 1-5, 9, 10,
    the subject in templates 6-8 (anchor §2.4), the subject / agent for other data types.
    ``source_a`` has the British term, ``source_b`` the American one; nothing else differs.

Overgeneralisation (§4.3, Table 7), :func:`overgeneralisation_items`
    ``that said " CLAUSE "`` (for both numbers) on the same noun as the synonym clause; the
    clause tokens are the leaves of the idiom's tree, as in the demo corpus.
    :func:`random_word_items`: the bare idiom between five random nouns before and five
    after it (appendix D: "embedding the idiom in a string of ten random nouns"). The bare
    idiom rather than its clause, because the point is a context that gives no support for
    an idiomatic reading, and appendix D's local translations are of the idiom alone. The
    nouns come from the people, elite, vehicle, group and abstract lists (singular or
    plural, all different); the literal keyword nouns and every noun whose English is a
    keyword of any idiom or whose Dutch contains a Dutch keyword of this idiom are left
    out, so the context cannot produce a keyword by itself. No capital, no period: it is a
    string of words, not a sentence.

Natural data from the raw training corpus (``train.en`` / ``train.nl``, untokenised,
line-aligned), streamed, never held in memory:

* :func:`natural_substitutivity`: lines whose English contains a term of a pair as a whole
  word (case-insensitive; letters, digits, ``_`` and ``-`` never touch the match, so
  "holidays" and "holiday-maker" do not count, but "holiday's" does). All occurrences of
  both spellings are set to the British term for ``source_a`` and to the American one for
  ``source_b``, keeping the case of the first letter (and all caps); the Dutch line is the
  reference.
* :func:`natural_overgeneralisation`: lines containing the idiom as a whole-word,
  case-insensitive phrase (any whitespace between its words; "state-of-the-art" with
  hyphens does not count, like the original's exact substring match).

  Both keep at most ``max_per_pair`` / ``max_per_idiom`` distinct English sentences per
  pair / idiom by reservoir sampling (one seeded generator per pair / idiom), in corpus
  order. Lines with a tab, or empty on either side, are skipped; sentences are stripped.
* :func:`natural_conjuncts`: second conjuncts for S -> S CONJ S. Tokens are found with a
  simple regular expression (``\\w+`` or one punctuation character, lowercased): Moses
  on 69M lines would take hours and the statistics only have to be comparable between
  reference and natural sentences. Length counts all tokens (punctuation included, like a
  tokenised length); the word log-frequency is ``ln(count + 1)`` averaged over the tokens
  with a letter or digit, counts from the corpus English. Candidates: one sentence
  (starts with a capital, ends with a single ``.``, no ``?``/``!``/``;``, no ``. `` inside),
  no " and " (so the Dutch conjunction is the first " en " after S1), none of
  ``exclude_phrases`` (pass the synonym terms and idioms), not in ``exclude_sentences`` or
  the reference sets, length within 2 of the reference lengths, no tab. Two streaming
  passes with bounded memory: the first reservoir-samples up to ``pool_size`` candidates,
  the second counts corpus frequencies of the words of the candidates and references
  only. Then, for each template, a sample of its reference sentences is matched one by one
  to the unused candidate of the nearest length (exact first) and, within that length, the
  nearest mean log-frequency; a sentence is used once over all templates.

Item files (:func:`write_items`; read by :func:`natcomp.mt.scoring.read_items`) are TSVs with a header; ``item`` is a
0-based running index per file (rewritten by :func:`write_items`).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import logging
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import iter_lines
from natcomp.mt.lexicon import Idiom, Lexicon, Noun, SynonymPair, tree_leaves
from natcomp.mt.templates import NounSlot, SyntheticSentence, check_sampling
from natcomp.text import detokenize, unescape_bracket
from natcomp.tsv import write_tsv

__all__ = [
    "CONJUNCTION",
    "NATURAL_SUBSTITUTIVITY_COLUMNS",
    "NP_VP_COLUMNS",
    "NP_VP_CONDITIONS",
    "OVERGENERALISATION_COLUMNS",
    "S_CONJ_COLUMNS",
    "S_CONJ_CONDITIONS",
    "SUBSTITUTIVITY_COLUMNS",
    "LENGTH_SLACK",
    "NP_ROLES",
    "RANDOM_WORDS_EACH_SIDE",
    "VP_ROLES",
    "clause_host",
    "conjoin",
    "conjuncts",
    "idiom_clause_tokens",
    "natural_conjuncts",
    "natural_overgeneralisation",
    "natural_substitutivity",
    "np_vp_items",
    "overgeneralisation_items",
    "random_word_items",
    "random_word_pool",
    "s_conj_items",
    "simple_tokens",
    "substitutivity_items",
    "swap_term",
    "write_items",
]

_LOG = logging.getLogger(__name__)

NP_VP_COLUMNS = ("item", "template", "condition", "source_a", "source_b")
S_CONJ_COLUMNS = NP_VP_COLUMNS
SUBSTITUTIVITY_COLUMNS = ("item", "template", "pair", "source_a", "source_b")
NATURAL_SUBSTITUTIVITY_COLUMNS = SUBSTITUTIVITY_COLUMNS + ("reference",)
OVERGENERALISATION_COLUMNS = ("item", "template", "idiom", "source", "reference")

NP_VP_CONDITIONS = ("np_prime", "vp_prime")
S_CONJ_CONDITIONS = ("s1_prime", "s3")
#: what joins S1 (its final period made a comma) and s2 in an S -> S CONJ S source
CONJUNCTION = ", and "

#: roles of the noun replaced by np_prime, in order of preference
NP_ROLES = ("subject", "members", "agent")
#: roles of the noun in the VP (vp_prime, s1_prime)
VP_ROLES = ("object", "embedded_subject")
#: synthetic templates whose clause goes on the subject instead of the elite object
_SUBJECT_CLAUSE_TEMPLATES = (6, 7, 8)
#: natural-data template number
NATURAL_TEMPLATE = 0
#: number of random nouns on each side of the idiom in random_word_items
RANDOM_WORDS_EACH_SIDE = 5
LENGTH_SLACK = 2

Row = dict[str, object]


def _rng(seed: int, *parts: object) -> random.Random:
    """A generator for one purpose: equal seed and parts give equal draws."""
    return random.Random("/".join(str(p) for p in (seed,) + parts))


def _sample(items: Sequence, n: int, rng: random.Random, what: str) -> list:
    """``n`` items without replacement (all of them, shuffled, if there are fewer; logged)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    if n > len(items):
        _LOG.info("only %d %s for %d requested items; using all of them", len(items), what, n)
        chosen = list(items)
        rng.shuffle(chosen)
        return chosen
    return rng.sample(list(items), n)


def _of_template(sentences: Iterable[SyntheticSentence], template: int) -> list[SyntheticSentence]:
    chosen = [s for s in sentences if s.template == template]
    if not chosen:
        raise ValueError(f"no sentences of template {template} given")
    return chosen


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _people_and_elite(lexicon: Lexicon) -> list[tuple[Noun, str]]:
    return [(noun, "people") for noun in lexicon.people] + [(noun, "elite") for noun in lexicon.elite]


def _replace_noun(
    sentence: SyntheticSentence,
    slot: NounSlot,
    candidates: Sequence[tuple[Noun, str]],
    rng: random.Random,
) -> SyntheticSentence:
    """Replace the noun of ``slot`` by a random candidate (same number) that is not yet a
    noun of the sentence."""
    present = sentence.noun_words()
    options = [(noun, category) for noun, category in candidates if noun.en(slot.plural) not in present]
    if not options:
        raise ValueError(f"no replacement noun left for {sentence.text!r}")
    noun, category = rng.choice(options)
    return sentence.with_noun(slot, noun.en(slot.plural), category)


# --------------------------------------------------------------------------------------
# systematicity


def np_vp_items(
    sentences: Sequence[SyntheticSentence],
    template: int,
    n: int,
    seed: int,
    *,
    lexicon: Lexicon,
    conditions: Sequence[str] = NP_VP_CONDITIONS,
) -> list[Row]:
    """S -> NP VP items (:data:`NP_VP_COLUMNS`): ``n`` per condition, built on the same ``n``
    base sentences of ``template``. Use ``conditions=("np_prime",)`` for semi-natural data."""
    unknown = [c for c in conditions if c not in NP_VP_CONDITIONS]
    if unknown:
        raise ValueError(f"unknown condition(s) {unknown}; expected some of {NP_VP_CONDITIONS}")
    rng = _rng(seed, "np_vp", template)
    bases = _sample(_of_template(sentences, template), n, rng, f"template {template} sentences")
    candidates = _people_and_elite(lexicon)
    rows: list[Row] = []
    for condition in conditions:
        roles = NP_ROLES if condition == "np_prime" else VP_ROLES
        for base in bases:
            changed = _replace_noun(base, base.first_slot(roles), candidates, rng)
            rows.append(_row(NP_VP_COLUMNS, len(rows), template, condition, base.text, changed.text))
    return rows


def conjoin(first: SyntheticSentence, second: str) -> str:
    """``S1 , and s2`` untokenised: S1 without its final period, s2 with a lowercase first
    character (``The poet sees the king, and the man sleeps.``)."""
    if not first.tokens or first.tokens[-1] != ".":
        raise ValueError(f"first conjunct {first.text!r} does not end with a period")
    second = second.strip()
    if not second:
        raise ValueError("empty second conjunct")
    return detokenize(first.tokens[:-1]) + CONJUNCTION + _lower_first(second)


def conjuncts(source: str) -> list[str]:
    """The sentences an S -> S CONJ S source may be conjoined from (:func:`conjoin`): the
    text before and the text after each :data:`CONJUNCTION` in it (none when it has none).
    Every split is given, since a second conjunct may hold the conjunction too."""
    pieces = source.split(CONJUNCTION)
    splits = range(1, len(pieces))
    return [CONJUNCTION.join(pieces[:i]) for i in splits] + [CONJUNCTION.join(pieces[i:]) for i in splits]


def _category_swap(lexicon: Lexicon, category: str) -> list[tuple[Noun, str]]:
    if category == "elite":
        return [(noun, "people") for noun in lexicon.people]
    if category == "people":
        return [(noun, "elite") for noun in lexicon.elite]
    raise ValueError(f"the VP noun must be a people or elite noun, not {category}")


def s_conj_items(
    first_conjuncts: Sequence[SyntheticSentence],
    second_conjuncts: Sequence[str],
    template: int,
    n: int,
    seed: int,
    *,
    lexicon: Lexicon,
    sampling: str = "paper",
    second_data_type: str = "synthetic",
) -> list[Row]:
    """S -> S CONJ S items (:data:`S_CONJ_COLUMNS`) for the second conjuncts of ``template``:
    ``n`` items per condition (fewer if there are fewer second conjuncts). ``sampling``:
    see the module docstring; ``second_data_type`` (the second conjuncts' data type) only
    matters for ``released``."""
    check_sampling(sampling)
    rng = _rng(seed, "s_conj", template)
    by_template: dict[int, list[SyntheticSentence]] = {}
    for sentence in first_conjuncts:
        by_template.setdefault(sentence.template, []).append(sentence)
    if sampling == "released":
        draw = _released_s_conj_draw(by_template, template, second_data_type, lexicon)
    else:
        draw = _paper_s_conj_draw(by_template, template, lexicon)
    seconds = _sample(second_conjuncts, n, rng, f"template {template} second conjuncts")
    items = []
    for second in seconds:
        s1, s1_prime, s3 = draw(rng)
        items.append({"s1": s1, "s1_prime": s1_prime, "s3": s3, "s2": second})
    rows: list[Row] = []
    for condition in S_CONJ_CONDITIONS:
        for item in items:
            source_a = conjoin(item["s1"], item["s2"])
            source_b = conjoin(item[condition], item["s2"])
            rows.append(_row(S_CONJ_COLUMNS, len(rows), template, condition, source_a, source_b))
    return rows


_ConjunctDraw = Callable[[random.Random], tuple[SyntheticSentence, SyntheticSentence, SyntheticSentence]]


def _paper_s_conj_draw(
    by_template: Mapping[int, Sequence[SyntheticSentence]], template: int, lexicon: Lexicon
) -> _ConjunctDraw:
    """``(S1, S1', S3)`` draws of ``sampling="paper"``: templates first, S1' across categories."""
    allowed = sorted(t for t in by_template if t != template)
    if len(allowed) < 2:
        raise ValueError(
            f"first conjuncts from at least two templates other than {template} are needed, "
            f"got templates {sorted(by_template)}"
        )

    def draw(rng: random.Random) -> tuple[SyntheticSentence, SyntheticSentence, SyntheticSentence]:
        t1 = rng.choice(allowed)
        s1 = rng.choice(by_template[t1])
        slot = s1.first_slot(VP_ROLES)
        s1_prime = _replace_noun(s1, slot, _category_swap(lexicon, slot.category), rng)
        s3 = rng.choice(by_template[rng.choice([t for t in allowed if t != t1])])
        return s1, s1_prime, s3

    return draw


def _released_s_conj_draw(
    by_template: Mapping[int, Sequence[SyntheticSentence]], template: int, second_data_type: str, lexicon: Lexicon
) -> _ConjunctDraw:
    """``(S1, S1', S3)`` draws of ``sampling="released"``: sentences pooled over templates,
    S1' from all people and elite nouns."""
    excluded = template if second_data_type == "synthetic" else None
    templates = sorted(by_template)
    if len(templates) < 2:
        raise ValueError(f"first conjuncts from at least two templates are needed, got templates {templates}")
    # pools[u]: the sentences of every template but u, in template order
    pools = {u: [s for t in templates if t != u for s in by_template[t]] for u in templates}
    first_pool = pools[excluded] if excluded in pools else [s for t in templates for s in by_template[t]]
    candidates = _people_and_elite(lexicon)

    def draw(rng: random.Random) -> tuple[SyntheticSentence, SyntheticSentence, SyntheticSentence]:
        s1 = rng.choice(first_pool)
        s1_prime = _replace_noun(s1, s1.first_slot(VP_ROLES), candidates, rng)
        s3 = rng.choice(pools[s1.template])
        return s1, s1_prime, s3

    return draw


# --------------------------------------------------------------------------------------
# substitutivity and overgeneralisation in template sentences


def clause_host(sentence: SyntheticSentence) -> NounSlot:
    """The person noun a synonym or idiom clause follows: the elite object in synthetic
    templates 1-5, 9 and 10, the subject in 6-8; the subject or agent in other data types."""
    if sentence.data_type == "synthetic" and sentence.template not in _SUBJECT_CLAUSE_TEMPLATES:
        return sentence.first_slot(("object",))
    return sentence.first_slot(("subject", "agent"))


def _with_clause(sentence: SyntheticSentence, clause: Sequence[str]) -> str:
    return sentence.with_tokens_after(clause_host(sentence).position, clause).text


def _check_index(name: str, index: int, size: int) -> None:
    if not 0 <= index < size:
        raise ValueError(f"{name} must be in 0..{size - 1}, not {index}")


def substitutivity_items(
    sentences: Sequence[SyntheticSentence],
    synonyms: Sequence[SynonymPair],
    template: int,
    pair_index: int,
    n: int,
    seed: int,
) -> list[Row]:
    """Substitutivity items (:data:`SUBSTITUTIVITY_COLUMNS`) of synonym pair ``pair_index``."""
    _check_index("pair_index", pair_index, len(synonyms))
    pair = synonyms[pair_index]
    rng = _rng(seed, "substitutivity", template, pair_index)
    rows: list[Row] = []
    for base in _sample(_of_template(sentences, template), n, rng, f"template {template} sentences"):
        plural = clause_host(base).plural
        british = _with_clause(base, pair.clause("british", plural).split())
        american = _with_clause(base, pair.clause("american", plural).split())
        rows.append(_row(SUBSTITUTIVITY_COLUMNS, len(rows), template, pair.name, british, american))
    return rows


def idiom_clause_tokens(idiom: Idiom) -> list[str]:
    """``that said " <clause tokens> "``."""
    return ["that", "said", '"'] + [unescape_bracket(t) for t in tree_leaves(idiom.clause_tree)] + ['"']


def overgeneralisation_items(
    sentences: Sequence[SyntheticSentence],
    idioms: Sequence[Idiom],
    template: int,
    idiom_index: int,
    n: int,
    seed: int,
) -> list[Row]:
    """Overgeneralisation items (:data:`OVERGENERALISATION_COLUMNS`, empty reference)."""
    _check_index("idiom_index", idiom_index, len(idioms))
    clause = idiom_clause_tokens(idioms[idiom_index])
    rng = _rng(seed, "overgeneralisation", template, idiom_index)
    rows: list[Row] = []
    for base in _sample(_of_template(sentences, template), n, rng, f"template {template} sentences"):
        rows.append(
            _row(
                OVERGENERALISATION_COLUMNS,
                len(rows),
                template,
                idioms[idiom_index].idiom,
                _with_clause(base, clause),
                "",
            )
        )
    return rows


def random_word_pool(idioms: Sequence[Idiom], lexicon: Lexicon, idiom_index: int) -> list[Noun]:
    """The nouns :func:`random_word_items` draws from for idiom ``idiom_index``."""
    idiom = idioms[idiom_index]
    english_keywords = {k.lower() for i in idioms for k in i.english_keywords}
    english_keywords |= {w.lower() for w in idiom.idiom.split()}
    nouns = lexicon.people + lexicon.elite + lexicon.vehicles + lexicon.groups + lexicon.abstract_nouns
    pool = []
    for noun in nouns:
        forms = (noun.en_singular, noun.en_plural)
        if any(" " in f or f.lower() in english_keywords for f in forms):
            continue
        if idiom.has_keyword(noun.nl_singular) or idiom.has_keyword(noun.nl_plural):
            continue
        pool.append(noun)
    return pool


def random_word_items(idioms: Sequence[Idiom], lexicon: Lexicon, idiom_index: int, n: int, seed: int) -> list[Row]:
    """``n`` distinct strings ``w1 .. w5 IDIOM w6 .. w10`` of ten different random nouns,
    each singular or plural (template 0, empty reference)."""
    _check_index("idiom_index", idiom_index, len(idioms))
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    pool = random_word_pool(idioms, lexicon, idiom_index)
    k = RANDOM_WORDS_EACH_SIDE
    if len(pool) < 2 * k:
        raise ValueError(f"only {len(pool)} eligible nouns for the random-word context; need {2 * k}")
    idiom = idioms[idiom_index].idiom
    rng = _rng(seed, "random_words", idiom_index)
    sources: list[str] = []
    seen: set[str] = set()
    for _ in range(100 * n):
        if len(sources) == n:
            break
        words = [noun.en(rng.random() < 0.5) for noun in rng.sample(pool, 2 * k)]
        source = " ".join(words[:k] + [idiom] + words[k:])
        if source not in seen:
            seen.add(source)
            sources.append(source)
    return [
        _row(OVERGENERALISATION_COLUMNS, i, NATURAL_TEMPLATE, idiom, source, "") for i, source in enumerate(sources)
    ]


def _row(columns: Sequence[str], *values: object) -> Row:
    return dict(zip(columns, values, strict=True))


# --------------------------------------------------------------------------------------
# natural data


def _parallel_lines(train_en: str | Path, train_nl: str | Path) -> Iterator[tuple[int, str, str]]:
    """``(line number, English, Dutch)``, stripped; misaligned files raise InputError."""
    english = iter_lines(train_en, allow_empty=True)
    dutch = iter_lines(train_nl, allow_empty=True)
    for number, (en, nl) in enumerate(itertools.zip_longest(english, dutch), start=1):
        if en is None or nl is None:
            short, other = (train_en, train_nl) if en is None else (train_nl, train_en)
            raise InputError(
                short,
                f"has {number - 1} lines but its parallel file {other} has more; "
                "expected line-aligned files with the same number of lines",
                number,
            )
        yield number, en.strip(), nl.strip()


def _usable(*texts: str) -> bool:
    return all(text and "\t" not in text for text in texts)


def _phrase_alternatives(phrases: Iterable[str]) -> str:
    """A regex alternation of the phrases, longest first, any whitespace between words."""
    alternatives = sorted({p.strip() for p in phrases if p.strip()}, key=lambda p: (-len(p), p))
    if not alternatives:
        return r"(?!x)x"  # matches nothing
    return "|".join(r"\s+".join(re.escape(word) for word in phrase.split()) for phrase in alternatives)


def _phrase_regex(phrases: Iterable[str]) -> re.Pattern[str]:
    """Whole-word, case-insensitive matches of any phrase, overlapping ones included
    (``findall`` gives the matched texts); no letter, digit, ``_`` or ``-`` may touch a match."""
    return re.compile(r"(?<![\w-])(?=(" + _phrase_alternatives(phrases) + r")(?![\w-]))", re.IGNORECASE)


def _normalise_phrase(text: str) -> str:
    return " ".join(text.lower().split())


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()


class _Reservoir:
    """Deterministic reservoir sample (algorithm R) of distinct sentences."""

    def __init__(self, size: int, rng: random.Random):
        self.size = size
        self.rng = rng
        self.items: list[tuple[int, str, str]] = []
        self.seen: set[bytes] = set()
        self.count = 0

    def offer(self, item: tuple[int, str, str]) -> None:
        key = _digest(item[1])
        if key in self.seen:
            return
        self.seen.add(key)
        if len(self.items) < self.size:
            self.items.append(item)
        else:
            slot = self.rng.randrange(self.count + 1)
            if slot < self.size:
                self.items[slot] = item
        self.count += 1

    def in_corpus_order(self) -> list[tuple[int, str, str]]:
        return sorted(self.items)


def _reservoir_extract(
    train_en: str | Path,
    train_nl: str | Path,
    phrases: Mapping[str, int],
    n_keys: int,
    size: int,
    seed: int,
    purpose: str,
) -> list[list[tuple[int, str, str]]]:
    """Per key, up to ``size`` distinct lines whose English contains one of the key's
    phrases (``phrases``: normalised phrase -> key)."""
    if size < 0:
        raise ValueError(f"the maximum per {purpose} must be >= 0, not {size}")
    regex = _phrase_regex(phrases)
    reservoirs = [_Reservoir(size, _rng(seed, purpose, key)) for key in range(n_keys)]
    for number, en, nl in _parallel_lines(train_en, train_nl):
        if not _usable(en, nl):
            continue
        keys = {phrases[_normalise_phrase(m)] for m in regex.findall(en)}
        for key in sorted(keys):
            reservoirs[key].offer((number, en, nl))
    for key, reservoir in enumerate(reservoirs):
        _LOG.info("%s %d: %d distinct matching sentences, %d kept", purpose, key, reservoir.count, len(reservoir.items))
    return [r.in_corpus_order() for r in reservoirs]


def _match_case(word: str, model: str) -> str:
    """``word`` with the case of ``model``: all caps, or the first letter's case."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def swap_term(text: str, pair: SynonymPair, spelling: str) -> str:
    """Every whole-word occurrence of either spelling of ``pair`` set to ``spelling``."""
    target = pair.term(spelling)
    alternatives = _phrase_alternatives([pair.british, pair.american])
    regex = re.compile(r"(?<![\w-])(?:" + alternatives + r")(?![\w-])", re.IGNORECASE)
    return regex.sub(lambda m: _match_case(target, m.group(0)), text)


def natural_substitutivity(
    train_en: str | Path,
    train_nl: str | Path,
    synonyms: Sequence[SynonymPair],
    max_per_pair: int,
    seed: int,
) -> list[Row]:
    """Natural substitutivity items (:data:`NATURAL_SUBSTITUTIVITY_COLUMNS`), one pass."""
    phrases: dict[str, int] = {}
    for k, pair in enumerate(synonyms):
        for term in (pair.british, pair.american):
            phrases[_normalise_phrase(term)] = k
    found = _reservoir_extract(train_en, train_nl, phrases, len(synonyms), max_per_pair, seed, "synonym pair")
    rows: list[Row] = []
    for k, lines in enumerate(found):
        for _, en, nl in lines:
            british, american = swap_term(en, synonyms[k], "british"), swap_term(en, synonyms[k], "american")
            rows.append(
                _row(
                    NATURAL_SUBSTITUTIVITY_COLUMNS, len(rows), NATURAL_TEMPLATE, synonyms[k].name, british, american, nl
                )
            )
    return rows


def natural_overgeneralisation(
    train_en: str | Path,
    train_nl: str | Path,
    idioms: Sequence[Idiom],
    max_per_idiom: int,
    seed: int,
) -> list[Row]:
    """Natural overgeneralisation items (:data:`OVERGENERALISATION_COLUMNS`), one pass."""
    phrases = {_normalise_phrase(idiom.idiom): i for i, idiom in enumerate(idioms)}
    found = _reservoir_extract(train_en, train_nl, phrases, len(idioms), max_per_idiom, seed, "idiom")
    rows: list[Row] = []
    for i, lines in enumerate(found):
        for _, en, nl in lines:
            rows.append(_row(OVERGENERALISATION_COLUMNS, len(rows), NATURAL_TEMPLATE, idioms[i].idiom, en, nl))
    return rows


# --------------------------------------------------------------------------------------
# natural second conjuncts

_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w")
_INNER_BOUNDARY = re.compile(r"[.!?;]\s|[?!;]")
_AND = re.compile(r"\band\b", re.IGNORECASE)


def simple_tokens(text: str) -> list[str]:
    """Lowercased tokens: runs of word characters or single punctuation characters."""
    return _TOKEN.findall(text.lower())


def _is_conjunct_candidate(text: str, excluded: re.Pattern[str]) -> bool:
    return (
        "\t" not in text
        and text[:1].isupper()
        and text.endswith(".")
        and not text.endswith("..")
        and not _INNER_BOUNDARY.search(text[:-1])
        and not _AND.search(text)
        and not excluded.search(text)
    )


def _mean_log_frequency(tokens: Sequence[str], counts: Mapping[str, int]) -> float:
    words = [t for t in tokens if _WORD.search(t)]
    if not words:
        return 0.0
    return sum(math.log(counts.get(w, 0) + 1) for w in words) / len(words)


def _candidate_pool(
    train_en: str | Path,
    lengths: tuple[int, int],
    excluded: re.Pattern[str],
    excluded_sentences: Collection[str],
    pool_size: int,
    rng: random.Random,
) -> list[tuple[int, str, list[str]]]:
    """Pass 1: reservoir sample of candidate sentences ``(line, text, tokens)``, distinct."""
    low, high = lengths
    pool: list[tuple[int, str]] = []
    count = 0
    for number, line in enumerate(iter_lines(train_en, allow_empty=True), start=1):
        text = line.strip()
        if not _is_conjunct_candidate(text, excluded) or text in excluded_sentences:
            continue
        if not low <= len(simple_tokens(text)) <= high:
            continue
        if len(pool) < pool_size:
            pool.append((number, text))
        else:
            slot = rng.randrange(count + 1)
            if slot < pool_size:
                pool[slot] = (number, text)
        count += 1
    distinct: dict[str, int] = {}
    for number, text in sorted(pool):
        distinct.setdefault(text, number)
    _LOG.info("natural conjuncts: %d candidate lines, %d distinct in the pool", count, len(distinct))
    return [(number, text, simple_tokens(text)) for text, number in distinct.items()]


def _count_words(train_en: str | Path, vocabulary: set[str], chunk: int = 50_000) -> Counter:
    """Pass 2: corpus counts of the words in ``vocabulary`` (counted per chunk, pruned)."""
    counts: Counter = Counter()
    lines = iter_lines(train_en, allow_empty=True)
    while batch := list(itertools.islice(lines, chunk)):
        partial = Counter(_TOKEN.findall("\n".join(batch).lower()))
        for word, value in partial.items():
            if word in vocabulary:
                counts[word] += value
    return counts


class _ByLength:
    """Unused candidates per length, sorted by mean log-frequency (then corpus line)."""

    def __init__(self, candidates: Iterable[tuple[int, float, int, str]]):
        self.buckets: dict[int, list[tuple[float, int, str]]] = {}
        for length, frequency, number, text in candidates:
            self.buckets.setdefault(length, []).append((frequency, number, text))
        for bucket in self.buckets.values():
            bucket.sort()

    def take_nearest(self, length: int, frequency: float, slack: int) -> str | None:
        for distance in range(slack + 1):
            best = None
            for size in sorted({length - distance, length + distance}):
                bucket = self.buckets.get(size)
                if not bucket:
                    continue
                at = bisect.bisect_left(bucket, (frequency,))
                for index in (at - 1, at):
                    if 0 <= index < len(bucket):
                        key = (abs(bucket[index][0] - frequency), bucket[index][1])
                        if best is None or key < best[0]:
                            best = (key, size, index)
            if best is not None:
                _, size, index = best
                return self.buckets[size].pop(index)[2]
        return None


def natural_conjuncts(
    train_en: str | Path,
    reference_sentences: Mapping[int, Sequence[str]],
    n: int,
    seed: int,
    *,
    exclude_phrases: Iterable[str] = (),
    exclude_sentences: Collection[str] = (),
    pool_size: int = 200_000,
) -> dict[int, list[str]]:
    """For each template, ``n`` natural sentences matched in length and word frequency to
    that template's reference sentences (fewer if the corpus runs out; logged)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    references = {t: [simple_tokens(s) for s in sentences] for t, sentences in reference_sentences.items()}
    lengths = [len(tokens) for all_tokens in references.values() for tokens in all_tokens]
    if not lengths:
        return {t: [] for t in reference_sentences}
    bounds = (max(1, min(lengths) - LENGTH_SLACK), max(lengths) + LENGTH_SLACK)
    excluded_texts = set(exclude_sentences) | {s.strip() for ss in reference_sentences.values() for s in ss}
    pool = _candidate_pool(
        train_en, bounds, _phrase_regex(exclude_phrases), excluded_texts, pool_size, _rng(seed, "conjunct_pool")
    )
    vocabulary = {t for _, _, tokens in pool for t in tokens} | {
        t for ts in references.values() for tok in ts for t in tok
    }
    counts = _count_words(train_en, vocabulary)
    candidates = _ByLength(
        (len(tokens), _mean_log_frequency(tokens, counts), number, text) for number, text, tokens in pool
    )
    chosen: dict[int, list[str]] = {}
    for template in sorted(references):
        rng = _rng(seed, "conjuncts", template)
        targets = _cycled_sample(references[template], n, rng)
        picked = []
        for tokens in targets:
            text = candidates.take_nearest(len(tokens), _mean_log_frequency(tokens, counts), LENGTH_SLACK)
            if text is None:
                _LOG.info("natural conjuncts: candidates ran out for template %d after %d", template, len(picked))
                break
            picked.append(text)
        chosen[template] = picked
    return chosen


def _cycled_sample(items: Sequence, n: int, rng: random.Random) -> list:
    """``n`` items: a random order of all items, repeated (reshuffled) as often as needed."""
    if not items:
        return []
    out: list = []
    while len(out) < n:
        order = list(items)
        rng.shuffle(order)
        out.extend(order[: n - len(out)])
    return out


# --------------------------------------------------------------------------------------
# item files


def write_items(rows: Iterable[Mapping[str, object]], path: str | Path, columns: Sequence[str] | None = None) -> int:
    """Write ``rows`` as a TSV with a header, atomically; ``item`` becomes the running
    index 0, 1, ... Columns: ``columns`` or the keys of the first row. Returns the count."""
    rows = list(rows)
    if columns is None:
        if not rows:
            raise ValueError("no rows and no columns given: cannot write a header")
        columns = tuple(rows[0])
    columns = tuple(columns)
    if "item" not in columns:
        raise ValueError(f"the columns {columns} have no 'item' column")
    for index, row in enumerate(rows):
        if set(row) != set(columns):
            raise ValueError(f"row {index} has the columns {sorted(row)}, expected {list(columns)}")
    return write_tsv(path, ({**row, "item": index} for index, row in enumerate(rows)), columns)
