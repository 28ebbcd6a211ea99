"""Train/test splits of PLANE: GOoD (out of distribution), One-IT and in-distribution.

Block structure as in the released splits (docs/plane.md):

- **GOoD** (the released files' "OoD"): a draw takes a noun, one of its hypernyms within
  ``hypernym_max_distance`` and ``adjectives_per_draw`` adjectives (1 I + 1 S + 4 O) that
  occur with the noun in the resource; each AN gets IT1, IT2 and IT3: 18 items, 9 positive.
  Adjectives and nouns are disjoint between train and test; with ``disjoint_hypernyms``
  (the paper's "each adjective, noun and hypernym is unique to either the train or the
  test set") so are the hypernym words, across roles. The released files keep hypernyms
  shared (``disjoint_hypernyms: false``).
- **One-IT** (IT3 only): a draw takes a noun's chain [N, h1, h2, h3] and 1 I + 2 S + 1 O
  adjectives occurring with N; each adjective gets all 6 ordered chain pairs
  ``A {adj} {x} is a {adj} {y}``: 24 items, 12 positive. Adjectives and chain words are
  disjoint across roles.
- **in-distribution**: AN phrases (compounds) are split, their atoms shared; labels are
  balanced by dropping random items of the larger label on each side.

Draws never repeat an (adjective, noun) pair on a side, so no sentence occurs twice (the
released One-IT train files have duplicates; they look sampled with replacement).
Disjointness and balance are verified by :func:`check_split` before a split is written.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
from collections import defaultdict
from collections.abc import Mapping

import pandas as pd

from natcomp.errors import NatcompError
from natcomp.plane.adjectives import CLASSES, label
from natcomp.plane.items import ITEM_COLUMNS, Resource, sentence

log = logging.getLogger(__name__)

SPLIT_COLUMNS = ITEM_COLUMNS + ["draw"]
KINDS = ("good", "one_it", "in_distribution")


class SplitLeak(NatcompError):
    """A split breaks its own disjointness or balance rules; ``row`` is the 0-based row of
    the items where the first offending unit starts, when known."""

    def __init__(self, message: str, row: int | None = None):
        super().__init__(message)
        self.row = row


@dataclasses.dataclass(frozen=True)
class GoodSettings:
    test_adjective_fraction: float = 0.3
    test_noun_fraction: float = 0.05
    adjectives_per_draw: Mapping[str, int] = dataclasses.field(default_factory=lambda: {"I": 1, "S": 1, "O": 4})
    hypernym_max_distance: int = 1
    disjoint_hypernyms: bool = True
    train_draws: int = 3334
    test_draws: int = 112


@dataclasses.dataclass(frozen=True)
class OneItSettings:
    test_adjective_fraction: float = 0.22
    test_chain_fraction: float = 0.13
    adjectives_per_draw: Mapping[str, int] = dataclasses.field(default_factory=lambda: {"I": 1, "S": 2, "O": 1})
    train_draws: int = 2520
    test_draws: int = 85


@dataclasses.dataclass(frozen=True)
class InDistributionSettings:
    test_phrase_fraction: float = 0.1


#: the settings class of each split kind (``plane.splits.<kind>``, ``natcomp plane split --settings``)
SETTINGS_CLASSES = {"good": GoodSettings, "one_it": OneItSettings, "in_distribution": InDistributionSettings}
#: the most hypernym steps a GOoD split may look up (as ``natcomp plane hypernyms --max-distance``)
MAX_HYPERNYM_DISTANCE = 20


def split_settings(kind: str, given: Mapping[str, object]):
    """The settings of a ``kind`` split from ``given`` (a JSON object's names and values),
    checked as the config schema checks ``plane.splits.<kind>``: known names, fractions
    strictly between 0 and 1, draws at least 1, ``hypernym_max_distance`` from 1 to
    :data:`MAX_HYPERNYM_DISTANCE`, ``adjectives_per_draw`` a count of at least 0 for each
    of I, S and O, ``disjoint_hypernyms`` true or false. A bad value is a ``ValueError``
    naming the setting."""
    settings_class = SETTINGS_CLASSES[kind]
    known = [field.name for field in dataclasses.fields(settings_class)]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"unknown {kind} setting(s) {', '.join(unknown)}; expected some of {', '.join(known)}")
    for name, value in given.items():
        problem = _setting_problem(name, value)
        if problem:
            raise ValueError(f"{name} {json.dumps(value)}: expected {problem}")
    return settings_class(**given)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _setting_problem(name: str, value: object) -> str | None:
    """What ``value`` of the split setting ``name`` should be, or None when it is that."""
    if name.endswith("_fraction"):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if number and 0 < value < 1 else "a number above 0 and below 1"
    if name.endswith("_draws"):
        return None if _is_count(value) and value >= 1 else "a whole number of at least 1"
    if name == "hypernym_max_distance":
        fits = _is_count(value) and 1 <= value <= MAX_HYPERNYM_DISTANCE
        return None if fits else f"a whole number from 1 to {MAX_HYPERNYM_DISTANCE}"
    if name == "disjoint_hypernyms":
        return None if isinstance(value, bool) else "true or false"
    if name == "adjectives_per_draw":
        fits = (
            isinstance(value, Mapping)
            and set(value) == set(CLASSES)
            and all(_is_count(count) and count >= 0 for count in value.values())
        )
        return None if fits else f"an object with a count of at least 0 for each of {', '.join(CLASSES)}"
    return None


def _partition_adjectives(phrases: pd.DataFrame, fraction: float, rng: random.Random) -> dict[str, set[str]]:
    """Per class, ``fraction`` of the adjectives (at least one) go to test; returns side -> adjectives."""
    sides = {"train": set(), "test": set()}
    for cls in CLASSES:
        adjectives = sorted(set(phrases.loc[phrases["class"] == cls, "adj"]))
        rng.shuffle(adjectives)
        n_test = max(1, math.ceil(fraction * len(adjectives))) if len(adjectives) > 1 else 0
        sides["test"].update(adjectives[:n_test])
        sides["train"].update(adjectives[n_test:])
    return sides


def _attested(phrases: pd.DataFrame) -> dict[str, dict[str, list[str]]]:
    """noun -> class -> sorted adjectives seen with the noun."""
    table: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for adj, noun, cls in sorted(zip(phrases["adj"], phrases["noun"], phrases["class"])):
        table[noun][cls].append(adj)
    return table


def _feasible(noun_adjectives: Mapping[str, list[str]], allowed: set[str], need: Mapping[str, int], used=()) -> bool:
    return all(
        sum(1 for a in noun_adjectives.get(cls, ()) if a in allowed and a not in used) >= need[cls] for cls in CLASSES
    )


def _pick_adjectives(noun_adjectives, allowed, need, used, rng) -> list[tuple[str, str]]:
    picked = []
    for cls in CLASSES:
        pool = [a for a in noun_adjectives.get(cls, ()) if a in allowed and a not in used]
        picked.extend((adj, cls) for adj in sorted(rng.sample(pool, need[cls])))
    return picked


def _draw(units, attested, allowed, need, n_draws, rng, rows_of) -> list[tuple]:
    """Draw ``n_draws`` blocks. ``units`` maps a key to (noun, choices, words): the noun whose
    attested adjectives are drawn, the payloads to choose from (hypernyms or chains), and the
    words the block's sentences use as c1 heads. An adjective is used at most once with a
    word, so no sentence repeats on a side."""
    used: dict[str, set[str]] = defaultdict(set)
    rows: list[tuple] = []
    keys = sorted(units)

    def used_for(key):
        return set().union(*(used[w] for w in units[key][2]))

    for draw in range(n_draws):
        pool = [k for k in keys if _feasible(attested[units[k][0]], allowed, need, used_for(k))]
        if not pool:
            log.warning("only %d of %d draws possible: no noun has enough unused adjectives left", draw, n_draws)
            break
        key = rng.choice(pool)
        noun, choices, words = units[key]
        payload = rng.choice(choices)
        adjectives = _pick_adjectives(attested[noun], allowed, need, used_for(key), rng)
        for word in words:
            used[word].update(a for a, _ in adjectives)
        rows.extend(row + (draw,) for row in rows_of(noun, payload, adjectives))
    return rows


def _good_rows(noun, hyp_distance, adjectives):
    hyp, distance = hyp_distance
    for adj, cls in adjectives:
        for it, c2, d, h in (
            ("IT1", noun, 0, hyp),
            ("IT2", hyp, distance, hyp),
            ("IT3", f"{adj} {hyp}", distance, hyp),
        ):
            yield (sentence(adj, noun, c2), label(cls, it), cls, it, adj, noun, h, d, f"{adj} {noun}", c2)


def _one_it_rows(noun, chain, adjectives):
    words = (noun, *chain)
    for adj, cls in adjectives:
        for i in range(len(words)):
            for j in range(i + 1, len(words)):
                x, y = words[i], words[j]
                yield (
                    sentence(adj, x, f"{adj} {y}"),
                    label(cls, "IT3"),
                    cls,
                    "IT3",
                    adj,
                    x,
                    y,
                    j - i,
                    f"{adj} {x}",
                    f"{adj} {y}",
                )


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=SPLIT_COLUMNS)


def good_split(resource: Resource, settings: GoodSettings, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One GOoD train/test split (see the module docstring)."""
    rng = random.Random(seed)
    phrases = resource.phrases
    adjectives = _partition_adjectives(phrases, settings.test_adjective_fraction, rng)
    attested = _attested(phrases)
    need = settings.adjectives_per_draw
    hyps: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for noun, hyp, distance in zip(
        resource.hypernyms["noun"], resource.hypernyms["hyp"], resource.hypernyms["distance"]
    ):
        if int(distance) <= settings.hypernym_max_distance and noun in attested:
            hyps[noun].append((hyp, int(distance)))
    nouns = sorted(hyps)
    rng.shuffle(nouns)
    n_test = max(1, round(settings.test_noun_fraction * len(nouns)))
    test_nouns: set[str] = set()
    test_words: set[str] = set()
    for noun in nouns:
        if len(test_nouns) >= n_test:
            break
        if noun in test_words or not _feasible(attested[noun], adjectives["test"], need):
            continue
        if settings.disjoint_hypernyms and any(h in test_nouns for h, _ in hyps[noun]):
            continue
        test_nouns.add(noun)
        test_words.add(noun)
        if settings.disjoint_hypernyms:
            test_words.update(h for h, _ in hyps[noun])
    train_units, test_units = {}, {}
    for noun in sorted(hyps):
        if noun in test_nouns:
            test_units[noun] = (noun, sorted(hyps[noun]), (noun,))
        elif noun not in test_words:
            choices = sorted(hc for hc in hyps[noun] if not settings.disjoint_hypernyms or hc[0] not in test_words)
            if choices:
                train_units[noun] = (noun, choices, (noun,))
    train = _frame(_draw(train_units, attested, adjectives["train"], need, settings.train_draws, rng, _good_rows))
    test = _frame(_draw(test_units, attested, adjectives["test"], need, settings.test_draws, rng, _good_rows))
    roles = ("adj", "noun", "hyp") if settings.disjoint_hypernyms else ("adj", "noun")
    check_split(train, test, roles, cross_role=settings.disjoint_hypernyms)
    return train, test


def one_it_split(resource: Resource, settings: OneItSettings, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One One-IT train/test split (see the module docstring)."""
    rng = random.Random(seed)
    phrases = resource.phrases
    adjectives = _partition_adjectives(phrases, settings.test_adjective_fraction, rng)
    attested = _attested(phrases)
    need = settings.adjectives_per_draw
    chain_columns = [c for c in resource.chains.columns if c != "noun"]
    chains = {
        row[0]: tuple(row[1:])
        for row in resource.chains[["noun", *chain_columns]].itertuples(index=False)
        if row[0] in attested
    }
    nouns = sorted(chains)
    rng.shuffle(nouns)
    n_test = max(1, round(settings.test_chain_fraction * len(nouns)))
    test_nouns, test_words = set(), set()
    for noun in nouns:
        if len(test_nouns) >= n_test:
            break
        words = {noun, *chains[noun]}
        if not _feasible(attested[noun], adjectives["test"], need):
            continue
        test_nouns.add(noun)
        test_words |= words
    # a test chain may share words with another test chain; train chains share none with test
    train_units = {n: (n, [chains[n]], (n, *chains[n])) for n in sorted(chains) if not ({n, *chains[n]} & test_words)}
    test_units = {n: (n, [chains[n]], (n, *chains[n])) for n in sorted(test_nouns)}
    train = _frame(_draw(train_units, attested, adjectives["train"], need, settings.train_draws, rng, _one_it_rows))
    test = _frame(_draw(test_units, attested, adjectives["test"], need, settings.test_draws, rng, _one_it_rows))
    check_split(train, test, ("adj", "noun", "hyp"), cross_role=True)
    return train, test


def in_distribution_split(
    items: pd.DataFrame, settings: InDistributionSettings, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split the AN phrases of the items; each side's labels balanced by down-sampling."""
    rng = random.Random(seed)
    phrases = sorted(set(zip(items["adj"], items["noun"])))
    rng.shuffle(phrases)
    test_phrases = set(phrases[: max(1, round(settings.test_phrase_fraction * len(phrases)))])
    in_test = [(a, n) in test_phrases for a, n in zip(items["adj"], items["noun"])]
    sides = []
    for mask in (~pd.Series(in_test), pd.Series(in_test)):
        side = items[mask.to_numpy()]
        positive, negative = side[side["label"] == 1], side[side["label"] == 0]
        n = min(len(positive), len(negative))
        keep = pd.concat(
            [
                positive.sample(n=n, random_state=rng.randrange(2**31)),
                negative.sample(n=n, random_state=rng.randrange(2**31)),
            ]
        )
        sides.append(
            keep.sort_values(["noun", "adj", "it", "hyp"]).assign(draw=-1).reset_index(drop=True)[SPLIT_COLUMNS]
        )
    train, test = sides
    overlap = set(zip(train["adj"], train["noun"])) & set(zip(test["adj"], test["noun"]))
    if overlap:
        raise SplitLeak(f"in-distribution split shares AN phrases between train and test: {sorted(overlap)[:10]}")
    check_split(train, test, roles=())
    return train, test


def check_split(
    train: pd.DataFrame,
    test: pd.DataFrame,
    roles=("adj", "noun"),
    cross_role: bool = False,
    allow_duplicates: bool = False,
) -> None:
    """Raise :class:`SplitLeak` unless train and test are disjoint in ``roles``, share no
    sentence, have no duplicate sentence and have balanced labels.

    ``cross_role``: the words of the noun and hyp columns together must be disjoint (a test
    noun may not be a train hypernym and vice versa). ``allow_duplicates``: a sentence may
    repeat within a side (the released One-IT files, checked as published: the caller
    counts and reports the repeats); balance is then counted over the rows as they are.
    """
    problems = []
    for name, side in (("train", train), ("test", test)):
        if side.empty:
            problems.append(f"{name} is empty")
            continue
        positives = int((side["label"].astype(int) == 1).sum())
        if positives * 2 != len(side):
            problems.append(f"{name} labels are not balanced: {positives} positive of {len(side)}")
        duplicates = side["sentence"].duplicated().sum()
        if duplicates and not allow_duplicates:
            problems.append(f"{name} has {duplicates} duplicate sentence(s)")
    shared = set(train["sentence"]) & set(test["sentence"])
    if shared:
        problems.append(f"{len(shared)} sentence(s) in both train and test, e.g. {sorted(shared)[:3]}")
    for role in roles:
        both = (set(train[role]) & set(test[role])) - {""}
        if both:
            problems.append(f"{len(both)} {role} word(s) in both train and test: {', '.join(sorted(both)[:10])}")
    if cross_role:
        words = lambda side: (set(side["noun"]) | set(side["hyp"])) - {""}  # noqa: E731
        both = words(train) & words(test)
        if both:
            problems.append(f"{len(both)} noun/hypernym word(s) in both train and test: {', '.join(sorted(both)[:10])}")
    if problems:
        raise SplitLeak("split check failed: " + "; ".join(problems))


def released_draws(items: pd.DataFrame, layout: str) -> pd.DataFrame:
    """The draw units of a released-style file: one row per (key, adjective) with its class.

    The key is the (noun, hyp) pair for OoD and the chain (N, h1, h2, h3) for One-IT, read
    from each adjective's rows (an adjective's 6 One-IT pairs start with (N, h1), (N, h2), (N, h3)).
    """
    units = []
    positions = pd.Series(range(len(items)), index=items.index)
    if layout == "ood":
        for (noun, hyp, adj), group in items.groupby(["noun", "hyp", "adj"], sort=True):
            first = int(positions[group.index].min())
            units.append(((noun, hyp), adj, group["class"].iloc[0], tuple(sorted(group["it"])), first))
    else:
        for adj, group in items.groupby("adj", sort=True):
            rows = list(zip(group["noun"], group["hyp"]))
            for start in range(0, len(rows), 6):
                run = rows[start : start + 6]
                chain = (run[0][0], *(h for _, h in run[:3]))
                first = int(positions[group.index[start : start + 6]].min())
                units.append((chain, adj, group["class"].iloc[0], tuple(run), first))
    return pd.DataFrame(units, columns=["key", "adj", "class", "rows", "first_row"])


def _unit_name(key: tuple, layout: str) -> str:
    """A draw unit's key in words: ``noun 'dog', hypernym 'canine'`` or ``chain dog > canine > ...``."""
    if layout == "ood":
        return f"noun {key[0]!r}, hypernym {key[1]!r}"
    return "chain " + " > ".join(map(str, key))


def _per_class(counts: Mapping[str, int]) -> str:
    return " + ".join(f"{counts.get(c, 0)} {c}" for c in CLASSES)


def check_blocks(items: pd.DataFrame, layout: str) -> int:
    """Check a released-style file's draw structure; return the number of draws.

    OoD: for each (noun, hyp), k draws of 1 I + 1 S + 4 O adjectives, each adjective with
    IT1, IT2 and IT3. One-IT: for each chain [N, h1, h2, h3], k draws of 1 I + 2 S + 1 O
    adjectives, each with the 6 ordered chain pairs. Raises :class:`SplitLeak` naming the
    first key that breaks the structure.
    """
    need = {"ood": {"I": 1, "S": 1, "O": 4}, "one_it": {"I": 1, "S": 2, "O": 1}}[layout]
    units = released_draws(items, layout)
    draws = 0
    for key, group in units.groupby("key", sort=True):
        where, first = _unit_name(key, layout), int(group["first_row"].min())
        counts = group["class"].value_counts().to_dict()
        k = counts.get("I", 0) // need["I"]
        if k == 0 or any(counts.get(c, 0) != k * need[c] for c in CLASSES):
            raise SplitLeak(
                f"{where}: {_per_class(counts)} adjectives; expected a multiple of {_per_class(need)}", first
            )
        for adj, rows, row in zip(group["adj"], group["rows"], group["first_row"]):
            if layout == "ood" and rows != ("IT1", "IT2", "IT3"):
                have = ", ".join(rows)
                raise SplitLeak(
                    f"{where}: adjective {adj!r} has the inference types {have}; expected IT1, IT2, IT3", row
                )
            if layout == "one_it":
                chain = key
                expected = tuple((chain[i], chain[j]) for i in range(4) for j in range(i + 1, 4))
                if tuple(sorted(rows)) != tuple(sorted(expected)):
                    pairs = ", ".join(f"{a} > {b}" for a, b in rows)
                    raise SplitLeak(
                        f"{where}: adjective {adj!r} has the pairs {pairs}; expected the 6 ordered chain pairs", row
                    )
        draws += k
    return draws
