"""One model's profile from the families' final tables, and the comparison of profiles.

The profile reads only the TABLES a run writes (``results/tables/<family>/...``), never a
family's code. One row per family, headline measure and setting (the measures of issue
26), each judged in its own row (issue 32): the value with its unit, the sd over seeds,
split seeds or prompts and their number, a 95% interval and p-value where there is one,
the baseline in the same unit, which direction is more compositional (or better), the
run's scale, a flag with its reason where the value is undefined or meaningless and,
where the model is one of a paper's, the paper's published value beside it
(``resources/<family>/published.tsv``: ``table, row, column, value``, typed from the
papers; :data:`PAPER_MODELS` says which row is which model). docs/profile.md gives the
reasons for every column.

Headline measures:

- MT: consistency per data type and condition (systematicity), consistency and synonym
  consistency per data type (substitutivity), overgeneralisation per data type (the mean
  over idioms of the model's one score per idiom);
- NonCompSST: Pearson's r with the human MAXABS ratings, macro-F1 on the top k phrases;
- PLANE: two-shot (and zero-shot) prompting F1 and NLI-transfer F1 per adjective class and
  on average, fine-tuning accuracy per split kind and test set (mean over split seeds);
- PSS: PSS and relative PSS per head and mode;
- TRE: Spearman's rho of TRE with WNS (and with Tree Impurity, and WNS's partial rho).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.profile.fit import FAMILIES
from natcomp.tsv import read_header, read_tsv

__all__ = [
    "COMPARE_COLUMNS",
    "COMPARE_ROW_COLUMNS",
    "DIRECTIONS",
    "PAPER_MODELS",
    "PROFILE_COLUMNS",
    "binomial_above_chance",
    "compare_profiles",
    "fisher_interval",
    "load_published",
    "pearson_p_value",
    "profile_rows",
    "read_profile",
]

PROFILE_COLUMNS = (
    "model",
    "family",
    "measure",
    "setting",
    "value",
    "sd",
    "n",
    "sd_over",
    "ci_low",
    "ci_high",
    "p_value",
    "baseline",
    "baseline_kind",
    "baseline2",
    "baseline2_kind",
    "paper_value",
    "paper_source",
    "direction",
    "unit",
    "scale",
    "flag",
    "note",
)
#: the key of a profile row, in profiles and in compare.tsv
COMPARE_COLUMNS = ("family", "measure", "setting")
#: compare.tsv's columns before the models' blocks
COMPARE_ROW_COLUMNS = (*COMPARE_COLUMNS, "unit", "direction")

HIGHER_MORE_COMPOSITIONAL = "higher is more compositional"
LOWER_MORE_COMPOSITIONAL = "lower is more compositional"
HIGHER_BETTER = "higher is better"
DIRECTIONS = (HIGHER_MORE_COMPOSITIONAL, LOWER_MORE_COMPOSITIONAL, HIGHER_BETTER)
PERCENT = "%"
UNDEFINED = "undefined"
AT_CHANCE = "at chance"
#: the two-sided 95% normal quantile of the Fisher-z interval
_Z95 = 1.959963984540054
#: PSS's classifier must beat 50% at this level (one-sided binomial test) for PSS to mean anything
PSS_CHANCE_ALPHA = 0.05

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


def _number(value: object) -> float | None:
    """A table cell as a float, or None where it is blank or not a number."""
    number = pd.to_numeric(value, errors="coerce")
    return None if pd.isna(number) else float(number)


def _percent(value: object) -> float | None:
    """A 0-1 share as a percent (the profile's one unit for shares)."""
    number = _number(value)
    return None if number is None else 100.0 * number


def _count(value: object) -> int | None:
    number = _number(value)
    return None if number is None else int(round(number))


def fisher_interval(r: float | None, n: int | None) -> tuple[float | None, float | None]:
    """The 95% interval of Pearson's r over n pairs by Fisher's z (atanh r +- 1.96 / sqrt(n - 3));
    (None, None) where r is undefined or n < 4."""
    if r is None or n is None or n < 4:
        return None, None
    if abs(r) >= 1:
        return r, r
    z, half = math.atanh(r), _Z95 / math.sqrt(n - 3)
    return math.tanh(z - half), math.tanh(z + half)


def pearson_p_value(r: float | None, n: int | None) -> float | None:
    """Two-sided p-value of Pearson's r over n pairs (t with n - 2 degrees of freedom, what
    ``scipy.stats.pearsonr`` reports); None where r is undefined or n < 3."""
    from scipy.stats import t

    if r is None or n is None or n < 3:
        return None
    if abs(r) >= 1:
        return 0.0
    statistic = r * math.sqrt((n - 2) / (1 - r * r))
    return float(2 * t.sf(abs(statistic), n - 2))


def binomial_above_chance(accuracy: float, sentences: int) -> float:
    """One-sided binomial p-value that a classifier with ``accuracy`` (percent) on
    ``sentences`` test sentences is above 50% (its correct count rounded to a whole number)."""
    from scipy.stats import binomtest

    correct = int(round(accuracy / 100 * sentences))
    return float(binomtest(correct, sentences, 0.5, alternative="greater").pvalue)


class _Builder:
    def __init__(self, model: str, name: str, scale: str, resources: str | Path | None):
        self.model, self.name, self.scale, self.resources = model, name, scale, resources
        self.rows: list[dict] = []
        self._published: dict[str, dict] = {}

    def published(self, family: str, table: str, row: str | None, column: str | None, factor: float = 1.0):
        """(value, source) of a published cell (times ``factor``: a 0-1 share as percent), or
        (None, "") where the model is not the paper's."""
        if row is None or column is None:
            return None, ""
        if family not in self._published:
            self._published[family] = load_published(family, self.resources)
        value = self._published[family].get((table, row, column))
        if value is None:
            return None, ""
        return value * factor, f"{table} / {row} / {column}"

    def add(
        self,
        family: str,
        measure: str,
        setting: str,
        value: object,
        *,
        unit: str,
        direction: str,
        undefined: str,
        paper=(None, ""),
        sd: object = None,
        n: int | None = 1,
        sd_over: str = "",
        ci: tuple[float | None, float | None] = (None, None),
        p_value: object = None,
        baseline: object = None,
        baseline_kind: str = "",
        baseline2: object = None,
        baseline2_kind: str = "",
        flag: str = "",
        note: str = "",
    ) -> None:
        """One row; ``undefined`` is the reason written in ``note`` when the value is blank."""
        number = _number(value)
        if number is None:
            flag, note = UNDEFINED, undefined
        self.rows.append(
            {
                "model": self.name,
                "family": family,
                "measure": measure,
                "setting": setting,
                "value": number,
                "sd": _number(sd),
                "n": n,
                "sd_over": sd_over,
                "ci_low": ci[0],
                "ci_high": ci[1],
                "p_value": _number(p_value),
                "baseline": _number(baseline),
                "baseline_kind": baseline_kind if _number(baseline) is not None else "",
                "baseline2": _number(baseline2),
                "baseline2_kind": baseline2_kind if _number(baseline2) is not None else "",
                "paper_value": paper[0],
                "paper_source": paper[1],
                "direction": direction,
                "unit": unit,
                "scale": self.scale,
                "flag": flag,
                "note": note,
            }
        )


def _table(results: Path, family: str, name: str, required: Sequence[str]) -> pd.DataFrame:
    path = results / "tables" / family / name
    if not path.is_file():
        raise InputError(path, "not found: the run has not written this table (did the workflow finish?)")
    return _read_current(path, required, "the table", "delete it and run 'natcomp evaluate' again to write it anew")


def _read_current(path: Path, required: Sequence[str], what: str, remedy: str) -> pd.DataFrame:
    """``path`` read with its ``required`` columns; a file written before them is one line
    naming the missing columns and the ``remedy``."""
    header = read_header(path)
    missing = [column for column in required if column not in header]
    if missing and len(missing) == len(required):
        # no column of it at all: another file, not an older one (issue 45)
        found = repr(" | ".join(header)) if header else "nothing"
        raise InputError(path, f"found the header {found}; expected {what}, with the columns {', '.join(required)}", 1)
    if missing:
        raise InputError(path, f"{what} predates the column(s) {', '.join(missing)}: {remedy}")
    return read_tsv(path, required)


def _rows_of(frame: pd.DataFrame, column: str, name: str, path_hint: str) -> pd.DataFrame:
    rows = frame[frame[column] == name]
    if rows.empty:
        raise InputError(frame.attrs.get("path", path_hint), f"no row with {column} {name!r}")
    return rows


def _mt_seeds(results: Path, name: str) -> int:
    """How many seeds the MT summaries' ``<name>_sd`` is over: the distinct seeds of the
    system (or trained size) ``name`` in systematicity.tsv; 1 for a released system."""
    path = results / "tables" / "mt" / "systematicity.tsv"
    if not path.is_file():
        return 1
    table = read_tsv(path, ["system", "size", "seed"])
    own = table[(table["system"] == name) | ((table["system"] == "trained") & (table["size"] == name))]
    return max(1, own.loc[own["seed"] != "", "seed"].nunique())


#: how the MT overgeneralisation tables mark an idiom that is word for word in the target
#: language (their ``keywords`` column; natcomp.mt.tables.WORD_FOR_WORD)
WORD_FOR_WORD_MARK = "word for word in "


def _mt(builder: _Builder, results: Path) -> None:
    """Consistency and overgeneralisation as percents; sd over the system's training seeds
    where it has several (a released system: n 1, no sd). No baseline: the paper has none."""
    name = builder.name
    seeds = _mt_seeds(results, name)
    common = {"unit": PERCENT, "direction": HIGHER_MORE_COMPOSITIONAL, "n": seeds}
    common["sd_over"] = "seeds" if seeds > 1 else ""
    sd_column = f"{name}_sd"
    systematicity = _table(results, "mt", "systematicity_summary.tsv", ["data_type", "condition", name])
    for _, row in systematicity.iterrows():
        builder.add(
            "mt",
            "systematicity consistency",
            f"{row['data_type']} {row['condition']}",
            _percent(row[name]),
            sd=_percent(row.get(sd_column)),
            undefined="no items scored: consistency undefined",
            **common,
        )
    substitutivity = _table(results, "mt", "substitutivity_summary.tsv", ["data_type", "metric", name])
    measures = {
        "consistency": "substitutivity consistency",
        "synonym_consistency": "substitutivity synonym consistency",
    }
    for _, row in substitutivity.iterrows():
        builder.add(
            "mt",
            measures.get(row["metric"], f"substitutivity {row['metric']}"),
            row["data_type"],
            _percent(row[name]),
            sd=_percent(row.get(sd_column)),
            undefined="no items scored: consistency undefined",
            **common,
        )
    peaks = _table(results, "mt", "overgeneralisation_peaks.tsv", ["data_type", "system", "idiom", "peak"])
    own = peaks[peaks["system"] == name].assign(peak=lambda frame: pd.to_numeric(frame["peak"], errors="coerce"))
    # an idiom the table marks word for word in the target language (its keywords column)
    # measures accuracy there, not overgeneralisation: the mean leaves it out and says so
    literal = own.get("keywords", pd.Series("", index=own.index)).astype(str).str.contains(WORD_FOR_WORD_MARK)
    for data_type, group in own.groupby("data_type", sort=False):
        left_out = sorted(group.loc[literal[group.index], "idiom"])
        # the mean over idioms of each idiom's peak: an sd over seeds of that mean is not in the table
        builder.add(
            "mt",
            "overgeneralisation",
            data_type,
            _percent(group.loc[~literal[group.index], "peak"].mean()),
            unit=PERCENT,
            direction=HIGHER_MORE_COMPOSITIONAL,
            n=seeds,
            undefined="no idiom scored: overgeneralisation undefined",
            note=f"mean without {', '.join(left_out)} (word for word in the target language)" if left_out else "",
        )


def _noncompsst(builder: _Builder, results: Path) -> None:
    """r with MAXABS (of the seed-averaged predictions, as the paper: no sd) with its Fisher-z
    interval and p-value over the rated phrases, against r = 0; F1 on the top k phrases as a
    percent, mean and sd over the seeds."""
    table = _table(results, "noncompsst", "models.tsv", ["model", "r_MAXABS", "seeds", "n_MAXABS"])
    row = _rows_of(table, "model", builder.name, "models.tsv").iloc[0]
    paper_row = paper_model("noncompsst", builder.model)
    seeds, phrases = _count(row["seeds"]), _count(row["n_MAXABS"])
    r = _number(row["r_MAXABS"])
    if phrases is not None and phrases < 3:
        undefined = f"{phrases} rated phrase(s) (r needs 3): r undefined"
    else:
        undefined = "constant predictions: r undefined (the model's ratings, or the humans', do not vary)"
    builder.add(
        "noncompsst",
        "r with MAXABS",
        "all rated phrases",
        r,
        unit="r",
        direction=HIGHER_BETTER,
        undefined=undefined,
        paper=builder.published("noncompsst", "Table 2", paper_row, "MAXABS r"),
        n=seeds,
        sd_over="seeds",
        ci=fisher_interval(r, phrases),
        p_value=pearson_p_value(r, phrases),
        baseline=0.0,
        baseline_kind="no correlation (r = 0)",
    )
    top = [column for column in table.columns if column.startswith("f1_top") and column[len("f1_top") :].isdigit()]
    for column in top:
        k = column[len("f1_top") :]
        builder.add(
            "noncompsst",
            "F1 on the top phrases",
            f"top {k}",
            _percent(row[column]),
            unit=PERCENT,
            direction=HIGHER_BETTER,
            undefined="no human sentiment for the phrases: F1 undefined",
            paper=builder.published("noncompsst", "Table 2", paper_row, f"Top {k} F1", factor=100.0),
            sd=_percent(row.get(f"{column}_sd")),
            n=seeds,
            sd_over="seeds",
            baseline=_percent(row.get(f"{column}_chance")),
            baseline_kind="chance (best constant sentiment class)",
        )


_PLANE_CHANCE_F1 = "chance (best constant answer)"
_PLANE_NO_ITEMS = "no items scored: F1 undefined"
#: the PLANE measures that prompt the model (a causal LM's through its chat template or not)
_PLANE_PROMPTING_MEASURES = ("two-shot prompting F1", "zero-shot prompting F1")


def _plane(builder: _Builder, results: Path, families: Mapping[str, bool]) -> None:
    """F1 in percent against the chance F1 of the same items (the better constant answer,
    PLANE's own F1); fine-tuning accuracy as a percent against the majority label's share."""
    plane = {"unit": PERCENT, "direction": HIGHER_BETTER, "baseline_kind": _PLANE_CHANCE_F1}
    # two-shot (Table 4, with the paper's values) and zero-shot (Table 8, where it ran) prompting
    prompting = (
        ("table4_prompting.tsv", "two-shot prompting F1", "cells", "Table 4"),
        ("table8_zero_shot.tsv", "zero-shot prompting F1", "templates", None),
    )
    for name, measure, count, paper_table in prompting if families.get("prompting") else ():
        if paper_table is None and not (results / "tables" / "plane" / name).is_file():
            continue
        table = _table(results, "plane", name, ["model", "class", "f1_mean", "f1_sd", count, "chance_f1"])
        column = paper_model("plane_prompting", builder.model) if paper_table else None
        for _, row in _rows_of(table, "model", builder.name, name).iterrows():
            builder.add(
                "plane",
                measure,
                f"class {row['class']}",
                row["f1_mean"],
                paper=builder.published("plane", paper_table, row["class"], column),
                sd=row["f1_sd"],
                n=_count(row[count]),
                sd_over="prompts",
                baseline=row["chance_f1"],
                undefined=_PLANE_NO_ITEMS,
                **plane,
            )
    if families.get("nli"):
        table = _table(results, "plane", "table5_nli.tsv", ["model", "class", "f1", "chance_f1"])
        column = paper_model("plane_nli", builder.model)
        for _, row in _rows_of(table, "model", builder.name, "table5_nli.tsv").iterrows():
            builder.add(
                "plane",
                "NLI transfer F1",
                f"class {row['class']}",
                row["f1"],
                paper=builder.published("plane", "Table 5", row["class"], column),
                baseline=row["chance_f1"],
                undefined=_PLANE_NO_ITEMS,
                **plane,
            )
    if not families.get("finetune", True):  # a served model: no weights to fine-tune
        return
    table = _table(
        results, "plane", "table6_finetune.tsv", ["setting", "test_set", "splits", "accuracy_mean", "chance"]
    )
    bert = paper_model("plane_finetune", builder.model)
    for _, row in table.iterrows():
        setting = _PLANE_SETTINGS.get(row["setting"])
        # The paper trained and tested on its released splits: its value stands beside those rows only.
        released = row.get("train_set", "released") == "released" and row["test_set"] == "released"
        splits = _count(row["splits"])
        builder.add(
            "plane",
            "fine-tuning accuracy",
            f"{row['setting']} {row['test_set']}",
            _percent(row["accuracy_mean"]),
            unit=PERCENT,
            direction=HIGHER_BETTER,
            undefined="no test items: accuracy undefined",
            paper=builder.published("plane", "Table 6", "Accuracy" if bert and released else None, setting, 100.0),
            sd=_percent(row.get("accuracy_sd")),
            n=splits,
            sd_over="split seeds",
            baseline=_percent(row["chance"]),
            baseline_kind="chance (majority label)",
        )


def _pss(builder: _Builder, results: Path) -> None:
    """PSS and relative PSS (percent) with the classifier's sentiment accuracy as the baseline;
    "at chance" where that accuracy is not above 50% (one-sided binomial test at 0.05 over the
    test sentences): a classifier at chance gets pairs right by luck, so PSS means nothing."""
    required = ["encoder", "head", "mode", "pss", "relative_pss", "accuracy", "test_sentences"]
    table = _table(results, "pss", "table1.tsv", required)
    paper_name = paper_model("pss", builder.model)
    heads = {"linear": "Linear", "dnn": "DNN"}
    for _, row in _rows_of(table, "encoder", builder.name, "table1.tsv").iterrows():
        mode = str(row["mode"]).upper()
        paper_row = f"{paper_name} {heads.get(row['head'], row['head'])} {mode}" if paper_name else None
        setting = f"{row['head']} {mode}"
        accuracy, sentences = _number(row["accuracy"]), _count(row["test_sentences"])
        flag = note = ""
        if accuracy is not None and sentences:
            p = binomial_above_chance(accuracy, sentences)
            if p >= PSS_CHANCE_ALPHA:
                flag = AT_CHANCE
                note = (
                    f"classifier at chance ({accuracy:.1f}% on {sentences} sentences, binomial p = {p:.2g}): "
                    "PSS meaningless"
                )
        common = {
            "unit": PERCENT,
            "direction": HIGHER_MORE_COMPOSITIONAL,
            "undefined": "no sentence pairs scored: PSS undefined",
            "baseline": accuracy,
            "baseline_kind": "classifier sentiment accuracy, chance 50%",
            "flag": flag,
            "note": note,
        }
        builder.add(
            "pss", "PSS", setting, row["pss"], paper=builder.published("pss", "Table 1", paper_row, "PSS"), **common
        )
        paper = builder.published("pss", "Table 1", paper_row, "Relative")
        builder.add("pss", "relative PSS", setting, row["relative_pss"], paper=paper, **common)


def _tre(builder: _Builder, results: Path) -> None:
    """Per setting (the paper's, and held-out where it ran) and tree score: rho of TRE with
    the score for the model's representations, with its p-value; as the baselines, the same rho
    for random vectors of the same dimension and for the model's own representations shuffled
    across sentences, over the same trees (the table's ``targets``), in the same row. WNS's
    partial rho controlling for sentence length where the table has it. The paper's rho stands
    beside the model's own WNS rho in the paper's setting."""
    table = _table(results, "tre", "table2.tsv", ["encoder", "score", "spearman_rho"])
    rows = _rows_of(table, "encoder", builder.name, "table2.tsv")
    if "targets" not in rows:
        rows = rows.assign(targets="encoder")
    if "setting" not in rows:
        rows = rows.assign(setting="")
    paper_row = paper_model("tre", builder.model)
    by_target = {(row["targets"], str(row["setting"]), row["score"]): row for _, row in rows.iterrows()}
    common = {
        "unit": "rho",
        "direction": LOWER_MORE_COMPOSITIONAL,
        "undefined": "constant TRE or tree scores: rho undefined",
        "baseline_kind": "random vectors",
        "baseline2_kind": "shuffled embeddings",
    }
    for _, row in rows[rows["targets"] == "encoder"].iterrows():
        setting = str(row["setting"]) or "SST trees"
        random = by_target.get(("random", str(row["setting"]), row["score"]), {})
        shuffled = by_target.get(("shuffled", str(row["setting"]), row["score"]), {})
        score = {"wns": "WNS", "ti": "TI"}.get(row["score"], row["score"])
        paper = (None, "")
        if row["score"] == "wns" and setting in ("paper", "SST trees"):
            paper = builder.published("tre", "Table 2", paper_row, "SST Correlation")
        builder.add(
            "tre",
            f"Spearman rho of TRE with {score}",
            setting,
            row["spearman_rho"],
            paper=paper,
            p_value=row.get("p_value"),
            baseline=random.get("spearman_rho"),
            baseline2=shuffled.get("spearman_rho"),
            **common,
        )
        if row["score"] == "wns" and str(row.get("partial_rho", "")) != "":
            builder.add(
                "tre",
                "partial rho of TRE with WNS, length fixed",
                setting,
                row["partial_rho"],
                p_value=row.get("partial_p_value"),
                baseline=random.get("partial_rho"),
                baseline2=shuffled.get("partial_rho"),
                **common,
            )


def profile_rows(
    run_dir: str | Path,
    *,
    model: str,
    name: str,
    scale: str,
    families: Sequence[str],
    plane_roles: Mapping[str, bool] | None = None,
    chat_template: Mapping[str, bool] | None = None,
    resources: str | Path | None = None,
) -> pd.DataFrame:
    """The profile of the run in ``run_dir`` (its ``results/tables``): :data:`PROFILE_COLUMNS`.
    ``chat_template``: a causal LM's run record's (family -> whether MT's, PLANE prompting's
    prompts went through the chat template): each such row's note says so."""
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
    _note_chat_template(builder.rows, chat_template or {})
    profile = pd.DataFrame(builder.rows, columns=list(PROFILE_COLUMNS))
    profile["n"] = profile["n"].astype("Int64")
    return profile


def _note_chat_template(rows: list[dict], applied: Mapping[str, bool]) -> None:
    """Add to the note of each row that prompted a causal LM whether its chat template was
    applied (a value with and without it are different measurements; compare shows notes)."""
    for row in rows:
        family = row["family"]
        if family == "plane" and row["measure"] not in _PLANE_PROMPTING_MEASURES:
            continue
        if family in applied:
            said = "chat template applied" if applied[family] else "chat template not applied"
            row["note"] = f"{row['note']}; {said}" if row["note"] else said


def read_profile(path: str | Path) -> pd.DataFrame:
    """A profile.tsv, or a run folder's ``results/profile.tsv``, with every column of
    :data:`PROFILE_COLUMNS` (a profile written before them is refused: write it again)."""
    path = Path(path)
    if path.is_dir():
        path = path / "results" / "profile.tsv"
    if not path.is_file():
        raise InputError(path, "no profile here: run 'natcomp evaluate' for this run first")
    remedy = "re-run 'natcomp evaluate' with the same --model and --name (a finished run only writes its profile again)"
    frame = _read_current(path, PROFILE_COLUMNS, "the profile", remedy)
    _check_numbers(frame, path)
    if frame["model"].nunique() > 1:
        raise InputError(path, "holds the profiles of several models; give one run's profile.tsv")
    return frame


#: the profile columns that hold a number or nothing (an edited or damaged cell would
#: otherwise become a blank cell of compare.tsv)
NUMBER_COLUMNS = ("value", "sd", "n", "ci_low", "ci_high", "p_value", "baseline", "baseline2", "paper_value")


def _check_numbers(frame: pd.DataFrame, path: Path) -> None:
    """Refuse a cell of :data:`NUMBER_COLUMNS` that is neither empty nor a number, naming
    the file, its line and the column."""
    for column in NUMBER_COLUMNS:
        text = frame[column].astype(str).str.strip()
        bad = text.ne("") & pd.to_numeric(text.where(text.ne("")), errors="coerce").isna()
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            raise InputError(
                path, f"{column} {text.iloc[row]!r} is not a number; expected a number or nothing", row + 2
            )


#: a model's block in compare.tsv: (profile column, header suffix); numbers first, then words
_COMPARE_BLOCK = (
    ("value", None),
    ("sd", "sd"),
    ("n", "n"),
    ("baseline", "baseline"),
    ("flag", "flag"),
    ("note", "note"),
)
_COMPARE_WORDS = {"flag", "note"}


def compare_profiles(profiles: Sequence[pd.DataFrame], labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Profiles side by side (compare.tsv): one row per family, measure and setting with its
    unit and direction; per model the block ``<model> [<label>]`` (the value; the label is the
    scale unless ``labels`` gives one per profile: natcomp compare adds the settings that
    differ between the runs), ``<model> sd``, ``<model> n``, ``<model> baseline``, ``<model>
    flag``, ``<model> note`` and, only where the model has a paper value, ``<model>
    [published]``. A row a model does not have stays blank (NaN, or "" for words), never 0."""
    keys = list(COMPARE_COLUMNS)
    names = [
        str(profile["model"].iloc[0]) if len(profile) else f"run{index + 1}" for index, profile in enumerate(profiles)
    ]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InputError(", ".join(duplicates), "two runs of the same model name; rename one with --name")
    order: list[tuple] = []
    described: dict[tuple, tuple[str, str]] = {}
    for profile in profiles:
        for record in profile.to_dict("records"):
            key = tuple(record[column] for column in keys)
            if key not in described:
                order.append(key)
                described[key] = (record["unit"], record["direction"])
    table = pd.DataFrame(order, columns=keys)
    table["unit"] = [described[key][0] for key in order]
    table["direction"] = [described[key][1] for key in order]
    for index, (name, profile) in enumerate(zip(names, profiles)):
        scale = ", ".join(sorted(set(profile["scale"]))) or "unknown scale"
        if labels is not None:
            scale = labels[index]
        indexed = profile.set_index(keys)
        for column, suffix in (*_COMPARE_BLOCK, ("paper_value", None)):
            header = f"{name} {suffix}" if suffix else f"{name} [{scale}]"
            if column in _COMPARE_WORDS:
                words = indexed[column].fillna("").astype(str)
                table[header] = [str(words[key]) if key in words.index else "" for key in order]
                continue
            values = pd.to_numeric(indexed[column], errors="coerce")
            cells = [float(values[key]) if key in values.index else math.nan for key in order]
            if column == "paper_value":
                if all(math.isnan(cell) for cell in cells):
                    continue
                header = f"{name} [published]"
            table[header] = pd.array(cells, dtype="Int64") if column == "n" else cells
    family_order = {family: index for index, family in enumerate(FAMILIES)}
    return table.sort_values("family", key=lambda s: s.map(family_order), kind="stable").reset_index(drop=True)
