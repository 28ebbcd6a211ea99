from __future__ import annotations

import pickle

import pytest

from natcomp.errors import InputError
from natcomp.plane.pipeline import check_released, check_released_pair
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


def test_check_released_keeps_and_counts_duplicate_rows(released_like, tmp_path):
    """The released One-IT files repeat whole draws; they are checked as they are: the
    duplicates are counted, the repeated draw counts as a draw and the blocks still hold
    (dropping the repeats first would break the 6-pairs-per-adjective blocks)."""
    test_path = tmp_path / "one_it_test_1.pkl"
    rows = pickle.loads(test_path.read_bytes())
    block = rows[:24]  # the first draw: 4 adjectives x 6 pairs
    test_path.write_bytes(pickle.dumps(rows + block, protocol=4))
    out = tmp_path / "released_checks.tsv"
    table = check_released(released_like, [1], out)
    one_it_test = table[(table["layout"] == "one_it") & (table["side"] == "test")].iloc[0]
    assert one_it_test["rows"] == len(rows) + 24
    assert one_it_test["duplicates"] == 24
    assert one_it_test["draws"] == len(rows) // 24 + 1
    assert (table["draws"].astype(int) > 0).all()  # the train sides too
    assert list(table["side"]) == ["train", "test"] * 2


def test_released_pickles_pass_the_release_check(released_pickles):
    """Every real released pickle pair (train 3 of both layouts is not in the shared copy:
    its test file is checked alone): labels follow Table 1 on every row, the blocks of both
    layouts hold on the rows as published, train and test are disjoint and balanced."""
    figures = {}
    for split in range(1, 6):
        for layout in ("ood", "one_it"):
            test = released_pickles[(layout, "test", split)]
            train = released_pickles.get((layout, "train", split))
            for row in check_released_pair(split, layout, test, train):
                figures[(layout, row["side"], split)] = (row["rows"], row["duplicates"], row["draws"])
                assert row["label_agreement"] == 1.0
    assert len(figures) == 18
    for split in range(1, 6):
        assert figures[("ood", "test", split)] == (2016, 0, 112)
    for split in (1, 2, 4, 5):
        assert figures[("ood", "train", split)] == (60012, 0, 3334)
    one_it_tests = {split: figures[("one_it", "test", split)] for split in range(1, 6)}
    assert one_it_tests == {
        1: (2016, 36, 84),
        2: (2016, 46, 84),
        3: (2040, 48, 85),
        4: (2064, 94, 86),
        5: (2040, 62, 85),
    }
    one_it_trains = {split: figures[("one_it", "train", split)] for split in (1, 2, 4, 5)}
    assert one_it_trains == {
        1: (61296, 5973, 2554),
        2: (60408, 5580, 2517),
        4: (60024, 6079, 2501),
        5: (60072, 5763, 2503),
    }


@pytest.fixture
def tiny_encoder(tmp_path, released_like):
    from natcomp import hf

    sentences = [row[0] for path in released_like for row in pickle.loads(path.read_bytes())]
    return str(hf.build_tiny_model(tmp_path / "base", hf.words_for_vocabulary(sentences), kind="base", seed=1))


def _settings():
    from natcomp import hf

    return hf.FineTuneSettings(epochs=1, batch_size=16, learning_rate=1e-3, max_length=12, seed=1, device="cpu")


def _write_good_split(small_resource, folder):
    """A small GOoD split of ``small_resource`` written as the workflow writes splits: the
    train and test frames and their paths."""
    from natcomp.plane.splits import SPLIT_COLUMNS
    from natcomp.tsv import write_tsv

    resource, _ = small_resource
    train, test = good_split(resource, GoodSettings(test_noun_fraction=0.2, train_draws=30, test_draws=3), seed=1)
    write_tsv(folder / "train.tsv", train, SPLIT_COLUMNS)
    write_tsv(folder / "test.tsv", test, SPLIT_COLUMNS)
    return train, test, (folder / "train.tsv", folder / "test.tsv")


def test_finetune_on_a_released_pair_reports_released_rows(released_like, tiny_encoder, tmp_path):
    from natcomp.plane.pipeline import run_finetune_released

    train, test = released_like[0], released_like[1]
    accuracy = run_finetune_released(
        tiny_encoder, "good", 1, train, test, _settings(), tmp_path / "p.tsv", tmp_path / "a.tsv"
    )
    overall = accuracy[accuracy["class"] == "all"].iloc[0]
    assert (overall["train_set"], overall["setting"], overall["test_set"]) == ("released", "good", "released")
    assert overall["items"] == len(pickle.loads(test.read_bytes()))
    assert read_tsv(tmp_path / "a.tsv")["train_set"].eq("released").all()


def test_finetune_on_a_leaking_released_pair_fails_before_training(released_like, tiny_encoder, tmp_path):
    from natcomp.plane.pipeline import run_finetune_released

    test = released_like[1]
    with pytest.raises(SplitLeak, match="released ood split 1: split check failed: .*adj word"):
        run_finetune_released(tiny_encoder, "good", 1, test, test, _settings(), tmp_path / "p.tsv", tmp_path / "a.tsv")
    assert not (tmp_path / "a.tsv").exists()


