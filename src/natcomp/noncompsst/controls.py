"""Control subphrases (appendix A): replacements with the same sentiment and phrase type.

The subphrases of all candidates form the pool. Each is put in a group by its phrase type
(NP, VP, PP, SBAR...) and its SST sentiment on an 11-point scale (``round(10 v)``, 0-10).
Appendix A: "for each phrase - consisting of subphrases A and B - we randomly select 32
candidate control subphrases ... and manually narrow those 32 down to 8 (4 for A, 4 for
B)": so by default (``per_phrase``) ``n_candidates`` (32) are drawn per phrase, split
evenly between the sides (16 for A, 16 for B; an odd number gives A the extra one);
``per_phrase=False`` draws ``n_candidates`` per side (the other reading, 64 per phrase).
Each side's candidates are drawn at random (seeded) from the subphrase's group, filled up
from the nearest sentiment groups of the same type when the group is smaller. The automatic narrowing keeps ``per_side`` (4) of them: only
from the same group, closest in length (tokens) first, never the subphrase itself or the
other subphrase, and no control twice within a phrase. A phrase with fewer than
``per_side`` suitable controls on a side is dropped.

Everything drawn is written to a sheet (``controls_sheet.tsv``) with the automatic choice
marked in ``chosen``; a person can edit it (change ``chosen``, touch up a control's text
for agreement, drop a phrase by choosing nothing on a side) and give it back in config,
which then overrides the automatic choice (:func:`phrases_from_sheet`).
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.noncompsst.stimuli import Phrase, clean_form
from natcomp.tsv import iter_tsv, write_tsv

__all__ = ["SHEET_COLUMNS", "phrases_from_sheet", "select_controls", "sentiment_group", "write_sheet"]

SHEET_COLUMNS = [
    "phrase",
    "left",
    "right",
    "side",
    "subphrase",
    "group",
    "candidate",
    "candidate_group",
    "length_difference",
    "chosen",
]

log = logging.getLogger("natcomp.noncompsst.controls")


def sentiment_group(value: float) -> int:
    """The 11-point scale of appendix A: ``round(10 v)`` for an SST value ``v`` in [0, 1]."""
    return int(round(10 * value))


def select_controls(
    candidates: pd.DataFrame,
    values: Callable[[Sequence[str]], float | None],
    *,
    n_candidates: int = 32,
    per_phrase: bool = True,
    per_side: int = 4,
    max_phrases: int | None = None,
    seed: int = 1,
    logger: logging.Logger = log,
) -> tuple[list[Phrase], pd.DataFrame]:
    """Controls for every candidate; returns the phrases with their automatic choice and the sheet.

    ``values`` maps SST tokens to the SST value of that phrase (the subphrases are SST
    nodes, so they all have one; a subphrase without one is left out of the pool).
    ``n_candidates`` is per phrase (split between the sides) with ``per_phrase``, else per side.
    """
    if per_phrase:
        draws = {"left": n_candidates - n_candidates // 2, "right": n_candidates // 2}
    else:
        draws = {"left": n_candidates, "right": n_candidates}
    rng = random.Random(seed)
    pool: dict[tuple[str, int], list[str]] = defaultdict(list)
    info: dict[str, tuple[str, int, int]] = {}  # clean text -> (type, group, length)
    for row in candidates.itertuples(index=False):
        for tokens_text, kind in ((row.left, row.left_type), (row.right, row.right_type)):
            tokens = tokens_text.split(" ")
            clean = clean_form(tokens)
            if clean in info:
                continue
            value = values(tokens)
            if value is None:
                continue
            group = sentiment_group(value)
            info[clean] = (kind, group, len(tokens))
            pool[(kind, group)].append(clean)
    phrases: list[Phrase] = []
    sheet: list[dict[str, object]] = []
    dropped = 0
    for row in candidates.itertuples(index=False):
        left_clean, right_clean = clean_form(row.left.split(" ")), clean_form(row.right.split(" "))
        if left_clean not in info or right_clean not in info:
            dropped += 1
            continue
        natural = f"{left_clean} {right_clean}"
        used = {left_clean, right_clean}
        chosen_per_side = {}
        rows_per_side = {}
        for side, own in (("left", left_clean), ("right", right_clean)):
            kind, group, length = info[own]
            drawn = _draw(pool, kind, group, draws[side], exclude={left_clean, right_clean}, rng=rng)
            ranked = sorted(
                (c for c in drawn if info[c][1] == group),
                key=lambda c: abs(info[c][2] - length),
            )
            chosen = []
            for control in ranked:
                if control not in used and len(chosen) < per_side:
                    chosen.append(control)
                    used.add(control)
            chosen_per_side[side] = tuple(chosen)
            rows_per_side[side] = [
                {
                    "phrase": natural,
                    "left": row.left,
                    "right": row.right,
                    "side": side,
                    "subphrase": own,
                    "group": f"{kind}:{group}",
                    "candidate": control,
                    "candidate_group": f"{info[control][0]}:{info[control][1]}",
                    "length_difference": info[control][2] - length,
                    "chosen": int(control in chosen),
                }
                for control in drawn
            ]
        for side in ("left", "right"):
            sheet.extend(rows_per_side[side])
        if all(len(c) == per_side for c in chosen_per_side.values()):
            phrases.append(
                Phrase(row.left, left_clean, row.right, right_clean, chosen_per_side["left"], chosen_per_side["right"])
            )
        else:
            dropped += 1
    logger.info(
        "controls: %s candidates drawn per side (%s); %d phrases with %d controls per side; "
        "%d dropped (too few controls in their group)",
        draws["left"] if draws["left"] == draws["right"] else f"{draws['left']}/{draws['right']}",
        f"{n_candidates} per phrase" if per_phrase else "per side",
        len(phrases),
        per_side,
        dropped,
    )
    if max_phrases is not None and len(phrases) > max_phrases:
        keep = set(rng.sample(range(len(phrases)), max_phrases))
        phrases = [p for i, p in enumerate(phrases) if i in keep]
        logger.info("controls: kept a seeded random %d phrases (max_phrases)", max_phrases)
    kept = {p.natural for p in phrases}
    for entry in sheet:
        if entry["phrase"] not in kept:
            entry["chosen"] = 0
    return phrases, pd.DataFrame(sheet, columns=SHEET_COLUMNS)


def _draw(pool, kind: str, group: int, n: int, *, exclude: set[str], rng: random.Random) -> list[str]:
    """``n`` controls: the subphrase's own group first, then the nearest sentiment groups of its type."""
    out: list[str] = []
    for distance in range(0, 11):
        if len(out) >= n:
            break
        for g in sorted({group - distance, group + distance}):
            members = [c for c in pool.get((kind, g), ()) if c not in exclude and c not in out]
            take = min(n - len(out), len(members))
            out.extend(rng.sample(members, take))
    return out


