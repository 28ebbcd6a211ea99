"""Pair files and appendix B's cleaning rules, on hand-made pairs and the real Yelp references."""

from __future__ import annotations

from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.pss import Pair, clean_pairs, read_pairs, write_pairs

YELP = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "yelp"
needs_yelp = pytest.mark.skipif(not (YELP / "reference.0").exists(), reason=f"real Yelp references not found at {YELP}")


def test_rules_identical_deletion_only_and_kept():
    pairs = [
        Pair("the food was great .", "The food was great."),  # identical up to case and tokenisation
        Pair("it 's not good .", "It's good."),  # only deletes "not"
        Pair("the staff was rude !", "the staff was rude"),  # deletes punctuation only
        Pair("the food was cold .", "The food was hot."),  # adds "hot"
        Pair("i ca n't believe it .", "I can't believe how good it is."),  # adds words
        Pair("service good .", "good service ."),  # reorders only: adds no word
    ]
    result = clean_pairs(pairs)
    assert result.counts == {"total": 6, "identical": 1, "deletion_only": 3, "kept": 2}
    assert [pair.rewrite for pair in result.kept] == ["The food was hot.", "I can't believe how good it is."]
    assert result.removed["identical"] == [pairs[0]]


def test_adding_only_punctuation_is_not_adding_a_word():
    result = clean_pairs([Pair("the food was ok .", "The food was ok!!")])
    assert result.counts["deletion_only"] == 1


@needs_yelp
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("reference.0", {"total": 500, "identical": 0, "deletion_only": 18, "kept": 482}),
        ("reference.1", {"total": 500, "identical": 0, "deletion_only": 0, "kept": 500}),
    ],
)
def test_real_references_through_the_cleaning_rules(name, expected):
    result = clean_pairs(read_pairs(YELP / name))
    assert result.counts == expected
    # every removed pair really adds no word to its original
    for pair in result.removed["deletion_only"]:
        assert "not" in pair.original.split() or "never" in pair.original.split() or "n't" in pair.original.split()


def test_read_and_write_round_trip(tmp_path):
    path = tmp_path / "pairs"
    path.write_text("a b .\tA c.  \nd e\tF g\n", encoding="utf-8")
    pairs = read_pairs(path)
    assert [(p.original, p.rewrite, p.line) for p in pairs] == [("a b .", "A c.", 1), ("d e", "F g", 2)]
    write_pairs(tmp_path / "out", pairs)
    assert (tmp_path / "out").read_text(encoding="utf-8") == "a b .\tA c.\nd e\tF g\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("good food .\tBad food.\nno tab here\n", "line 2: no tab"),
        ("good food .\t   \n", "line 1: the rewrite is empty"),
        ("\tBad food.\n", "line 1: the original is empty"),
        ("a\tb\tc\n", "line 1: 2 tabs"),
        ("a\tb\n\nc\td\n", "line 2: empty line"),
        ("", "no pairs"),
    ],
)
def test_bad_pair_files_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "reference.0"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_pairs(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)
