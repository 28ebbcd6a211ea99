"""The two annotation studies as files a survey tool takes and gives back (section 3.2, appendix B).

* Study 1: every subphrase and control alone; Study 2: each phrase and its six control
  phrases (three per side, after the Study 1 filter).
* Every unique item is annotated ``annotations`` (3) times; items are split into
  participant lists of at most ``max_list_size`` items (94 in Study 1, 61 in Study 2, which
  gives the paper's 93/94 and 60/61) so that no list holds an item twice: the items are
  shuffled (seeded) once, repeated ``annotations`` times, and cut into consecutive lists
  of near-equal size.
* Each list starts with the practice items, whose correct answers are shown after they
  are answered (appendix B): in Study 1 seven SST subphrases (one per SST-7 label); in
  Study 2 the same seven subphrases and then seven subphrase combinations (SST phrases
  ``A B`` whose parts ``A`` and ``B`` are SST phrases too, one per SST-7 label, the two
  parts marked like the stimuli's).

Export (:func:`export_survey`): one CSV per study with the columns
``list, position, item, kind, text, left, right, answer`` (kind ``practice`` or
``stimulus``; in Study 2 ``left``/``right`` are the two parts to colour; ``answer`` is the
correct label of a practice item, shown to the participant after answering, and empty
for stimuli). Responses come back as a CSV
with the columns ``participant, list, item, rating, ungrammatical``: rating an integer
0-6, ungrammatical 0/1 (empty = 0). :func:`read_responses` checks every row against the
lists (unknown list, an item not in the participant's list, a participant on two lists,
a rating outside 0-6, and with a roster a participant not on it) and names the file and
line of the first problem.
"""

from __future__ import annotations

import csv
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.files import atomic_open, open_text
from natcomp.noncompsst.practice import practice_check
from natcomp.noncompsst.stimuli import Phrase
from natcomp.sst import sst7_label

__all__ = [
    "RESPONSE_COLUMNS",
    "SURVEY_COLUMNS",
    "Study",
    "choose_combination_practice",
    "choose_practice_items",
    "export_survey",
    "make_lists",
    "read_responses",
    "read_survey",
    "simulate_responses",
    "study1",
    "study2",
]

SURVEY_COLUMNS = ["list", "position", "item", "kind", "text", "left", "right", "answer"]
RESPONSE_COLUMNS = ["participant", "list", "item", "rating", "ungrammatical"]


@dataclass
class Study:
    """A study: its items ({id: (text, left part, right part)}), practice items and lists."""

    name: str
    items: dict[str, tuple[str, str, str]]
    practice: dict[str, tuple[str, int]]  # id -> (text, correct label 0-6)
    lists: list[list[str]]
    practice_parts: dict[str, tuple[str, str]] = field(default_factory=dict)  # combinations: id -> (A, B)

    def text(self, item: str) -> str:
        return self.practice[item][0] if item in self.practice else self.items[item][0]


def make_lists(items: Sequence[str], max_size: int, *, annotations: int = 3, seed: int = 1) -> list[list[str]]:
    """Participant lists: each item ``annotations`` times, at most ``max_size`` per list, none twice in a list."""
    if not items:
        return []
    total = annotations * len(items)
    count = max(math.ceil(total / max_size), annotations)
    order = list(items)
    random.Random(seed).shuffle(order)
    cycle = order * annotations
    base, extra = divmod(total, count)
    lists, start = [], 0
    for index in range(count):
        size = base + (index < extra)
        lists.append(cycle[start : start + size])
        start += size
    return lists


def choose_practice_items(
    values: Mapping[str, float],
    *,
    exclude: set[str] = frozenset(),
    seed: int = 1,
    min_tokens: int = 2,
    max_tokens: int = 6,
) -> dict[str, tuple[str, int]]:
    """Seven practice items, one per SST-7 label, drawn (seeded) from SST phrases {text: value}."""
    rng = random.Random(seed)
    by_label: dict[int, list[str]] = {label: [] for label in range(7)}
    for text, value in sorted(values.items()):
        if text.lower() in exclude or not min_tokens <= len(text.split()) <= max_tokens:
            continue
        by_label[sst7_label(value)].append(text)
    missing = [label for label, texts in by_label.items() if not texts]
    if missing:
        raise ValueError(
            f"no SST phrase of {min_tokens}-{max_tokens} tokens with the SST-7 label(s) {missing} for practice items"
        )
    return {f"practice-{label + 1}": (rng.choice(by_label[label]), label) for label in range(7)}


