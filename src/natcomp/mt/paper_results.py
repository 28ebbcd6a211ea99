"""The original study's own scores at the finest grain, beside a run's.

``resources/mt/paper_results/`` holds the released ``results.pickle`` of each test
(repository compositionality_paradox_mt, commit b69f233; ``resources/README.md``) typed into
natcomp's layout, one row per corpus size, seed and cell, every value as released:

* ``systematicity.tsv``: ``size, seed, data_type, condition, template, consistency`` (the
  release's S -> NP VP pair of scores is NP -> NP' and VP -> VP', semi-natural without VP;
  S -> S CONJ S's is S1 -> S1' and S1 -> S3);
* ``substitutivity.tsv``: ``size, seed, data_type, template, pair, consistency,
  synonym_consistency`` (template 0: natural data, as natcomp's natural items);
* ``overgeneralisation.tsv``: ``size, seed, data_type, idiom, epoch, overgeneralisation``
  (empty where the release has NaN).

Sizes are the paper's names (its repository's ``tiny``, ``small``, ``all`` are the paper's
small, medium and full, the corpus sizes of ``config/paper.yaml``); synonym pairs and idioms
by name (the release numbers them in the order of its own lists). :func:`read_paper_results`
reads them as natcomp's per-model tables of the system ``trained`` (:mod:`natcomp.mt.tables`),
so the paper's summaries are natcomp's own aggregations of its seeds
(:func:`paper_summaries`): they give Tables 4a, 6a and 8 to the printed digits.

:func:`with_paper` is the one place the paper joins a run's MT tables:

* the summaries (Tables 4a, 6a) get the printed values of ``resources/mt/published.tsv``
  (``paper_<size>``, :func:`natcomp.mt.tables.with_published`), the sd over the paper's five
  seeds (``paper_<size>_sd``), and ``<size>_vs_paper``: ``within`` where the run's mean lies
  within :data:`~natcomp.published.SPREAD_SDS` sds of the paper's seed mean, else
  ``outside`` (:func:`natcomp.published.spread_verdicts`); the peaks table (Table 8) gets
  ``paper_peak``, ``paper_peak_sd`` and ``peak_vs_paper`` the same way;
* the per-model tables get the paper's mean and sd over its seeds of the same cell (size,
  data type, condition or pair or idiom, template or epoch): ``paper_consistency``,
  ``paper_consistency_sd``, ... on the trained models' rows.

Rows join by the corpus size's name: a run whose sizes are named otherwise gets no paper
values.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.tables import (
    PUBLISHED_TARGET,
    overgeneralisation_peaks,
    published_for,
    substitutivity_summary,
    systematicity_summary,
    with_published,
)
from natcomp.published import PAPER_PREFIX, SD_SUFFIX, SPREAD_SUFFIX, row_keys, add_paper_columns, spread_verdicts
from natcomp.shipped import resource_path
from natcomp.tsv import read_tsv

__all__ = [
    "CELL_KEYS",
    "PAPER_SIZES",
    "RESULT_COLUMNS",
    "paper_results_folder",
    "paper_summaries",
    "read_paper_results",
    "with_paper",
    "with_paper_results",
]

#: the paper's corpus sizes, in its order (config/paper.yaml names its sizes so)
PAPER_SIZES = ("small", "medium", "full")
#: the columns of each results file; the last ones (after the keys) are its scores
RESULT_COLUMNS = {
    "systematicity": ("size", "seed", "data_type", "condition", "template", "consistency"),
    "substitutivity": ("size", "seed", "data_type", "template", "pair", "consistency", "synonym_consistency"),
    "overgeneralisation": ("size", "seed", "data_type", "idiom", "epoch", "overgeneralisation"),
}
_SCORES = {
    "systematicity": ("consistency",),
    "substitutivity": ("consistency", "synonym_consistency"),
    "overgeneralisation": ("overgeneralisation",),
}
_INTEGERS = ("seed", "template", "epoch")
#: per-model table -> the columns of one paper cell (its seeds are averaged)
CELL_KEYS = {
    "systematicity": ["system", "size", "data_type", "condition", "template"],
    "substitutivity": ["system", "size", "data_type", "pair", "template"],
    "overgeneralisation": ["system", "size", "data_type", "idiom", "checkpoint"],
}
#: summary -> its key columns (the size columns hold the values)
_SUMMARY_KEYS = {
    "systematicity_summary": ["data_type", "condition"],
    "substitutivity_summary": ["data_type", "metric"],
}
_PEAK_KEYS = ["data_type", "system", "size", "idiom"]


def paper_results_folder() -> Path:
    """The shipped folder of the paper's per-seed results."""
    return resource_path("mt", "paper_results")