def write_sheet(path: str | Path, sheet: pd.DataFrame) -> int:
    return write_tsv(path, sheet, SHEET_COLUMNS)


def phrases_from_sheet(path: str | Path, per_side: int = 4, logger: logging.Logger = log) -> list[Phrase]:
    """Phrases from a hand-edited sheet: the rows with ``chosen`` 1 give the controls.

    A phrase with no chosen control on a side is dropped (a person removed it); any other
    number than ``per_side`` is an error naming the phrase's first line.
    """
    order: list[str] = []
    first_line: dict[str, int] = {}
    subphrases: dict[str, tuple[str, str]] = {}
    chosen: dict[tuple[str, str], list[str]] = defaultdict(list)
    for number, row in iter_tsv(path, ("phrase", "left", "right", "side", "candidate", "chosen")):
        phrase = row["phrase"]
        if phrase not in first_line:
            first_line[phrase] = number
            order.append(phrase)
            subphrases[phrase] = (row["left"], row["right"])
        if row["side"] not in ("left", "right"):
            raise InputError(path, f"side is left or right, got {row['side']!r}", number)
        if row["chosen"].strip() not in ("0", "1", ""):
            raise InputError(path, f"chosen is 1 (use this control) or 0, got {row['chosen']!r}", number)
        if row["chosen"].strip() == "1":
            chosen[(phrase, row["side"])].append(row["candidate"].strip())
    phrases = []
    for phrase in order:
        left, right = chosen.get((phrase, "left"), []), chosen.get((phrase, "right"), [])
        if not left or not right:
            continue
        if len(left) != per_side or len(right) != per_side:
            raise InputError(
                path,
                f"phrase {phrase!r}: {len(left)} left and {len(right)} right controls chosen; expected {per_side} on each side "
                "(or none on a side to drop the phrase)",
                first_line[phrase],
            )
        tokens_left, tokens_right = subphrases[phrase]
        phrases.append(
            Phrase(
                tokens_left,
                clean_form(tokens_left.split(" ")),
                tokens_right,
                clean_form(tokens_right.split(" ")),
                tuple(left),
                tuple(right),
                first_line[phrase],
            )
        )
    logger.info("controls sheet %s: %d phrases", path, len(phrases))
    return phrases
