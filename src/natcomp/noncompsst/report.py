"""Tables and figures of the family: Table 2 (models x variants), Table 1/3 (top phrases),
Figure 3a (MAXABS per sentiment composition type).

Composition type of a phrase ``A B``: the polarity of A and of B on the 0-6 scale, ``-``
below ``3 - neutral_band``, ``+`` above ``3 + neutral_band``, ``~`` otherwise (band 0.5),
written ``"- +"``. The subphrase sentiment is their Study 1 mean rating; where no Study 1
was run (the released resource), their SST value times 6.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.files import atomic_path
from natcomp.noncompsst.stimuli import Phrase

__all__ = ["MODEL_COLUMNS", "TOP_COLUMNS", "composition_type", "maxabs_figure", "models_table", "top_phrases"]

MODEL_COLUMNS = [
    "model",
    "sst7_f1",
    "sst7_f1_sd",
    "r_MAX",
    "r_MAXABS",
    "r_ALL",
    "r_ALLABS",
    "r_ALLCLEAN",
    "f1_all",
    "f1_all_sd",
]


def models_table(rows: Sequence[Mapping[str, object]], top_k: int) -> pd.DataFrame:
    """Table 2's layout: one row per model; SST-7 F1 (mean, sd over seeds), Pearson r per
    variant, F1 on all and top-k phrases (mean and sd over seeds; sd empty with
    ``f1_seeds: seed_mean``)."""
    columns = MODEL_COLUMNS + [f"f1_top{top_k}", f"f1_top{top_k}_sd"]
    table = pd.DataFrame(list(rows))
    for column in columns:
        if column not in table:
            table[column] = float("nan")
    return table[columns]


def composition_type(left: float, right: float, neutral_band: float = 0.5) -> str:
    def sign(value: float) -> str:
        return "-" if value < 3 - neutral_band else "+" if value > 3 + neutral_band else "~"

    return f"{sign(left)} {sign(right)}"


TOP_COLUMNS = ["subphrase_a", "subphrase_b", "max_rating", "human_sentiment", "model", "model_sentiment"]


def top_phrases(
    phrases: Sequence[Phrase],
    ratings: pd.DataFrame,
    human_sentiment: Mapping[str, float],
    model_sentiment: Mapping[str, float] | None = None,
    *,
    n: int = 60,
    min_abs: float = 0.0,
    model: str = "",
) -> pd.DataFrame:
    """The phrases with the highest MAXABS (Table 1/3): A, B, the MAX rating (signed), human
    and model sentiment, and the model's name (the paper's column is ROBERTA-LARGE).

    Where the ratings have no MAX (the released resource has only MAXABS) the rating column
    is ``maxabs_rating`` and holds MAXABS, rather than MAXABS under the name ``max_rating``.
    """
    by_phrase = {p.natural: p for p in phrases}
    has_max = bool((ratings["variant"] == "MAX").any())
    maxima = ratings[ratings["variant"] == "MAX"].set_index("phrase")["rating"]
    ranked = ratings[ratings["variant"] == "MAXABS"].sort_values("rating", ascending=False, kind="stable")
    rating_column = "max_rating" if has_max else "maxabs_rating"
    rows = []
    for phrase, value in zip(ranked["phrase"], ranked["rating"]):
        if len(rows) >= n or value < min_abs:
            break
        p = by_phrase.get(phrase)
        rows.append(
            {
                "subphrase_a": p.left_clean if p else "",
                "subphrase_b": p.right_clean if p else phrase,
                rating_column: maxima[phrase] if has_max else value,
                "human_sentiment": human_sentiment.get(phrase, float("nan")),
                "model": model,
                "model_sentiment": (model_sentiment or {}).get(phrase, float("nan")),
            }
        )
    columns = [rating_column if c == "max_rating" else c for c in TOP_COLUMNS]
    return pd.DataFrame(rows, columns=columns)


def maxabs_figure(
    phrases: Sequence[Phrase], ratings: pd.DataFrame, subphrase_sentiment: Mapping[str, float], path: str | Path
) -> pd.DataFrame:
    """Figure 3a: MAXABS per composition type (box plot, PNG); returns the plotted data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    maxabs = ratings[ratings["variant"] == "MAXABS"].set_index("phrase")["rating"]
    rows = []
    for p in phrases:
        if p.natural in maxabs and p.left_clean in subphrase_sentiment and p.right_clean in subphrase_sentiment:
            rows.append(
                {
                    "phrase": p.natural,
                    "composition": composition_type(
                        subphrase_sentiment[p.left_clean], subphrase_sentiment[p.right_clean]
                    ),
                    "MAXABS": float(maxabs[p.natural]),
                }
            )
    data = pd.DataFrame(rows, columns=["phrase", "composition", "MAXABS"])
    order = [f"{a} {b}" for a in "-~+" for b in "-~+"]
    present = [o for o in order if o in set(data["composition"])]
    figure, axes = plt.subplots(figsize=(7, 3.5))
    if present:
        sns.boxplot(data=data, x="composition", y="MAXABS", order=present, ax=axes, color="#9ecae1")
        counts = data["composition"].value_counts()
        axes.set_xticks(range(len(present)), [f"{o}\n(n={counts[o]})" for o in present])
    axes.set_xlabel("sentiment of subphrase A and B (- negative, ~ neutral, + positive)")
    axes.set_ylabel("MAXABS rating")
    figure.tight_layout()
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120)
    plt.close(figure)
    return data