def _check_values(path: Path, frame: pd.DataFrame, column: str, allowed, what: str) -> None:
    for line, value in zip(frame.attrs["lines"], frame[column], strict=True):
        if value not in allowed:
            raise InputError(path, f"{column} {value!r} is not {what}; expected one of {', '.join(allowed)}", line)


def _numbers(path: Path, frame: pd.DataFrame, column: str) -> pd.Series:
    values = []
    for line, text in zip(frame.attrs["lines"], frame[column], strict=True):
        try:
            values.append(int(text) if column in _INTEGERS else (float(text) if text != "" else float("nan")))
        except ValueError:
            kind = "an integer" if column in _INTEGERS else "a number or empty"
            raise InputError(path, f"{column} {text!r} is not {kind}", line) from None
    return pd.Series(values, index=frame.index, dtype="Int64" if column in _INTEGERS else float)


def read_paper_results(folder: str | Path | None = None) -> dict[str, pd.DataFrame]:
    """The three results files (``folder``: the shipped one) as natcomp's per-model tables of
    the trained system: ``system, size, seed, <keys>, <scores>``, the epoch as ``checkpoint``.
    A missing column, an unknown size, data type or condition, or a value that is not a
    number is an :class:`InputError` naming the file and line."""
    folder = Path(folder) if folder is not None else paper_results_folder()
    tables = {}
    for name, columns in RESULT_COLUMNS.items():
        path = folder / f"{name}.tsv"
        scores = _SCORES[name]
        frame = read_tsv(path, columns, non_empty=[c for c in columns if c not in scores])
        _check_values(path, frame, "size", PAPER_SIZES, "a corpus size of the paper")
        _check_values(path, frame, "data_type", list(DATA_TYPES), "a data type")
        if "condition" in columns:
            _check_values(path, frame, "condition", list(CONDITION_NAMES), "a condition")
        for column in columns:
            if column in _INTEGERS or column in scores:
                frame[column] = _numbers(path, frame, column)
        frame = frame.rename(columns={"epoch": "checkpoint"})
        frame.insert(0, "system", TRAINED_SYSTEM)
        tables[name] = frame.reset_index(drop=True)
    return tables