def choose_combination_practice(
    values: Mapping[str, float],
    *,
    exclude: set[str] = frozenset(),
    seed: int = 1,
    min_part_tokens: int = 2,
    max_tokens: int = 10,
) -> dict[str, tuple[str, int, str, str]]:
    """Study 2's second practice block: seven subphrase combinations ``A B``, one per SST-7
    label, drawn (seeded) from SST phrases {text: value} whose two parts (at a split where
    both have at least ``min_part_tokens`` tokens) are SST phrases too (SST's dictionary
    holds every tree node, so a node's children are found); {id: (text, label, A, B)}."""
    rng = random.Random(seed)
    by_label: dict[int, list[tuple[str, str, str]]] = {label: [] for label in range(7)}
    for text, value in sorted(values.items()):
        tokens = text.split()
        if text.lower() in exclude or not 2 * min_part_tokens <= len(tokens) <= max_tokens:
            continue
        for cut in range(min_part_tokens, len(tokens) - min_part_tokens + 1):
            left, right = " ".join(tokens[:cut]), " ".join(tokens[cut:])
            if left in values and right in values:
                by_label[sst7_label(value)].append((text, left, right))
                break
    missing = [label for label, found in by_label.items() if not found]
    if missing:
        raise ValueError(f"no SST phrase of two SST subphrases with the SST-7 label(s) {missing} for practice items")
    out = {}
    for label in range(7):
        text, left, right = rng.choice(by_label[label])
        out[f"practice-c{label + 1}"] = (text, label, left, right)
    return out


def study1(
    phrases: Sequence[Phrase],
    practice: dict[str, tuple[str, int]],
    *,
    max_list_size: int = 94,
    annotations: int = 3,
    seed: int = 1,
) -> Study:
    """Study 1: every unique subphrase and control (clean form) alone."""
    texts = list(dict.fromkeys(t for p in phrases for t in p.subphrases()))
    items = {f"s1-{i:05d}": (t, t, "") for i, t in enumerate(texts, start=1)}
    return Study("study1", items, practice, make_lists(list(items), max_list_size, annotations=annotations, seed=seed))


def study2(
    phrases: Sequence[Phrase],
    practice: dict[str, tuple[str, int]],
    *,
    max_list_size: int = 61,
    annotations: int = 3,
    seed: int = 1,
    combination_practice: Mapping[str, tuple[str, int, str, str]] | None = None,
) -> Study:
    """Study 2: each phrase and its control phrases, with the two parts for colouring.

    Practice: the subphrases of ``practice``, then the subphrase combinations of
    ``combination_practice`` (:func:`choose_combination_practice`), as appendix B describes.
    """
    items: dict[str, tuple[str, str, str]] = {}
    seen: set[str] = set()
    for p in phrases:
        parts = [(p.left_clean, p.right_clean)]
        parts += [(c, p.right_clean) for c in p.left_controls] + [(p.left_clean, c) for c in p.right_controls]
        for left, right in parts:
            text = f"{left} {right}"
            if text not in seen:
                seen.add(text)
                items[f"s2-{len(items) + 1:05d}"] = (text, left, right)
    all_practice = dict(practice)
    parts = {}
    for item, (text, label, left, right) in (combination_practice or {}).items():
        all_practice[item] = (text, label)
        parts[item] = (left, right)
    lists = make_lists(list(items), max_list_size, annotations=annotations, seed=seed)
    return Study("study2", items, all_practice, lists, parts)


def export_survey(study: Study, path: str | Path) -> int:
    """Write the study as one CSV (see the module documentation); returns the number of rows."""
    count = 0
    with atomic_open(path) as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SURVEY_COLUMNS)
        for number, items in enumerate(study.lists, start=1):
            position = 0
            for item, (text, label) in study.practice.items():
                position += 1
                left, right = study.practice_parts.get(item, (text, ""))
                writer.writerow([number, position, item, "practice", text, left, right, label])
            for item in items:
                position += 1
                text, left, right = study.items[item]
                writer.writerow([number, position, item, "stimulus", text, left, right, ""])
                count += 1
    return count


def read_survey(path: str | Path, practice_labels: Mapping[str, int] | None = None, name: str = "study") -> Study:
    """A study back from its exported CSV. The practice items' correct answers come from
    ``practice_labels`` or, where not given there, from the ``answer`` column (a file
    written before that column existed needs ``practice_labels``)."""
    items: dict[str, tuple[str, str, str]] = {}
    practice: dict[str, tuple[str, int]] = {}
    parts: dict[str, tuple[str, str]] = {}
    lists: dict[int, list[str]] = {}
    with open_text(path) as handle:
        reader = csv.DictReader(handle)
        required = [c for c in SURVEY_COLUMNS if c != "answer"]
        if reader.fieldnames is None or any(c not in reader.fieldnames for c in required):
            raise InputError(path, f"expected the columns {', '.join(SURVEY_COLUMNS)}", 1)
        for number, row in enumerate(reader, start=2):
            if row["kind"] == "practice":
                label = (practice_labels or {}).get(row["item"])
                if label is None:
                    answer = (row.get("answer") or "").strip()
                    if answer not in {str(k) for k in range(7)}:
                        raise InputError(path, f"practice item {row['item']!r} without an answer 0-6", number)
                    label = int(answer)
                practice[row["item"]] = (row["text"], label)
                if row["right"]:
                    parts[row["item"]] = (row["left"], row["right"])
                continue
            items[row["item"]] = (row["text"], row["left"], row["right"])
            try:
                lists.setdefault(int(row["list"]), []).append(row["item"])
            except ValueError:
                raise InputError(path, f"expected a list number, got {row['list']!r}", number) from None
    return Study(name, items, practice, [lists[k] for k in sorted(lists)], parts)


