"""natcomp.sst (SST readers, SST-7) and natcomp.sst_demo (the generated treebank)."""

from __future__ import annotations

import math
import zipfile
from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.sst import (
    format_ptb_tree,
    parse_sst_tree,
    read_dataset_sentences,
    read_dataset_split,
    read_dictionary,
    read_ptb_trees,
    read_raw_scores,
    read_sentiment_labels,
    read_sostr,
    read_stree,
    raw_score_value,
    repair_mojibake,
    sentiment_nodes,
    sst5_label,
    sst7_label,
)
from natcomp.sst_demo import (
    DemoWorld,
    compose_polarity,
    demo_lexicon,
    generate_treebank,
    planted_phrases,
    polarity_to_value,
    write_release,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
needs_shared = pytest.mark.skipif(not (SHARED / "sst").is_dir(), reason="../shared/data (real SST files) is not here")


# ----------------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    ("value", "label"),
    [(0.0, 0), (0.1428, 0), (1 / 7 + 1e-9, 1), (0.5, 3), (0.8571, 5), (6 / 7 + 1e-9, 6), (1.0, 6)],
)
def test_sst7_label_is_seven_equal_bins_with_one_in_the_last(value, label):
    assert sst7_label(value) == label


def test_sst7_label_rejects_values_outside_the_unit_interval():
    for bad in (-0.01, 1.01, math.nan):
        with pytest.raises(ValueError):
            sst7_label(bad)


def test_sst5_label_bins_are_closed_on_the_right():
    assert [sst5_label(v) for v in (0.0, 0.2, 0.2001, 0.4, 0.6, 0.8, 0.81, 1.0)] == [0, 0, 1, 1, 2, 3, 4, 4]


def test_raw_score_value_maps_the_slider_to_the_unit_interval():
    assert raw_score_value([1, 1, 1]) == 0.0
    assert raw_score_value([25, 25, 25]) == 1.0
    assert raw_score_value([13, 13, 13]) == 0.5


# ----------------------------------------------------------------------------- trees
def test_parse_sst_tree_keeps_a_leaf_with_a_space_and_unescapes():
    tree = parse_sst_tree(r"(2 (2 like) (2 (2 (0 Contempt) (2 and)) (2 8 1\/2)))")
    assert tree.leaves() == ["like", "Contempt", "and", "8 1/2"]
    assert format_ptb_tree(tree) == r"(2 (2 like) (2 (2 (0 Contempt) (2 and)) (2 8 1\/2)))"


def test_parse_sst_tree_keeps_a_no_break_space_leaf_and_bracket_escapes():
    tree = parse_sst_tree("(3 (2 -LRB-) (3 (2 2\u00a01\\/2) (2 \\*\\*\\*)))")
    assert tree.leaves() == ["-LRB-", "2\u00a01/2", "***"]


@pytest.mark.parametrize("text", ["(2 (2 a) (9 b))", "(2 (2 a) (2 b)", "(2 (2 a) (2 b) (2 c))", "(x (2 a))"])
def test_bad_sst_trees_name_the_file_and_line(text):
    with pytest.raises(InputError) as error:
        parse_sst_tree(text, path="trees.txt", line=7)
    assert "trees.txt, line 7" in str(error.value)


def test_sentiment_nodes_spans_in_preorder():
    tokens, nodes = sentiment_nodes(parse_sst_tree("(3 (2 (2 a) (2 b)) (4 c))"))
    assert tokens == ["a", "b", "c"]
    assert [(n.index, n.start, n.end, n.label, n.children) for n in nodes] == [
        (0, 0, 3, 3, (1, 4)),
        (1, 0, 2, 2, (2, 3)),
        (2, 0, 1, 2, ()),
        (3, 1, 2, 2, ()),
        (4, 2, 3, 4, ()),
    ]


@needs_shared
def test_real_ptb_files_read_with_their_documented_counts():
    counts = {split: read_ptb_trees(SHARED / "sst" / f"{split}.txt") for split in ("dev", "test")}
    assert len(counts["dev"]) == 1101 and sum(t.count_nodes() for t in counts["dev"]) == 41447
    assert len(counts["test"]) == 2210 and sum(t.count_nodes() for t in counts["test"]) == 82600


