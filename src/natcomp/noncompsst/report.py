"""Tables and figures of the family: Table 2 (models x variants), Table 1/3 (top phrases),
Figure 3a (MAXABS per sentiment composition type).

Figures 6 and 7 analogues (:func:`factor_figure`): MAXABS (per phrase) and ABS (ALLABS, per
side) by the length combination of A and B (tokens, punctuation included: ``"3+5"``) and by
their syntactic categories (``"NP+VP"``, from the candidate step's parse; skipped with a note
in the figure where no types were recorded). Figure 5 analogue (:func:`stimulus_figure`): the
mean and standard deviation of every stimulus' ratings in a study.

Composition type of a phrase ``A B``: the polarity of A and of B on the 0-6 scale, ``-``
below ``3 - neutral_band``, ``+`` above ``3 + neutral_band``, ``~`` otherwise (band 0.5),
written ``"- +"``. The subphrase sentiment is their Study 1 mean rating; where no Study 1
was run (the released resource), their SST value times 6.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.figures import save_png
from natcomp.noncompsst.stimuli import Phrase

__all__ = [
    "MODEL_COLUMNS",
    "TOP_COLUMNS",
    "category_combination",
    "composition_type",
    "factor_figure",
    "length_combination",
    "maxabs_figure",
    "models_table",
    "stimulus_figure",
    "top_phrases",
]

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
    "f1_all_chance",
]


#: counts the profile needs to judge a row: the seeds whose predictions were averaged, and
#: the rated phrases r with MAXABS is over (its Fisher-z interval and p-value follow from r and it)
COUNT_COLUMNS = ["seeds", "n_MAXABS"]


def models_table(rows: Sequence[Mapping[str, object]], top_k: int) -> pd.DataFrame:
    """Table 2's layout: one row per model; SST-7 F1 (mean, sd over seeds), Pearson r per
    variant, F1 on all and top-k phrases (mean and sd over seeds; sd empty with
    ``f1_seeds: seed_mean``) and each F1's chance baseline (best constant class), then the number
    of seeds and of phrases r with MAXABS is over."""
    columns = MODEL_COLUMNS + [f"f1_top{top_k}", f"f1_top{top_k}_sd", f"f1_top{top_k}_chance", *COUNT_COLUMNS]
    table = pd.DataFrame(list(rows))
    for column in columns:
        if column not in table:
            table[column] = float("nan")
    for column in COUNT_COLUMNS:
        table[column] = pd.to_numeric(table[column], errors="coerce").round().astype("Int64")
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
    axes.set_ylabel("MAXABS rating (0-6)")
    save_png(
        figure,
        path,
        title=f"NonCompSST Figure 3a: MAXABS rating of the {len(data)} phrases by the sentiment of A and B",
    )
    return data


def length_combination(phrase: Phrase) -> str:
    """``"<tokens of A>+<tokens of B>"`` (SST tokens)."""
    return f"{len(phrase.left.split())}+{len(phrase.right.split())}"


def category_combination(phrases: Sequence[Phrase], candidates: pd.DataFrame) -> dict[str, str]:
    """{natural phrase: ``"<type of A>+<type of B>"``} from the candidates table; phrases
    whose subphrase types were not recorded (no parser) are left out."""
    types = {}
    for row in candidates.itertuples(index=False):
        left_type, right_type = str(row.left_type or ""), str(row.right_type or "")
        if left_type and right_type and left_type != "nan" and right_type != "nan":
            types[(row.left.lower(), row.right.lower())] = f"{left_type}+{right_type}"
    out = {}
    for p in phrases:
        found = types.get((p.left.lower(), p.right.lower()))
        if found:
            out[p.natural] = found
    return out


def factor_figure(
    ratings: pd.DataFrame, factor: Mapping[str, str], path: str | Path, *, label: str, note: str = "", title: str = ""
) -> pd.DataFrame:
    """MAXABS and ABS (ALLABS, both sides) per value of ``factor`` ({phrase: value}), two box
    plots side by side (PNG); an empty ``factor`` or ratings without those variants give a
    figure that says so (``note``). Returns the plotted rows (``phrase, variant, factor, rating``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    rows = [
        {
            "phrase": r.phrase,
            "variant": "ABS" if r.variant == "ALLABS" else r.variant,
            "factor": factor[r.phrase],
            "rating": float(r.rating),
        }
        for r in ratings.itertuples(index=False)
        if r.variant in ("MAXABS", "ALLABS") and r.phrase in factor
    ]
    data = pd.DataFrame(rows, columns=["phrase", "variant", "factor", "rating"])
    variants = [v for v in ("MAXABS", "ABS") if v in set(data["variant"])]
    figure, axes = plt.subplots(1, max(len(variants), 1), figsize=(5 * max(len(variants), 1), 3.5), squeeze=False)
    if not variants:
        axes[0][0].axis("off")
        axes[0][0].text(0.5, 0.5, note or "nothing to show", ha="center", va="center", wrap=True)
    for ax, variant in zip(axes[0], variants):
        part = data[data["variant"] == variant]
        order = sorted(set(part["factor"]), key=lambda v: [int(x) if x.isdigit() else x for x in v.split("+")])
        counts = part.drop_duplicates("phrase")["factor"].value_counts()
        sns.boxplot(data=part, x="factor", y="rating", order=order, ax=ax, color="#9ecae1")
        ax.set_xticks(range(len(order)), [f"{o}\n({counts[o]})" for o in order], rotation=90, fontsize=7)
        ax.set_xlabel(f"{label} of A + B (phrases)")
        ax.set_ylabel(f"{variant} rating (0-6)")
    save_png(figure, path, title=title or f"NonCompSST Figures 6 (MAXABS) and 7 (ABS): ratings by the {label} of A + B")
    return data


def stimulus_figure(means: Mapping[str, pd.DataFrame], path: str | Path) -> pd.DataFrame:
    """Figure 5 analogue: per study, each stimulus' mean rating against the standard
    deviation of its ratings (kept participants), and the distribution of the means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frames = [table.assign(study=study) for study, table in means.items()]
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["study", "mean", "sd"])
    figure, axes = plt.subplots(2, max(len(means), 1), figsize=(4.5 * max(len(means), 1), 6), squeeze=False)
    for column, (study, table) in enumerate(means.items()):
        axes[0][column].scatter(table["mean"], table["sd"], s=6, alpha=0.5)
        axes[0][column].set_title(f"{study} ({len(table)} stimuli)")
        axes[0][column].set_xlabel("mean rating (0-6)")
        axes[0][column].set_ylabel("sd of the ratings")
        axes[1][column].hist(table["mean"], bins=[x / 3 - 1 / 6 for x in range(20)], color="#9ecae1")
        axes[1][column].set_xlabel("mean rating (0-6)")
        axes[1][column].set_ylabel("stimuli")
    save_png(
        figure,
        path,
        title="NonCompSST Figure 5: per study, each stimulus' mean rating against the sd of its ratings "
        "(top) and the distribution of the means (bottom)",
    )
    return data