def read_responses(path: str | Path, study: Study, *, roster: set[str] | None = None) -> pd.DataFrame:
    """Responses CSV (``participant, list, item, rating, ungrammatical``) checked against the study."""
    allowed = [set(items) | set(study.practice) for items in study.lists]
    rows = []
    list_of: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    try:
        handle = open_text(path)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    with handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or any(c not in reader.fieldnames for c in RESPONSE_COLUMNS[:4]):
            raise InputError(path, f"expected the header {','.join(RESPONSE_COLUMNS)}", 1)
        for number, row in enumerate(reader, start=2):
            participant = (row["participant"] or "").strip()
            if not participant:
                raise InputError(path, "empty participant id", number)
            if roster is not None and participant not in roster:
                raise InputError(path, f"unknown participant {participant!r} (not on the roster)", number)
            try:
                number_of_list = int(row["list"])
            except (TypeError, ValueError):
                raise InputError(path, f"expected a list number, got {row['list']!r}", number) from None
            if not 1 <= number_of_list <= len(study.lists):
                raise InputError(
                    path, f"unknown list {number_of_list}; {study.name} has lists 1-{len(study.lists)}", number
                )
            if list_of.setdefault(participant, number_of_list) != number_of_list:
                raise InputError(
                    path,
                    f"participant {participant!r} answers list {number_of_list} but earlier list {list_of[participant]}",
                    number,
                )
            item = (row["item"] or "").strip()
            if item not in allowed[number_of_list - 1]:
                raise InputError(path, f"unknown item {item!r} for list {number_of_list} of {study.name}", number)
            if (participant, item) in seen:
                raise InputError(path, f"participant {participant!r} rates item {item!r} twice", number)
            seen.add((participant, item))
            rating_text = (row["rating"] or "").strip()
            if rating_text not in {str(r) for r in range(7)}:
                raise InputError(path, f"expected a rating 0-6, got {rating_text!r}", number)
            flag = (row.get("ungrammatical") or "").strip().lower()
            if flag not in ("", "0", "1", "true", "false"):
                raise InputError(path, f"expected ungrammatical 0 or 1, got {flag!r}", number)
            rows.append(
                {
                    "participant": participant,
                    "list": number_of_list,
                    "item": item,
                    "rating": int(rating_text),
                    "ungrammatical": flag in ("1", "true"),
                }
            )
    return pd.DataFrame(rows, columns=RESPONSE_COLUMNS)


def write_responses(path: str | Path, responses: pd.DataFrame) -> int:
    with atomic_open(path) as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(RESPONSE_COLUMNS)
        for row in responses.itertuples(index=False):
            writer.writerow([row.participant, row.list, row.item, row.rating, int(bool(row.ungrammatical))])
    return len(responses)


def simulate_responses(
    study: Study,
    truth: Callable[[str], float],
    *,
    seed: int = 1,
    noise: tuple[float, float] = (0.6, 1.2),
    failing_share: float = 0.1,
    ungrammatical_rate: float = 0.02,
    max_mean_error: float = 1.0,
    min_spearman: float = 0.8,
) -> pd.DataFrame:
    """Simulated participants answering a study (the demo's stand-in for Prolific).

    A participant rates an item of SST value ``v = truth(text)`` as ``7 v - 0.5`` (the
    centre of its SST-7 bin) plus Gaussian noise of a per-participant standard deviation
    drawn from ``noise``, rounded and clipped to 0-6; practice items are rated the same
    way. A ``failing_share`` of participants answer at random (they should fail the
    practice check). A participant who fails the practice check (appendix B's rule with
    ``max_mean_error`` and ``min_spearman``: the random answerers and some noisy ones) is
    replaced by a new participant for the same list, as a recruiter would, so every list is
    answered by one participant who passes. A stimulus is flagged ungrammatical at
    ``ungrammatical_rate``.
    """
    rng = random.Random(seed)
    rows = []
    counter = 0
    for number, items in enumerate(study.lists, start=1):
        while True:
            counter += 1
            participant = f"{study.name}-p{counter:04d}"
            failing = rng.random() < failing_share
            sd = rng.uniform(*noise)
            answers = []
            for item in [*study.practice, *items]:
                if failing:
                    rating = rng.randint(0, 6)
                else:
                    rating = int(min(6, max(0, round(7 * truth(study.text(item)) - 0.5 + rng.gauss(0, sd)))))
                flag = item not in study.practice and rng.random() < ungrammatical_rate
                answers.append(
                    {"participant": participant, "list": number, "item": item, "rating": rating, "ungrammatical": flag}
                )
            rows += answers
            given = [a["rating"] for a in answers if a["item"] in study.practice]
            correct = [study.practice[a["item"]][1] for a in answers if a["item"] in study.practice]
            if not practice_check(given, correct, max_mean_error=max_mean_error, min_spearman=min_spearman)[2]:
                break
    return pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
