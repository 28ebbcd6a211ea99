"""The papers' published numbers, beside a run's own (``resources/<family>/published.tsv``).

Each family types the values of its paper's headline tables into one TSV: the paper's
``table``, ``row`` and ``column`` labels as printed, the ``value``, and where the value
sits in natcomp's table of the same measure: ``our_table`` (the TSV's name without
``.tsv``), ``our_row`` (the values of that table's key columns, joined by `` / ``) and
``our_column``; those three are empty for a value that no table of natcomp carries
(the profile of a model, :mod:`natcomp.profile`, looks values up by the paper's labels).
:func:`add_paper_columns` puts them next to a run's numbers as ``paper_<column>``
columns. The values are facts from the papers, never computed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.shipped import resource_path
from natcomp.tsv import read_tsv

PUBLISHED_COLUMNS = ("table", "row", "column", "value", "our_table", "our_row", "our_column")
#: suffix of a column with the standard deviation of the column named before it
SD_SUFFIX = "_sd"
#: suffix of a column that says whether a run's value lies within the paper's seed spread
#: (:func:`spread_verdicts`): ``<column>_vs_paper``
SPREAD_SUFFIX = "_vs_paper"
#: the rule: within this many of the paper's sds (sample sd over its seeds) of its mean
SPREAD_SDS = 2
WITHIN, OUTSIDE = "within", "outside"
#: the rule in words, for tables' titles
SPREAD_RULE = (
    f"*{SPREAD_SUFFIX}: {WITHIN} where |ours - the paper's mean over its seeds| <= {SPREAD_SDS} x the sample sd "
    f"of its seeds, else {OUTSIDE}"
)
#: the columns every row fills: the paper's cell and its value
PAPER_CELL_COLUMNS = ("table", "row", "column", "value")
#: prefix of a column holding the paper's value of the column named after it
PAPER_PREFIX = "paper_"
#: how the values of a table's key columns are joined into ``our_row``
ROW_KEY_SEPARATOR = " / "


def published_path(family: str) -> Path:
    return resource_path(family, "published.tsv")


def read_published(path: str | Path) -> pd.DataFrame:
    """A published-values file, checked: every column present, the paper's cell and value
    filled, values numbers, no paper cell twice, and no place in natcomp's tables given
    twice (or only in part). ``value`` is a float column."""
    table = read_tsv(path, PUBLISHED_COLUMNS, non_empty=PAPER_CELL_COLUMNS)
    lines = table.attrs["lines"]
    values = []
    for line, value in zip(lines, table["value"], strict=True):
        try:
            values.append(float(value))
        except ValueError:
            raise InputError(path, f"value {value!r} is not a number", line) from None
    for columns in (["table", "row", "column"], ["our_table", "our_row", "our_column"]):
        seen: dict[tuple[str, ...], int] = {}
        for line, key in zip(lines, table[columns].itertuples(index=False), strict=True):
            key = tuple(key)
            if columns[0] == "our_table" and not any(key):
                continue  # a value no table of natcomp carries
            if columns[0] == "our_table" and not all(key):
                raise InputError(path, "our_table, our_row and our_column are filled together or not at all", line)
            if key in seen:
                raise InputError(path, f"{' | '.join(key)} is already given on line {seen[key]}", line)
            seen[key] = line
    table["value"] = values
    return table


def paper_values(published: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """The published values by the paper's labels: ``(table, row, column) -> value``."""
    return {
        (row.table, row.row, row.column): float(row.value)
        for row in published[list(PAPER_CELL_COLUMNS)].itertuples(index=False)
    }


def row_keys(table: pd.DataFrame, key_columns: Sequence[str]) -> pd.Series:
    """Each row's key as ``our_row`` writes it: its key columns' values joined, a missing
    value (a pretrained system's seed) as empty."""
    keys = table[list(key_columns)].astype(object)
    return keys.where(keys.notna(), "").astype(str).agg(ROW_KEY_SEPARATOR.join, axis=1)


def add_paper_columns(
    table: pd.DataFrame, published: pd.DataFrame, our_table: str, key_columns: Sequence[str]
) -> pd.DataFrame:
    """``table`` with a ``paper_<column>`` column for each column the paper reports for
    ``our_table``, its cells the published values of the rows the paper has (empty for
    the others; no column where the paper has none of the table's rows). A paper column
    stands right after its column and that column's ``_sd`` column where the table has
    them (after the paper columns already there: a paper's ``x`` then its ``x_sd``, as
    the file lists them; a paper's ``x_sd`` stands right after its ``paper_x``), else at the
    end, in the file's order."""
    rows = published[published["our_table"] == our_table]
    keys = row_keys(table, key_columns) if len(table) else pd.Series([], dtype=object)
    result = table.copy()
    order = list(table.columns)
    for column in dict.fromkeys(rows["our_column"]):
        of_column = rows[rows["our_column"] == column]
        values = keys.map(dict(zip(of_column["our_row"], of_column["value"], strict=True))).astype(float)
        if values.isna().all():
            continue  # none of this run's rows is in the paper: no empty column
        paper = PAPER_PREFIX + column
        result[paper] = values.to_numpy()
        paper_of_base = PAPER_PREFIX + column.removesuffix(SD_SUFFIX)
        if column.endswith(SD_SUFFIX) and paper_of_base in order:
            position = order.index(paper_of_base) + 1
        else:
            anchors = (column + SD_SUFFIX, column, column.removesuffix(SD_SUFFIX))
            anchor = next((c for c in anchors if c in order), None)
            position = order.index(anchor) + 1 if anchor else len(order)
            while position < len(order) and order[position].startswith(PAPER_PREFIX):
                position += 1
        order.insert(position, paper)
    return result[order]


def spread_verdicts(ours: pd.Series, mean: pd.Series, sd: pd.Series, sds: float = SPREAD_SDS) -> list[str]:
    """Per row, whether a run's value lies within the paper's seed spread: :data:`WITHIN`
    where ``|ours - mean| <= sds * sd`` (``mean`` and ``sd``: the mean and sample sd of the
    paper's per-seed values of the same cell), else :data:`OUTSIDE`; empty where any of the
    three is missing (no paper value, or a paper cell of one seed)."""
    verdicts = []
    for value, centre, spread in zip(ours, mean, sd, strict=True):
        if any(pd.isna(x) for x in (value, centre, spread)):
            verdicts.append("")
        else:
            verdicts.append(WITHIN if abs(float(value) - float(centre)) <= sds * float(spread) else OUTSIDE)
    return verdicts
