"""Paired comparisons of profiles: is model B more compositional than model A on a row?

``natcomp compare A B`` adds to each row of the wide table the paired comparison of the two
runs on the row's items (:func:`paired_rows`): B - A in the row's unit with its 95%
interval, the test that fits the row (:func:`natcomp.paired.paired_test`), its p-value,
Holm's correction over the table's rows and a verdict in the row's direction. A row whose
items differ (another config or scale), or a run without item outcomes (a profile written
before they were kept), says why in ``test`` instead of a p-value.

With more runs, :func:`pairwise` tests every pair of models on a row (Holm over the row's
pairs), from which the board (:mod:`natcomp.profile.board`) ranks them and groups those
that cannot be told apart.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pandas as pd

from natcomp.paired import ItemsDiffer, Outcomes, holm, paired_test, verdict
from natcomp.profile.outcomes import outcomes_path, read_outcomes
from natcomp.profile.table import COMPARE_COLUMNS, read_profile

__all__ = ["PAIRED_COLUMNS", "PairTest", "Run", "load_run", "pairwise", "paired_rows"]

#: the paired columns of compare.tsv after the models' blocks (the difference's header names both runs)
PAIRED_COLUMNS = ("difference", "ci_low", "ci_high", "items", "test", "p_value", "p_holm", "verdict")
#: what a row of a run without item outcomes says
NO_OUTCOMES = (
    "no item outcomes in {path} (a profile written before they were kept: re-run 'natcomp evaluate' with the "
    "same --model and --name, which writes the profile again from the finished run)"
)


@dataclass
class Run:
    """One run's profile and its item outcomes (None, with the reason, where it has none)."""

    name: str
    profile: pd.DataFrame
    outcomes: pd.DataFrame | None
    missing: str = ""

    def row_outcomes(self, key: tuple) -> Outcomes | str:
        """The outcomes of one row (family, measure, setting), or why there are none."""
        if self.outcomes is None:
            return self.missing
        rows = self._by_key.get(key)
        if rows is None:
            return (
                f"{self.name} has no item outcomes for this row (its family's tables were written before them: "
                "'natcomp evaluate' again makes the jobs that write them rerun)"
            )
        try:
            return Outcomes.from_frame(rows)
        except ValueError as error:
            return f"{self.name}'s item outcomes of this row are not one row's: {error}"

    def __post_init__(self):
        self._by_key = {}
        if self.outcomes is not None and len(self.outcomes):
            for key, rows in self.outcomes.groupby(list(COMPARE_COLUMNS), sort=False):
                self._by_key[tuple(key)] = rows


def load_run(path: str | Path) -> Run:
    """A run folder's (or a profile.tsv's) profile and the item outcomes beside it."""
    path = Path(path)
    profile_path = path / "results" / "profile.tsv" if path.is_dir() else path
    profile = read_profile(path)
    name = str(profile["model"].iloc[0]) if len(profile) else path.name
    outcomes_file = outcomes_path(profile_path)
    outcomes = read_outcomes(outcomes_file)
    missing = NO_OUTCOMES.format(path=outcomes_file) if outcomes is None else ""
    return Run(name, profile, outcomes, missing)


def _seed(key: tuple, a: str, b: str) -> int:
    """A resampling seed of the row and pair (reproducible, whatever the rows' order)."""
    return int(hashlib.sha1("\x1f".join((*map(str, key), a, b)).encode()).hexdigest()[:8], 16)


def _compare(a: Run, b: Run, key: tuple, resamples: int) -> dict:
    """One row's paired comparison of ``a`` and ``b`` (B - A) as :data:`PAIRED_COLUMNS`
    without ``p_holm`` and ``verdict``; ``test`` says why when there is none."""
    left, right = a.row_outcomes(key), b.row_outcomes(key)
    for outcome in (left, right):
        if isinstance(outcome, str):
            return {"test": f"not compared: {outcome}"}
    try:
        result = paired_test(left, right, resamples=resamples, seed=_seed(key, a.name, b.name), names=(a.name, b.name))
    except ItemsDiffer as error:
        return {"test": f"not compared: {error}"}
    return {
        "difference": result.difference,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "items": result.items,
        "test": result.test,
        "p_value": result.p_value,
    }


def paired_rows(
    a: Run, b: Run, keys: Sequence[tuple], directions: Sequence[str], resamples: int = 2000
) -> pd.DataFrame:
    """Per row key (family, measure, setting) the paired comparison B - A
    (:data:`PAIRED_COLUMNS`): Holm's correction over the rows with a p-value, the verdict in
    the row's ``direction``. A row one of the runs lacks says so."""
    records = []
    for key in keys:
        present = [run.name for run in (a, b) if not _rows(run.profile, key).empty]
        if len(present) < 2:
            missing = next(run.name for run in (a, b) if run.name not in present)
            records.append({"test": f"not compared: {missing} has no such row"})
            continue
        records.append(_compare(a, b, key, resamples))
    table = pd.DataFrame.from_records(records, columns=list(PAIRED_COLUMNS))
    table["p_holm"] = holm(pd.to_numeric(table["p_value"]).to_numpy(dtype=float))
    table["verdict"] = [
        verdict(float(difference), p, direction, a.name, b.name) if not math.isnan(p) else ""
        for difference, p, direction in zip(pd.to_numeric(table["difference"]), table["p_holm"], directions)
    ]
    table["items"] = pd.array(pd.to_numeric(table["items"]), dtype="Int64")
    table["test"] = table["test"].fillna("")
    return table


def _rows(profile: pd.DataFrame, key: tuple) -> pd.DataFrame:
    mask = pd.Series(True, index=profile.index)
    for column, value in zip(COMPARE_COLUMNS, key):
        mask &= profile[column] == value
    return profile[mask]


@dataclass
class PairTest:
    """One pair's test on one row: ``a`` and ``b`` by name, B - A, Holm-adjusted p (NaN: not
    tested, with the reason in ``test``)."""

    a: str
    b: str
    difference: float
    p_value: float
    p_holm: float
    test: str


def pairwise(runs: Sequence[Run], key: tuple, resamples: int = 1000) -> list[PairTest]:
    """Every pair of the runs that have the row ``key``, tested (Holm over the row's pairs)."""
    present = [run for run in runs if not _rows(run.profile, key).empty]
    tests = []
    for a, b in combinations(present, 2):
        result = _compare(a, b, key, resamples)
        tests.append(
            PairTest(
                a.name,
                b.name,
                float(result.get("difference", math.nan)),
                float(result.get("p_value", math.nan)),
                math.nan,
                result["test"],
            )
        )
    for test, adjusted in zip(tests, holm([test.p_value for test in tests])):
        test.p_holm = adjusted
    return tests
