from __future__ import annotations

import json

import pytest

from natcomp.errors import InputError
from natcomp.cli import main
from natcomp.plane.corpus import CorpusSettings, generate_corpus, write_corpus
from natcomp.plane.adjectives import DEFAULT_ADJECTIVES, load_adjectives
from natcomp.plane.pipeline import build_resource, read_items
from natcomp.plane.items import ResourceSettings


def test_hypernyms_command(capsys, wn):
    assert main(["plane", "hypernyms", "crossings", "--max-distance", "1"]) == 0
    assert capsys.readouterr().out == "crossings\ttravel\n"
    assert main(["plane", "hypernyms", "qzxv"]) == 2
    assert "'qzxv' has no noun synset" in capsys.readouterr().err


def test_hypernyms_says_when_every_hypernym_is_a_multi_word_lemma(capsys, wn):
    assert main(["plane", "hypernyms", "car", "dog", "--max-distance", "3"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "car\t"
    assert captured.err.splitlines() == [
        "natcomp plane hypernyms: car: no hypernym listed: every hypernym within distance 3 is a multi-word lemma "
        "(motor_vehicle, self-propelled_vehicle, wheeled_vehicle), and PLANE keeps unigrams only"
    ]  # one line, for car only: dog has unigram hypernyms


def test_resource_and_split_commands(tmp_path, wn, demo_nouns):
    corpus = tmp_path / "corpus.trees"
    settings = CorpusSettings(seed=2, adjectives_per_noun={"I": 4, "S": 4, "O": 12})
    write_corpus(corpus, generate_corpus(load_adjectives(), demo_nouns, settings))
    assert main(["plane", "resource", "--source", "trees", "--input", str(corpus), "--out", str(tmp_path / "res")]) == 0
    items = read_items(tmp_path / "res" / "items.tsv")
    assert set(items["it"]) == {"IT1", "IT2", "IT3"}
    split_settings = json.dumps({"test_noun_fraction": 0.2, "train_draws": 20, "test_draws": 3})
    args = [
        "plane",
        "split",
        "--resource",
        str(tmp_path / "res"),
        "--kind",
        "good",
        "--seed",
        "1",
        "--settings",
        split_settings,
        "--train",
        str(tmp_path / "train.tsv"),
        "--test",
        str(tmp_path / "test.tsv"),
    ]
    assert main(args) == 0
    first = (tmp_path / "test.tsv").read_bytes()
    assert main(args) == 0
    assert (tmp_path / "test.tsv").read_bytes() == first  # same config, byte-identical split


def test_check_released_command(released_files, capsys):
    assert main(["plane", "check-released", str(released_files[0])]) == 0
    assert "2016 agree with Table 1" in capsys.readouterr().out


@pytest.mark.parametrize("layout", ["ood", "one_it"])
def test_check_released_command_checks_a_real_pair_as_published(released_pickles, capsys, layout):
    """The One-IT files hold duplicate rows, as released: the pair passes with them kept."""
    test, train = released_pickles[(layout, "test", 1)], released_pickles[(layout, "train", 1)]
    assert main(["plane", "check-released", str(test), "--train", str(train)]) == 0
    assert "disjoint and balanced" in capsys.readouterr().out


def test_released_noun_without_synset_names_file_and_line(tmp_path, wn):
    path = tmp_path / "OoD_test.tsv"
    path.write_text(
        "sentence\tlabel\tclass\tadj\tnoun\thyp\tnoun_hyp\n"
        "A red dog is a dog\t1\tI\tred\tdog\tcanine\tdog_canine\n"
        "A red qzxv is a qzxv\t1\tI\tred\tqzxv\tcanine\tqzxv_canine\n"
    )
    with pytest.raises(InputError, match="OoD_test.tsv, line 3: noun 'qzxv' has no noun synset"):
        build_resource(tmp_path / "out", DEFAULT_ADJECTIVES, "released", [path], ResourceSettings())
    assert not (tmp_path / "out").exists()
