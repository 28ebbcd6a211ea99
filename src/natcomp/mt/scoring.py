"""Reading, scoring and summarising the items of the MT compositionality tests.

This is the public scoring API (``natcomp.mt.scoring``; the old path ``natcomp.scoring`` is
gone): the judgements of :mod:`natcomp.mt.consistency` applied to item files
and translations from any MT system. Which columns, conditions and labels each test has
comes from the test registry, :mod:`natcomp.mt.registry`.

Item files
----------
One TSV per test and data type with a header and one row per item (:func:`read_items`);
the required columns are the registry's ``item_columns`` (:data:`ITEM_COLUMNS`). Extra
columns are kept. Substitutivity items name their synonym pair (``pair``:
``aeroplane/airplane``) and overgeneralisation items their idiom (``idiom``: ``by
heart``). Translations (:func:`read_translations`) are either a TSV with the columns
``source`` and ``translation`` (one row per unique source sentence; extra columns and rows
are ignored) or, with ``fmt="lines"``, a plain text file with one translation per line,
aligned with the unique source sentences of the items file in first-seen order
(``source_a`` then ``source_b`` of each row, or ``source``; see :func:`unique_sources`).
Both readers take ``quoted`` like :func:`natcomp.tsv.iter_tsv` (``"auto"`` reads files
written by pandas' ``to_csv``); a UTF-8 byte-order mark is ignored.

Summaries (:func:`summarise`) have one row per group and, with ``overall=True``, rows
that pool the items over the leading group columns, marked :data:`OVERALL` there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.files import iter_lines
from natcomp.mt.consistency import (
    CONJUNCT_RULES,
    DEFAULT_LANGUAGE,
    KEYWORD_MATCHING,
    MIN_FIRST_CONJUNCT,
    check_keyword_matching,
    edit_distance,
    inflected_forms,
    is_overgeneralised,
    np_vp_consistent,
    reference_is_paraphrase,
    s_conj_consistent,
    second_conjunct,
    substitution_consistent,
    synonym_consistent,
    synonym_translation,
    tokens,
)
from natcomp.mt.languages import target_language
from natcomp.mt.lexicon import Idiom, SynonymPair
from natcomp.mt.registry import TESTS, ScoringContext, get_test
from natcomp.mt.translation_cache import translation_signature
from natcomp.tsv import iter_tsv, write_tsv

__all__ = [
    "CONDITIONS",
    "GROUP_COLUMNS",
    "ITEM_COLUMNS",
    "KEYWORD_MATCHING",
    "LABEL_METRICS",
    "MIN_FIRST_CONJUNCT",
    "OVERALL",
    "probe_synonym_candidates",
    "S_CONJ_MISSING_CONJUNCT",
    "S_CONJ_SPLIT",
    "TESTS",
    "edit_distance",
    "inflected_forms",
    "is_overgeneralised",
    "np_vp_consistent",
    "read_items",
    "read_translations",
    "reference_is_paraphrase",
    "s_conj_consistent",
    "score_items",
    "score_test_files",
    "second_conjunct",
    "source_contains_idiom",
    "substitution_consistent",
    "summarise",
    "synonym_consistent",
    "synonym_translation",
    "tokens",
    "unique_sources",
    "write_labels",
    "write_summary",
]

#: required columns of the items file of each test (from the registry)
ITEM_COLUMNS: dict[str, tuple[str, ...]] = {name: test.item_columns for name, test in TESTS.items()}
#: allowed values of the ``condition`` column (from the registry)
CONDITIONS: dict[str, tuple[str, ...]] = {
    name: tuple(test.conditions) for name, test in TESTS.items() if test.conditions
}
#: default grouping keys of the summary of each test (from the registry)
GROUP_COLUMNS: dict[str, tuple[str, ...]] = {name: test.group_by for name, test in TESTS.items()}
#: label column -> summary metric column, per test (from the registry)
LABEL_METRICS: dict[str, dict[str, str]] = {name: dict(test.labels) for name, test in TESTS.items()}
#: the value of the pooled group columns in a summary's overall rows
OVERALL = "overall"
#: the decimals of the scores in a summary file
SUMMARY_FLOAT_FORMAT = "%.4f"
#: what S -> S CONJ S leaves unscored when a translation has no second conjunct: the pair
#: (that item, in its own condition) or the triple (S1, S1', S3: both conditions, the original code)
S_CONJ_MISSING_CONJUNCT = ("pair", "triple")
#: how S -> S CONJ S locates the second conjunct (:func:`second_conjunct`'s ``rule``): natcomp's
#: ``tokens`` rule (the first conjunction, Dutch ``en``, with 5 tokens before it) or the ``original`` code's split on " en "
S_CONJ_SPLIT = CONJUNCT_RULES


# --------------------------------------------------------------------------------------
# item files and translations


def read_items(
    path: str | Path,
    test: str,
    entries: Collection[str] | None = None,
    *,
    quoted: bool | str = False,
    keyword_matching: str = "inflected",
) -> pd.DataFrame:
    """Read the items TSV of ``test``; every column is a string.

    Checks the required columns (:data:`ITEM_COLUMNS`), non-empty values (``reference``
    may be empty), unique ``item`` ids, the ``condition`` values (:data:`CONDITIONS`),
    source sentences without line breaks (possible only in a CSV-quoted file), when
    ``entries`` is given, that each ``pair``/``idiom`` names one of them, and that the
    source of every overgeneralisation item contains its idiom
    (:func:`source_contains_idiom`: a file whose idiom column is out of step with its
    sources would otherwise be scored against the wrong keywords). That check follows the
    matching mode, as the original code's ``assert idiom in source.lower()`` did: a source
    must hold its idiom at least as a case-insensitive substring; with
    ``keyword_matching="substring"`` that is all, in the other modes a source that holds
    it only inside longer words ("from scratches", "by heartily", "main tandem") is read
    and scored all the same, and listed as ``(line, source, idiom)`` in
    ``frame.attrs["idiom_inside_words"]`` for the caller to report. Raises
    :class:`InputError` naming the file and line. ``quoted`` is passed to
    :func:`natcomp.tsv.iter_tsv`. The file path and the line number of each row are kept
    in ``frame.attrs["path"]`` / ``frame.attrs["lines"]``.
    """
    spec = get_test(test)
    required = spec.item_columns
    non_empty = tuple(c for c in required if c != "reference")
    rows = list(iter_tsv(path, required, non_empty=non_empty, strip=True, quoted=quoted))
    if not rows:
        raise InputError(path, f"no items; expected a row per item after the header ({', '.join(required)})")
    seen: dict[str, int] = {}
    for number, row in rows:
        if row["item"] in seen:
            raise InputError(path, f"duplicate item id {row['item']!r} (first on line {seen[row['item']]})", number)
        seen[row["item"]] = number
        broken = [c for c in spec.source_columns if "\n" in row[c] or "\r" in row[c]]
        if broken:
            raise InputError(
                path, f"line break inside {', '.join(broken)}; expected one source sentence on one line", number
            )
        if spec.conditions and row["condition"] not in spec.conditions:
            raise InputError(
                path,
                f"condition must be one of {', '.join(spec.conditions)}, not {row['condition']!r}",
                number,
            )
        if spec.entry and entries is not None and row[spec.entry] not in entries:
            raise InputError(
                path,
                f"unknown {spec.entry} {row[spec.entry]!r}; expected one of {', '.join(sorted(entries))}",
                number,
            )
    inside_words = []
    if spec.entry == "idiom":
        check_keyword_matching(keyword_matching)
        for number, row in rows:
            if source_contains_idiom(row["source"], row["idiom"]):
                continue
            if row["idiom"].lower() not in row["source"].lower():
                raise InputError(
                    path,
                    f"the source {row['source']!r} does not contain its idiom {row['idiom']!r}; expected the idiom "
                    "of column idiom in column source (case-insensitive)",
                    number,
                )
            if keyword_matching != "substring":
                inside_words.append((number, row["source"], row["idiom"]))
    frame = pd.DataFrame.from_records([row for _, row in rows])
    frame.attrs["idiom_inside_words"] = inside_words
    frame.attrs["path"] = str(path)
    frame.attrs["lines"] = [number for number, _ in rows]
    return frame


@functools.lru_cache(maxsize=256)
def _idiom_pattern(idiom: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(word) for word in idiom.split())
    return re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)


def source_contains_idiom(source: str, idiom: str) -> bool:
    """Whether ``source`` contains ``idiom`` as whole words, case-insensitively.

    Any run of white space separates the words (``By the  same token`` contains ``by the
    same token``); no letter, digit or ``_`` may touch the idiom (``by heartless`` does not
    contain ``by heart``). The original code asserted ``idiom in source.lower()``.
    """
    return bool(_idiom_pattern(idiom).search(source))


def unique_sources(items: pd.DataFrame, test: str) -> list[str]:
    """The unique source sentences of the items, in first-seen order.

    Row by row: ``source_a`` then ``source_b`` (``source`` for overgeneralisation). This is
    the order of the ``lines`` translations format.
    """
    columns = list(get_test(test).source_columns)
    return list(dict.fromkeys(s for row in items[columns].itertuples(index=False) for s in row))


def read_translations(
    path: str | Path, sources: Sequence[str], fmt: str = "tsv", *, quoted: bool | str = False
) -> dict[str, str]:
    """Map each of ``sources`` to its translation, read from ``path``.

    ``fmt="tsv"``: a TSV with the columns ``source`` and ``translation`` (extra columns and
    rows are ignored; a translation may be empty; a source listed twice must have the same
    translation). ``fmt="lines"``: one translation per line, aligned with ``sources`` (see
    :func:`unique_sources`); the line count must match. Raises :class:`InputError` for a
    missing column, a source without translation (naming the sentence) or a wrong count.
    ``quoted`` applies to the TSV format (see :func:`natcomp.tsv.iter_tsv`); a byte-order
    mark before the first line is ignored in both formats.
    """
    if fmt == "lines":
        lines = list(iter_lines(path, allow_empty=True))
        if lines:
            lines[0] = lines[0].removeprefix("\ufeff")
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
    found: dict[str, tuple[str, int]] = {}
    for number, row in iter_tsv(path, ("source", "translation"), non_empty=("source",), strip=True, quoted=quoted):
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


def score_items(
    items: pd.DataFrame,
    translations: Mapping[str, str],
    test: str,
    *,
    synonyms: Sequence[SynonymPair] | None = None,
    idioms: Sequence[Idiom] | None = None,
    keyword_matching: str = "inflected",
    paraphrase_references_only: bool = False,
    s_conj_missing_conjunct: str = "pair",
    s_conj_split: str = "tokens",
    language: str = DEFAULT_LANGUAGE,
    synonym_candidates: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Label every item; returns a copy of ``items`` with translation and label columns.

    Added columns, per test (labels have the nullable ``boolean`` dtype; ``<NA>`` = not
    scored):

    * ``np_vp``: ``translation_a``, ``translation_b``, ``consistent``
      (:func:`np_vp_consistent`);
    * ``s_conj``: ``translation_a``, ``translation_b``, ``conjunct_a``, ``conjunct_b``,
      ``consistent`` (:func:`s_conj_consistent`). ``s_conj_missing_conjunct``
      (:data:`S_CONJ_MISSING_CONJUNCT`) says which items are NA when a translation has no
      second conjunct: ``"pair"`` that item only (its own two translations); ``"triple"``
      (the original code) every item of the triple (S1, S1', S3), i.e. both conditions'
      items that share its ``template`` and ``source_a``, when any of the three
      translations lacks it. ``s_conj_split`` (:data:`S_CONJ_SPLIT`) is the rule that
      locates the conjunct (:func:`second_conjunct`): ``"tokens"`` (natcomp's) or
      ``"original"`` (the original code's split on ``" en "``, whose empty conjunct counts
      as found);
    * ``substitutivity``: ``translation_a``, ``translation_b``, ``synonym_a``,
      ``synonym_b``, ``consistent``, ``synonym_consistent``; the candidates of the pair
      named in ``pair`` are ``synonym_candidates[pair]`` when given (pair name -> the
      candidate translations in ``language``, e.g. :func:`probe_synonym_candidates`), else
      for Dutch its ``nl_candidates`` (``synonyms`` is required); the shipped candidates are
      Dutch, so another language without ``synonym_candidates`` is a ``ValueError``;
    * ``overgeneralisation``: ``translation``, ``overgeneralised``; the keywords of the
      idiom named in ``idiom`` are, for Dutch, its ``dutch_keywords`` (``idioms`` is
      required, so a file of one's own is read), for another language the
      ``idiom_keywords`` of its resource file (a ``ValueError`` when it has none), matched
      as ``keyword_matching`` says (:data:`KEYWORD_MATCHING`: ``"inflected"``, ``"word"``
      or ``"substring"``; see :func:`is_overgeneralised`). With
      ``paraphrase_references_only`` a column ``reference_paraphrase`` is added and items
      whose reference contains a keyword get NA; an empty reference is a paraphrase (the
      original code's behaviour).

    ``language`` is the target language (``resources/mt/languages/<code>.yaml``, default
    Dutch, the paper's): its tokeniser, conjunctions, equivalent tokens and keyword
    matching decide every judgement (:mod:`natcomp.mt.consistency`); an unknown code is a
    :class:`natcomp.errors.ConfigError`.

    ``translations`` maps source sentences to translations; a missing one raises
    ``ValueError`` naming the sentence, as does an unknown option value.
    """
    spec = get_test(test)
    target_language(language)
    check_keyword_matching(keyword_matching)
    if s_conj_missing_conjunct not in S_CONJ_MISSING_CONJUNCT:
        raise ValueError(
            f"s_conj_missing_conjunct must be one of {', '.join(S_CONJ_MISSING_CONJUNCT)}, "
            f"not {s_conj_missing_conjunct!r}"
        )
    if s_conj_split not in S_CONJ_SPLIT:
        raise ValueError(f"s_conj_split must be one of {', '.join(S_CONJ_SPLIT)}, not {s_conj_split!r}")
    missing = [c for c in spec.item_columns if c not in items.columns]
    if missing:
        raise ValueError(f"items lack the column(s) {', '.join(missing)}")
    if spec.entry == "pair" and synonyms is None and synonym_candidates is None:
        raise ValueError("the substitutivity test needs the synonym pairs")
    if spec.entry == "idiom" and idioms is None and language == DEFAULT_LANGUAGE:
        raise ValueError("the overgeneralisation test needs the idioms")
    context = ScoringContext(
        synonym_candidates=_synonym_candidates(synonyms, synonym_candidates, language) if spec.entry == "pair" else {},
        idiom_keywords=_idiom_keywords(idioms, language) if spec.entry == "idiom" else {},
        keyword_matching=keyword_matching,
        paraphrase_references_only=paraphrase_references_only,
        s_conj_missing_conjunct=s_conj_missing_conjunct,
        s_conj_split=s_conj_split,
        language=language,
    )

    def translate(source: str) -> str:
        try:
            return translations[source]
        except KeyError:
            raise ValueError(f"no translation for the source sentence {source!r}") from None

    return spec.label(items, translate, context)


