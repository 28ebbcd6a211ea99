"""Item outcomes of the MT tests and paired comparisons between the systems of one run.

:func:`item_outcomes` is the long table behind the summaries (``item_outcomes.tsv``, written
by ``mt_tables`` from the score files it already reads): per model and item, the label the
summaries average (consistent, synonym consistent at the best checkpoint; overgeneralised
for a pretrained system's released model), with a stable item id (:func:`natcomp.paired.item_id`
of the item's number and source sentences) and the stratum the summaries average over
(template; synonym pair and template; idiom).

:func:`group_comparison` asks the paper's question of every pair of model groups (corpus
sizes, each over its training seeds, and pretrained systems): is B more systematic than A,
per data type and condition, with the paired tests of :mod:`natcomp.paired` (items shared by
both, resampled with the seeds; Holm's correction over the table), and :func:`bleu_comparison`
the same pairs' BLEU on FLORES with sacrebleu's paired bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from natcomp.mt.registry import get_test
from natcomp.mt.scoring import FINAL_CHECKPOINT, TRAINED_SYSTEM

__all__ = [
    "BLEU_COMPARISON_COLUMNS",
    "BLEU_TITLE",
    "COMPARISON_COLUMNS",
    "ITEM_OUTCOME_COLUMNS",
    "SYSTEMS_TITLE",
    "TITLE",
    "bleu_comparison",
    "group_comparison",
    "item_outcomes",
]

#: the columns of item_outcomes.tsv
ITEM_OUTCOME_COLUMNS = (
    "system",
    "size",
    "seed",
    "metric",
    "data_type",
    "condition",
    "stratum",
    "item",
    "outcome",
)
#: label column -> the metric it is the item outcome of
_METRICS = {
    "systematicity": {"consistent": "consistency"},
    "substitutivity": {"consistent": "consistency", "synonym_consistent": "synonym_consistency"},
    "overgeneralisation": {"overgeneralised": "overgeneralisation"},
}
#: the columns of the comparison table
COMPARISON_COLUMNS = (
    "measure",
    "data_type",
    "condition",
    "a",
    "b",
    "value_a",
    "value_b",
    "difference",
    "ci_low",
    "ci_high",
    "items",
    "test",
    "p_value",
    "p_holm",
    "verdict",
)
#: the measure of each metric in the comparison table (the profile's words)
MEASURES = {
    ("systematicity", "consistency"): "systematicity consistency",
    ("substitutivity", "consistency"): "substitutivity consistency",
    ("substitutivity", "synonym_consistency"): "substitutivity synonym consistency",
}


def _stratum(measurement: str, frame: pd.DataFrame) -> pd.Series:
    if measurement == "overgeneralisation":
        return frame["idiom"].astype(str)
    template = "template " + frame["template"].astype(str)
    return frame["pair"].astype(str) + " " + template if measurement == "substitutivity" else template


def item_outcomes(scores: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The long table of every model's item labels (:data:`ITEM_OUTCOME_COLUMNS`) from the
    score frames of ``natcomp.mt.tables.read_scores`` per measurement. Overgeneralisation:
    a pretrained system's released model only (a trained model's peak is over epochs)."""
    from natcomp.paired import item_id

    parts = []
    for measurement, frame in scores.items():
        if frame is None or frame.empty:
            continue
        if measurement == "overgeneralisation":
            frame = frame[(frame["system"] != TRAINED_SYSTEM) & (frame["checkpoint"] == FINAL_CHECKPOINT)]
            if frame.empty:
                continue
        ids = [
            item_id(row["item"], *(row[column] for column in get_test(row["test"]).source_columns))
            for row in frame.to_dict("records")
        ]
        for label, metric in _METRICS[measurement].items():
            if label not in frame.columns:
                continue
            parts.append(
                pd.DataFrame(
                    {
                        "system": frame["system"].to_numpy(),
                        "size": frame["size"].to_numpy(),
                        "seed": ["" if pd.isna(seed) else str(int(seed)) for seed in frame["seed"]],
                        "metric": metric,
                        "data_type": frame["data_type"].to_numpy(),
                        "condition": frame["condition"].to_numpy() if "condition" in frame else "",
                        "stratum": _stratum(measurement, frame).to_numpy(),
                        "item": ids,
                        "outcome": pd.to_numeric(frame[label]).to_numpy(dtype=float),
                    }
                )
            )
    if not parts:
        return pd.DataFrame(columns=list(ITEM_OUTCOME_COLUMNS))
    return pd.concat(parts, ignore_index=True)[list(ITEM_OUTCOME_COLUMNS)]


def group_outcomes(outcomes: pd.DataFrame, group: str, seed_kind: str) -> pd.DataFrame:
    """One model group's rows (a corpus size's trained models, or a pretrained system) in
    the columns of :class:`natcomp.paired.Outcomes` (percent of items)."""
    trained = outcomes["system"] == TRAINED_SYSTEM
    own = outcomes[(trained & (outcomes["size"] == group)) | (~trained & (outcomes["system"] == group))]
    return own.assign(
        statistic="percent", seed_kind=seed_kind if own["seed"].ne("").any() else "", gold="", covariate=""
    )


