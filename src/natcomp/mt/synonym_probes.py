"""Synonym translation candidates from probe sentences (paper, appendix C).

To find the span of a translation that translates a synonym, the paper generates "a number
of short sentences such as 'This is the NOUN'", feeds them to all trained models, keeps the
top-5 hypotheses of the beam and uses "the list of all words resulting from this protocol -
which we manually checked" as the synonym's candidate translations. The original study's
probe file (``scripts/idioms_synonyms.en``) holds exactly one frame for the synonyms,
``This is the {term} .``, with both spellings of each pair; that is
:data:`PAPER_PROBE_TEMPLATES`.

The steps, each a function here:

1. :func:`probe_sentences`: every template with both spellings of every pair.
2. The models decode them with n-best output (``Translator.translate_nbest``, cached by
   :mod:`natcomp.mt.translation_cache` under a signature naming ``nbest``);
   :func:`probe_rows` / :func:`write_probe_translations` keep every hypothesis.
3. :func:`extract_candidates`: the span of each hypothesis that translates the term.
   The paper does not say how the word was cut out of a hypothesis. Here the *frame* is
   what the hypotheses of different synonyms have in common: a token (compared in lower
   case) is a frame token of a model and template when it occurs in the hypotheses of at
   least :data:`FRAME_MIN_PAIRS` different synonym pairs (``dit``, ``is``, ``de``, ``het``,
   ``.``). The candidate is the hypothesis without its leading and trailing frame tokens,
   so multi-word renderings stay whole (``winkelwagen trolley``, ``boot van het zeilen``)
   and a frame word inside the span stays too. A hypothesis that is all frame (the model
   dropped the noun, or rendered every noun alike) yields nothing. The span is cut from
   the detokenised hypothesis, so ``pyjama's`` stays as written.
4. :func:`candidate_sheet` / :func:`write_sheet`: the candidates pooled over models, one
   row per pair, spelling and span, with the number of hypotheses per model, for a person
   to check (column ``keep``: ``yes``/``no``).
5. :func:`read_checked_sheet` (the checked sheet, every ``keep`` filled in) or
   :func:`pooled_candidates` (every span of the unchecked sheet) give the candidate lists,
   :func:`write_candidates` / :func:`load_candidates` carry them to scoring, where
   :meth:`SynonymPair.with_candidates <natcomp.mt.lexicon.SynonymPair.with_candidates>`
   puts them behind the gold word ``nl``.

Without probes, the lists shipped in ``resources/synonyms.tsv`` (the original study's
checked lists) are written by :func:`write_candidates` from the loaded pairs.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.mt.consistency import tokens
from natcomp.mt.lexicon import SynonymPair, load_synonyms
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.translation_cache import (
    DecodeStats,
    TranslationCache,
    decode_nbest,
    encode_nbest,
    translate_with_cache,
)
from natcomp.tsv import read_tsv, write_tsv

__all__ = [
    "CANDIDATE_COLUMNS",
    "FRAME_MIN_PAIRS",
    "PAPER_PROBE_TEMPLATES",
    "PROBE_COLUMNS",
    "Probe",
    "SPELLINGS",
    "candidate_sheet",
    "candidate_span",
    "check_templates",
    "choose_candidates",
    "decode_probes",
    "extract_candidates",
    "frame_tokens",
    "load_candidates",
    "pooled_candidates",
    "probe_rows",
    "probe_sentences",
    "read_checked_sheet",
    "read_probe_translations",
    "scoring_synonyms",
    "translate_probe_sentences",
    "with_lists",
    "write_candidates",
    "write_probe_translations",
    "write_sheet",
]

#: the synonym probe frame of the original study (``scripts/idioms_synonyms.en``)
PAPER_PROBE_TEMPLATES = ("This is the {term} .",)
SPELLINGS = ("british", "american")
#: a token is part of the frame when the hypotheses of this many synonym pairs contain it
FRAME_MIN_PAIRS = 2
TERM = "{term}"

#: a probe translation file's columns: the model (size and seed empty for a pretrained system), the probe, one hypothesis
PROBE_COLUMNS = (
    *("system", "size", "seed"),
    *("pair", "spelling", "template", "probe"),
    *("rank", "hypothesis", "decode_signature"),
)
SHEET_KEY_COLUMNS = ("pair", "spelling", "term", "candidate")
CANDIDATE_COLUMNS = ("pair", "spelling", "candidate")
KEEP_VALUES = ("yes", "no")


@dataclass(frozen=True)
class Probe:
    """One probe sentence: a template filled with one spelling of a synonym pair."""

    pair: str  # SynonymPair.name, "aeroplane/airplane"
    spelling: str  # "british" or "american"
    template: str  # "This is the {term} ."
    sentence: str  # "This is the aeroplane ."


def check_templates(templates: Sequence[str]) -> None:
    """``ValueError`` unless there is at least one template, each with ``{term}`` once."""
    if not templates:
        raise ValueError("no probe template; expected at least one, such as 'This is the {term} .'")
    for template in templates:
        if template.count(TERM) != 1:
            raise ValueError(f"probe template {template!r} must contain {TERM} exactly once")


def probe_sentences(pairs: Sequence[SynonymPair], templates: Sequence[str] = PAPER_PROBE_TEMPLATES) -> list[Probe]:
    """Every template filled with both spellings of every pair (pair, then template order)."""
    check_templates(templates)
    return [
        Probe(pair.name, spelling, template, template.replace(TERM, pair.term(spelling)))
        for pair in pairs
        for template in templates
        for spelling in SPELLINGS
    ]


def probe_rows(
    probes: Sequence[Probe], hypotheses: Mapping[str, Sequence[str]], model: Mapping[str, str], signature: str
) -> list[dict[str, str]]:
    """One row per probe and hypothesis (rank 1 = best), columns :data:`PROBE_COLUMNS`.

    ``hypotheses`` maps each probe sentence to its n-best list; ``model`` gives the system,
    size and seed (size and seed empty for a pretrained system).
    """
    rows = []
    for probe in probes:
        for rank, hypothesis in enumerate(hypotheses[probe.sentence], start=1):
            rows.append(
                {
                    "system": str(model["system"]),
                    "size": str(model["size"]),
                    "seed": str(model["seed"]),
                    "pair": probe.pair,
                    "spelling": probe.spelling,
                    "template": probe.template,
                    "probe": probe.sentence,
                    "rank": str(rank),
                    "hypothesis": hypothesis,
                    "decode_signature": signature,
                }
            )
    return rows


def decode_probes(
    cache: TranslationCache,
    probes: Sequence[Probe],
    translate_nbest: Callable[[Sequence[str]], list[list[str]]],
) -> tuple[dict[str, list[str]], DecodeStats]:
    """The n-best hypotheses of every probe sentence, decoding only those not in ``cache``.

    ``cache`` must be keyed on a signature naming the n-best (see
    :class:`~natcomp.mt.translation_cache.DecodeSettings`); ``translate_nbest`` decodes a
    batch of sentences (e.g. ``lambda batch: translator.translate_nbest(batch, 5)``) and is
    called once for all missing sentences, not at all when every probe is cached.
    """
    sentences = [probe.sentence for probe in probes]
    stats = translate_with_cache(
        cache, sentences, lambda batch: [encode_nbest(h) for h in translate_nbest(batch)], batch_sentences=10_000
    )
    return {s: decode_nbest(cache.entries[s]) for s in dict.fromkeys(sentences)}, stats


def translate_probe_sentences(
    pairs: Sequence[SynonymPair],
    templates: Sequence[str],
    cache: TranslationCache,
    translate_nbest: Callable[[Sequence[str]], list[list[str]]],
    output: str | Path,
    model: Mapping[str, str],
) -> DecodeStats:
    """The probe sentences of ``pairs`` in ``templates`` decoded through ``cache``
    (:func:`decode_probes`) and written to ``output``, one row per probe and hypothesis
    (``model``: its system, size and seed; the decode signature is the cache's)."""
    probes = probe_sentences(pairs, templates)
    hypotheses, stats = decode_probes(cache, probes, translate_nbest)
    write_probe_translations(output, probe_rows(probes, hypotheses, model, cache.signature))
    return stats


def write_probe_translations(path: str | Path, rows: Iterable[Mapping[str, str]]) -> int:
    return write_tsv(path, rows, PROBE_COLUMNS)


def read_probe_translations(paths: Iterable[str | Path]) -> pd.DataFrame:
    """The probe translation files of several models, concatenated."""
    frames = [read_tsv(path, PROBE_COLUMNS) for path in paths]
    if not frames:
        raise ValueError("no probe translation files")
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------------------
# spans


def _lower_tokens(text: str) -> list[str]:
    return [t.lower() for t in tokens(text)]


def frame_tokens(hypotheses_by_pair: Mapping[str, Iterable[str]], min_pairs: int = FRAME_MIN_PAIRS) -> set[str]:
    """Lower-cased tokens found in the hypotheses of at least ``min_pairs`` pairs.

    ``hypotheses_by_pair`` holds the hypotheses of one model and template per pair. With
    fewer pairs than ``min_pairs`` the frame cannot be told from the nouns: ``ValueError``.
    """
    if len(hypotheses_by_pair) < min_pairs:
        raise ValueError(
            f"the probe frame is found by comparing synonym pairs: needs at least {min_pairs} pairs, "
            f"got {len(hypotheses_by_pair)}"
        )
    pairs_with = Counter()
    for hypotheses in hypotheses_by_pair.values():
        pairs_with.update({token for hypothesis in hypotheses for token in _lower_tokens(hypothesis)})
    return {token for token, count in pairs_with.items() if count >= min_pairs}


def candidate_span(hypothesis: str, frame: set[str]) -> str | None:
    """The hypothesis without its leading and trailing frame tokens, as written in the
    hypothesis (``Dit is de pyjama's .`` -> ``pyjama's``); ``None`` when nothing is left."""
    toks = tokens(hypothesis)
    start, end = 0, len(toks)
    while start < end and toks[start].lower() in frame:
        start += 1
    while end > start and toks[end - 1].lower() in frame:
        end -= 1
    if start == end:
        return None
    # Cut the span out of the hypothesis text: locate each token after the previous one.
    text = re.sub(r"\s+", " ", hypothesis.strip())
    cursor, offsets = 0, []
    for token in toks:
        at = text.find(token, cursor)
        if at < 0:  # the tokenizer changed the characters (it does not for plain text)
            return " ".join(toks[start:end])
        offsets.append((at, at + len(token)))
        cursor = at + len(token)
    return text[offsets[start][0] : offsets[end - 1][1]]


def extract_candidates(probes: pd.DataFrame, min_pairs: int = FRAME_MIN_PAIRS) -> pd.DataFrame:
    """Candidate spans of probe translations (:data:`PROBE_COLUMNS`), counted.

    Returns the columns ``system``, ``size``, ``seed``, ``pair``, ``spelling``,
    ``candidate``, ``count`` (hypotheses of that model yielding the span, over templates
    and ranks). The frame is found per model and template (:func:`frame_tokens`).
    """
    counts: Counter = Counter()
    models = probes.groupby(["system", "size", "seed", "template"], sort=False)
    for (system, size, seed, _template), group in models:
        by_pair = defaultdict(list)
        for row in group.itertuples(index=False):
            by_pair[row.pair].append(row.hypothesis)
        frame = frame_tokens(by_pair, min_pairs)
        for row in group.itertuples(index=False):
            span = candidate_span(row.hypothesis, frame)
            if span is not None:
                counts[(system, size, seed, row.pair, row.spelling, span)] += 1
    columns = ["system", "size", "seed", "pair", "spelling", "candidate", "count"]
    rows = [dict(zip(columns, [*key, n])) for key, n in counts.items()]
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------------------
# the sheet a person checks


def _model_column(system: str, size: str, seed: str) -> str:
    """``count_<size>_seed<seed>`` for a trained model, ``count_<system>`` for a pretrained one."""
    return f"count_{size}_seed{seed}" if system == TRAINED_SYSTEM else f"count_{system}"


def candidate_sheet(candidates: pd.DataFrame, pairs: Sequence[SynonymPair]) -> pd.DataFrame:
    """Candidates pooled over models: one row per pair, spelling and span.

    Columns: ``pair``, ``spelling``, ``term``, ``candidate``, ``models`` (models that
    yielded it), ``count`` (hypotheses over all models), one ``count_<size>_seed<seed>``
    per trained model and ``count_<system>`` per pretrained system, and ``keep`` (empty: a person writes ``yes`` or ``no``). Rows follow the
    pairs' order, British before American, then the most frequent span first.
    """
    models = list(dict.fromkeys(zip(candidates["system"], candidates["size"], candidates["seed"])))
    model_columns = [_model_column(*model) for model in models]
    order = {pair.name: k for k, pair in enumerate(pairs)}
    unknown = sorted(set(candidates["pair"]) - set(order))
    if unknown:
        raise ValueError(f"candidates of unknown synonym pair(s): {', '.join(unknown)}")
    terms = {(pair.name, spelling): pair.term(spelling) for pair in pairs for spelling in SPELLINGS}
    rows = []
    for (pair, spelling, span), group in candidates.groupby(["pair", "spelling", "candidate"], sort=False):
        per_model = {_model_column(r.system, r.size, r.seed): int(r.count) for r in group.itertuples(index=False)}
        rows.append(
            {
                "pair": pair,
                "spelling": spelling,
                "term": terms[(pair, spelling)],
                "candidate": span,
                "models": len(per_model),
                "count": sum(per_model.values()),
                **{column: per_model.get(column, 0) for column in model_columns},
                "keep": "",
            }
        )
    columns = [*SHEET_KEY_COLUMNS, "models", "count", *model_columns, "keep"]
    sheet = pd.DataFrame(rows, columns=columns)
    if sheet.empty:
        return sheet
    sheet["_pair"] = sheet["pair"].map(order)
    sheet["_spelling"] = sheet["spelling"].map(SPELLINGS.index)
    sheet = sheet.sort_values(["_pair", "_spelling", "count", "candidate"], ascending=[True, True, False, True])
    return sheet.drop(columns=["_pair", "_spelling"]).reset_index(drop=True)


def write_sheet(path: str | Path, sheet: pd.DataFrame) -> int:
    return write_tsv(path, sheet)


def _sheet_lists(path: Path, pairs: Sequence[SynonymPair], checked: bool) -> dict[str, dict[str, list[str]]]:
    # A sheet saved from a spreadsheet program may come back CSV-quoted.
    frame = read_tsv(path, CANDIDATE_COLUMNS + (("keep",) if checked else ()), quoted="auto")
    known = {pair.name for pair in pairs}
    lists: dict[str, dict[str, list[str]]] = {pair.name: {s: [] for s in SPELLINGS} for pair in pairs}
    for number, row in zip(frame.attrs["lines"], frame.to_dict("records")):
        if row["pair"] not in known:
            raise InputError(path, f"unknown synonym pair {row['pair']!r}; expected one of synonyms.tsv", number)
        if row["spelling"] not in SPELLINGS:
            raise InputError(path, f"spelling must be british or american, not {row['spelling']!r}", number)
        candidate = row["candidate"].strip()
        if not candidate:
            raise InputError(path, "empty candidate", number)
        if checked:
            keep = row["keep"].strip().lower()
            if keep not in KEEP_VALUES:
                raise InputError(
                    path, f"keep must be yes or no, not {row['keep']!r}: check every candidate of the sheet", number
                )
            if keep == "no":
                continue
        spans = lists[row["pair"]][row["spelling"]]
        if candidate not in spans:
            spans.append(candidate)
    return lists


def read_checked_sheet(path: str | Path, pairs: Sequence[SynonymPair]) -> dict[str, dict[str, list[str]]]:
    """pair name -> spelling -> the candidates a person kept (``keep`` = ``yes``), in sheet
    order. Every row needs ``keep`` = ``yes`` or ``no``; rows a person added (a span no
    model produced) need only ``pair``, ``spelling`` and ``candidate``; counts are ignored."""
    return _sheet_lists(Path(path), pairs, checked=True)


def pooled_candidates(path: str | Path, pairs: Sequence[SynonymPair]) -> dict[str, dict[str, list[str]]]:
    """pair name -> spelling -> every candidate of an (unchecked) sheet, in sheet order."""
    return _sheet_lists(Path(path), pairs, checked=False)


def with_lists(pairs: Sequence[SynonymPair], lists: Mapping[str, Mapping[str, Sequence[str]]]) -> list[SynonymPair]:
    """The pairs with their candidate lists replaced (a pair absent from ``lists`` keeps
    only its gold word ``nl``)."""
    out = []
    for pair in pairs:
        found = lists.get(pair.name, {})
        out.append(pair.with_candidates(found.get("british", ()), found.get("american", ())))
    return out


def write_candidates(path: str | Path, pairs: Sequence[SynonymPair]) -> int:
    """The candidate lists scoring uses, one row per pair, spelling and candidate
    (:data:`CANDIDATE_COLUMNS`); one row per candidate, so a span may contain any text."""
    rows = (
        {"pair": pair.name, "spelling": spelling, "candidate": candidate}
        for pair in pairs
        for spelling in SPELLINGS
        for candidate in pair.candidates(spelling)
    )
    return write_tsv(path, rows, CANDIDATE_COLUMNS)


def choose_candidates(
    pairs: Sequence[SynonymPair],
    source: str,
    sheet: str | Path | None = None,
    checked_sheet: str | Path | None = None,
) -> list[SynonymPair]:
    """The pairs with the candidate lists scoring uses (config ``mt.synonyms``).

    ``source`` ``"shipped"``: the lists of ``synonyms.tsv`` as loaded (``pairs`` unchanged).
    ``"probes"``: the person's ``checked_sheet`` when given, else every span of the
    probes' ``sheet``.
    """
    if source == "shipped":
        if checked_sheet:
            raise ValueError("a checked sheet is only read with candidates from probes")
        return list(pairs)
    if source != "probes":
        raise ValueError(f"candidate source must be shipped or probes, not {source!r}")
    if checked_sheet:
        return with_lists(pairs, read_checked_sheet(checked_sheet, pairs))
    if sheet is None:
        raise ValueError("candidates from probes need the candidate sheet (or a checked sheet)")
    return with_lists(pairs, pooled_candidates(sheet, pairs))


def load_candidates(path: str | Path, pairs: Sequence[SynonymPair]) -> list[SynonymPair]:
    """The pairs with the candidate lists of a file written by :func:`write_candidates`."""
    return with_lists(pairs, pooled_candidates(path, pairs))


def scoring_synonyms(
    synonyms_path: str | Path, candidates_path: str | Path | None = None, target_lang: str = "nl"
) -> list[SynonymPair]:
    """The synonym pairs of ``synonyms.tsv`` with the candidate lists of ``candidates_path``
    (:func:`write_candidates`) when given, else with the lists shipped in the file.

    The shipped lists and each pair's gold word (column ``nl``) are Dutch: a run into
    another language needs ``candidates_path`` (the config check refuses
    ``mt.synonyms.candidates: shipped`` there) and scores the probes' lists alone
    (:func:`natcomp.mt.scoring.probe_synonym_candidates`)."""
    pairs = load_synonyms(synonyms_path)
    if target_lang != "nl" and candidates_path is None:
        raise ValueError(f"the shipped synonym lists are Dutch; a run into {target_lang!r} needs the probes' lists")
    return pairs if candidates_path is None else load_candidates(candidates_path, pairs)