def probe_synonym_candidates(pairs: Sequence[SynonymPair]) -> dict[str, tuple[str, ...]]:
    """Pair name -> its ``candidates_british`` then ``candidates_american``, each once.

    The ``synonym_candidates`` of :func:`score_items` for a target language other than
    Dutch, from pairs whose lists came from probe sentences
    (:func:`natcomp.mt.synonym_probes.scoring_synonyms` with a candidates file): unlike
    ``nl_candidates`` they do not start with the paper's Dutch gold word ``nl``.
    """
    return {pair.name: tuple(dict.fromkeys([*pair.candidates_british, *pair.candidates_american])) for pair in pairs}


def _synonym_candidates(
    synonyms: Sequence[SynonymPair] | None, given: Mapping[str, Sequence[str]] | None, language: str
) -> dict[str, tuple[str, ...]]:
    """The candidates substitutivity searches, per pair: the given ones, else the Dutch lists."""
    if given is not None:
        return {name: tuple(candidates) for name, candidates in given.items()}
    if language != DEFAULT_LANGUAGE:
        name = target_language(language).name
        raise ValueError(
            f"the shipped synonym candidates are Dutch; substitutivity in {name} needs candidate translations "
            f"of each synonym: give candidates for {name} (mt.synonyms.candidates: probes)"
        )
    return {pair.name: pair.nl_candidates for pair in synonyms or ()}


