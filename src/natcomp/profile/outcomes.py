"""The item outcomes of a profile: per profile row, what its value is a statistic of.

The families' table jobs write the item tables beside their final tables (``item_outcomes.tsv``,
PLANE's ``table*_items.tsv``); this module reads them as files (no family import), keeps
the profiled model's items of each profile row and writes them in one long table,
``results/item_outcomes.tsv`` (:data:`natcomp.paired.OUTCOME_COLUMNS`): the row's key, how
its value follows from the outcomes (``statistic``) and what its repetitions are
(``seed_kind``), then per repetition and item the stratum, the outcome, the gold value and a
covariate. ``natcomp compare`` pairs two runs on it (:mod:`natcomp.profile.compare`).

Each family's part below follows the row it belongs to in :mod:`natcomp.profile.table`
(its measure and setting, in the same words); a test checks that every row of a real
profile gets its outcomes and that the statistic of the outcomes is the row's value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.paired import OUTCOME_COLUMNS
from natcomp.tsv import read_tsv, write_tsv

__all__ = ["OUTCOMES_FILE", "outcome_rows", "outcomes_path", "read_outcomes", "write_outcomes"]

#: the file beside profile.tsv
OUTCOMES_FILE = "item_outcomes.tsv"


def outcomes_path(profile_path: str | Path) -> Path:
    """Where a profile's item outcomes are: beside its profile.tsv."""
    return Path(profile_path).parent / OUTCOMES_FILE


def _frame(rows: pd.DataFrame, key: Mapping[str, str], **columns) -> pd.DataFrame:
    """Outcome rows of one profile row: ``key`` (model, family, measure, setting, statistic,
    seed_kind) and the per-item ``columns`` (Series of ``rows`` or constants)."""
    frame = pd.DataFrame(index=rows.index)
    for column in OUTCOME_COLUMNS:
        if column in key:
            frame[column] = key[column]
        else:
            value = columns.get(column, "")
            frame[column] = value.to_numpy() if isinstance(value, pd.Series) else value
    return frame


def _table(results: Path, family: str, name: str, required: Sequence[str]) -> pd.DataFrame | None:
    path = results / "tables" / family / name
    return read_tsv(path, required) if path.is_file() else None


def _mt(results: Path, model: str, rows: set) -> list[pd.DataFrame]:
    columns = ("system", "size", "seed", "metric", "data_type", "condition", "stratum", "item", "outcome")
    table = _table(results, "mt", "item_outcomes.tsv", columns)
    if table is None:
        return []
    own = table[(table["system"] == model) | ((table["system"] == "trained") & (table["size"] == model))]
    frames = []
    for (metric, data_type, condition), group in own.groupby(["metric", "data_type", "condition"], sort=False):
        if metric == "overgeneralisation":
            measure, setting = "overgeneralisation", data_type
        elif condition:
            measure, setting = "systematicity consistency", f"{data_type} {condition}"
        else:
            measure = {"consistency": "substitutivity consistency"}.get(metric, "substitutivity synonym consistency")
            setting = data_type
        if (measure, setting) not in rows:
            continue
        seeds = "training seed" if group["seed"].ne("").any() else ""
        key = {"family": "mt", "measure": measure, "setting": setting, "statistic": "percent", "seed_kind": seeds}
        frames.append(
            _frame(
                group, key, seed=group["seed"], stratum=group["stratum"], item=group["item"], outcome=group["outcome"]
            )
        )
    return frames


def _noncompsst(results: Path, model: str, rows: set) -> list[pd.DataFrame]:
    table = _table(results, "noncompsst", "item_outcomes.tsv", ("model", "measure", "seed", "item", "outcome", "gold"))
    if table is None:
        return []
    frames = []
    for measure, group in table[table["model"] == model].groupby("measure", sort=False):
        if measure == "r_MAXABS":
            key = {"measure": "r with MAXABS", "setting": "all rated phrases", "statistic": "pearson", "seed_kind": ""}
        elif measure.startswith("f1_top"):
            seeds = "training seed" if group["seed"].ne("").any() else ""
            key = {"measure": "F1 on the top phrases", "setting": f"top {measure[len('f1_top') :]}"}
            key.update(statistic="macro_f1", seed_kind=seeds)
        else:
            continue
        if (key["measure"], key["setting"]) in rows:
            frames.append(
                _frame(
                    group, {"family": "noncompsst", **key}, seed=group["seed"], stratum="phrases",
                    item=group["item"], outcome=group["outcome"], gold=group["gold"],
                )
            )  # fmt: skip
    return frames


#: PLANE's prediction tables: file, the profile's measure, the kind of repetition
_PLANE_PREDICTIONS = (
    ("table4_items.tsv", "two-shot prompting F1", "prompt"),
    ("table8_items.tsv", "zero-shot prompting F1", "prompt"),
    ("table5_items.tsv", "NLI transfer F1", ""),
)


