"""Non-compositionality ratings ALL, ALLABS, MAX, MAXABS, ALLCLEAN (section 3.3).

For a phrase ``A B`` with mean sentiment ``s(A B)`` and controls ``A'_n B``, ``A B'_n``:

* left rating  ``d_A = s(A B) - mean_n s(A'_n B)``, right rating ``d_B = s(A B) - mean_n s(A B'_n)``;
* ALL: ``d_A`` and ``d_B`` (sides ``left``, ``right``); ALLABS: their absolute values;
* MAX: the one of ``d_A``, ``d_B`` with the larger absolute value, sign kept; on a tie of
  absolute values (``d_A = -d_B``) the right side's ``d_B``, as the released
  ``create_ranking.py`` (``diff1 if abs(diff1) > abs(diff2) else diff2``); MAXABS: ``max(|d_A|, |d_B|)`` (side ``max``);
* ALLCLEAN: ALL after dropping every stimulus flagged ungrammatical: a side's mean is
  over its remaining controls; a phrase whose natural stimulus is flagged, or with a side
  left without controls, is dropped (as the released code does).

The same function computes human ratings (mean study ratings) and model ratings (mean
predicted class over seeds).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.noncompsst.stimuli import Phrase, decode_utf7
from natcomp.tsv import iter_tsv, read_header, write_tsv

__all__ = [
    "RATING_COLUMNS",
    "VARIANTS",
    "compute_ratings",
    "read_human_sentiment",
    "read_ratings",
    "read_sentiment",
    "read_ungrammatical",
    "write_ratings",
]

VARIANTS = ("ALL", "ALLABS", "MAX", "MAXABS", "ALLCLEAN")
RATING_COLUMNS = ["phrase", "variant", "side", "rating"]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def compute_ratings(
    phrases: Sequence[Phrase],
    sentiment: Mapping[str, float],
    ungrammatical: Iterable[str] = (),
    *,
    variants: Sequence[str] = VARIANTS,
    sentiment_source: str | Path = "sentiment",
    stimuli_source: str | Path = "stimuli",
) -> pd.DataFrame:
    """Ratings table (``phrase, variant, side, rating``) of every phrase.

    ``sentiment`` maps each stimulus (clean form) to its mean rating. A stimulus without a
    sentiment raises :class:`InputError` naming ``sentiment_source`` and the stimuli line.
    """
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown rating variant(s) {unknown}; expected some of {VARIANTS}")
    flagged = set(ungrammatical)
    rows: list[dict[str, object]] = []
    for phrase in phrases:
        for stimulus in phrase.stimuli():
            if stimulus not in sentiment:
                where = f" (the phrase of {stimuli_source}, line {phrase.line})" if phrase.line else ""
                raise InputError(sentiment_source, f"no sentiment for the stimulus {stimulus!r}{where}")
        natural = sentiment[phrase.natural]
        diffs = {
            side: natural - _mean([sentiment[s] for s in phrase.control_stimuli(side)]) for side in ("left", "right")
        }
        if "ALL" in variants:
            rows += [
                {"phrase": phrase.natural, "variant": "ALL", "side": side, "rating": d} for side, d in diffs.items()
            ]
        if "ALLABS" in variants:
            rows += [
                {"phrase": phrase.natural, "variant": "ALLABS", "side": side, "rating": abs(d)}
                for side, d in diffs.items()
            ]
        if "MAX" in variants:
            # strict >: a tie of |d_A| and |d_B| takes the right side, as the released code
            best = diffs["left"] if abs(diffs["left"]) > abs(diffs["right"]) else diffs["right"]
            rows.append({"phrase": phrase.natural, "variant": "MAX", "side": "max", "rating": best})
        if "MAXABS" in variants:
            rows.append(
                {"phrase": phrase.natural, "variant": "MAXABS", "side": "max", "rating": max(map(abs, diffs.values()))}
            )
        if "ALLCLEAN" in variants and phrase.natural not in flagged:
            clean = {}
            for side in ("left", "right"):
                kept = [sentiment[s] for s in phrase.control_stimuli(side) if s not in flagged]
                if kept:
                    clean[side] = natural - _mean(kept)
            if len(clean) == 2:
                rows += [
                    {"phrase": phrase.natural, "variant": "ALLCLEAN", "side": side, "rating": d}
                    for side, d in clean.items()
                ]
    table = pd.DataFrame(rows, columns=RATING_COLUMNS)
    order = {v: i for i, v in enumerate(VARIANTS)}
    return table.sort_values("variant", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)


def read_sentiment(path: str | Path, *, low: float = 0.0, high: float = 6.0) -> dict[str, float]:
    """A ``stimulus<TAB>sentiment`` file (header line) as {stimulus: mean rating}; values in [low, high]."""
    out: dict[str, float] = {}
    for number, row in iter_tsv(path, ("stimulus", "sentiment")):
        stimulus = decode_utf7(row["stimulus"]).strip()
        try:
            value = float(row["sentiment"])
        except ValueError:
            value = math.nan
        if not low <= value <= high:
            raise InputError(path, f"expected a sentiment in {low:g}-{high:g}, got {row['sentiment']!r}", number)
        if stimulus in out:
            raise InputError(path, f"the stimulus {stimulus!r} appears twice", number)
        out[stimulus] = value
    return out


def read_ungrammatical(path: str | Path) -> set[str]:
    """Stimuli flagged ungrammatical: a ``stimulus<TAB>ungrammatical`` file with 0/1 (or True/False)."""
    flagged = set()
    truth = {"1": True, "true": True, "0": False, "false": False}
    for number, row in iter_tsv(path, ("stimulus", "ungrammatical")):
        value = truth.get(row["ungrammatical"].strip().lower())
        if value is None:
            raise InputError(path, f"expected ungrammatical 0 or 1, got {row['ungrammatical']!r}", number)
        if value:
            flagged.add(decode_utf7(row["stimulus"]).strip())
    return flagged


def write_ratings(path: str | Path, ratings: pd.DataFrame) -> int:
    return write_tsv(path, ratings, RATING_COLUMNS, float_format="%.6g")


def read_ratings(path: str | Path) -> pd.DataFrame:
    """A ratings table: the layout :func:`write_ratings` writes, or the released ``maxabs_ranking.tsv``
    (``phrase, maxabs_rating, sentiment``; read as variant MAXABS, side ``max``).
    """
    rows = []
    header = None
    for number, raw in iter_tsv(path):
        row = {decode_utf7(k): decode_utf7(v).strip() for k, v in raw.items()}
        header = header or set(row)
        if {"phrase", "maxabs_rating"} <= set(row):
            variant, side, value = "MAXABS", "max", row["maxabs_rating"]
        elif set(RATING_COLUMNS) <= set(row):
            variant, side, value = row["variant"], row["side"], row["rating"]
            if variant not in VARIANTS or side not in ("left", "right", "max"):
                raise InputError(path, f"unknown variant/side {variant!r}/{side!r}", number)
        else:
            raise InputError(path, f"expected the columns {', '.join(RATING_COLUMNS)} or phrase, maxabs_rating", number)
        try:
            rating = float(value)
        except ValueError:
            raise InputError(path, f"expected a number as rating, got {value!r}", number) from None
        rows.append({"phrase": row["phrase"], "variant": variant, "side": side, "rating": rating})
    return pd.DataFrame(rows, columns=RATING_COLUMNS)


def released_sentiment(path: str | Path) -> dict[str, float]:
    """The human sentiment (0-6) per natural phrase from the released ``maxabs_ranking.tsv``."""
    out = {}
    for number, raw in iter_tsv(path):
        row = {decode_utf7(k): decode_utf7(v).strip() for k, v in raw.items()}
        if "sentiment" not in row or "phrase" not in row:
            return {}
        try:
            out[row["phrase"]] = float(row["sentiment"])
        except ValueError:
            raise InputError(path, f"expected a number as sentiment, got {row['sentiment']!r}", number) from None
    return out


def read_human_sentiment(path: str | Path) -> dict[str, float]:
    """Human sentiment (0-6) per stimulus: a ``stimulus<TAB>sentiment`` file (Study 2 means,
    :func:`read_sentiment`) or the released ``maxabs_ranking.tsv`` (``phrase, ..., sentiment``:
    the natural phrases only, :func:`released_sentiment`), told apart by the header."""
    header = {decode_utf7(name) for name in read_header(path)}
    if "stimulus" in header:
        return read_sentiment(path)
    if {"phrase", "sentiment"} <= header:
        return released_sentiment(path)
    raise InputError(
        path, "expected the columns stimulus, sentiment or the released phrase, maxabs_rating, sentiment", 1
    )