@needs_shared
def test_real_train_file_reads_the_spaced_leaf_of_line_4342():
    trees = read_ptb_trees(SHARED / "sst" / "train.txt")
    assert len(trees) == 8544
    assert "8\u00a01/2" in trees[4341].leaves()


@needs_shared
def test_released_sst7_labels_are_consistent_with_the_tree_labels():
    """The SST-7 label of every released validation/test sentence is reproducible from the
    value range its PTB root label allows: the only values recoverable from the shared
    data (dictionary.txt and sentiment_labels.txt are not there). One test sentence breaks
    this: in the release its tree's root label disagrees with its value (the one root of 11,286
    that is not the SST-5 bin of its value), so it is the only one allowed."""
    from natcomp.noncompsst.sst7 import read_sst7

    inconsistent = []
    for split, name in (("dev", "validation"), ("test", "test")):
        roots = {" ".join(t.leaves()): int(t.label) for t in read_ptb_trees(SHARED / "sst" / f"{split}.txt")}
        released = read_sst7(SHARED / "noncompsst" / "sst7" / f"{name}.tsv")
        matched = 0
        for sentence, label in released:
            root = roots.get(sentence)
            if root is None:
                continue
            matched += 1
            # values of the root's SST-5 bin, on a fine grid; one of them must give the label
            low, high = 0.2 * root, 0.2 * (root + 1)
            reachable = {
                sst7_label(min(1.0, low + (high - low) * i / 400))
                for i in range(401)
                if sst5_label(min(1.0, low + (high - low) * i / 400)) == root
            }
            if label not in reachable:
                inconsistent.append(sentence)
        assert matched == len(released)
    assert [s[:40] for s in inconsistent] == ["If there 's a way to effectively teach k"]


# ----------------------------------------------------------------------------- release members
def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_members_read_from_plain_files_and_from_the_zip(tmp_path):
    members = {
        "stanfordSentimentTreebank/dictionary.txt": "good|0\nnot good|1\na|b|2\n",
        "stanfordSentimentTreebank/sentiment_labels.txt": "phrase ids|sentiment values\n0|0.8\n1|0.3\n2|0.5\n",
        "stanfordSentimentTreebank/datasetSentences.txt": "sentence_index\tsentence\n1\tclichÃ©s abound\n",
        "stanfordSentimentTreebank/datasetSplit.txt": "sentence_index,splitset_label\n1,3\n",
        "stanfordSentimentTreebank/SOStr.txt": "not|good\n",
        "stanfordSentimentTreebank/STree.txt": "3|3|0\n",
    }
    archive = _zip(tmp_path / "stanfordSentimentTreebank.zip", members)
    assert read_dictionary(archive) == {"good": 0, "not good": 1, "a|b": 2}
    assert read_sentiment_labels(archive) == {0: 0.8, 1: 0.3, 2: 0.5}
    assert read_dataset_sentences(archive) == {1: "clichés abound"}
    assert read_dataset_split(archive) == {1: "dev"}
    assert read_sostr(archive) == [["not", "good"]]
    assert read_stree(archive) == [[3, 3, 0]]
    plain = tmp_path / "dictionary.txt"
    plain.write_text(members["stanfordSentimentTreebank/dictionary.txt"], encoding="utf-8")
    assert read_dictionary(plain) == read_dictionary(archive)
    assert read_dictionary(tmp_path) == read_dictionary(archive)  # a folder that holds the member


def test_raw_scores_accept_commas_and_spaces(tmp_path):
    path = tmp_path / "rawscores_exp12.txt"
    path.write_text("0,13,14,15\n1 1 2 3 4\n2,25,25,25,25,25,25\n", encoding="utf-8")
    assert read_raw_scores(path) == {0: (13, 14, 15), 1: (1, 2, 3, 4), 2: (25,) * 6}