def _plane(results: Path, model: str, rows: set) -> list[pd.DataFrame]:
    frames = []
    for name, measure, seeds in _PLANE_PREDICTIONS:
        table = _table(results, "plane", name, ("model", "class", "seed", "item", "predicted", "gold"))
        if table is None:
            continue
        own = table[table["model"] == model]
        for cls in [*dict.fromkeys(own["class"]), "Average"]:
            group = own if cls == "Average" else own[own["class"] == cls]
            if group.empty or (measure, f"class {cls}") not in rows:
                continue
            # Average: the mean over the classes (each a stratum) of their F1, as Tables 4, 5 and 8
            key = {"family": "plane", "measure": measure, "setting": f"class {cls}", "statistic": "f1"}
            frames.append(
                _frame(
                    group, {**key, "seed_kind": seeds}, seed=group["seed"], stratum=group["class"],
                    item=group["item"], outcome=group["predicted"], gold=group["gold"],
                )
            )  # fmt: skip
    columns = ("train_set", "setting", "test_set", "split", "class", "item", "correct")
    table = _table(results, "plane", "table6_items.tsv", columns)
    if table is not None:
        done = set()
        for (train_set, setting, test_set), group in table.groupby(["train_set", "setting", "test_set"], sort=True):
            row = ("fine-tuning accuracy", f"{setting} {test_set}")
            if row not in rows or row in done:  # the first table row of a setting, as the profile's
                continue
            done.add(row)
            key = {"family": "plane", "measure": row[0], "setting": row[1], "statistic": "percent"}
            frames.append(
                _frame(
                    group, {**key, "seed_kind": "split seed"}, seed=group["split"], stratum="items",
                    item=group["item"], outcome=group["correct"],
                )
            )  # fmt: skip
    return frames


def _pss(results: Path, model: str, rows: set) -> list[pd.DataFrame]:
    columns = ("encoder", "head", "mode", "kind", "direction", "item", "outcome")
    table = _table(results, "pss", "item_outcomes.tsv", columns)
    if table is None:
        return []
    frames = []
    for (head, mode), group in table[table["encoder"] == model].groupby(["head", "mode"], sort=False):
        setting = f"{head} {str(mode).upper()}"
        # table1 is the paper's direction: negative originals rewritten positive
        pairs = group[(group["kind"] == "pair") & (group["direction"] == "neg_to_pos")]
        tests = group[group["kind"] == "test"]
        if ("PSS", setting) in rows:
            key = {"family": "pss", "measure": "PSS", "setting": setting, "statistic": "percent", "seed_kind": ""}
            frames.append(_frame(pairs, key, stratum="pairs", item=pairs["item"], outcome=pairs["outcome"]))
        if ("relative PSS", setting) in rows:
            # relative PSS = PSS / accuracy x 100: the pairs' share over the test sentences'
            key = {"family": "pss", "measure": "relative PSS", "setting": setting, "statistic": "ratio"}
            for part, stratum in ((pairs, "numerator"), (tests, "denominator")):
                frames.append(
                    _frame(part, {**key, "seed_kind": ""}, stratum=stratum, item=part["item"], outcome=part["outcome"])
                )
    return frames


def _tre(results: Path, model: str, rows: set) -> list[pd.DataFrame]:
    columns = ("setting", "encoder", "max_length", "item", "tre", "wns", "ti", "words")
    table = _table(results, "tre", "item_outcomes.tsv", columns)
    if table is None:
        return []
    frames = []
    for setting, group in table[table["encoder"] == model].groupby("setting", sort=False):
        # the configured length setting, the first of each encoder's (natcomp.tre.lengths)
        group = group[group["max_length"] == group["max_length"].iloc[0]]
        label = str(setting) or "SST trees"
        measures = (
            ("Spearman rho of TRE with WNS", "spearman", "wns"),
            ("Spearman rho of TRE with TI", "spearman", "ti"),
            ("partial rho of TRE with WNS, length fixed", "partial_spearman", "wns"),
        )
        for measure, statistic, score in measures:
            if (measure, label) not in rows:
                continue
            key = {"family": "tre", "measure": measure, "setting": label, "statistic": statistic, "seed_kind": ""}
            covariate = group["words"] if statistic == "partial_spearman" else ""
            frames.append(
                _frame(
                    group, key, stratum="sentences", item=group["item"], outcome=group["tre"], gold=group[score],
                    covariate=covariate,
                )
            )  # fmt: skip
    return frames


_FAMILIES: Mapping[str, Callable[[Path, str, set], list[pd.DataFrame]]] = {
    "mt": _mt,
    "noncompsst": _noncompsst,
    "plane": _plane,
    "pss": _pss,
    "tre": _tre,
}


def outcome_rows(run_dir: str | Path, profile: pd.DataFrame) -> pd.DataFrame:
    """The item outcomes (:data:`OUTCOME_COLUMNS`) of every row of ``profile`` (one model's,
    from the run in ``run_dir``) that its family's item tables hold; a family whose tables
    were written before them adds none."""
    results = Path(run_dir) / "results"
    frames = []
    if len(profile):
        model = str(profile["model"].iloc[0])
        for family, rows in profile.groupby("family", sort=False):
            keys = set(zip(rows["measure"], rows["setting"]))
            frames += [frame for frame in _FAMILIES[family](results, model, keys) if len(frame)]
    if not frames:
        return pd.DataFrame(columns=list(OUTCOME_COLUMNS))
    table = pd.concat(frames, ignore_index=True)
    table["model"] = str(profile["model"].iloc[0])
    return table[list(OUTCOME_COLUMNS)]


def write_outcomes(run_dir: str | Path, profile: pd.DataFrame) -> Path:
    """``results/item_outcomes.tsv`` of the run in ``run_dir`` (:func:`outcome_rows`)."""
    path = Path(run_dir) / "results" / OUTCOMES_FILE
    write_tsv(path, outcome_rows(run_dir, profile), list(OUTCOME_COLUMNS), float_format="%.6g")
    return path


def read_outcomes(path: str | Path) -> pd.DataFrame | None:
    """A profile's item outcomes, or None where the file is not there (a profile written
    before item outcomes were kept)."""
    path = Path(path)
    return read_tsv(path, OUTCOME_COLUMNS) if path.is_file() else None
