"""One model's profile from the families' final tables, and the comparison of profiles.

The profile reads only the TABLES a run writes (``results/tables/<family>/...``), never a
family's code. One row per family, headline measure and setting (the measures of issue
26), with the run's scale on every row and, where the model is one of a paper's, the
paper's published value beside it (``resources/<family>/published.tsv``: ``table, row,
column, value``, typed from the papers; :data:`PAPER_MODELS` says which row is which model).

Headline measures (docs/profile.md gives the reasons):

- MT: consistency per data type and condition (systematicity), consistency and synonym
  consistency per data type (substitutivity), overgeneralisation per data type (the mean
  over idioms of the model's one score per idiom);
- NonCompSST: Pearson's r with the human MAXABS ratings, macro-F1 on the top k phrases;
- PLANE: two-shot prompting F1 and NLI-transfer F1 per adjective class and on average,
  fine-tuning accuracy per split kind and test set (mean over split seeds);
- PSS: PSS and relative PSS per head and mode;
- TRE: Spearman's rho of TRE with WNS, and with Tree Impurity (TI) as the baseline score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.tsv import read_tsv

__all__ = [
    "COMPARE_COLUMNS",
    "PAPER_MODELS",
    "PROFILE_COLUMNS",
    "compare_profiles",
    "load_published",
    "profile_rows",
    "read_profile",
]

PROFILE_COLUMNS = ("model", "family", "measure", "setting", "value", "paper_value", "paper_source", "scale")
COMPARE_COLUMNS = ("family", "measure", "setting")

#: Hub ids of the papers' models -> their row (or column) label in the paper's tables
PAPER_MODELS: Mapping[str, Mapping[str, str]] = {
    "noncompsst": {
        "roberta-base": "ROBERTA-BASE, Liu et al.",
        "roberta-large": "ROBERTA-LARGE, Liu et al.",
        "cardiffnlp/twitter-roberta-base": "TIMELM, Loureiro et al.",
        "vinai/bertweet-base": "BERTTWEET, Nguyen et al.",
        "cardiffnlp/twitter-roberta-base-sentiment-latest": "Camacho-collados et al.",
        "finiteautomata/bertweet-base-sentiment-analysis": "Pérez et al.",
        "j-hartmann/sentiment-roberta-large-english-3-classes": "Hartmann et al.",
        "textattack/roberta-base-imdb": "IMDB ROBERTA",
    },
    "plane_prompting": {
        "bert-base-cased": "BERT-base",
        "bert-large-cased": "BERT-large",
        "distilbert-base-cased": "DistillBERT",
        "distilroberta-base": "DistillRoBERTa",
        "roberta-base": "RoBERTa-base",
        "roberta-large": "RoBERTa-large",
    },
    "plane_nli": {
        "roberta-large-mnli": "Liu et al. 19",
        "ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli": "Nie et al. 20",
    },
    # Table 6: "obtained by BERT" (the released code fine-tunes bert-base-cased)
    "plane_finetune": {"bert-base-cased": "BERT"},
    "pss": {"bert-base-uncased": "BERT"},
    "tre": {"bert-base-uncased": "BERT"},
}

#: organisation prefixes the Hub added to the papers' old model ids
_HUB_ALIASES = ("FacebookAI/", "google-bert/", "distilbert/")
_PLANE_SETTINGS = {"good": "GOoD", "one_it": "One–IT"}


def paper_model(group: str, model: str) -> str | None:
    """The paper's label of ``model`` in ``group`` of :data:`PAPER_MODELS`, or None."""
    models = PAPER_MODELS[group]
    if model in models:
        return models[model]
    for prefix in _HUB_ALIASES:
        if model.startswith(prefix) and model[len(prefix) :] in models:
            return models[model[len(prefix) :]]
    return None


def load_published(family: str, resources: str | Path | None = None) -> dict[tuple[str, str, str], float]:
    """A family's published values: ``(table, row, column) -> value`` (natcomp.published)."""
    from natcomp.published import paper_values, read_published

    if resources is None:
        from natcomp.shipped import resource_path

        path = resource_path(family, "published.tsv")
    else:
        path = Path(resources) / family / "published.tsv"
    return paper_values(read_published(path))


class _Builder:
    def __init__(self, model: str, name: str, scale: str, resources: str | Path | None):
        self.model, self.name, self.scale, self.resources = model, name, scale, resources
        self.rows: list[dict] = []
        self._published: dict[str, dict] = {}

    def published(self, family: str, table: str, row: str | None, column: str | None):
        """(value, source) of a published cell, or (None, "") where the model is not the paper's."""
        if row is None or column is None:
            return None, ""
        if family not in self._published:
            self._published[family] = load_published(family, self.resources)
        value = self._published[family].get((table, row, column))
        if value is None:
            return None, ""
        return value, f"{table} / {row} / {column}"

    def add(self, family: str, measure: str, setting: str, value: object, paper=(None, "")) -> None:
        number = pd.to_numeric(value, errors="coerce")
        self.rows.append(
            {
                "model": self.name,
                "family": family,
                "measure": measure,
                "setting": setting,
                "value": None if pd.isna(number) else float(number),
                "paper_value": paper[0],
                "paper_source": paper[1],
                "scale": self.scale,
            }
        )


