"""Annotation sheets for the manual analysis of inconsistent translation pairs (paper
section 5 and appendix F), and the summary of filled-in sheets.

A sheet has one row per sampled inconsistent pair with its sources and translations and
one column per category; annotators put a 1 in every category that applies (a pair may
show several changes). The categories:

* all tests: ``rephrasing`` (both equally (in)correct), ``ambiguity`` (the model switches
  its interpretation of an ambiguous source), ``error`` (one translation contains an
  error the other does not), ``formatting`` (mostly punctuation);
* substitutivity, changes of the synonym's translation: ``synonym_one_incorrect``,
  ``synonym_both_incorrect``, ``synonym_both_correct_different``,
  ``synonym_one_untranslated``.

``formatting`` is pre-filled where the two translations differ in punctuation only, and
the column ``prefilled`` says so; everything else is left to annotators.

A *model* here is a corpus size of the trained system (pairs drawn from all its seeds) or
a pretrained system (one model; its ``size`` and ``seed`` are empty): the sheet's
``system`` and ``size`` columns say which, and the summary counts per family, system and
size. Sheets written before pretrained systems existed have no ``system`` column; their
pairs are the trained models'.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.mt.consistency import tokens
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.tables import order_rows
from natcomp.tsv import read_tsv, write_tsv

GENERAL_CATEGORIES = ["rephrasing", "ambiguity", "error", "formatting"]
SYNONYM_CATEGORIES = [
    "synonym_one_incorrect",
    "synonym_both_incorrect",
    "synonym_both_correct_different",
    "synonym_one_untranslated",
]
SHEET_KEYS = ["test", "system", "size", "seed", "data_type", "condition", "template", "item"]


def _words(translation: str) -> list[str]:
    return [t for t in tokens(translation) if not all(unicodedata.category(c).startswith("P") for c in t)]


def differs_in_punctuation_only(a: str, b: str) -> bool:
    return a != b and _words(a) == _words(b)


def sample_sheet(
    scores: pd.DataFrame,
    family: str,
    pairs_per_model: int,
    seed: int,
    *,
    sizes: Sequence[str] = (),
    systems: Sequence[str] = (),
) -> pd.DataFrame:
    """Sample inconsistent pairs per model (a corpus size of the trained system, or a
    pretrained system), data type (and condition) into a sheet.

    Like the paper (appendix F.1), pairs are drawn at random from all seeds and templates.
    The sheet lists the trained models first (``sizes`` in config order), then the
    pretrained ``systems`` in config order, data types and conditions in the paper's order.
    """
    inconsistent = scores[pd.to_numeric(scores["consistent"], errors="coerce") == 0].copy()
    if "condition" not in inconsistent.columns:
        inconsistent["condition"] = "pair " + inconsistent["pair"].astype(str)
    group_keys = ["system", "size", "data_type"] + (["condition"] if family == "systematicity" else [])
    groups = inconsistent.groupby(group_keys, sort=True)
    # Each group is sampled with the same seed, so its sample does not depend on the others.
    samples = [group.sample(n=min(pairs_per_model, len(group)), random_state=seed) for _, group in groups]
    # A model without inconsistent pairs leaves an empty sheet (its header only).
    sampled = pd.concat(samples, ignore_index=True) if samples else inconsistent
    sampled = order_rows(sampled, group_keys, sizes, systems)
    sheet = sampled[[*SHEET_KEYS, "source_a", "source_b", "translation_a", "translation_b"]].copy()
    categories = GENERAL_CATEGORIES + (SYNONYM_CATEGORIES if family == "substitutivity" else [])
    for category in categories:
        sheet[category] = ""
    punctuation = [differs_in_punctuation_only(a, b) for a, b in zip(sheet["translation_a"], sheet["translation_b"])]
    sheet.loc[punctuation, "formatting"] = "1"
    sheet["prefilled"] = ["formatting" if p else "" for p in punctuation]
    sheet["notes"] = ""
    sheet.insert(0, "family", family)
    return sheet


SUMMARY_COLUMNS = [
    "family",
    "system",
    "size",
    "category",
    "count",
    "share",
    "pairs",
    "marked_pairs",
    "share_of_marks",
]

#: cell values that mark a category (case-insensitive) and values that leave it unmarked
MARKS = {"1", "x", "yes"}
NO_MARKS = {"", "0", "no"}


def _marks(sheet: pd.DataFrame, categories: Sequence[str], path: str | Path) -> pd.DataFrame:
    """Booleans: which category cells of ``sheet`` carry a mark; anything unrecognised is
    an error naming its line."""
    cells = sheet[list(categories)].apply(lambda column: column.fillna("").str.strip().str.lower())
    known = cells.isin(MARKS | NO_MARKS)
    if not known.to_numpy().all():
        row, column = next((r, c) for r in range(len(cells)) for c in categories if not known.iloc[r][c])
        lines = sheet.attrs.get("lines") or []
        raise InputError(
            path,
            f"category {column!r} holds {sheet.iloc[row][column]!r}; expected a mark ({', '.join(sorted(MARKS))}) "
            "or nothing (empty, 0, no)",
            lines[row] if row < len(lines) else None,
        )
    return cells.isin(MARKS)


def summarise_sheets(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Frequency of each category per family and model (system and size), as in the
    paper's Figure 5. A sheet without a ``system`` column is the trained models'.

    Only the categories a family's sheets have are listed (the synonym categories only for
    substitutivity). ``pairs`` is the number of pairs in the sheet (every sampled pair is
    to be annotated) and ``share`` = ``count`` / ``pairs``, the share of annotated pairs
    showing the change; ``marked_pairs`` counts pairs with at least one mark, and
    ``share_of_marks`` = ``count`` / all marks of that family and size (a pair may carry
    several), the relative frequency the paper's Figure 5 plots (empty when nothing is
    marked), both per family and model.
    """
    if not paths:
        raise InputError("manual analysis", "no annotation sheets given")
    rows = []
    for path in paths:
        sheet = read_tsv(path, ("family", "size"))
        if "system" not in sheet.columns:
            sheet.insert(1, "system", TRAINED_SYSTEM)
        categories = [c for c in GENERAL_CATEGORIES + SYNONYM_CATEGORIES if c in sheet.columns]
        if not categories:
            raise InputError(path, f"no category column; expected some of {', '.join(GENERAL_CATEGORIES)}", 1)
        marks = _marks(sheet, categories, path)
        for (family, system, size), group in marks.groupby(
            [sheet["family"], sheet["system"], sheet["size"]], sort=False
        ):
            total = int(group.to_numpy().sum())
            for category in categories:
                count = int(group[category].sum())
                rows.append(
                    {
                        "family": family,
                        "system": system,
                        "size": size,
                        "category": category,
                        "count": count,
                        "share": count / len(group),
                        "pairs": len(group),
                        "marked_pairs": int(group.any(axis=1).sum()),
                        "share_of_marks": count / total if total else None,
                    }
                )
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    # Sheets of one family and model split over several files are summed.
    keys = ["family", "system", "size", "category"]
    if summary.duplicated(keys).any():
        summed = summary.groupby(keys, sort=False)[["count", "pairs", "marked_pairs"]].sum().reset_index()
        marks_total = summed.groupby(["family", "system", "size"], sort=False)["count"].transform("sum")
        summed["share"] = summed["count"] / summed["pairs"]
        summed["share_of_marks"] = (summed["count"] / marks_total).where(marks_total > 0)
        summary = summed
    return summary[SUMMARY_COLUMNS]


def write_summary(summary: pd.DataFrame, path: str | Path) -> None:
    """Write the summary atomically, shares to 4 decimal places."""
    write_tsv(path, summary, float_format="%.4f")