def test_own_model_on_a_released_test_only_when_disjoint(released_like, tiny_encoder, tmp_path, small_resource):
    """Our split's model is scored on a released test file only after the two are checked
    disjoint: our own test side written as a 'released' file passes; a released file made
    from our train side leaks and fails the job before training."""
    from natcomp.plane.pipeline import run_finetune

    train, test, _ = _write_good_split(small_resource, tmp_path)
    disjoint = tmp_path / "released_test.pkl"
    disjoint.write_bytes(pickle.dumps(released_rows(test, "ood"), protocol=4))
    args = (tiny_encoder, "good", 1, tmp_path / "train.tsv", tmp_path / "test.tsv")
    accuracy = run_finetune(*args, {"released": disjoint}, _settings(), tmp_path / "p.tsv", tmp_path / "a.tsv")
    assert set(accuracy["test_set"]) == {"own", "released"} and set(accuracy["train_set"]) == {"own"}
    leaking = tmp_path / "leaking.pkl"
    leaking.write_bytes(pickle.dumps(released_rows(train.head(18), "ood"), protocol=4))
    with pytest.raises(SplitLeak, match="against the released test .*leaking.pkl: split check failed"):
        run_finetune(*args, {"released": leaking}, _settings(), tmp_path / "p2.tsv", tmp_path / "a2.tsv")
    assert not (tmp_path / "a2.tsv").exists()


def test_length_sweep_cuts_the_inputs_and_averages_over_splits(tiny_encoder, tmp_path, small_resource):
    """At 2 tokens every input is [CLS] [SEP]: one answer for all, accuracy = the balanced
    test's 0.5. The sweep table averages over splits per length."""
    from natcomp.plane.pipeline import length_sweep_outputs, run_finetune_length

    _write_good_split(small_resource, tmp_path)
    outputs = []
    for length in (2, 12):
        out = tmp_path / f"{length}.tsv"
        accuracy = run_finetune_length(
            tiny_encoder, "good", 1, length, tmp_path / "train.tsv", tmp_path / "test.tsv", _settings(), out
        )
        assert set(accuracy["max_length"]) == {length}
        outputs.append(out)
    short = read_tsv(outputs[0])
    assert float(short[short["class"] == "all"]["accuracy"].item()) == 0.5
    table = length_sweep_outputs(outputs, tmp_path / "figure8.tsv", tmp_path / "figure8.png")
    assert list(table["max_length"]) == [2, 12] and list(table["splits"]) == [1, 1]
    assert (tmp_path / "figure8.png").read_bytes()[:4] == b"\x89PNG"


def test_the_sweep_point_at_the_trainings_own_length_is_the_main_fine_tuning(
    released_like, tiny_encoder, tmp_path, small_resource
):
    """The sweep's point at the training's max_length, read from the main fine-tuning (with a
    released test beside its own), is byte for byte the sweep run trained at that length."""
    from natcomp.plane.pipeline import length_point_of_finetune, run_finetune, run_finetune_length

    _, test, splits = _write_good_split(small_resource, tmp_path)
    released = tmp_path / "released_test.pkl"
    released.write_bytes(pickle.dumps(released_rows(test, "ood"), protocol=4))
    args = (tiny_encoder, "good", 1)
    run_finetune(*args, *splits, {"released": released}, _settings(), tmp_path / "p.tsv", tmp_path / "main.tsv")
    run_finetune_length(*args, _settings().max_length, *splits, _settings(), tmp_path / "trained.tsv")
    read = length_point_of_finetune(tmp_path / "main.tsv", _settings().max_length, tmp_path / "read.tsv")
    assert set(read["test_set"]) == {"own"}
    assert (tmp_path / "read.tsv").read_text() == (tmp_path / "trained.tsv").read_text()


def test_the_sweep_point_needs_the_own_test_side(tmp_path):
    from natcomp.plane.finetune import RESULT_COLUMNS
    from natcomp.plane.pipeline import length_point_of_finetune
    from natcomp.tsv import write_tsv
    import pandas as pd

    released_only = pd.DataFrame(
        [["own", "good", "1", "released", "all", "4", "0.5000", "0.5000"]], columns=RESULT_COLUMNS
    )
    write_tsv(tmp_path / "main.tsv", released_only, RESULT_COLUMNS)
    with pytest.raises(InputError, match="no rows of test_set own"):
        length_point_of_finetune(tmp_path / "main.tsv", 12, tmp_path / "read.tsv")
    assert not (tmp_path / "read.tsv").exists()


def test_length_table_mean_and_sd_per_length():
    import pandas as pd

    from natcomp.plane.tables import length_table

    rows = [
        {"setting": "in_distribution", "split": s, "class": c, "max_length": n, "accuracy": a, "chance": 0.5}
        for n, accuracies in ((6, [0.5, 0.6, 0.7]), (12, [0.9, 1.0, 0.95]))
        for s, a in enumerate(accuracies, start=1)
        for c in ("all", "I")
    ]
    rows.append(
        {"setting": "in_distribution", "split": 1, "class": "I", "max_length": 6, "accuracy": 0.0, "chance": 0.5}
    )
    table = length_table(pd.DataFrame(rows)).set_index("max_length")
    assert table.loc[6, "accuracy_mean"] == pytest.approx(0.6) and table.loc[6, "accuracy_sd"] == pytest.approx(0.1)
    assert table.loc[12, "accuracy_mean"] == pytest.approx(0.95) and table.loc[12, "splits"] == 3


def test_released_pairs_pass_the_finetune_leak_check_and_crossed_ones_fail(released_pickles):
    """The check both fine-tuning jobs run before training, on the real pickles: a released
    train split and its own test split pass; a model trained on one split would leak into
    another split's test side (shared adjectives), which fails."""
    from natcomp.plane.pipeline import check_against_released

    for layout in ("ood", "one_it"):
        train = read_released(released_pickles[(layout, "train", 1)], layout)
        check_against_released(train, read_released(released_pickles[(layout, "test", 1)], layout), layout, "pair 1")
        with pytest.raises(SplitLeak, match=r"train 1 on test 2: split check failed: .*adj word\(s\) in both"):
            check_against_released(
                train, read_released(released_pickles[(layout, "test", 2)], layout), layout, "train 1 on test 2"
            )