def _table(results: Path, family: str, name: str, required: Sequence[str]) -> pd.DataFrame:
    path = results / "tables" / family / name
    if not path.is_file():
        raise InputError(path, "not found: the run has not written this table (did the workflow finish?)")
    return read_tsv(path, required)


def _rows_of(frame: pd.DataFrame, column: str, name: str, path_hint: str) -> pd.DataFrame:
    rows = frame[frame[column] == name]
    if rows.empty:
        raise InputError(frame.attrs.get("path", path_hint), f"no row with {column} {name!r}")
    return rows


def _mt(builder: _Builder, results: Path) -> None:
    name = builder.name
    systematicity = _table(results, "mt", "systematicity_summary.tsv", ["data_type", "condition", name])
    for _, row in systematicity.iterrows():
        builder.add("mt", "systematicity consistency", f"{row['data_type']} {row['condition']}", row[name])
    substitutivity = _table(results, "mt", "substitutivity_summary.tsv", ["data_type", "metric", name])
    measures = {
        "consistency": "substitutivity consistency",
        "synonym_consistency": "substitutivity synonym consistency",
    }
    for _, row in substitutivity.iterrows():
        builder.add("mt", measures.get(row["metric"], f"substitutivity {row['metric']}"), row["data_type"], row[name])
    peaks = _table(results, "mt", "overgeneralisation_peaks.tsv", ["data_type", "system", "idiom", "peak"])
    own = peaks[peaks["system"] == name].assign(peak=lambda frame: pd.to_numeric(frame["peak"], errors="coerce"))
    for data_type, group in own.groupby("data_type", sort=False):
        builder.add("mt", "overgeneralisation", data_type, group["peak"].mean())


def _noncompsst(builder: _Builder, results: Path) -> None:
    table = _table(results, "noncompsst", "models.tsv", ["model", "r_MAXABS"])
    row = _rows_of(table, "model", builder.name, "models.tsv").iloc[0]
    paper_row = paper_model("noncompsst", builder.model)
    builder.add(
        "noncompsst",
        "r with MAXABS",
        "all rated phrases",
        row["r_MAXABS"],
        builder.published("noncompsst", "Table 2", paper_row, "MAXABS r"),
    )
    top = [column for column in table.columns if column.startswith("f1_top")]
    for column in top:
        k = column[len("f1_top") :]
        paper = builder.published("noncompsst", "Table 2", paper_row, f"Top {k} F1")
        builder.add("noncompsst", "F1 on the top phrases", f"top {k}", row[column], paper)


def _plane(builder: _Builder, results: Path, families: Mapping[str, bool]) -> None:
    if families.get("prompting"):
        table = _table(results, "plane", "table4_prompting.tsv", ["model", "class", "f1_mean"])
        column = paper_model("plane_prompting", builder.model)
        for _, row in _rows_of(table, "model", builder.name, "table4_prompting.tsv").iterrows():
            paper = builder.published("plane", "Table 4", row["class"], column)
            builder.add("plane", "two-shot prompting F1", f"class {row['class']}", row["f1_mean"], paper)
    if families.get("prompting") and (results / "tables" / "plane" / "table8_zero_shot.tsv").is_file():
        table = _table(results, "plane", "table8_zero_shot.tsv", ["model", "class", "f1_mean"])
        for _, row in _rows_of(table, "model", builder.name, "table8_zero_shot.tsv").iterrows():
            builder.add("plane", "zero-shot prompting F1", f"class {row['class']}", row["f1_mean"], (None, ""))
    if families.get("nli"):
        table = _table(results, "plane", "table5_nli.tsv", ["model", "class", "f1"])
        column = paper_model("plane_nli", builder.model)
        for _, row in _rows_of(table, "model", builder.name, "table5_nli.tsv").iterrows():
            paper = builder.published("plane", "Table 5", row["class"], column)
            builder.add("plane", "NLI transfer F1", f"class {row['class']}", row["f1"], paper)
    table = _table(results, "plane", "table6_finetune.tsv", ["setting", "test_set", "accuracy_mean"])
    bert = paper_model("plane_finetune", builder.model)
    for _, row in table.iterrows():
        setting = _PLANE_SETTINGS.get(row["setting"])
        # The paper trained and tested on its released splits: its value stands beside those rows only.
        released = row.get("train_set", "released") == "released" and row["test_set"] == "released"
        paper = builder.published("plane", "Table 6", "Accuracy" if bert and released else None, setting)
        builder.add("plane", "fine-tuning accuracy", f"{row['setting']} {row['test_set']}", row["accuracy_mean"], paper)


