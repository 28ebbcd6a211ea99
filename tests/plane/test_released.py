from __future__ import annotations

import os
import pickle

import pytest

from natcomp.errors import InputError
from natcomp.plane import hypernyms
from natcomp.plane.released import label_disagreements, phrases_of, read_released
from natcomp.plane.splits import check_blocks, check_split, released_draws
from natcomp.plane.wordnet import has_noun_synset, hypernym_chain


def test_every_released_row_agrees_with_label(released_files):
    rows = 0
    for path in released_files:
        items = read_released(path)
        rows += len(items)
        assert label_disagreements(items).empty, path
        assert set(items["class"]) == {"I", "S", "O"}
    assert rows == 20256


def test_released_hypernyms_are_found(released_files, wn):
    """OoD: every released (noun, hyp) pair is among our distance-1 hypernyms. One-IT: the
    released chains are our chains (one released chain differs; the shares are asserted)."""
    ood_pairs = ood_found = chains = chains_contained = chains_same = 0
    for path in released_files:
        items = read_released(path)
        if items.attrs["layout"] == "ood":
            for noun, hyp in set(zip(items["noun"], items["hyp"])):
                ood_pairs += 1
                ood_found += has_noun_synset(noun) and hyp in hypernyms(noun, 1)
        else:
            for chain in set(released_draws(items, "one_it")["key"]):
                chains += 1
                chains_contained += all(h in hypernyms(chain[0], 3) for h in chain[1:])
                chains_same += hypernym_chain(chain[0]) == chain[1:]
    assert ood_pairs == 470 and ood_found == ood_pairs
    assert chains == 268
    assert chains_contained / chains >= 0.99 and chains_same / chains >= 0.99


def test_released_block_structure_and_balance(released_files):
    for path in released_files:
        items = read_released(path)
        layout = items.attrs["layout"]
        draws = check_blocks(items, layout)
        assert draws == len(items) // (18 if layout == "ood" else 24)
        assert (items["label"] == 1).sum() * 2 == len(items)
        # every noun (OoD) / chain (One-IT) occurs with every class
        units = released_draws(items, layout)
        assert (units.groupby("key")["class"].nunique() == 3).all()


def test_disjointness_check_between_released_splits_detects_shared_words(released_files):
    """Only the released *test* files are here (the train pickles are downloaded in paper
    mode, where rule plane_check_released runs check_split on each train/test pair). Two
    different test draws share adjectives, so the checker must reject them as a split."""
    first, second = read_released(released_files[5]), read_released(released_files[6])
    with pytest.raises(Exception, match="adj word"):
        check_split(first, second, roles=("adj", "noun"))


def test_pickle_and_tsv_give_the_same_items(released_files, tmp_path):
    path = released_files[0]
    from natcomp.tsv import iter_tsv

    rows = [[r["sentence"], int(r["label"]), r["class"], r["adj"], r["noun"], r["hyp"]] for _, r in iter_tsv(path)]
    pickled = tmp_path / "IT3_OoV_test_1.pkl"
    pickled.write_bytes(pickle.dumps(rows, protocol=4))
    assert read_released(pickled).equals(read_released(path))
    assert phrases_of(read_released(pickled))


class _Exploit:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_pickle_with_globals_is_refused_without_running_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(pickle.dumps([["A red car is a car", 1, "I", "red", "car", "vehicle", "car_vehicle"], _Exploit()]))
    with pytest.raises(InputError, match="global posix.system is not allowed"):
        read_released(evil)
    assert not (tmp_path / "pwned").exists()