def _idiom_keywords(idioms: Sequence[Idiom] | None, language: str) -> dict[str, tuple[str, ...]]:
    """The literal keywords of each idiom in the target language.

    Dutch reads the given idioms' ``dutch_keywords`` (a user's own idioms file included);
    another language its resource file's ``idiom_keywords``."""
    if language == DEFAULT_LANGUAGE:
        return {idiom.idiom: idiom.dutch_keywords for idiom in idioms or ()}
    spec = target_language(language)
    if spec.idiom_keywords is None:
        raise ValueError(
            f"{spec.name} has no idiom keywords (resources/mt/languages/{spec.code}.yaml): "
            "overgeneralisation cannot be scored"
        )
    return {idiom: tuple(words) for idiom, words in spec.idiom_keywords.keywords.items()}


#: the ``system`` of the models the workflow trains (a pretrained system has its config name)
TRAINED_SYSTEM = "trained"
#: the ``checkpoint`` of a pretrained system's scores: its one released model (no epochs)
FINAL_CHECKPOINT = "final"

#: the columns that say which model, test and decoding a score file's rows belong to: the
#: system, and for the trained system the corpus size and seed (empty for a pretrained one)
MODEL_COLUMNS = ("system", "size", "seed", "checkpoint", "test", "data_type", "decode_signature")