def _pss(builder: _Builder, results: Path) -> None:
    table = _table(results, "pss", "table1.tsv", ["encoder", "head", "mode", "pss", "relative_pss"])
    paper_name = paper_model("pss", builder.model)
    heads = {"linear": "Linear", "dnn": "DNN"}
    for _, row in _rows_of(table, "encoder", builder.name, "table1.tsv").iterrows():
        mode = str(row["mode"]).upper()
        paper_row = f"{paper_name} {heads.get(row['head'], row['head'])} {mode}" if paper_name else None
        setting = f"{row['head']} {mode}"
        builder.add("pss", "PSS", setting, row["pss"], builder.published("pss", "Table 1", paper_row, "PSS"))
        builder.add(
            "pss",
            "relative PSS",
            setting,
            row["relative_pss"],
            builder.published("pss", "Table 1", paper_row, "Relative"),
        )


#: Table 2's baseline rows (its ``targets``) as the profile names them.
TRE_BASELINE_SUFFIXES = {"random": " (random-vector baseline)", "shuffled": " (shuffled-embedding baseline)"}


def _tre(builder: _Builder, results: Path) -> None:
    """Per setting (the paper's, and held-out where it ran): rho of TRE with WNS for the
    model's representations and, as the baselines, for random vectors of the same dimension
    and for the model's own representations shuffled across sentences, over the same trees;
    with WNS's partial rho controlling for sentence length where the table has it. The paper's
    rho stands beside the model's own WNS rho in the paper's setting."""
    table = _table(results, "tre", "table2.tsv", ["encoder", "score", "spearman_rho"])
    rows = _rows_of(table, "encoder", builder.name, "table2.tsv")
    paper_row = paper_model("tre", builder.model)
    for _, row in rows.iterrows():
        setting = str(row.get("setting", "")) or "SST trees"
        suffix = TRE_BASELINE_SUFFIXES.get(row.get("targets", "encoder"), "")
        baseline = bool(suffix)
        score = {"wns": "WNS", "ti": "TI"}.get(row["score"], row["score"])
        paper = (None, "")
        if row["score"] == "wns" and not baseline and setting in ("paper", "SST trees"):
            paper = builder.published("tre", "Table 2", paper_row, "SST Correlation")
        builder.add("tre", f"Spearman rho of TRE with {score}{suffix}", setting, row["spearman_rho"], paper)
        if row["score"] == "wns" and str(row.get("partial_rho", "")) != "":
            builder.add("tre", f"partial rho of TRE with WNS, length fixed{suffix}", setting, row["partial_rho"])


def profile_rows(
    run_dir: str | Path,
    *,
    model: str,
    name: str,
    scale: str,
    families: Sequence[str],
    plane_roles: Mapping[str, bool] | None = None,
    resources: str | Path | None = None,
) -> pd.DataFrame:
    """The profile of the run in ``run_dir`` (its ``results/tables``)."""
    results = Path(run_dir) / "results"
    builder = _Builder(model, name, scale, resources)
    for family in families:
        if family == "mt":
            _mt(builder, results)
        elif family == "noncompsst":
            _noncompsst(builder, results)
        elif family == "plane":
            _plane(builder, results, plane_roles or {})
        elif family == "pss":
            _pss(builder, results)
        elif family == "tre":
            _tre(builder, results)
    return pd.DataFrame(builder.rows, columns=list(PROFILE_COLUMNS))


def read_profile(path: str | Path) -> pd.DataFrame:
    """A profile.tsv, or a run folder's ``results/profile.tsv``."""
    path = Path(path)
    if path.is_dir():
        path = path / "results" / "profile.tsv"
    if not path.is_file():
        raise InputError(path, "no profile here: run 'natcomp evaluate' for this run first")
    frame = read_tsv(path, PROFILE_COLUMNS)
    if frame["model"].nunique() > 1:
        raise InputError(path, "holds the profiles of several models; give one run's profile.tsv")
    return frame


def compare_profiles(profiles: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Profiles side by side: one row per family, measure and setting; per model a column
    ``<model> [<scale>]`` with its values and, where the model is one of a paper's, a column
    ``<model> [published]`` with the paper's values. A measure a model has no value for
    stays missing (blank), never 0."""
    keys = list(COMPARE_COLUMNS)
    names = [
        str(profile["model"].iloc[0]) if len(profile) else f"run{index + 1}" for index, profile in enumerate(profiles)
    ]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InputError(", ".join(duplicates), "two runs of the same model name; rename one with --name")
    order: list[tuple] = []
    for profile in profiles:
        for key in profile[keys].itertuples(index=False, name=None):
            if key not in order:
                order.append(key)
    table = pd.DataFrame(order, columns=keys)
    for name, profile in zip(names, profiles):
        scale = ", ".join(sorted(set(profile["scale"]))) or "unknown scale"
        indexed = profile.set_index(keys)
        for column, header in (("value", f"{name} [{scale}]"), ("paper_value", f"{name} [published]")):
            values = pd.to_numeric(indexed[column], errors="coerce")
            cells = [float(values[key]) if key in values.index else math.nan for key in order]
            if column == "value" or not all(math.isnan(cell) for cell in cells):
                table[header] = cells
    family_order = {family: index for index, family in enumerate(("mt", "noncompsst", "plane", "pss", "tre"))}
    return table.sort_values("family", key=lambda s: s.map(family_order), kind="stable").reset_index(drop=True)