def paper_summaries(results: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The paper's Tables 4a, 6a and 8 as natcomp aggregates a run (:mod:`natcomp.mt.tables`):
    seed means and sample sds over the seeds per corpus size, and the peak of each idiom's
    seed-averaged curve."""
    sizes = list(PAPER_SIZES)
    return {
        "systematicity_summary": systematicity_summary(results["systematicity"], sizes),
        "substitutivity_summary": substitutivity_summary(results["substitutivity"], sizes),
        "overgeneralisation_peaks": overgeneralisation_peaks(results["overgeneralisation"], sizes),
    }


def _facts(table: pd.DataFrame, our_table: str, keys: list[str], columns: Mapping[str, str]) -> pd.DataFrame:
    """Rows of a published-values frame (:func:`natcomp.published.add_paper_columns`): each
    ``table`` row's cell of ``columns`` (its column -> our column) at the place of ``keys``."""
    rows = row_keys(table, keys)
    parts = [
        pd.DataFrame({"our_table": our_table, "our_row": rows, "our_column": ours, "value": table[column].to_numpy()})
        for column, ours in columns.items()
    ]
    return pd.concat(parts, ignore_index=True)


def _cells(results: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """Each paper cell of a per-model table: mean and sample sd over its seeds, per score."""
    keys = CELL_KEYS[name]
    grouped = results[name].groupby(keys, sort=False)[list(_SCORES[name])]
    means, sds = grouped.mean(), grouped.std(ddof=1)
    return means.join(sds, rsuffix=SD_SUFFIX).reset_index()


def _insert_after(table: pd.DataFrame, column: str, values, after: str) -> pd.DataFrame:
    order = [c for c in table.columns if c != column]
    table = table.assign(**{column: values})
    order.insert(order.index(after) + 1 if after in order else len(order), column)
    return table[order]


def _summary_beside_paper(table: pd.DataFrame, name: str, paper: pd.DataFrame) -> pd.DataFrame:
    """A Table 4a/6a summary with the paper's sd over seeds and the verdict per size."""
    keys = _SUMMARY_KEYS[name]
    sizes = [size for size in PAPER_SIZES if size in table.columns and size in paper.columns]
    if not len(table) or not sizes:
        return table  # no size of the paper's (a run of pretrained systems only)
    facts = _facts(paper, name, keys, {size + SD_SUFFIX: size + SD_SUFFIX for size in sizes})
    table = add_paper_columns(table, facts, name, keys)
    at = pd.MultiIndex.from_frame(table[keys])
    for size in sizes:
        sd = PAPER_PREFIX + size + SD_SUFFIX
        if sd not in table.columns:
            continue  # none of the table's rows is the paper's
        mean = paper.set_index(keys)[size].reindex(at)
        verdicts = spread_verdicts(table[size], mean.to_numpy(), table[sd])
        table = _insert_after(table, size + SPREAD_SUFFIX, verdicts, sd)
    return table


def _peaks_beside_paper(table: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table 8: the paper's peak of the same idiom and its sd over seeds, and the verdict."""
    name = "overgeneralisation_peaks"
    facts = _facts(paper, name, _PEAK_KEYS, {"peak": "peak", "peak_sd": "peak_sd"})
    table = add_paper_columns(table, facts, name, _PEAK_KEYS)
    if PAPER_PREFIX + "peak_sd" not in table.columns:
        return table
    verdicts = spread_verdicts(table["peak"], table[PAPER_PREFIX + "peak"], table[PAPER_PREFIX + "peak_sd"])
    return _insert_after(table, "peak" + SPREAD_SUFFIX, verdicts, PAPER_PREFIX + "peak_sd")


def with_paper_results(
    tables: Mapping[str, pd.DataFrame], results: Mapping[str, pd.DataFrame]
) -> dict[str, pd.DataFrame]:
    """The tables with the paper's per-seed results beside them (module docstring); a table
    without the columns a paper cell needs (a language without idiom keywords) stays as is."""
    summaries = paper_summaries(results)
    out = {}
    for name, table in tables.items():
        if name in CELL_KEYS and set(CELL_KEYS[name]) <= set(table.columns):
            cells = _cells(results, name)
            columns = {c: c for c in cells.columns if c not in CELL_KEYS[name]}
            table = add_paper_columns(table, _facts(cells, name, CELL_KEYS[name], columns), name, CELL_KEYS[name])
        elif name in _SUMMARY_KEYS:
            table = _summary_beside_paper(table, name, summaries[name])
        elif name == "overgeneralisation_peaks" and set(_PEAK_KEYS) <= set(table.columns):
            table = _peaks_beside_paper(table, summaries[name])
        out[name] = table
    return out


def with_paper(
    tables: Mapping[str, pd.DataFrame],
    published: pd.DataFrame,
    results: Mapping[str, pd.DataFrame],
    target_lang: str = PUBLISHED_TARGET,
) -> dict[str, pd.DataFrame]:
    """The one place the paper's numbers join a run's MT tables: the printed values of
    ``published`` (resources/mt/published.tsv) beside the summaries, then the per-seed
    ``results`` (:func:`read_paper_results`) at every grain (:func:`with_paper_results`).
    Both are the paper's English-Dutch numbers: a run into another language gets neither
    (:func:`natcomp.mt.tables.published_for`)."""
    tables = with_published(dict(tables), published_for(published, target_lang))
    if target_lang != PUBLISHED_TARGET:
        return tables
    return with_paper_results(tables, results)
