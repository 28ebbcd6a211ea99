"""Exclusion, agreement and aggregation of study responses (section 3.2, appendix B).

* Exclusion: a participant is excluded when their practice answers are on average more
  than ``max_mean_error`` (1) points from the correct SST-7 labels, or when Spearman's rho
  between their practice answers and the labels is below ``min_spearman`` (0.8); a rho
  that is undefined (constant answers) excludes too.
* Agreement: Krippendorff's alpha for ordinal data (the ``krippendorff`` package) over the
  kept participants' answers to the study items (practice items left out).
* Study 1 filter: a phrase is kept when each side has at least ``min_within`` controls
  whose mean rating is within ``max_distance`` points of the mean rating of the subphrase
  they replace; Study 2 uses the ``keep`` closest of those per side.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import krippendorff
import pandas as pd

from natcomp.noncompsst.practice import practice_check
from natcomp.noncompsst.stimuli import Phrase
from natcomp.noncompsst.studies import Study

__all__ = [
    "EXCLUSION_COLUMNS",
    "exclude_participants",
    "item_means",
    "practice_check",
    "ordinal_alpha",
    "study1_filter",
    "stimulus_sentiment",
]

EXCLUSION_COLUMNS = ["participant", "list", "practice_mean_error", "practice_spearman", "excluded", "reason"]
log = logging.getLogger("natcomp.noncompsst.annotation")


def exclude_participants(
    responses: pd.DataFrame, study: Study, *, max_mean_error: float = 1.0, min_spearman: float = 0.8
) -> pd.DataFrame:
    """One row per participant with the practice check and whether they are excluded."""
    labels = {item: label for item, (_, label) in study.practice.items()}
    rows = []
    for participant, answers in responses.groupby("participant", sort=False):
        practice = answers[answers["item"].isin(labels)]
        error, rho, reasons = practice_check(
            practice["rating"].tolist(),
            practice["item"].map(labels).tolist(),
            max_mean_error=max_mean_error,
            min_spearman=min_spearman,
        )
        rows.append(
            {
                "participant": participant,
                "list": int(answers["list"].iloc[0]),
                "practice_mean_error": error,
                "practice_spearman": rho,
                "excluded": bool(reasons),
                "reason": "; ".join(reasons),
            }
        )
    return pd.DataFrame(rows, columns=EXCLUSION_COLUMNS)


def _kept(responses: pd.DataFrame, exclusion: pd.DataFrame, study: Study) -> pd.DataFrame:
    excluded = set(exclusion.loc[exclusion["excluded"], "participant"])
    return responses[~responses["participant"].isin(excluded) & ~responses["item"].isin(study.practice)]


def ordinal_alpha(responses: pd.DataFrame, exclusion: pd.DataFrame, study: Study) -> float:
    """Krippendorff's alpha (ordinal, values 0-6) of the kept participants' answers."""
    kept = _kept(responses, exclusion, study)
    matrix = kept.pivot_table(index="participant", columns="item", values="rating", aggfunc="first")
    data = matrix.to_numpy(dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=list(range(7))))


def item_means(responses: pd.DataFrame, exclusion: pd.DataFrame, study: Study) -> pd.DataFrame:
    """Per item: ``item, text, mean, sd, annotations, ungrammatical`` (flags by kept participants)."""
    kept = _kept(responses, exclusion, study)
    grouped = kept.groupby("item", sort=True).agg(
        mean=("rating", "mean"),
        sd=("rating", "std"),  # sample sd (n - 1); NaN for a single annotation
        annotations=("rating", "size"),
        ungrammatical=("ungrammatical", "sum"),
    )
    grouped = grouped.reset_index()
    grouped.insert(1, "text", grouped["item"].map(lambda item: study.items[item][0]))
    missing = sorted(set(study.items) - set(grouped["item"]))
    if missing:
        log.warning(
            "%s: %d items have no answer from a kept participant (e.g. %s)", study.name, len(missing), missing[0]
        )
    return grouped


def stimulus_sentiment(means: pd.DataFrame) -> tuple[dict[str, float], set[str]]:
    """{stimulus text: mean rating} and the stimuli flagged ungrammatical by at least one kept annotator."""
    sentiment = dict(zip(means["text"], means["mean"].astype(float)))
    flagged = set(means.loc[means["ungrammatical"] > 0, "text"])
    return sentiment, flagged


def study1_filter(
    phrases: Sequence[Phrase],
    means: Mapping[str, float],
    *,
    max_distance: float = 1.0,
    min_within: int = 4,
    keep: int = 3,
    logger: logging.Logger = log,
) -> list[Phrase]:
    """Phrases kept after Study 1, each with its ``keep`` closest controls per side."""
    kept = []
    for phrase in phrases:
        sides = {}
        for side, own, controls in (
            ("left", phrase.left_clean, phrase.left_controls),
            ("right", phrase.right_clean, phrase.right_controls),
        ):
            if own not in means:
                sides = None
                break
            near = [c for c in controls if c in means and abs(means[c] - means[own]) <= max_distance]
            if len(near) < min_within:
                sides = None
                break
            sides[side] = tuple(sorted(near, key=lambda c: abs(means[c] - means[own]))[:keep])
        if sides is not None:
            kept.append(
                Phrase(
                    phrase.left,
                    phrase.left_clean,
                    phrase.right,
                    phrase.right_clean,
                    sides["left"],
                    sides["right"],
                    phrase.line,
                )
            )
    logger.info(
        "Study 1 filter: %d of %d phrases have at least %d controls within %g points per side",
        len(kept),
        len(phrases),
        min_within,
        max_distance,
    )
    return kept