def test_other_row_layouts_name_file_and_line(tmp_path):
    bad_header = tmp_path / "bad.tsv"
    bad_header.write_text("text\tlabel\nA red car is a car\t1\n")
    with pytest.raises(InputError, match=r"bad.tsv, line 1: header text\|label matches no released layout"):
        read_released(bad_header)
    bad_row = tmp_path / "OoD.tsv"
    bad_row.write_text(
        "sentence\tlabel\tclass\tadj\tnoun\thyp\tnoun_hyp\n"
        "A red car is a car\t1\tI\tred\tcar\tvehicle\tcar_vehicle\n"
        "A red car is a vehicle\tyes\tI\tred\tcar\tvehicle\tcar_vehicle\n"
    )
    with pytest.raises(InputError, match=r"OoD.tsv, line 3: label 'yes'; expected 0 or 1"):
        read_released(bad_row)
    short = tmp_path / "short.pkl"
    short.write_bytes(pickle.dumps([["A red car is a car", 1, "I", "red", "car", "vehicle", "car_vehicle"], ["x", 1]]))
    with pytest.raises(InputError, match=r"short.pkl, line 2: row has 2 field\(s\); expected the ood layout"):
        read_released(short)
    wrong_sentence = tmp_path / "one.tsv"
    wrong_sentence.write_text("sentence\tlabel\tclass\tadj\tnoun\thyp\nA red car is a boat\t1\tN\tred\tcar\tvehicle\n")
    with pytest.raises(InputError, match="line 2: sentence 'A red car is a boat' is none of the forms"):
        read_released(wrong_sentence)


def test_the_release_agrees_with_the_first_hypernym_reading(released_files, wn):
    """Both readings of "always following the first synset" against the released test
    files. OoD: every released (noun, hyp) pair is a distance-1 hypernym under both; where
    every branch offers several direct unigram hypernyms, the release always holds the
    name-first one, the only one the first reading gives. One-IT: the chains are found
    equally by both."""
    ood = set()
    chains = set()
    for path in released_files:
        items = read_released(path)
        if items.attrs["layout"] == "ood":
            ood |= set(zip(items["noun"], items["hyp"]))
        else:
            chains |= set(released_draws(items, "one_it")["key"])
    assert len({noun for noun, _ in ood}) == len(ood)  # one hypernym per noun
    first = {noun: hypernyms(noun, 1) for noun, _ in ood}
    every = {noun: hypernyms(noun, 1, reading="all") for noun, _ in ood}
    assert all(first[noun] == [hyp] for noun, hyp in ood)
    assert all(hyp in every[noun] for noun, hyp in ood)
    several = [noun for noun, _ in ood if len(every[noun]) > 1]
    assert len(several) >= 5  # the readings differ on these nouns, and the release sides with first
    found = {
        reading: sum(all(h in hypernyms(chain[0], 3, reading=reading) for h in chain[1:]) for chain in chains)
        for reading in ("first", "all")
    }
    assert found["first"] == found["all"] and found["first"] / len(chains) >= 0.99


@pytest.mark.parametrize(
    ("name", "cut", "expected"),
    [
        (
            "OoD_OOV_test_1.tsv",
            lambda lines: lines[:2] + lines[3:],  # one inference type of the first adjective removed
            "line 2: noun 'load', hypernym 'weight': adjective 'weekly' has the inference types IT1, IT3; "
            "expected IT1, IT2, IT3",
        ),
        (
            "One_IT_IT3_OoV_test_1.tsv",
            lambda lines: lines[:1000],  # the file stops inside a draw
            "line 938: chain diagnosis > designation > determination > discovery: 4 I + 7 S + 0 O adjectives; "
            "expected a multiple of 1 I + 2 S + 1 O",
        ),
    ],
)
def test_an_incomplete_released_split_names_the_file_line_and_unit_in_words(
    shared_plane, tmp_path, capsys, name, cut, expected
):
    """Issue 45: check-released named a Python tuple and dict (('load', 'weight'): ...) and no file or line."""
    from natcomp.cli import main

    lines = (shared_plane / name).read_text(encoding="utf-8").splitlines(keepends=True)
    broken = tmp_path / name
    broken.write_text("".join(cut(lines)), encoding="utf-8")
    assert main(["plane", "check-released", str(broken)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"natcomp: error: {broken}, {expected}"]
