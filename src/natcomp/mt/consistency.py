"""Judgements of the MT compositionality tests: systematicity, substitutivity, overgeneralisation.

The functions here judge translations of the paper's test items (Dankers, Bruni & Hupkes
2022, sections 4.1-4.3). A translation is plain text in the target language as an MT
system outputs it (detokenised, ``De dichter ziet de koning, en het kind slaapt.``). Every
comparison works on **tokens**: :func:`tokens` splits a translation with the Moses
tokeniser of the target language (``sacremoses``, without XML escaping), so punctuation is
a token of its own and an already tokenised translation (``koning .``, also Moses-escaped
``auto &apos;s``) gives the same tokens as its detokenised form.

Target languages
----------------
The paper translates English into Dutch, and Dutch is every function's default
(``language="nl"``). Each function that depends on the target language takes
``language``, an ISO 639-1 code whose resource file
``resources/mt/languages/<code>.yaml`` (:mod:`natcomp.mt.languages`) gives what the
definitions below call language-specific: the Moses tokeniser (``moses``), the
conjunctions that join S1 and S2 (``conjunctions``: Dutch ``en``; Spanish ``y`` and
``e``), the shortest first conjunct (``min_first_conjunct``: Dutch 5), the groups of words
a replaced noun may change (``equivalent_tokens``: Dutch ``het``/``de``, ``dat``/``die``),
the contractions written out before the systematicity comparisons (``contractions``:
Spanish ``al`` -> ``a el``; Dutch has none) and how ``inflected`` keyword matching works
(``keyword_matching``: Dutch endings, equal Snowball stems, or whole words;
``nouns_capitalised``; a keyword's ``=`` and ``*`` prefixes). In every language the
typographic apostrophe ``’`` is read as ``'`` before tokenising (:data:`APOSTROPHES`). The definitions below state the Dutch case, the paper's;
``nl.yaml`` holds exactly these Dutch facts, so Dutch scores are the same as before the
languages were files.

Definitions
-----------
**S -> NP VP systematicity** (:func:`np_vp_consistent`, paper section 4.1). One noun of the
source is replaced (the subject, ``np_prime``, or a noun in the VP, ``vp_prime``). The two
translations are consistent iff they differ in exactly one word: the Levenshtein distance
between the token lists is exactly 1 (one substitution, insertion or deletion), after the
anticipated changes are neutralised: in Dutch the articles ``het``/``de`` and the relative
pronouns ``dat``/``die`` follow the gender of the new noun, so these tokens are treated as
equal (in any case pattern: ``Het``/``De`` at the start of a sentence too; a capital letter
alone, French ``L'``, counts as capitalised). Another language's groups are its
``equivalent_tokens`` (German ``der``/``die``/``das``/``den``/``dem``/``des``). Identical
translations (distance 0) are **not** consistent: the replaced noun must change the
translation. This is the paper's definition and what the original code computes.

**S -> S CONJ S systematicity** (:func:`s_conj_consistent`). The source is ``S1 , and S2``;
S1 is changed minimally (``s1_prime``) or replaced (``s3``). The two translations are
consistent iff the translations of S2 (:func:`second_conjunct`) are equal token for token.
When the conjunction cannot be located in either translation the item is not scored
(label ``None``; it leaves the denominator).

*Rule for locating S2* (:func:`second_conjunct`; Dutch, whose conjunction is ``en``;
another language uses any of its ``conjunctions`` and its ``min_first_conjunct`` in the
same way): the second conjunct is everything after the first token ``en`` that has at
least :data:`MIN_FIRST_CONJUNCT` (5) tokens before it and at least one token after it. The first conjunct is always a synthetic template
sentence, whose shortest Dutch translation (template 1, ``De jongen ziet de koning``) has
5 tokens; the threshold skips the ``en`` inside a template-4 subject (``De dichter en het
kind zien de koning , en ...``), and taking the *first* qualifying ``en`` keeps any
``en`` inside S2 in the conjunct. A comma before the conjunction is deliberately **not**
used to choose the ``en``: models drop or add that comma from one translation to the
next (paper appendix F.2.4 lists exactly this as the most common formatting change, and
example (4) of F.2.2 has no comma), so preferring ``, en`` would pick an ``en`` inside S2
whenever S2 contains ``, en`` and the boundary comma was dropped, making an S2 translated
identically look inconsistent. The comma itself belongs to the first conjunct and never
enters the returned text.

*The original code's rule* (``second_conjunct(..., rule="original")``; the option
``s_conj_split="original"`` of :func:`natcomp.mt.scoring.score_items`, ``natcomp mt score
--s-conj-split original``, config ``mt.tests.s_conj_split``): ``get_conjunct`` of the
original ``evaluate.py``. The tokens of :func:`tokens` are joined by single spaces and the
text is split on the literal string ``" en "``: no ``" en "``, no conjunct (``None``);
when the part before the first ``en`` has fewer than 5 words, S2 is everything after the
*second* ``en``, else everything after the first (later ``en`` tokens stay in S2, rejoined
with ``" en "``). The two rules differ where the first conjunct is short: with a single early
``en`` (``De dichter en het kind slapen .``) the original's S2 is the **empty string**,
which is *found* and equal to every other empty S2, so two such translations are
consistent (and the item stays in the denominator, also under ``"triple"``); with two
early ``en`` (``Hij en zij , en de man liep .``, ``Lidstaten en plaatselijke en regionale
overheden ...``) the original blindly takes the text after the second, wherever it is,
while the token rule finds no S2 or a later one. On a template-4 first conjunct of normal
length (``De dichter en het kind zagen , en de man liep``) and on ``en`` inside S2 the two
agree. For a language with several conjunctions (Spanish ``y``, ``e``) the text is split on
each of them between spaces, and the conjuncts after the chosen one are rejoined with the
conjunctions that separated them. *Input:* the original split the fairseq ``D-`` line, i.e. Moses-tokenised, escaped
Dutch; for Moses-tokenised input natcomp's space-joined tokens are that line unescaped
(re-tokenising a Moses line gives its tokens back, see :func:`tokens`; unescaping changes
neither an ``en`` nor a word count nor the equality of two conjuncts), so the original
mode is equivalent there. On detokenised or partly tokenised input it follows the
tokenised line, not the raw text: ``koning, en`` counts two words before ``en`` (as on the
``D-`` line), and Moses splits ``en/of`` into ``en / of``, which holds an ``" en "`` that
the raw text lacks. The returned conjunct lacks the original's ``"MASK "`` prefix (shared
by all, irrelevant to equality). A labels file writes an empty conjunct and a missing one
alike, as an empty cell.

*Which rule is the default*: natcomp's token rule. The original's empty conjunct scores a
translation whose S2 was never located as consistent with any other such translation,
which inflates S1' and S3 consistency (on the 4,073 real Dutch translations of
``tests/mt/test_released_natural.py`` the rules differ on 70: 69 empty conjuncts, one
early double ``en``). The original rule exists to reproduce the released code: the
regression against it, and the paper config (``mt.tests.s_conj_split: original`` with
``s_conj_missing_conjunct: triple``).

**Substitutivity** (:func:`substitution_consistent`, :func:`synonym_consistent`, section 4.2
and appendix C). The item pairs a source with the British term and the same source with
the American term. *Consistency* is the equality of the two full translations (as token
lists, so spacing differences do not count). *Synonym consistency* is the equality of
the spans that translate the synonym (:func:`synonym_translation`): the synonym's
candidate translations (Dutch: gold translation first; the shipped lists are Dutch, so
another language needs its own, e.g. from probe sentences) are searched in priority order,
multi-word candidates are first glued into one span, and the first token that contains a
candidate as a case-insensitive substring is the span (so the compound ``vliegtuigje``
matches ``vliegtuig``). When no candidate occurs, the span is the whole translation, so a
pair where the model omits the synonym from both translations is consistent iff the rest
of the translation is the same, as the paper specifies.

**Overgeneralisation** (:func:`is_overgeneralised`, section 4.3 and appendix D). A
translation of a sentence containing an idiom is overgeneralised (too local, literal) iff
it contains one of the idiom's literal keywords in the target language (Dutch: the paper's
lists), case-insensitively (a multi-word keyword matches as a token sequence). How a
keyword matches is a choice (:data:`KEYWORD_MATCHING`), each with its Dutch example for
the keyword ``hart`` ("by heart") or ``even`` ("once in a while"):

* ``inflected`` (the default): the keyword as a whole token or with a Dutch inflectional
  or diminutive ending (:func:`inflected_forms`): ``het hartje``, ``twee harten``, ``het
  blauwe licht`` fire; ``het leven`` (``even``), ``Nederland`` (``land``) do not. The paper
  asks whether "the keywords' literal translations are present" (section 4.3), and a
  literal translation is often inflected (the paper's own example list has ``hart`` and
  ``hartje``, ``blauw`` and ``blauwe``, but not every form of every keyword). For another
  language its file's ``keyword_matching`` decides: ``snowball`` matches a token whose
  Snowball stem equals the keyword's (German ``Herz`` in ``mit dem Herzen``, not in
  ``herzlich``), ``word`` whole tokens only;
* ``word``: the keyword as a whole token only: ``door het hart`` fires, ``het hartje``
  does not (unless ``hartje`` is itself a keyword);
* ``substring``: the keyword anywhere, as the original code did: ``het leven`` fires for
  ``even``, ``Nederland`` for ``land``. This reproduces the paper's Table 8.

For natural data the original code scored only items whose reference translation contains
no keyword (the reference is a "paraphrase"; an empty reference contains none):
:func:`reference_is_paraphrase` and the ``paraphrase_references_only`` option of
:func:`score_items` offer that filter.

Deviations from the original code (``evaluate.py`` of the paper's repository)
------------------------------------------------------------------------------
* **Input.** The original scored fairseq ``D-`` lines, i.e. Moses-tokenised and
  XML-escaped Dutch, split on whitespace. Here any translation is re-tokenised by
  :func:`tokens` (Moses XML entities are unescaped first), so detokenised, tokenised and
  escaped outputs all give the same tokens.
* **het/de and dat/die.** The original replaced substrings (``" het "`` -> ``" de "``,
  ``"Het "`` -> ``"De "``, ``" dat "`` -> ``" die "``) in both translations. That also maps
  the complementiser ``dat`` to ``die``; mapping tokens does the same, and because it
  happens on both sides it cannot create or hide a difference other than the intended
  article/pronoun one, so the token-level mapping is equivalent for it. Differences: the
  token mapping also covers sentence-initial ``Dat``/``Die`` and all-capitals forms, and
  it maps every occurrence, where ``str.replace`` skipped the second of two adjacent
  ``het`` (``" het het "``: the shared space is consumed by the first match).
* **Second conjunct.** The original split on ``" en "`` and, when the part before the
  first ``en`` had fewer than 5 words, took the text after the *second* ``en``; with only
  one ``en`` that gave an empty conjunct, and all such translations compared equal. By
  default the first ``en`` with at least 5 tokens before it is used and ``None`` is
  returned when there is none; ``rule="original"`` (``s_conj_split``) restores the
  original's split (see the rules above). The original also dropped an item from *both*
  conditions when any of its three translations (S1, S1', S3 variants) lacked ``en``;
  by default an item is a pair here, and it leaves the denominator of its own condition
  only; ``s_conj_missing_conjunct="triple"`` of :func:`natcomp.mt.scoring.score_items`
  restores the original's rule.
* **Synonym candidates.** The original used ``[nl] + list(set(model translations))``,
  whose order after the gold word depends on Python's string hash seed; here the order is
  the fixed order ``nl``, ``candidates_british``, ``candidates_american`` (resources/synonyms.tsv, or the probe candidates of natcomp.mt.synonym_probes). Gluing of multi-word
  candidates works on tokens (a candidate may start inside the first and end inside the
  last token of the glued span, as the original substring replacement allowed).
* **Keywords.** The original matched keywords as case-insensitive substrings of the whole
  translation, so ``even`` (idiom "once in a while") fired inside ``leven`` and ``tijd``
  inside ``tijdens``. The paper asks whether the keywords' literal translations are
  present, so by default keywords match whole tokens with their inflections
  (``inflected``); ``matching="substring"`` restores the original behaviour (on the
  normalised, space-joined tokens), ``matching="word"`` matches exact tokens only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from natcomp.mt.languages import COMPOUND_HEAD, EXACT_FORM, Language, target_language

#: the paper's target language, every function's default
DEFAULT_LANGUAGE = "nl"
#: minimum number of tokens before the Dutch ``en`` that joins the conjuncts (the paper's
#: value; another language's is its resource file's ``min_first_conjunct``)
MIN_FIRST_CONJUNCT = 5
#: how :func:`second_conjunct` locates S2: natcomp's token rule (the default) or the
#: original code's split on ``" en "`` (see the module doc)
CONJUNCT_RULES = ("tokens", "original")


@functools.lru_cache(maxsize=None)
def _language(code: str) -> Language:
    """The target language of ``code`` (``resources/mt/languages/<code>.yaml``), read once."""
    return target_language(code)


# --------------------------------------------------------------------------------------
# tokens


@functools.lru_cache(maxsize=None)
def _tokenizer(moses: str):
    from sacremoses import MosesTokenizer

    return MosesTokenizer(moses)


# The entities Moses' escaping produces; "&amp;" last so "&amp;apos;" stays "&apos;".
_MOSES_ENTITIES = (
    ("&apos;", "'"),
    ("&quot;", '"'),
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&#91;", "["),
    ("&#93;", "]"),
    ("&#124;", "|"),
    ("&amp;", "&"),
)


def _unescape(text: str) -> str:
    if "&" not in text:
        return text
    for entity, char in _MOSES_ENTITIES:
        text = text.replace(entity, char)
    return text


#: apostrophes written as other characters (the typographic one of most LLM and many NMT
#: outputs, the modifier letter): Moses keeps only ``'`` with an elided article
#: (``L'homme`` -> ``L'`` ``homme``) and splits ``L’homme`` into ``L ’ homme``
APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


@functools.lru_cache(maxsize=1 << 17)
def _tokens(translation: str, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    tokenizer = _tokenizer(_language(language).moses)
    return tuple(tokenizer.tokenize(_unescape(translation).translate(APOSTROPHES), escape=False))


def tokens(translation: str, *, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """Moses tokens (the rules of ``language``'s tokeniser, not XML-escaped) of a translation.

    Punctuation becomes a token of its own; an already tokenised or Moses-escaped input
    gives the same tokens (``"koning."``, ``"koning ."`` -> ``["koning", "."]``;
    ``"auto's"``, ``"auto &apos;s"`` -> ``["auto", "'", "s"]``; French keeps an elided
    article with its apostrophe: ``"l'homme"`` -> ``["l'", "homme"]``). The typographic
    apostrophe ``’`` (and ``ʼ``) is read as ``'`` first, in every language, so
    ``"L’homme"`` gives the tokens of ``"L'homme"``. Results are cached per language.
    """
    return list(_tokens(translation, language))


def _normalised(translation: str, language: str = DEFAULT_LANGUAGE) -> str:
    return " ".join(_tokens(translation, language))


# --------------------------------------------------------------------------------------
# S -> NP VP


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two token sequences (unit costs), O(len(a)*len(b))."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _one_edit_apart(a: Sequence[str], b: Sequence[str]) -> bool:
    """``edit_distance(a, b) == 1`` in linear time."""
    if len(a) < len(b):
        a, b = b, a
    if len(a) - len(b) > 1:
        return False
    prefix = 0
    while prefix < len(b) and a[prefix] == b[prefix]:
        prefix += 1
    if len(a) == len(b):
        return prefix < len(a) and a[prefix + 1 :] == b[prefix + 1 :]
    return a[prefix + 1 :] == b[prefix:]


def _all_capitals(token: str) -> bool:
    # One capital letter alone (French "L'") is a capitalised word, not an all-capitals one.
    return token.isupper() and sum(char.isalpha() for char in token) > 1


def _neutralise(token: str, equivalents) -> str:
    """The head of the token's group of ``equivalents`` (Dutch het->de, dat->die), keeping
    the case pattern (Het->De, HET->DE)."""
    base = equivalents.get(token.lower())
    if base is None:
        return token
    if token.islower():
        return base
    if _all_capitals(token):
        return base.upper()
    if token[0].isupper():
        return base.capitalize()
    return base


def _with_case_of(token: str, words: Sequence[str]) -> list[str]:
    """``words`` (lowercase) written in the case pattern of ``token``: all capitals, or the
    first capitalised (``Al`` -> ``A el``), else as they are."""
    if _all_capitals(token):
        return [word.upper() for word in words]
    if token[:1].isupper():
        return [words[0].capitalize(), *words[1:]]
    return list(words)


def expand_contractions(toks: Sequence[str], *, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The tokens with each of the language's ``contractions`` written out (Spanish ``al``
    -> ``a el``, ``Del`` -> ``De el``; German ``zum`` -> ``zu dem``), in the case pattern
    of the contracted token. Dutch has no contractions: its tokens come back unchanged."""
    contractions = _language(language).contractions
    if not contractions:
        return list(toks)
    out: list[str] = []
    for token in toks:
        expansion = contractions.get(token.lower())
        out.extend(_with_case_of(token, expansion) if expansion else (token,))
    return out


def np_vp_consistent(a: str, b: str, *, language: str = DEFAULT_LANGUAGE) -> bool:
    """S -> NP VP consistency: the translations differ in exactly one token.

    True iff the token-level Levenshtein distance is exactly 1 after the language's
    ``contractions`` are written out (Spanish ``al rey`` / ``a la reina``: ``a el rey`` /
    ``a la reina``) and the words of each group of its ``equivalent_tokens`` are treated
    as equal (any case pattern; Dutch ``het``/``de`` and ``dat``/``die``). Identical
    translations are not consistent (the replaced noun must change the translation).
    """
    equivalents = _language(language).equivalents
    return _one_edit_apart(
        [_neutralise(t, equivalents) for t in expand_contractions(_tokens(a, language), language=language)],
        [_neutralise(t, equivalents) for t in expand_contractions(_tokens(b, language), language=language)],
    )


# --------------------------------------------------------------------------------------
# S -> S CONJ S


def check_conjunct_rule(rule: str) -> str:
    """``rule`` if it is one of :data:`CONJUNCT_RULES`, else ``ValueError``."""
    if rule not in CONJUNCT_RULES:
        raise ValueError(f"conjunct rule must be one of {', '.join(CONJUNCT_RULES)}, not {rule!r}")
    return rule


@functools.lru_cache(maxsize=None)
def _separators(conjunctions: tuple[str, ...]) -> re.Pattern[str]:
    """A conjunction between spaces, captured so that a split keeps which one it was."""
    return re.compile("( (?:" + "|".join(map(re.escape, conjunctions)) + ") )")


def _original_conjunct(translation: str, language: str) -> str | None:
    """The original code's ``get_conjunct`` on the space-joined tokens (see the module doc).

    Split on any of the language's conjunctions; the text after the chosen one keeps the
    later conjunctions as they were (for Dutch: ``" en ".join`` of the later parts)."""
    spec = _language(language)
    pieces = _separators(spec.conjunctions).split(_normalised(translation, language))
    if len(pieces) == 1:
        return None
    # pieces alternate part, separator, part, ...: part k is pieces[2k]
    first_part = 2 if len(pieces[0].split()) < spec.min_first_conjunct else 1
    return "".join(pieces[2 * first_part :])


def second_conjunct(translation: str, rule: str = "tokens", *, language: str = DEFAULT_LANGUAGE) -> str | None:
    """The translation of S2 in a translation of ``S1 , and S2``, or ``None``.

    ``rule="tokens"`` (the default): the tokens after the first token that is one of the
    language's conjunctions (Dutch ``en``) with at least ``min_first_conjunct`` tokens
    before it (Dutch: :data:`MIN_FIRST_CONJUNCT`) and at least one after it, joined by
    single spaces; ``None`` when there is no such conjunction.

    ``rule="original"``: the original code's rule on the tokens joined by single spaces:
    ``None`` without a conjunction between spaces (``" en "``); else the text is split on
    each such conjunction and S2 is the text after the second when the part before the
    first has fewer than ``min_first_conjunct`` tokens, else after the first (later
    conjunctions stay in S2). With a single early conjunction that is the empty string
    ``""``, which equals every other empty conjunct. See the module docstring for both
    rules and the choice between them.
    """
    if check_conjunct_rule(rule) == "original":
        return _original_conjunct(translation, language)
    spec = _language(language)
    toks = _tokens(translation, language)
    for index in range(spec.min_first_conjunct, len(toks) - 1):
        if toks[index] in spec.conjunctions:
            return " ".join(toks[index + 1 :])
    return None


def s_conj_consistent(a: str, b: str, rule: str = "tokens", *, language: str = DEFAULT_LANGUAGE) -> bool | None:
    """S -> S CONJ S consistency: equal second conjuncts; ``None`` if either is not found.

    ``rule`` is the :func:`second_conjunct` rule (:data:`CONJUNCT_RULES`). The conjuncts
    are compared with the language's ``contractions`` written out (Dutch has none).
    """
    first = second_conjunct(a, rule, language=language)
    second = second_conjunct(b, rule, language=language)
    if first is None or second is None:
        return None
    if first == second:
        return True
    return expand_contractions(first.split(" "), language=language) == expand_contractions(
        second.split(" "), language=language
    )


# --------------------------------------------------------------------------------------
# substitutivity


def _glue(toks: list[str], candidate: tuple[str, ...]) -> list[str]:
    """Join every window of tokens that spells the multi-token ``candidate`` into one token.

    The window may begin with a token ending in the candidate's first token and end with a
    token starting with its last token (substring semantics across token boundaries).
    """
    k = len(candidate)
    out: list[str] = []
    i = 0
    while i < len(toks):
        window = toks[i : i + k]
        if (
            len(window) == k
            and window[0].lower().endswith(candidate[0])
            and window[-1].lower().startswith(candidate[-1])
            and all(w.lower() == c for w, c in zip(window[1:-1], candidate[1:-1]))
        ):
            out.append(" ".join(window))
            i += k
        else:
            out.append(toks[i])
            i += 1
    return out


def _candidate_tokens(candidates: Iterable[str], language: str = DEFAULT_LANGUAGE) -> list[tuple[str, ...]]:
    out = []
    for candidate in candidates:
        toks = tuple(t.lower() for t in _tokens(candidate, language))
        if toks:
            out.append(toks)
    return out


def synonym_translation(translation: str, candidates: Sequence[str], *, language: str = DEFAULT_LANGUAGE) -> str:
    """The span of ``translation`` that translates a synonym.

    ``candidates`` are the synonym's translations into ``language`` in priority order
    (gold first). Multi-word candidates are first glued into single spans; then, for each
    candidate in order, the first token (or glued span) that contains the candidate as a
    case-insensitive substring is returned (``vliegtuigje`` matches ``vliegtuig``). When no
    candidate occurs, the whole translation (tokens joined by single spaces) is returned,
    so two translations without the synonym compare equal iff the rest is the same.
    """
    toks = list(_tokens(translation, language))
    cands = _candidate_tokens(candidates, language)
    for cand in cands:
        if len(cand) > 1:
            toks = _glue(toks, cand)
    for cand in cands:
        needle = " ".join(cand)
        for token in toks:
            if needle in token.lower():
                return token
    return " ".join(toks)


def substitution_consistent(a: str, b: str, *, language: str = DEFAULT_LANGUAGE) -> bool:
    """Substitutivity consistency: the full translations are equal (as token lists)."""
    return _tokens(a, language) == _tokens(b, language)


def synonym_consistent(a: str, b: str, candidates: Sequence[str], *, language: str = DEFAULT_LANGUAGE) -> bool:
    """Synonym consistency: the synonym spans (:func:`synonym_translation`) are equal."""
    return synonym_translation(a, candidates, language=language) == synonym_translation(
        b, candidates, language=language
    )


# --------------------------------------------------------------------------------------
# overgeneralisation


def _contains_sequence(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    k = len(needle)
    return any(tuple(haystack[i : i + k]) == tuple(needle) for i in range(len(haystack) - k + 1))


#: the ways a keyword can match a translation (see :func:`is_overgeneralised`)
KEYWORD_MATCHING = ("substring", "word", "inflected")

#: endings of Dutch nouns and adjectives that attach to the unchanged keyword: adjective
#: ``-e``, plural ``-en``/``-s``/``-n`` (after ``-e``), and the diminutives with their plural ``-s``
_ENDINGS = ("e", "en", "s", "je", "jes", "tje", "tjes", "pje", "pjes", "etje", "etjes")
#: endings that begin with a vowel: only these follow a doubled consonant or a shortened vowel
_VOWEL_ENDINGS = ("e", "en", "etje", "etjes")
_VOWELS = "aeiou"
#: a short vowel (one vowel letter after a consonant) before one final consonant that doubles
#: before a vowel-initial ending (pak -> pakken, kras -> krassen, stem -> stemmetje)
_DOUBLING = re.compile(r"(?:^|[^aeiouy])[aeiou]([bdfgklmnprst])$")
#: a long vowel written double before one final consonant: one vowel letter is dropped in an
#: open syllable (staat -> staten, zaak -> zaken, probleem -> problemen, oog -> ogen)
_LONG_VOWEL = re.compile(r"(aa|ee|oo|uu)([^aeiouy])$")
#: a long vowel or diphthong before a final s or f, which is voiced before a vowel-initial
#: ending (poos -> pozen, huis -> huizen, brief -> brieven)
_VOICED = re.compile(r"(aa|ee|oo|uu|ie|ei|ij|ui|ou|eu|oe)([sf])$")


@functools.lru_cache(maxsize=4096)
def inflected_forms(keyword: str) -> frozenset[str]:
    """The lowercase word forms the ``inflected`` keyword matching accepts for a Dutch ``keyword``.

    The keyword itself plus the Dutch inflectional and diminutive endings of nouns and
    adjectives: ``-e``, ``-en``, ``-s``, ``-n`` after a final ``-e`` (``gedachten``),
    ``-ën`` after ``-ee``/``-ie`` (``ideeën``), ``-je(s)``, ``-tje(s)``, ``-pje(s)``,
    ``-etje(s)`` and ``-kje(s)`` for ``-ng`` (``koning`` -> ``koninkje``); before a
    vowel-initial ending also the spelling changes that need no dictionary: a final
    consonant doubled after a short vowel (``pak`` -> ``pakken``), a doubled long vowel
    written single (``staat`` -> ``staten``) and a final ``s``/``f`` voiced after a long
    vowel (``poos`` -> ``pozen``). ``-'s`` needs no form: the tokeniser splits the
    apostrophe off (``auto's`` -> ``auto ' s``), so the keyword is a token of its own.
    Forms that are not words (``evennen``) are harmless: Dutch text does not contain them.
    Used for a language whose ``keyword_matching`` is ``dutch_endings``.
    """
    word = keyword.lower()
    forms = {word, *(word + ending for ending in _ENDINGS)}
    if word.endswith("e"):
        forms.add(word + "n")
    if word.endswith(("ee", "ie")):
        forms.add(word + "ën")
    if word.endswith("ng"):
        forms.update(word[:-1] + ending for ending in ("kje", "kjes"))
    stems = []
    if _DOUBLING.search(word):
        stems.append(word + word[-1])
    if match := _LONG_VOWEL.search(word):
        stems.append(word[: match.start()] + match.group(1)[0] + match.group(2))
    if match := _VOICED.search(word):
        voiced = {"s": "z", "f": "v"}[match.group(2)]
        vowel = match.group(1)
        if vowel in ("aa", "ee", "oo", "uu"):
            vowel = vowel[0]
        stems.append(word[: match.start()] + vowel + voiced)
    forms.update(stem + ending for stem in stems for ending in _VOWEL_ENDINGS)
    return frozenset(forms)


@functools.lru_cache(maxsize=None)
def _stemmer(snowball: str):
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer(snowball)


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str, snowball: str) -> str:
    """The Snowball stem of a lowercase word."""
    return _stemmer(snowball).stem(word)


def check_keyword_matching(matching: str) -> str:
    """``matching`` if it is one of :data:`KEYWORD_MATCHING`, else ``ValueError``."""
    if matching not in KEYWORD_MATCHING:
        raise ValueError(f"keyword matching must be one of {', '.join(KEYWORD_MATCHING)}, not {matching!r}")
    return matching


#: how many letters a compound's first part has at least, for ``*`` keywords (``End`` of
#: ``Endanalyse``)
MIN_COMPOUND_MODIFIER = 3


@dataclass(frozen=True)
class _Keyword:
    """A keyword as a language file writes it: its tokens (case kept) and its prefix
    (``=``: this form only; ``*``: also as the head of a compound)."""

    tokens: tuple[str, ...]
    exact: bool = False
    compound_head: bool = False

    @functools.cached_property
    def lowered(self) -> tuple[str, ...]:
        return tuple(token.lower() for token in self.tokens)


@functools.lru_cache(maxsize=4096)
def _keyword(word: str, language: str) -> _Keyword | None:
    exact, compound = word.startswith(EXACT_FORM), word.startswith(COMPOUND_HEAD)
    toks = _tokens(word[1:] if exact or compound else word, language)
    return _Keyword(toks, exact, compound) if toks else None


def _keywords(words: Iterable[str], language: str) -> list[_Keyword]:
    return [keyword for keyword in (_keyword(word, language) for word in words) if keyword is not None]


def _same_form(token: str, keyword: str, spec: Language, *, inflect: bool) -> bool:
    """Whether a lowercase token is a form of a lowercase keyword token: the language's
    ``keyword_matching`` when ``inflect``, else the keyword's own form."""
    if not inflect:
        return token == keyword
    if spec.keyword_matching == "dutch_endings":
        return token in inflected_forms(keyword)
    if spec.keyword_matching == "snowball":
        return _stem(token, spec.snowball) == _stem(keyword, spec.snowball)
    return token == keyword


def _token_matches(token: str, keyword: str, spec: Language, *, inflect: bool, compound_head: bool) -> bool:
    """One token of a translation against one token of a keyword (both as written)."""
    if spec.nouns_capitalised and keyword[:1].isupper() and not token[:1].isupper():
        return False  # a noun keyword; a lowercase token is not that noun
    lowered, wanted = token.lower(), keyword.lower()
    if _same_form(lowered, wanted, spec, inflect=inflect):
        return True
    return compound_head and any(
        _same_form(lowered[start:], wanted, spec, inflect=inflect)
        for start in range(MIN_COMPOUND_MODIFIER, len(lowered) - 1)
    )


def _matches_in_language(toks: Sequence[str], keyword: _Keyword, spec: Language) -> bool:
    """``inflected`` matching of one keyword the way the language's file says: its tokens in
    order, each a form of the keyword's token (Dutch endings: the last token only, the
    others as written; Snowball: every token by its stem), a ``=`` keyword in its own form
    only, a ``*`` keyword also as the head of a compound, and a capitalised keyword only on
    capitalised tokens where ``nouns_capitalised``."""
    k = len(keyword.tokens)
    last_only = spec.keyword_matching == "dutch_endings"
    for start in range(len(toks) - k + 1):
        if all(
            _token_matches(
                toks[start + i],
                keyword.tokens[i],
                spec,
                inflect=not keyword.exact and (i == k - 1 or not last_only),
                compound_head=keyword.compound_head,
            )
            for i in range(k)
        ):
            return True
    return False


def is_overgeneralised(
    translation: str, keywords: Iterable[str], matching: str = "inflected", *, language: str = DEFAULT_LANGUAGE
) -> bool:
    """True iff a literal keyword of the idiom occurs in ``translation``.

    Matching works on the tokens of :func:`tokens`; ``matching`` says how a keyword
    matches (a multi-word keyword matches as a token sequence):

    * ``"substring"``: anywhere in the space-joined tokens, case-insensitively, as the
      original code did, so also inside another word: ``even`` fires in ``Het leven is
      mooi`` and ``land`` in ``Nederland``;
    * ``"word"``: a whole token only, case-insensitively: ``hart`` fires in ``door het
      hart`` but not in ``het hartje`` nor ``harten``;
    * ``"inflected"`` (default): a whole token, also inflected, as the language's
      ``keyword_matching`` says. Dutch (``dutch_endings``): with a Dutch inflectional or
      diminutive ending (:func:`inflected_forms`): ``hart`` fires in ``het hartje`` and
      ``twee harten``, ``blauw`` in ``het blauwe licht``, ``staat`` in ``de staten``, but
      never inside another word: not ``even`` in ``leven``, ``land`` in ``Nederland`` or
      ``hart`` in ``hartelijk``. Like every form-based test it also fires on verb forms
      spelled like a plural (``werken``, ``pakken``, ``landen``). ``snowball``: a token
      whose Snowball stem (of the lowercase word) equals the keyword's (German ``Herz``
      fires in ``mit dem Herzen``, not in ``herzlich``); every token of a multi-word
      keyword stem-equal in sequence. ``word``: as ``"word"``. Where the language's nouns
      are capitalised (``nouns_capitalised``, German), a keyword written with a capital
      matches only a token written with one (``Rennen``, the noun, not ``rennen``, the
      verb). A keyword written ``=Weile`` matches its own form only (its stem is that of
      ``weil``, "because"), one written ``*Analyse`` also the head of a compound whose
      first part has at least :data:`MIN_COMPOUND_MODIFIER` letters (``Endanalyse``).

    ``"substring"`` and ``"word"`` read a prefixed keyword without its prefix.
    """
    check_keyword_matching(matching)
    cands = _keywords(keywords, language)
    if matching == "substring":
        text = _normalised(translation, language).lower()
        return any(" ".join(cand.lowered) in text for cand in cands)
    toks = _tokens(translation, language)
    if matching == "word":
        lowered = [t.lower() for t in toks]
        return any(_contains_sequence(lowered, cand.lowered) for cand in cands)
    spec = _language(language)
    return any(_matches_in_language(toks, cand, spec) for cand in cands)


def reference_is_paraphrase(
    reference: str, keywords: Iterable[str], matching: str = "inflected", *, language: str = DEFAULT_LANGUAGE
) -> bool:
    """True iff the reference translation contains none of the keywords (a "paraphrase").

    ``matching`` and ``language`` as in :func:`is_overgeneralised`. An empty reference is
    a paraphrase (it contains no keyword), as in the original code. The original code
    scored natural overgeneralisation items only when this holds.
    """
    return not is_overgeneralised(reference, keywords, matching=matching, language=language)
