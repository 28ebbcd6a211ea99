from __future__ import annotations

import pytest

from natcomp.errors import InputError
from natcomp.plane import label, load_adjectives, normalise_class
from natcomp.plane.adjectives import DEFAULT_ADJECTIVES
from natcomp.tsv import read_tsv


def test_resource_has_the_312_adjectives_by_class():
    adjectives = load_adjectives()
    assert len(adjectives) == 312
    counts = {cls: sum(1 for c in adjectives.values() if c == cls) for cls in "ISO"}
    assert counts == {"I": 91, "S": 163, "O": 58}
    assert adjectives["fake"] == "O" and adjectives["red"] == "I" and adjectives["famous"] == "S"
    assert adjectives["so-called"] == "O" and adjectives["anti-"] == "O"


def test_resource_agrees_with_the_list_recovered_from_the_released_splits(shared_plane):
    released = read_tsv(shared_plane / "adjectives.tsv", required=["adjective", "class"])
    assert dict(zip(released["adjective"], released["class"])) == load_adjectives(DEFAULT_ADJECTIVES)


@pytest.mark.parametrize("cls,expected", [("I", (1, 1, 1)), ("S", (1, 1, 0)), ("N", (1, 1, 0)), ("O", (0, 0, 1))])
def test_label_follows_table_1(cls, expected):
    assert tuple(label(cls, it) for it in ("IT1", "IT2", "IT3")) == expected


def test_label_rejects_unknown_class_and_inference_type():
    with pytest.raises(ValueError, match="unknown adjective class 'X'"):
        label("X", "IT1")
    with pytest.raises(ValueError, match="unknown inference type 'IT4'"):
        label("I", "IT4")
    assert normalise_class("N") == "S"


def write(tmp_path, text):
    path = tmp_path / "adjectives.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_class_names_file_and_line(tmp_path):
    path = write(tmp_path, "adjective\tclass\nred\tI\nbig\tX\n")
    with pytest.raises(InputError, match=r"adjectives.tsv, line 3: unknown adjective class 'X'") as error:
        load_adjectives(path)
    assert error.value.line == 3


def test_duplicate_with_another_class_names_both_lines(tmp_path):
    path = write(tmp_path, "adjective\tclass\nfake\tO\nred\tI\nFake\tS\n")
    with pytest.raises(InputError, match=r"line 4: adjective 'fake' is listed with another class \(S; line 2 has O\)"):
        load_adjectives(path)


def test_wrong_layout_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="adjectives.tsv, line 1: .*adjective"):
        load_adjectives(write(tmp_path, "word\tkind\nred\tI\n"))
    with pytest.raises(InputError, match="adjectives.tsv, line 2: ") as error:
        load_adjectives(write(tmp_path, "adjective\tclass\nred\tI\textra\n"))
    assert error.value.line == 2