def group_comparison(
    outcomes: pd.DataFrame,
    groups: Sequence[str],
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    resamples: int = 2000,
) -> pd.DataFrame:
    """Every pair (A, B) of ``groups`` (corpus sizes first, smaller to larger, then the
    pretrained systems, in config order), on each systematicity and substitutivity row
    (data type, condition; data type, metric): B - A in percentage points of consistency
    with its 95% interval, p-value and Holm-corrected p-value over the table, and the verdict
    (:data:`COMPARISON_COLUMNS`); with ``pairs``, those pairs only."""
    from natcomp.paired import ItemsDiffer, Outcomes, holm, paired_test, verdict

    rows = []
    keyed = outcomes[outcomes["metric"] != "overgeneralisation"]
    for (metric, data_type, condition), frame in keyed.groupby(["metric", "data_type", "condition"], sort=False):
        # systematicity's rows are per condition; substitutivity's have none
        measurement = "systematicity" if condition else "substitutivity"
        measure = MEASURES[(measurement, metric)]
        present = [group for group in groups if not group_outcomes(frame, group, "training seed").empty]
        for index, (a, b) in enumerate(combinations(present, 2)):
            if pairs is not None and (a, b) not in pairs:
                continue
            row = {"measure": measure, "data_type": data_type, "condition": condition, "a": a, "b": b}
            try:
                result = paired_test(
                    Outcomes.from_frame(group_outcomes(frame, a, "training seed")),
                    Outcomes.from_frame(group_outcomes(frame, b, "training seed")),
                    resamples=resamples,
                    seed=index,
                )
            except ItemsDiffer as error:
                rows.append({**row, "test": f"not compared: {error}"})
                continue
            rows.append(
                {
                    **row,
                    "value_a": result.value_a,
                    "value_b": result.value_b,
                    "difference": result.difference,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "items": result.items,
                    "test": result.test,
                    "p_value": result.p_value,
                }
            )
    table = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    if table.empty:
        return table
    table["p_holm"] = holm(table["p_value"].astype(float).to_numpy())
    table["verdict"] = [
        verdict(row.difference, row.p_holm, "higher is more compositional", row.a, row.b)
        if not np.isnan(row.p_holm)
        else ""
        for row in table.itertuples(index=False)
    ]
    table["items"] = table["items"].astype("Int64")
    return table


#: the heading of the comparison tables' HTML renderings: of the corpus sizes, of the pretrained systems
TITLE = "Paired comparisons of the corpus sizes: B - A in points of consistency, 95% interval, Holm-corrected p-value"
SYSTEMS_TITLE = (
    "Paired comparisons of each pretrained system with the corpus sizes and the other systems: B - A in points of "
    "consistency, 95% interval, Holm-corrected p-value"
)


#: the columns of the BLEU comparison table
BLEU_COMPARISON_COLUMNS = (
    "split",
    "a",
    "b",
    "models",
    "bleu_a",
    "bleu_b",
    "difference",
    "ci_low",
    "ci_high",
    "sentences",
    "test",
    "p_value",
    "p_holm",
    "verdict",
)
#: the heading of the BLEU comparison's HTML rendering
BLEU_TITLE = (
    "Paired BLEU comparisons of the corpus sizes and systems on FLORES-101 (sacrebleu's paired bootstrap): B - A, "
    "95% interval, Holm-corrected p-value"
)


def bleu_comparison(
    translations: dict[str, Sequence[str]],
    flores: dict[str, tuple[str, str]],
    target_lang: str,
    *,
    resamples: int = 1000,
) -> pd.DataFrame:
    """Every pair (A, B) of model groups (``translations``: group -> its models' translation
    files, a size's one per seed, a system's one) per FLORES split (``flores``: split ->
    (sources, references)): sacrebleu's paired bootstrap of B's corpus BLEU against A's
    (:func:`natcomp.paired.bleu_test`, the tokeniser of natcomp.mt.bleu). A size's seeds are
    its translations one after the other, against the references repeated: the BLEU of its
    seeds pooled, and a pair's resamples draw the same sentence of the same seed from both
    (seed k of one size beside seed k of the other); groups of unequal numbers of models are
    not compared. Holm's correction over the table (:data:`BLEU_COMPARISON_COLUMNS`)."""
    from natcomp.files import read_lines
    from natcomp.mt.bleu import sacrebleu_tokenize
    from natcomp.mt.scoring import read_translations
    from natcomp.paired import bleu_test, holm, verdict

    rows = []
    for split, (sources_path, references_path) in flores.items():
        sources, references = read_lines(sources_path), read_lines(references_path)
        hypotheses = {}
        for group, paths in translations.items():
            per_model = [read_translations(path, sources) for path in paths]
            hypotheses[group] = [translated[source] for translated in per_model for source in sources]
        for a, b in combinations(translations, 2):
            row = {"split": split, "a": a, "b": b, "models": f"{len(translations[a])}, {len(translations[b])}"}
            if len(translations[a]) != len(translations[b]):
                rows.append({**row, "test": "not compared: BLEU pairs groups of as many models (seeds)"})
                continue
            result = bleu_test(
                hypotheses[a],
                hypotheses[b],
                list(references) * len(translations[a]),
                tokenize=sacrebleu_tokenize(target_lang),
                target_lang=target_lang,
                resamples=resamples,
            )
            rows.append(
                {
                    **row,
                    "bleu_a": result.value_a,
                    "bleu_b": result.value_b,
                    "difference": result.difference,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "sentences": result.items,
                    "test": result.test,
                    "p_value": result.p_value,
                }
            )
    table = pd.DataFrame(rows, columns=list(BLEU_COMPARISON_COLUMNS))
    if table.empty:
        return table
    table["p_holm"] = holm(table["p_value"].astype(float).to_numpy())
    table["verdict"] = [
        verdict(row.difference, row.p_holm, "higher is better", row.a, row.b) if not np.isnan(row.p_holm) else ""
        for row in table.itertuples(index=False)
    ]
    table["sentences"] = table["sentences"].astype("Int64")
    return table