@pytest.mark.parametrize(
    ("name", "text", "reader", "line"),
    [
        ("rawscores_exp12.txt", "0,13,14\n", read_raw_scores, 1),
        ("rawscores_exp12.txt", "0,13,14,15\n1,0,14,15\n", read_raw_scores, 2),
        ("sentiment_labels.txt", "phrase ids|sentiment values\n0|1.5\n", read_sentiment_labels, 2),
        ("sentiment_labels.txt", "0|0.5\n", read_sentiment_labels, 1),
        ("datasetSplit.txt", "sentence_index,splitset_label\n1,4\n", read_dataset_split, 2),
        ("dictionary.txt", "good|zero\n", read_dictionary, 1),
        ("STree.txt", "3|0|0\n", read_stree, 1),
    ],
)
def test_bad_member_lines_name_file_and_line(tmp_path, name, text, reader, line):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as error:
        reader(path)
    assert error.value.line == line and name in str(error.value)


def test_a_missing_member_names_the_archive(tmp_path):
    archive = _zip(tmp_path / "stanfordSentimentTreebank.zip", {"stanfordSentimentTreebank/SOStr.txt": "a\n"})
    with pytest.raises(InputError, match="no member 'dictionary.txt'"):
        read_dictionary(archive)


def test_repair_mojibake_leaves_clean_text_alone():
    assert repair_mojibake("clichÃ©s and naÃ¯ve") == "clichés and naïve"
    assert repair_mojibake("plain café") == "plain café"


# ----------------------------------------------------------------------------- demo
def test_composition_rules():
    lex = demo_lexicon()
    clever = lex.polarity["clever"]
    assert compose_polarity(["the", "clever", "script"]) == pytest.approx(clever)
    assert compose_polarity(["is", "not", "clever"]) == pytest.approx(-0.6 * clever)
    assert compose_polarity(["very", "clever"]) == pytest.approx(1.5 * clever)
    assert compose_polarity(["dull", "but", "clever"]) == pytest.approx(0.7 * clever + 0.3 * lex.polarity["dull"])
    assert compose_polarity(["film"]) == 0.0


def test_planted_phrases_break_the_rules_but_their_parts_do_not():
    world = DemoWorld()
    for phrase in planted_phrases():
        assert 3 <= len(phrase.left) <= 8 and 3 <= len(phrase.right) <= 8
        assert abs(world.value(phrase.tokens) - world.rule_value(phrase.tokens)) >= 0.3, phrase.text
        assert world.value(phrase.left) == world.rule_value(phrase.left)
        assert world.value(phrase.right) == world.rule_value(phrase.right)
    assert polarity_to_value(1.0) == 1.0 and polarity_to_value(-1.0) == 0.0


def test_demo_release_is_deterministic_and_reads_back(tmp_path):
    first = write_release(generate_treebank(120, seed=3), tmp_path / "a")
    second = write_release(generate_treebank(120, seed=3), tmp_path / "b")
    for key in ("sst", "raw", "ptb"):
        assert first[key].read_bytes() == second[key].read_bytes()
    dictionary, labels = read_dictionary(first["sst"]), read_sentiment_labels(first["sst"])
    raw = read_raw_scores(first["raw"])
    assert set(dictionary.values()) == set(labels) == set(raw)
    for ident, scores in raw.items():
        assert labels[ident] == pytest.approx(raw_score_value(scores), abs=1e-5)
    sentences, splits = read_dataset_sentences(first["sst"]), read_dataset_split(first["sst"])
    trees = {split: read_ptb_trees(first["ptb"], split) for split in ("train", "dev", "test")}
    assert (
        sum(map(len, trees.values()))
        == len(sentences)
        == len(splits)
        == len(read_sostr(first["sst"]))
        == len(read_stree(first["sst"]))
    )
    # the PTB labels are the SST-5 bins of the dictionary values, node by node
    for tree in trees["train"][:20]:
        for node in tree.subtrees():
            assert int(node.label) == sst5_label(labels[dictionary[" ".join(node.leaves())]])
    # mojibake of datasetSentences.txt is repaired on reading
    assert any("é" in s for s in sentences.values()) or not any(
        "é" in " ".join(t.leaves()) for ts in trees.values() for t in ts
    )
