"""Tree Impurity and Weighted Node Switching against the paper's published values (Table 4, Figure 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.sst import parse_sst_tree
from natcomp.tre import as_sentiment_tree, read_sentiment_trees, sentence_text, tree_impurity, weighted_node_switching

SST = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "sst"
needs_sst = pytest.mark.skipif(not (SST / "dev.txt").exists(), reason=f"real SST trees not found at {SST}")

# Sentence (as in the paper) -> (TI, WNS) as published: Table 4 and the caption of Figure 3.
PUBLISHED = {
    "If Steven Soderbergh 's ` Solaris ' is a failure it is a glorious failure .": (2.51, 1.65),
    "A sober and affecting chronicle of the leveling effect of loss .": (0.0, 0.23),
    "Cool ?": (0.33, 2.5),
    "Nothing is black and white .": (0.0, 0.0),
    "A coda in every sense , The Pinochet Case splits time between a minute-by-minute account of the "
    "British court 's extradition chess game and the regime 's talking-head survivors .": (1.95, 0.37),
}


@pytest.fixture(scope="module")
def sst_sentences():
    trees = read_sentiment_trees(SST / "dev.txt") + read_sentiment_trees(SST / "test.txt")
    return {" ".join(tree.leaves()): tree for tree in trees}


@needs_sst
@pytest.mark.parametrize("sentence", list(PUBLISHED))
def test_published_values_are_reproduced_on_the_real_sst_trees(sst_sentences, sentence):
    ti, wns = PUBLISHED[sentence]
    tree = sst_sentences[sentence]
    assert tree_impurity(tree) == pytest.approx(ti, abs=0.01)
    assert weighted_node_switching(tree) == pytest.approx(wns, abs=0.01)


def test_hand_computed_values():
    # Root 3 over children 3 and 2: |3 - 2.5| * 2**0, one inner node, times 5.
    assert weighted_node_switching("(3 (3 Cool) (2 ?))") == pytest.approx(2.5)
    # Labels 3, 3, 2: |3 - 8/3|.
    assert tree_impurity("(3 (3 Cool) (2 ?))") == pytest.approx(1 / 3)
    # Depth 1 switch weighs half: inner nodes root (|4 - 2|) and (0 ..) (|0 - 2| / 2).
    tree = "(4 (0 (2 a) (2 b)) (4 c))"
    assert weighted_node_switching(tree) == pytest.approx(5 * (2 + 1) / 2)
    assert tree_impurity(tree) == pytest.approx(abs(4 - 12 / 5))


def test_one_word_sentence_has_no_switch():
    assert weighted_node_switching("(4 Great)") == 0.0
    assert tree_impurity("(4 Great)") == 0.0


def test_nodes_with_more_than_two_children_are_scored():
    from natcomp.trees import parse_tree

    tree = parse_tree("(4 (2 a) (3 b) (1 c))")
    assert weighted_node_switching(tree) == pytest.approx(5 * abs(4 - 2))
    assert tree_impurity(tree) == pytest.approx(abs(4 - 10 / 4))


def test_string_and_tree_object_give_the_same_scores():
    text = "(1 (2 (2 It) (3 (2 's) (4 great))) (0 (2 but) (0 awful)))"
    tree = parse_sst_tree(text)
    assert tree_impurity(text) == tree_impurity(tree)
    assert weighted_node_switching(text) == weighted_node_switching(tree)


@pytest.mark.parametrize("bad", ["(3 (7 Cool) (2 ?))", "(S (NP Cool) (. ?))", "(3 (3 Cool) (-1 ?))"])
def test_labels_outside_0_to_4_are_refused(bad):
    with pytest.raises(InputError, match="0-4"):
        tree_impurity(bad)
    with pytest.raises(InputError, match="0-4"):
        weighted_node_switching(bad)


def test_tree_object_with_bad_labels_is_refused():
    from natcomp.trees import parse_tree

    with pytest.raises(InputError, match="'NP'.*0-4"):
        as_sentiment_tree(parse_tree("(2 (NP Cool) (2 ?))"))


def test_bad_label_in_a_file_names_file_and_line(tmp_path):
    path = tmp_path / "dev.txt"
    path.write_text("(3 (3 Cool) (2 ?))\n(3 (9 Cool) (2 ?))\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_sentiment_trees(path)
    assert str(path) in str(error.value) and "line 2" in str(error.value)


def test_sentence_text_undoes_ptb_brackets():
    tree = parse_sst_tree("(2 (2 -LRB-) (2 (2 yes) (2 -RRB-)))")
    assert sentence_text(tree) == "( yes )"


@needs_sst
def test_real_sst_leaf_with_a_space_is_one_word():
    trees = read_sentiment_trees(SST / "train.txt")
    assert len(trees) == 8544
    assert "8\u00a01/2" in trees[4341].leaves()
    assert tree_impurity(trees[4341]) >= 0 and weighted_node_switching(trees[4341]) >= 0


def test_tree_impurity_is_an_absolute_difference_when_the_root_is_below_the_mean():
    # labels 0, 2, 2: mean 4/3 above the root's 0; without abs() TI would be -4/3
    assert tree_impurity("(0 (2 a) (2 b))") == pytest.approx(4 / 3)
    # and above the mean: labels 4, 2, 2, mean 8/3
    assert tree_impurity("(4 (2 a) (2 b))") == pytest.approx(4 / 3)
