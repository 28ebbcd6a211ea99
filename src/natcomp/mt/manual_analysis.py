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
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from natcomp.mt.consistency import tokens
from natcomp.tsv import read_tsv

GENERAL_CATEGORIES = ["rephrasing", "ambiguity", "error", "formatting"]
SYNONYM_CATEGORIES = [
    "synonym_one_incorrect",
    "synonym_both_incorrect",
    "synonym_both_correct_different",
    "synonym_one_untranslated",
]
SHEET_KEYS = ["test", "size", "seed", "data_type", "condition", "template", "item"]


def _words(translation: str) -> list[str]:
    return [t for t in tokens(translation) if not all(unicodedata.category(c).startswith("P") for c in t)]


def differs_in_punctuation_only(a: str, b: str) -> bool:
    return a != b and _words(a) == _words(b)


def sample_sheet(scores: pd.DataFrame, family: str, pairs_per_model: int, seed: int) -> pd.DataFrame:
    """Sample inconsistent pairs per model size, data type (and condition) into a sheet.

    Like the paper (appendix F.1), pairs are drawn at random from all seeds and templates.
    """
    inconsistent = scores[pd.to_numeric(scores["consistent"], errors="coerce") == 0].copy()
    if "condition" not in inconsistent.columns:
        inconsistent["condition"] = "pair " + inconsistent["pair"].astype(str)
    group_keys = ["size", "data_type"] + (["condition"] if family == "systematicity" else [])
    groups = inconsistent.groupby(group_keys, sort=True)
    sampled = pd.concat(
        [group.sample(n=min(pairs_per_model, len(group)), random_state=seed) for _, group in groups],
        ignore_index=True,
    )
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


def summarise_sheets(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Relative frequency of each category per family and size, as in the paper's Figure 5.

    ``marked_pairs`` counts pairs with at least one mark; frequencies are shares of all
    marks of that family and size (a pair may carry several).
    """
    frames = []
    for path in paths:
        frames.append(read_tsv(path, ("family", "size")))
    sheets = pd.concat(frames, ignore_index=True)
    rows = []
    for (family, size), sheet in sheets.groupby(["family", "size"], sort=False):
        categories = [c for c in GENERAL_CATEGORIES + SYNONYM_CATEGORIES if c in sheet.columns]
        marks = sheet[categories].apply(lambda column: column.str.strip().isin({"1", "x", "X", "yes"}))
        total = int(marks.to_numpy().sum())
        for category in categories:
            count = int(marks[category].sum())
            rows.append(
                {
                    "family": family,
                    "size": size,
                    "category": category,
                    "count": count,
                    "share": round(count / total, 4) if total else float("nan"),
                    "pairs": len(sheet),
                    "marked_pairs": int(marks.any(axis=1).sum()),
                }
            )
    return pd.DataFrame(rows)
