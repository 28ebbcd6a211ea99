from __future__ import annotations

import dataclasses
import re

import pandas as pd
import pytest

from natcomp.plane import splits
from natcomp.plane.splits import (
    GoodSettings,
    InDistributionSettings,
    OneItSettings,
    SplitLeak,
    check_blocks,
    check_split,
    good_split,
    in_distribution_split,
    one_it_split,
)

GOOD = GoodSettings(test_noun_fraction=0.2, train_draws=40, test_draws=4)
ONE_IT = OneItSettings(test_chain_fraction=0.2, train_draws=25, test_draws=3)


def words(side):
    return (set(side["noun"]) | set(side["hyp"])) - {""}


def test_good_split_is_disjoint_balanced_and_blocked(small_resource):
    resource, _ = small_resource
    train, test = good_split(resource, GOOD, seed=1)
    assert not set(train["adj"]) & set(test["adj"])
    assert not set(train["noun"]) & set(test["noun"])
    assert not words(train) & words(test)  # paper: hypernyms disjoint too, across roles
    for side in (train, test):
        assert side["label"].sum() * 2 == len(side)
        assert check_blocks(side, "ood") == side["draw"].nunique()
        assert not side["sentence"].duplicated().any()
    assert len(test) == 18 * test["draw"].nunique() and test["draw"].nunique() >= 2


def test_released_style_good_split_keeps_hypernyms_shared(small_resource):
    resource, _ = small_resource
    settings = GoodSettings(test_noun_fraction=0.2, train_draws=40, test_draws=4, disjoint_hypernyms=False)
    train, test = good_split(resource, settings, seed=1)
    assert not set(train["noun"]) & set(test["noun"])


def test_one_it_split_is_disjoint_across_roles(small_resource):
    resource, _ = small_resource
    train, test = one_it_split(resource, ONE_IT, seed=2)
    assert set(train["it"]) == set(test["it"]) == {"IT3"}
    assert not set(train["adj"]) & set(test["adj"])
    assert not words(train) & words(test)
    for side in (train, test):
        assert side["label"].sum() * 2 == len(side)
        assert check_blocks(side, "one_it") == side["draw"].nunique()


def test_splits_are_reproducible_and_seeded(small_resource):
    resource, _ = small_resource
    first, again, other = (good_split(resource, GOOD, seed=s)[1] for s in (1, 1, 5))
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)


def test_in_distribution_split_shares_atoms_not_phrases(small_resource):
    _, items = small_resource
    train, test = in_distribution_split(items, InDistributionSettings(test_phrase_fraction=0.2), seed=1)
    assert not set(zip(train["adj"], train["noun"])) & set(zip(test["adj"], test["noun"]))
    assert set(test["noun"]) & set(train["noun"])
    assert train["label"].sum() * 2 == len(train) and test["label"].sum() * 2 == len(test)


def test_check_split_fails_a_leaking_split(small_resource):
    resource, _ = small_resource
    train, test = good_split(resource, GOOD, seed=1)
    leaked = pd.concat([test, train.iloc[:18]], ignore_index=True)
    with pytest.raises(SplitLeak, match="adj word"):
        check_split(train, leaked, roles=("adj", "noun"))
    unbalanced = test.iloc[:-1]
    with pytest.raises(SplitLeak, match="test labels are not balanced"):
        check_split(train, unbalanced, roles=())
    crossed = test.copy()
    crossed.loc[crossed.index[0], "hyp"] = train["noun"].iloc[0]
    with pytest.raises(SplitLeak, match="noun/hypernym word"):
        check_split(train, crossed, roles=("adj",), cross_role=True)


@pytest.mark.parametrize(
    ("fraction", "expected"),
    [
        # 10 I, 7 S, 3 O adjectives: ceil(2.5, 1.75, 0.75) = 3, 2, 1 (floor: 2, 1, 0 -> 1; round: 2, 2, 1)
        (0.25, {"I": 3, "S": 2, "O": 1}),
        # ceil(4.5, 3.15, 1.35) = 5, 4, 2 (floor and round: 4, 3, 1)
        (0.45, {"I": 5, "S": 4, "O": 2}),
    ],
)
def test_test_adjectives_per_class_round_the_fraction_up(fraction, expected):
    """The share of each class's adjectives sent to test is rounded up (ceil), so a class
    always keeps at least ``fraction`` of its adjectives unseen in training."""
    import random

    from natcomp.plane.splits import _partition_adjectives

    sizes = {"I": 10, "S": 7, "O": 3}
    phrases = pd.DataFrame(
        [(f"{cls.lower()}{i}", "noun", cls) for cls, n in sizes.items() for i in range(n)],
        columns=["adj", "noun", "class"],
    )
    sides = _partition_adjectives(phrases, fraction, random.Random(1))
    for cls, n in sizes.items():
        of_class = {f"{cls.lower()}{i}" for i in range(n)}
        assert len(sides["test"] & of_class) == expected[cls], cls
        assert len(sides["train"] & of_class) == n - expected[cls], cls


@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        ("good", {"test_adjective_fraction": "lots"}, 'test_adjective_fraction "lots": expected a number above 0'),
        ("good", {"test_adjective_fraction": 1}, "test_adjective_fraction 1: expected a number above 0 and below 1"),
        ("good", {"test_noun_fraction": 0}, "test_noun_fraction 0: expected a number above 0"),
        ("good", {"test_noun_fraction": True}, "test_noun_fraction true: expected a number"),
        ("good", {"train_draws": 0}, "train_draws 0: expected a whole number of at least 1"),
        ("good", {"test_draws": 2.5}, "test_draws 2.5: expected a whole number"),
        ("good", {"hypernym_max_distance": 1e29}, "hypernym_max_distance 1e+29: expected a whole number from 1 to 20"),
        ("good", {"hypernym_max_distance": 21}, "expected a whole number from 1 to 20"),
        ("good", {"disjoint_hypernyms": "yes"}, 'disjoint_hypernyms "yes": expected true or false'),
        (
            "good",
            {"adjectives_per_draw": {"I": 1, "S": 1}},
            "expected an object with a count of at least 0 for each of I, S, O",
        ),
        ("one_it", {"adjectives_per_draw": {"I": 1, "S": -1, "O": 1}}, "for each of I, S, O"),
        ("one_it", {"disjoint_hypernyms": True}, "unknown one_it setting(s) disjoint_hypernyms"),
        ("in_distribution", {"test_phrase_fraction": -0.1}, "expected a number above 0 and below 1"),
    ],
)
def test_split_settings_refuse_wrong_types_and_ranges_naming_the_setting(kind, given, expected):
    with pytest.raises(ValueError, match=re.escape(expected)):
        splits.split_settings(kind, given)


def test_split_settings_take_every_default_and_edge_values():
    for kind, settings_class in splits.SETTINGS_CLASSES.items():
        defaults = dataclasses.asdict(settings_class())
        assert splits.split_settings(kind, defaults) == settings_class()
    edge = splits.split_settings("good", {"test_noun_fraction": 0.999, "hypernym_max_distance": 20, "train_draws": 1})
    assert (edge.test_noun_fraction, edge.hypernym_max_distance, edge.train_draws) == (0.999, 20, 1)
