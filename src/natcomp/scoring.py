"""Scoring of the compositionality tests: systematicity, substitutivity, overgeneralisation.

The functions here judge translations of the paper's test items (Dankers, Bruni & Hupkes
2022, sections 4.1-4.3). A translation is plain Dutch text as an MT system outputs it
(detokenised, ``De dichter ziet de koning, en het kind slaapt.``). Every comparison works
on **tokens**: :func:`tokens` splits a translation with the Moses tokeniser for Dutch
(``sacremoses``, without XML escaping), so punctuation is a token of its own and an
already tokenised translation (``koning .``, also Moses-escaped ``auto &apos;s``) gives
the same tokens as its detokenised form.

Definitions
-----------
**S -> NP VP systematicity** (:func:`np_vp_consistent`, paper section 4.1). One noun of the
source is replaced (the subject, ``np_prime``, or a noun in the VP, ``vp_prime``). The two
translations are consistent iff they differ in exactly one word: the Levenshtein distance
between the token lists is exactly 1 (one substitution, insertion or deletion), after the
anticipated Dutch changes are neutralised: the articles ``het``/``de`` and the relative
pronouns ``dat``/``die`` follow the gender of the new noun, so these tokens are treated as
equal (in any case pattern: ``Het``/``De`` at the start of a sentence too). Identical
translations (distance 0) are **not** consistent: the replaced noun must change the
translation. This is the paper's definition and what the original code computes.

**S -> S CONJ S systematicity** (:func:`s_conj_consistent`). The source is ``S1 , and S2``;
S1 is changed minimally (``s1_prime``) or replaced (``s3``). The two translations are
consistent iff the translations of S2 (:func:`second_conjunct`) are equal token for token.
When the conjunction cannot be located in either translation the item is not scored
(label ``None``; it leaves the denominator).

*Rule for locating S2* (:func:`second_conjunct`): the second conjunct is everything after
the first token ``en`` that has at least :data:`MIN_FIRST_CONJUNCT` (5) tokens before it
and at least one token after it. The first conjunct is always a synthetic template
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

**Substitutivity** (:func:`substitution_consistent`, :func:`synonym_consistent`, section 4.2
and appendix C). The item pairs a source with the British term and the same source with
the American term. *Consistency* is the equality of the two full translations (as token
lists, so spacing differences do not count). *Synonym consistency* is the equality of
the spans that translate the synonym (:func:`synonym_translation`): the synonym's
candidate Dutch translations (gold translation first) are searched in priority order,
multi-word candidates are first glued into one span, and the first token that contains a
candidate as a case-insensitive substring is the span (so the compound ``vliegtuigje``
matches ``vliegtuig``). When no candidate occurs, the span is the whole translation, so a
pair where the model omits the synonym from both translations is consistent iff the rest
of the translation is the same, as the paper specifies.

**Overgeneralisation** (:func:`is_overgeneralised`, section 4.3 and appendix D). A
translation of a sentence containing an idiom is overgeneralised (too local, literal) iff
it contains one of the idiom's literal Dutch keywords, matched as a whole token,
case-insensitively (a multi-word keyword matches as a token sequence). For natural data
the original code scored only items whose reference translation contains no keyword (the
reference is a "paraphrase"): :func:`reference_is_paraphrase` and the
``paraphrase_references_only`` option of :func:`score_items` offer that filter.

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
  one ``en`` that gave an empty conjunct, and all such translations compared equal. Here
  the first ``en`` with at least 5 tokens before it is used and ``None`` is returned when
  there is none (see the rule above). The original also dropped an item from *both*
  conditions when any of its three translations (S1, S1', S3 variants) lacked ``en``;
  here an item is a pair, and it leaves the denominator of its own condition only.
* **Synonym candidates.** The original used ``[nl] + list(set(model translations))``,
  whose order after the gold word depends on Python's string hash seed; here the order is
  the fixed order of ``nl_candidates`` in ``resources/synonyms.tsv``. Gluing of multi-word
  candidates works on tokens (a candidate may start inside the first and end inside the
  last token of the glued span, as the original substring replacement allowed).
* **Keywords.** The original matched keywords as case-insensitive substrings of the whole
  translation, so ``even`` (idiom "once in a while") fired inside ``leven`` and ``tijd``
  inside ``tijdens``. The paper asks whether the keywords' literal translations are
  present, so here keywords match whole tokens; ``substring=True`` restores the original
  behaviour (on the normalised, space-joined tokens) for comparison.

Item files
----------
One TSV per test with a header and one row per item (:func:`read_items`); the columns are
in :data:`ITEM_COLUMNS`. Extra columns are kept. Translations (:func:`read_translations`)
are either a TSV with the columns ``source`` and ``translation`` (one row per unique
source sentence; extra rows are ignored) or, with ``fmt="lines"``, a plain text file with
one translation per line, aligned with the unique source sentences of the items file in
first-seen order (``source_a`` then ``source_b`` of each row, or ``source``; see
:func:`unique_sources`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.files import iter_lines
from natcomp.lexicon import Idiom, SynonymPair, read_tsv

__all__ = [
    "CONDITIONS",
    "GROUP_COLUMNS",
    "ITEM_COLUMNS",
    "LABEL_METRICS",
    "MIN_FIRST_CONJUNCT",
    "TESTS",
    "edit_distance",
    "is_overgeneralised",
    "np_vp_consistent",
    "read_items",
    "read_translations",
    "reference_is_paraphrase",
    "s_conj_consistent",
    "score_items",
    "second_conjunct",
    "substitution_consistent",
    "summarise",
    "synonym_consistent",
    "synonym_translation",
    "tokens",
    "unique_sources",
    "write_labels",
    "write_summary",
]

TESTS = ("np_vp", "s_conj", "substitutivity", "overgeneralisation")

#: required columns of the items file of each test
ITEM_COLUMNS: dict[str, tuple[str, ...]] = {
    "np_vp": ("item", "template", "condition", "source_a", "source_b"),
    "s_conj": ("item", "template", "condition", "source_a", "source_b"),
    "substitutivity": ("item", "template", "pair", "source_a", "source_b"),
    "overgeneralisation": ("item", "template", "idiom", "source", "reference"),
}

#: allowed values of the ``condition`` column
CONDITIONS: dict[str, tuple[str, ...]] = {
    "np_vp": ("np_prime", "vp_prime"),
    "s_conj": ("s1_prime", "s3"),
}

#: default grouping keys of the summary of each test
GROUP_COLUMNS: dict[str, tuple[str, ...]] = {
    "np_vp": ("template", "condition"),
    "s_conj": ("template", "condition"),
    "substitutivity": ("template", "pair"),
    "overgeneralisation": ("template", "idiom"),
}

#: label column -> summary metric column, per test
LABEL_METRICS: dict[str, dict[str, str]] = {
    "np_vp": {"consistent": "consistency"},
    "s_conj": {"consistent": "consistency"},
    "substitutivity": {"consistent": "consistency", "synonym_consistent": "synonym_consistency"},
    "overgeneralisation": {"overgeneralised": "overgeneralisation"},
}

#: minimum number of tokens before the ``en`` that joins the conjuncts (see the module doc)
MIN_FIRST_CONJUNCT = 5

_CONJUNCTION = "en"

# --------------------------------------------------------------------------------------
# tokens


@functools.lru_cache(maxsize=1)
def _tokenizer():
    from sacremoses import MosesTokenizer

    return MosesTokenizer("nl")


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


@functools.lru_cache(maxsize=1 << 17)
def _tokens(translation: str) -> tuple[str, ...]:
    return tuple(_tokenizer().tokenize(_unescape(translation), escape=False))


def tokens(translation: str) -> list[str]:
    """Moses tokens (Dutch rules, not XML-escaped) of a translation.

    Punctuation becomes a token of its own; an already tokenised or Moses-escaped input
    gives the same tokens (``"koning."``, ``"koning ."`` -> ``["koning", "."]``;
    ``"auto's"``, ``"auto &apos;s"`` -> ``["auto", "'", "s"]``). Results are cached.
    """
    return list(_tokens(translation))


def _normalised(translation: str) -> str:
    return " ".join(_tokens(translation))


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


_EQUIVALENT = {"het": "de", "de": "de", "dat": "die", "die": "die"}


def _neutralise(token: str) -> str:
    """Map het->de and dat->die, keeping the case pattern (Het->De, HET->DE)."""
    base = _EQUIVALENT.get(token.lower())
    if base is None:
        return token
    if token.islower():
        return base
    if token.isupper():
        return base.upper()
    if token[0].isupper():
        return base.capitalize()
    return base


def np_vp_consistent(a: str, b: str) -> bool:
    """S -> NP VP consistency: the translations differ in exactly one token.

    True iff the token-level Levenshtein distance is exactly 1 after ``het``/``de`` and
    ``dat``/``die`` are treated as equal (any case pattern). Identical translations are
    not consistent (the replaced noun must change the translation).
    """
    return _one_edit_apart([_neutralise(t) for t in _tokens(a)], [_neutralise(t) for t in _tokens(b)])


# --------------------------------------------------------------------------------------
# S -> S CONJ S


def second_conjunct(translation: str) -> str | None:
    """The translation of S2 in a translation of ``S1 , and S2``, or ``None``.

    The tokens after the first token ``en`` that has at least :data:`MIN_FIRST_CONJUNCT`
    tokens before it and at least one after it, joined by single spaces; ``None`` when
    there is no such ``en``. See the module docstring for the reasoning.
    """
    toks = _tokens(translation)
    for index in range(MIN_FIRST_CONJUNCT, len(toks) - 1):
        if toks[index] == _CONJUNCTION:
            return " ".join(toks[index + 1 :])
    return None


def s_conj_consistent(a: str, b: str) -> bool | None:
    """S -> S CONJ S consistency: equal second conjuncts; ``None`` if either is not found."""
    first, second = second_conjunct(a), second_conjunct(b)
    if first is None or second is None:
        return None
    return first == second


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


def _candidate_tokens(candidates: Iterable[str]) -> list[tuple[str, ...]]:
    out = []
    for candidate in candidates:
        toks = tuple(t.lower() for t in _tokens(candidate))
        if toks:
            out.append(toks)
    return out


def synonym_translation(translation: str, candidates: Sequence[str]) -> str:
    """The span of ``translation`` that translates a synonym.

    ``candidates`` are the synonym's Dutch translations in priority order (gold first).
    Multi-word candidates are first glued into single spans; then, for each candidate in
    order, the first token (or glued span) that contains the candidate as a
    case-insensitive substring is returned (``vliegtuigje`` matches ``vliegtuig``). When no
    candidate occurs, the whole translation (tokens joined by single spaces) is returned,
    so two translations without the synonym compare equal iff the rest is the same.
    """
    toks = list(_tokens(translation))
    cands = _candidate_tokens(candidates)
    for cand in cands:
        if len(cand) > 1:
            toks = _glue(toks, cand)
    for cand in cands:
        needle = " ".join(cand)
        for token in toks:
            if needle in token.lower():
                return token
    return " ".join(toks)


def substitution_consistent(a: str, b: str) -> bool:
    """Substitutivity consistency: the full translations are equal (as token lists)."""
    return _tokens(a) == _tokens(b)


def synonym_consistent(a: str, b: str, candidates: Sequence[str]) -> bool:
    """Synonym consistency: the synonym spans (:func:`synonym_translation`) are equal."""
    return synonym_translation(a, candidates) == synonym_translation(b, candidates)


# --------------------------------------------------------------------------------------
# overgeneralisation


def _contains_sequence(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    k = len(needle)
    return any(tuple(haystack[i : i + k]) == tuple(needle) for i in range(len(haystack) - k + 1))


def is_overgeneralised(translation: str, keywords: Iterable[str], substring: bool = False) -> bool:
    """True iff a literal keyword of the idiom occurs in ``translation``.

    By default a keyword matches whole tokens, case-insensitively (a multi-word keyword
    matches as a token sequence): ``even`` does not fire on ``leven``. ``substring=True``
    restores the original code's case-insensitive substring test (on the normalised,
    space-joined tokens), under which ``even`` fires inside ``leven``.
    """
    cands = _candidate_tokens(keywords)
    if substring:
        text = _normalised(translation).lower()
        return any(" ".join(cand) in text for cand in cands)
    lowered = [t.lower() for t in _tokens(translation)]
    return any(_contains_sequence(lowered, cand) for cand in cands)


def reference_is_paraphrase(reference: str, keywords: Iterable[str], substring: bool = False) -> bool:
    """True iff the reference translation contains none of the keywords (a "paraphrase").

    The original code scored natural overgeneralisation items only when this holds.
    """
    return not is_overgeneralised(reference, keywords, substring=substring)


# --------------------------------------------------------------------------------------
# item files and translations


def _source_columns(test: str) -> tuple[str, ...]:
    return ("source",) if test == "overgeneralisation" else ("source_a", "source_b")


def _check_test(test: str) -> None:
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")


def read_items(path: str | Path, test: str, n_entries: int | None = None) -> pd.DataFrame:
    """Read the items TSV of ``test``; all columns are strings except ``pair``/``idiom`` (int).

    Checks the required columns (:data:`ITEM_COLUMNS`), non-empty values (``reference``
    may be empty), unique ``item`` ids, the ``condition`` values (:data:`CONDITIONS`) and
    that ``pair``/``idiom`` are integers in ``0..n_entries-1`` (when ``n_entries`` is
    given). Raises :class:`InputError` naming the file and line. The file path and the
    line number of each row are kept in ``frame.attrs["path"]`` / ``frame.attrs["lines"]``.
    """
    _check_test(test)
    required = ITEM_COLUMNS[test]
    non_empty = tuple(c for c in required if c != "reference")
    rows = read_tsv(path, non_empty)
    if not rows:
        raise InputError(path, f"no items; expected a row per item after the header ({', '.join(required)})")
    missing = [c for c in required if c not in rows[0][1]]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)}; expected {', '.join(required)}", 1)
    seen: dict[str, int] = {}
    index_column = {"substitutivity": "pair", "overgeneralisation": "idiom"}.get(test)
    records = []
    for number, row in rows:
        if row["item"] in seen:
            raise InputError(path, f"duplicate item id {row['item']!r} (first on line {seen[row['item']]})", number)
        seen[row["item"]] = number
        if test in CONDITIONS and row["condition"] not in CONDITIONS[test]:
            raise InputError(
                path,
                f"condition must be one of {', '.join(CONDITIONS[test])}, not {row['condition']!r}",
                number,
            )
        if index_column:
            value = row[index_column]
            if not re.fullmatch(r"\d+", value) or (n_entries is not None and int(value) >= n_entries):
                bound = f"0..{n_entries - 1}" if n_entries is not None else "0, 1, ..."
                raise InputError(path, f"{index_column} must be an integer in {bound}, not {value!r}", number)
            row = {**row, index_column: int(value)}
        records.append(row)
    frame = pd.DataFrame.from_records(records)
    frame.attrs["path"] = str(path)
    frame.attrs["lines"] = [number for number, _ in rows]
    return frame


def unique_sources(items: pd.DataFrame, test: str) -> list[str]:
    """The unique source sentences of the items, in first-seen order.

    Row by row: ``source_a`` then ``source_b`` (``source`` for overgeneralisation). This is
    the order of the ``lines`` translations format.
    """
    _check_test(test)
    columns = _source_columns(test)
    return list(dict.fromkeys(s for row in items[list(columns)].itertuples(index=False) for s in row))


def read_translations(path: str | Path, sources: Sequence[str], fmt: str = "tsv") -> dict[str, str]:
    """Map each of ``sources`` to its translation, read from ``path``.

    ``fmt="tsv"``: a TSV with the columns ``source`` and ``translation`` (extra columns and
    rows are ignored; a translation may be empty; a source listed twice must have the same
    translation). ``fmt="lines"``: one translation per line, aligned with ``sources`` (see
    :func:`unique_sources`); the line count must match. Raises :class:`InputError` for a
    missing column, a source without translation (naming the sentence) or a wrong count.
    """
    if fmt == "lines":
        lines = list(iter_lines(path, allow_empty=True))
        if len(lines) != len(sources):
            raise InputError(
                path,
                f"has {len(lines)} lines but the items have {len(sources)} unique source sentences; expected one "
                "translation per unique source sentence, in first-seen order (source_a then source_b of each row, "
                "or source)",
            )
        return {source: line.strip() for source, line in zip(sources, lines)}
    if fmt != "tsv":
        raise ValueError(f"fmt must be 'tsv' or 'lines', not {fmt!r}")
    rows = read_tsv(path, ("source",))
    header = [name.strip() for name in next(iter_lines(path, allow_empty=True)).rstrip("\r").split("\t")]
    if "translation" not in header:
        raise InputError(path, "missing column translation; expected the columns source, translation", 1)
    found: dict[str, tuple[str, int]] = {}
    for number, row in rows:
        source, translation = row["source"], row["translation"]
        if source in found and found[source][0] != translation:
            raise InputError(
                path,
                f"the source sentence {source!r} has two different translations (first on line {found[source][1]})",
                number,
            )
        found.setdefault(source, (translation, number))
    missing = [s for s in sources if s not in found]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(
            path,
            f"no translation for the source sentence {missing[0]!r}{more}; expected a row with it in column source",
        )
    return {s: found[s][0] for s in sources}


# --------------------------------------------------------------------------------------
# scoring and aggregation


def _lookup(translations: Mapping[str, str], source: str) -> str:
    try:
        return translations[source]
    except KeyError:
        raise ValueError(f"no translation for the source sentence {source!r}") from None


def score_items(
    items: pd.DataFrame,
    translations: Mapping[str, str],
    test: str,
    *,
    synonyms: Sequence[SynonymPair] | None = None,
    idioms: Sequence[Idiom] | None = None,
    substring_keywords: bool = False,
    paraphrase_references_only: bool = False,
) -> pd.DataFrame:
    """Label every item; returns a copy of ``items`` with translation and label columns.

    Added columns, per test (labels have the nullable ``boolean`` dtype; ``<NA>`` = not
    scored):

    * ``np_vp``: ``translation_a``, ``translation_b``, ``consistent``
      (:func:`np_vp_consistent`);
    * ``s_conj``: ``translation_a``, ``translation_b``, ``conjunct_a``, ``conjunct_b``,
      ``consistent`` (:func:`s_conj_consistent`; NA when a conjunct is not found);
    * ``substitutivity``: ``translation_a``, ``translation_b``, ``synonym_a``,
      ``synonym_b``, ``consistent``, ``synonym_consistent``; candidates are
      ``synonyms[pair].nl_candidates`` (``synonyms`` is required);
    * ``overgeneralisation``: ``translation``, ``overgeneralised``; keywords are
      ``idioms[idiom].dutch_keywords`` (``idioms`` is required), matched as whole tokens
      unless ``substring_keywords``. With ``paraphrase_references_only`` a column
      ``reference_paraphrase`` is added and items whose reference contains a keyword get
      NA (every item then needs a non-empty reference).

    ``translations`` maps source sentences to translations; a missing one raises
    ``ValueError`` naming the sentence.
    """
    _check_test(test)
    missing = [c for c in ITEM_COLUMNS[test] if c not in items.columns]
    if missing:
        raise ValueError(f"items lack the column(s) {', '.join(missing)}")
    out = items.copy()
    if test == "overgeneralisation":
        if idioms is None:
            raise ValueError("the overgeneralisation test needs the idioms")
        keywords = [idiom.dutch_keywords for idiom in idioms]
        out["translation"] = [_lookup(translations, s) for s in items["source"]]
        labels: list[bool | None] = []
        paraphrase: list[bool] = []
        for row in out[["item", "idiom", "reference", "translation"]].itertuples(index=False):
            kws = _entry(keywords, row.idiom, "idiom")
            if paraphrase_references_only:
                reference = "" if pd.isna(row.reference) else str(row.reference)
                if not reference.strip():
                    raise ValueError(f"item {row.item!r} has no reference; the paraphrase filter needs one")
                is_paraphrase = reference_is_paraphrase(reference, kws, substring=substring_keywords)
                paraphrase.append(is_paraphrase)
                if not is_paraphrase:
                    labels.append(None)
                    continue
            labels.append(is_overgeneralised(row.translation, kws, substring=substring_keywords))
        if paraphrase_references_only:
            out["reference_paraphrase"] = pd.array(paraphrase, dtype="boolean")
        out["overgeneralised"] = pd.array(labels, dtype="boolean")
        return out

    out["translation_a"] = [_lookup(translations, s) for s in items["source_a"]]
    out["translation_b"] = [_lookup(translations, s) for s in items["source_b"]]
    pairs = list(zip(out["translation_a"], out["translation_b"]))
    if test == "np_vp":
        out["consistent"] = pd.array([np_vp_consistent(a, b) for a, b in pairs], dtype="boolean")
    elif test == "s_conj":
        out["conjunct_a"] = [second_conjunct(a) for a, _ in pairs]
        out["conjunct_b"] = [second_conjunct(b) for _, b in pairs]
        out["consistent"] = pd.array([s_conj_consistent(a, b) for a, b in pairs], dtype="boolean")
    else:
        if synonyms is None:
            raise ValueError("the substitutivity test needs the synonym pairs")
        candidates = [_entry([p.nl_candidates for p in synonyms], k, "pair") for k in items["pair"]]
        out["synonym_a"] = [synonym_translation(a, c) for (a, _), c in zip(pairs, candidates)]
        out["synonym_b"] = [synonym_translation(b, c) for (_, b), c in zip(pairs, candidates)]
        out["consistent"] = pd.array([substitution_consistent(a, b) for a, b in pairs], dtype="boolean")
        out["synonym_consistent"] = pd.array(list(out["synonym_a"] == out["synonym_b"]), dtype="boolean")
    return out


def _entry(entries: Sequence, index, column: str):
    try:
        position = int(index)
    except (TypeError, ValueError):
        raise ValueError(f"{column} must be an integer index, not {index!r}") from None
    if not 0 <= position < len(entries):
        raise ValueError(f"{column} {position} is out of range 0..{len(entries) - 1}")
    return entries[position]


def summarise(
    labels: pd.DataFrame,
    by: Sequence[str],
    metrics: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Aggregate item labels per group: one row per value of ``by`` (first-seen order).

    ``metrics`` maps label columns to metric names (default: every known label column
    present, see :data:`LABEL_METRICS`, e.g. ``consistent`` -> ``consistency``). A row is
    scored when all its label columns are non-NA; each metric is the mean over the scored
    rows of its group and ``n`` their number (NA metric when ``n`` is 0). An empty ``by``
    gives a single overall row.
    """
    if metrics is None:
        known = {label: metric for mapping in LABEL_METRICS.values() for label, metric in mapping.items()}
        metrics = {label: metric for label, metric in known.items() if label in labels.columns}
    if not metrics:
        raise ValueError("no label columns to summarise")
    by = list(by)
    frame = pd.DataFrame({metric: labels[label].astype("Float64") for label, metric in metrics.items()})
    scored = frame.notna().all(axis=1)
    frame = frame.where(scored)
    frame["n"] = scored.astype(int)
    if not by:
        summary = pd.DataFrame([{**{m: frame[m].mean() for m in metrics.values()}, "n": int(frame["n"].sum())}])
        return summary[[*metrics.values(), "n"]]
    for key in by:
        frame[key] = labels[key].to_numpy()
    grouped = frame.groupby(by, sort=False, dropna=False)
    summary = grouped[list(metrics.values())].mean()
    summary["n"] = grouped["n"].sum().astype(int)
    return summary.reset_index()[[*by, *metrics.values(), "n"]]


def _format_cell(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _write_tsv(frame: pd.DataFrame, handle) -> None:
    for value in frame.columns:
        if any(ch in str(value) for ch in "\t\n"):
            raise ValueError(f"column name {value!r} contains a tab or newline")
    handle.write("\t".join(map(str, frame.columns)) + "\n")
    for row in frame.itertuples(index=False):
        cells = [_format_cell(value.item() if hasattr(value, "item") else value) for value in row]
        # Translations come from a model: keep the TSV well formed whatever they contain.
        handle.write("\t".join(c.replace("\t", " ").replace("\n", " ").replace("\r", " ") for c in cells) + "\n")


def write_labels(labels: pd.DataFrame, handle) -> None:
    """Write item labels as TSV to an open text handle: booleans as 1/0, NA as empty."""
    _write_tsv(labels, handle)


def write_summary(summary: pd.DataFrame, handle) -> None:
    """Write a summary as TSV to an open text handle (floats in full precision, NA empty)."""
    _write_tsv(summary, handle)
