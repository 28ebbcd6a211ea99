"""The PSS tables: Table 1 in the paper's direction (negative originals rewritten positive) and the
reverse direction as a second table, each row beside the paper's figures, and the cleaning counts
as the tables' title."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from natcomp.pss.encoders import paper_figures

__all__ = ["PAPER_KEPT_PAIRS", "TABLE_FILES", "cleaning_summary", "gather_items", "pss_tables"]

#: The paper kept 353 of its 500 negative-to-positive pairs after its cleaning rules (section 3.1).
PAPER_KEPT_PAIRS = 353
#: Output table per direction: the paper's direction first (the headline table).
TABLE_FILES = {"neg_to_pos": "table1", "pos_to_neg": "table1_pos_to_neg"}
_DIRECTION_FILES = {"neg_to_pos": "reference.0", "pos_to_neg": "reference.1"}
_TITLES = {
    "neg_to_pos": "PSS Table 1: negative originals rewritten positive (reference.0, the paper's direction)",
    "pos_to_neg": "PSS, second table: positive originals rewritten negative (reference.1; not in the paper)",
}


def pss_tables(
    scores: pd.DataFrame, stands_in_for: Mapping[str, str | None], columns: Sequence[str]
) -> dict[str, pd.DataFrame]:
    """One table per direction of the score rows, each row with the paper's Table 1 figures of
    the encoder it stands in for (``stands_in_for``: encoder name -> paper encoder or None)."""
    tables = {}
    for direction in TABLE_FILES:
        rows = []
        for row in scores[scores["direction"] == direction].to_dict("records"):
            rows.append({**row, **paper_figures(stands_in_for.get(row["encoder"]), row["head"], row["mode"])})
        tables[direction] = pd.DataFrame(rows, columns=list(columns))
    return tables


def cleaning_summary(counts: pd.DataFrame, direction: str) -> str:
    """The title of a direction's table: its pairs kept and removed per rule, the paper's 353 beside them."""
    name = _DIRECTION_FILES[direction]
    rows = counts[counts["file"] == name].to_dict("records")
    if not rows:
        return _TITLES[direction]
    row = rows[0]
    text = (
        f"{_TITLES[direction]}. Cleaning (appendix B): {row['total']} pairs, {row['identical']} removed as identical, "
        f"{row['deletion_only']} as deletion-only, {row['kept']} kept"
    )
    if direction == "neg_to_pos":
        text += f" (the paper kept {PAPER_KEPT_PAIRS} of its 500)"
    return text + "."


def gather_items(paths: Sequence[str]) -> pd.DataFrame:
    """The score jobs' item-outcome files (natcomp.pss.experiment.item_outcomes) in one
    table: item_outcomes.tsv."""
    from natcomp.pss.experiment import ITEM_COLUMNS
    from natcomp.tsv import read_tsv

    frames = [read_tsv(path, ITEM_COLUMNS) for path in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(ITEM_COLUMNS))