def score_test_files(
    items_by_data_type: Mapping[str, str | Path],
    translations_path: str | Path,
    test: str,
    *,
    model: Mapping[str, str],
    synonyms: Sequence[SynonymPair] | None = None,
    idioms: Sequence[Idiom] | None = None,
    keyword_matching: str = "inflected",
    paraphrase_references_only: bool = False,
    s_conj_missing_conjunct: str = "pair",
    s_conj_split: str = "tokens",
    language: str = DEFAULT_LANGUAGE,
    synonym_candidates: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Score one model's translations of one test on each of its data types.

    ``language`` and ``synonym_candidates`` as in :func:`score_items`. Returns the labels
    of every item (:func:`score_items`) behind the columns
    :data:`MODEL_COLUMNS`: ``model`` (system, size, seed, checkpoint), the test, the data
    type and the translations' decode signature, so that tables never read them from file
    paths.
    """
    missing = [key for key in MODEL_COLUMNS[:4] if key not in model]
    if missing:
        raise ValueError(f"model must name {', '.join(MODEL_COLUMNS[:4])}; missing {', '.join(missing)}")
    entries = None
    if synonyms is not None and get_test(test).entry == "pair":
        entries = {pair.name for pair in synonyms}
    if idioms is not None and get_test(test).entry == "idiom":
        entries = {idiom.idiom for idiom in idioms}
    items = {
        d: read_items(path, test, entries, keyword_matching=keyword_matching) for d, path in items_by_data_type.items()
    }
    sources = list(dict.fromkeys(s for frame in items.values() for s in unique_sources(frame, test)))
    translations = read_translations(translations_path, sources)
    signature = translation_signature(translations_path)
    frames = []
    for data_type, frame in items.items():
        labels = score_items(
            frame,
            translations,
            test,
            synonyms=synonyms,
            idioms=idioms,
            keyword_matching=keyword_matching,
            paraphrase_references_only=paraphrase_references_only,
            s_conj_missing_conjunct=s_conj_missing_conjunct,
            s_conj_split=s_conj_split,
            language=language,
            synonym_candidates=synonym_candidates,
        )
        keys = {**model, "test": test, "data_type": data_type, "decode_signature": signature}
        frames.append(pd.concat([pd.DataFrame(keys, index=labels.index), labels], axis=1))
    return pd.concat(frames, ignore_index=True)


def summarise(
    labels: pd.DataFrame,
    by: Sequence[str],
    metrics: Mapping[str, str] | None = None,
    *,
    overall: bool = False,
) -> pd.DataFrame:
    """Aggregate item labels per group: one row per value of ``by`` (first-seen order).

    ``metrics`` maps label columns to metric names (default: every known label column
    present, see the registry's ``labels``, e.g. ``consistent`` -> ``consistency``). A row is
    scored when all its label columns are non-NA; each metric is the mean over the scored
    rows of its group and ``n`` their number (NA metric when ``n`` is 0). An empty ``by``
    gives a single overall row.

    ``overall`` adds, after the groups, rows that pool the items (a mean over items, not
    over groups) over the first ``k`` group columns for ``k = 1 .. len(by)``, with
    :data:`OVERALL` in the pooled columns: for ``by=("template", "pair")`` one row per pair
    over all templates, then one row over everything. A group value equal to
    :data:`OVERALL` raises ``ValueError``.
    """
    if metrics is None:
        known = {label: metric for test in TESTS.values() for label, metric in test.labels.items()}
        metrics = {label: metric for label, metric in known.items() if label in labels.columns}
    if not metrics:
        raise ValueError("no label columns to summarise")
    by = list(by)
    names = list(metrics.values())
    frame = pd.DataFrame({metric: labels[label].astype("Float64") for label, metric in metrics.items()})
    scored = frame.notna().all(axis=1)
    frame = frame.where(scored)
    frame["n"] = scored.astype(int)
    for key in by:
        frame[key] = labels[key].to_numpy()
        if overall and (frame[key].astype(str) == OVERALL).any():
            raise ValueError(f"column {key} holds the value {OVERALL!r}, which marks the pooled rows of a summary")

    def pool(keys: list[str]) -> pd.DataFrame:
        if not keys:
            return pd.DataFrame([{**{m: frame[m].mean() for m in names}, "n": int(frame["n"].sum())}])
        grouped = frame.groupby(keys, sort=False, dropna=False)
        table = grouped[names].mean()
        table["n"] = grouped["n"].sum().astype(int)
        return table.reset_index()

    parts = [pool(by)]
    if overall and by:
        for k in range(1, len(by) + 1):
            pooled = pool(by[k:])
            for key in by[:k]:
                pooled[key] = OVERALL
            parts.append(pooled)
    summary = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return summary[[*by, *names, "n"]]


def write_labels(labels: pd.DataFrame, path: str | Path, *, quoted: bool | str = False) -> None:
    """Write item labels as TSV, atomically: booleans as 1/0, NA as empty.

    ``quoted`` as in :func:`natcomp.tsv.write_tsv` (``"auto"``: CSV-style quoting only when
    a sentence holds a tab or a line break).
    """
    write_tsv(path, labels, quoted=quoted)


def write_summary(
    summary: pd.DataFrame,
    path: str | Path,
    float_format: str | None = SUMMARY_FLOAT_FORMAT,
    *,
    quoted: bool | str = False,
) -> None:
    """Write a summary as TSV, atomically: scores with 4 decimals (``float_format``), NA empty."""
    write_tsv(path, summary, float_format=float_format, quoted=quoted)
