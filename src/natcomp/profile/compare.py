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

A profile's numbers depend on more than the model: :func:`run_settings` reads what else from
each run's record (scale, base config, dtype, fine-tuning, chat template, target language,
served or loaded), and :func:`differing_settings` says which of them differ between the runs
put side by side, so the table's headers, the figure and the terminal can say it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.paired import ItemsDiffer, Outcomes, holm, paired_test, verdict
from natcomp.profile.outcomes import outcomes_path, read_outcomes
from natcomp.profile.runconfig import CONFIG_FILE, RUN_FILE
from natcomp.profile.table import COMPARE_COLUMNS, read_profile

__all__ = [
    "PAIRED_COLUMNS",
    "SETTINGS",
    "PairTest",
    "Run",
    "differing_settings",
    "header_labels",
    "load_run",
    "pairwise",
    "paired_rows",
    "run_settings",
    "settings_note",
]

#: what a run's numbers depend on besides the model, in the order the table and figure name them
SETTINGS = ("scale", "base config", "dtype", "fine-tuning", "chat template", "target language", "served")
#: a setting a run's record does not give (a profile without its run folder)
UNKNOWN = "unknown (no natcomp_profile.yaml)"

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
    settings: dict[str, str] = field(default_factory=dict)

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
    """A run folder's (or a profile.tsv's) profile, the item outcomes beside it and the
    settings its record gives (:func:`run_settings`)."""
    path = Path(path)
    profile_path = path / "results" / "profile.tsv" if path.is_dir() else path
    profile = read_profile(path)
    name = str(profile["model"].iloc[0]) if len(profile) else path.name
    outcomes_file = outcomes_path(profile_path)
    outcomes = read_outcomes(outcomes_file)
    missing = NO_OUTCOMES.format(path=outcomes_file) if outcomes is None else ""
    folder = _run_folder(profile_path)
    record = _read_yaml(folder / RUN_FILE) if folder else None
    config = _read_yaml(folder / CONFIG_FILE) if folder else None
    return Run(name, profile, outcomes, missing, run_settings(record, config, profile))


def _run_folder(profile_path: Path) -> Path | None:
    """The run folder of a profile (``<run>/results/profile.tsv``), where its record is."""
    for folder in (profile_path.parent.parent, profile_path.parent):
        if (folder / RUN_FILE).is_file():
            return folder
    return None


def _read_yaml(path: Path) -> dict | None:
    """A run's record or config as a mapping; None where the file is absent. A file that is
    there but not YAML, or not a mapping, is refused (natcomp wrote it: someone edited it)."""
    from natcomp.files import read_yaml

    if not path.is_file():
        return None
    loaded = read_yaml(path)
    if loaded is not None and not isinstance(loaded, dict):
        raise InputError(path, f"holds a {type(loaded).__name__}; expected the mapping natcomp evaluate wrote")
    return loaded


def run_settings(record: Mapping | None, config: Mapping | None, profile: pd.DataFrame | None = None) -> dict[str, str]:
    """What a run's numbers depend on besides the model (:data:`SETTINGS`), in words, from its
    record (``natcomp_profile.yaml``) and config (``natcomp_evaluate.yaml``): ``-`` where a
    setting does not apply (no fine-tuning family, not a causal LM, no MT), :data:`UNKNOWN`
    where there is no record."""
    scales = sorted(set(profile["scale"].astype(str))) if profile is not None and len(profile) else []
    if not record:
        return {setting: (", ".join(scales) or UNKNOWN) if setting == "scale" else UNKNOWN for setting in SETTINGS}
    families = list(record.get("families") or [])
    dtype = str(record.get("dtype") or "auto")
    checkpoint = record.get("checkpoint_dtype")
    tuned = dict(record.get("fine_tuning") or {})
    methods = sorted(set(map(str, tuned.values())))
    chat = dict(record.get("chat_template") or {})
    target = record.get("target_lang")
    if not target and "mt" in families:
        target = ((config or {}).get("mt") or {}).get("target_lang")
    served = record.get("served")
    return {
        "scale": str(record.get("scale") or ", ".join(scales) or UNKNOWN),
        "base config": str(record.get("base") or UNKNOWN),
        "dtype": dtype + (f" (checkpoint {checkpoint})" if checkpoint else ""),
        "fine-tuning": (
            "-"
            if not methods
            else methods[0]
            if len(methods) == 1
            else ", ".join(f"{family} {method}" for family, method in tuned.items())
        ),
        "chat template": ", ".join(f"{family} {'on' if on else 'off'}" for family, on in chat.items()) or "-",
        "target language": str(target) if target and "mt" in families else "-",
        "served": (
            f"by {served.get('server') or 'a server'} at {served.get('api_base')}"
            if isinstance(served, Mapping)
            else "no (weights loaded)"
        ),
    }


def _recorded(run: Run) -> bool:
    """Whether the run's record was found (its settings are known)."""
    return any(value != UNKNOWN for setting, value in run.settings.items() if setting != "scale")


def differing_settings(runs: Sequence[Run]) -> dict[str, dict[str, str]]:
    """The settings (:data:`SETTINGS`) whose values differ between the runs whose record was
    found (a profile without one is named apart, :func:`settings_note`): setting -> run name
    -> value. The scale, which every profile's rows give, is compared across all runs."""
    known = [run for run in runs if _recorded(run)]
    differ = {}
    for setting in SETTINGS:
        values = {run.name: run.settings.get(setting, UNKNOWN) for run in (runs if setting == "scale" else known)}
        if len(set(values.values())) > 1:
            differ[setting] = values
    return differ


def settings_note(runs: Sequence[Run]) -> str:
    """One sentence for the figure and the terminal: which settings differ between the runs,
    with each run's value, which they share, and which runs have no record to say."""
    differ = differing_settings(runs)
    known = [run for run in runs if _recorded(run)]
    unrecorded = [run.name for run in runs if not _recorded(run)]
    first = known[0] if known else runs[0]
    same = [
        f"{setting} {first.settings.get(setting, UNKNOWN)}"
        for setting in SETTINGS
        if setting not in differ and first.settings.get(setting, UNKNOWN) not in ("-", UNKNOWN)
    ]
    shared = f"same {', '.join(same)}" if same else ""
    if not differ:
        note = f"The runs differ in none of {', '.join(SETTINGS)}" + (f" ({shared})." if shared else ".")
    else:
        listed = "; ".join(
            f"{setting} ({', '.join(f'{name}: {value}' for name, value in values.items())})"
            for setting, values in differ.items()
        )
        note = f"The runs differ in {listed}: a difference in a row may come from these as well as from the models" + (
            f"; {shared}." if shared else "."
        )
    if unrecorded:
        note += (
            f" Settings unknown for {', '.join(unrecorded)} (no {RUN_FILE} beside the profile): "
            "they may differ in any of these."
        )
    return note


def header_labels(runs: Sequence[Run]) -> list[str]:
    """Each run's label in the table's header ``<name> [<label>]``: its scale, then the
    settings that differ between the runs (their values), so each column says what it is; a
    run without a record beside runs with one says its settings are unknown."""
    differ = differing_settings(runs)
    any_recorded = any(_recorded(run) for run in runs)
    labels = []
    for run in runs:
        parts = [run.settings.get("scale") or UNKNOWN]
        if not _recorded(run):
            if any_recorded:
                parts.append(f"settings unknown (no {RUN_FILE})")
        else:
            parts += [f"{setting} {run.settings[setting]}" for setting in differ if setting != "scale"]
        labels.append("; ".join(parts))
    return labels


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
