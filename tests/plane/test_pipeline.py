from __future__ import annotations

import pickle

import pytest

from natcomp.plane.pipeline import check_released
from natcomp.plane.released import read_released
from natcomp.plane.splits import GoodSettings, OneItSettings, SplitLeak, good_split, one_it_split
from natcomp.tsv import read_tsv


def released_rows(frame, layout):
    """Our split in the released pickles' row layout (subsective coded N)."""
    rows = []
    for r in frame.itertuples(index=False):
        cls = "N" if r._2 == "S" else r._2
        row = [r.sentence, int(r.label), cls, r.adj, r.noun, r.hyp]
        rows.append(row + [f"{r.noun}_{r.hyp}"] if layout == "ood" else row)
    return rows


@pytest.fixture
def released_like(tmp_path, small_resource):
    resource, _ = small_resource
    good = good_split(resource, GoodSettings(test_noun_fraction=0.2, train_draws=30, test_draws=3), seed=1)
    one_it = one_it_split(resource, OneItSettings(test_chain_fraction=0.2, train_draws=20, test_draws=3), seed=1)
    paths = []
    for layout, (train, test) in (("ood", good), ("one_it", one_it)):
        for side, frame in (("train", train), ("test", test)):
            path = tmp_path / f"{layout}_{side}_1.pkl"
            path.write_bytes(pickle.dumps(released_rows(frame, layout), protocol=4))
            paths.append(path)
    return paths


def test_our_splits_round_trip_through_the_released_reader(released_like):
    ood_test = read_released(released_like[1])
    assert ood_test.attrs["layout"] == "ood" and set(ood_test["class"]) == {"I", "S", "O"}
    one_it_train = read_released(released_like[2])
    assert set(one_it_train["it"]) == {"IT3"}


def test_check_released_passes_and_writes_the_table(released_like, tmp_path):
    out = tmp_path / "released_checks.tsv"
    check_released(released_like, [1], out)
    table = read_tsv(out)
    assert len(table) == 4 and set(table["label_agreement"]) == {"1.0000"}


def test_check_released_fails_on_a_leak(released_like, tmp_path):
    # the test side used as the train side too: every adjective and noun leaks
    (tmp_path / "ood_train_1.pkl").write_bytes((tmp_path / "ood_test_1.pkl").read_bytes())
    out = tmp_path / "released_checks.tsv"
    with pytest.raises(SplitLeak, match="in both train and test"):
        check_released(released_like, [1], out)
    assert not out.exists()
