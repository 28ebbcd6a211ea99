"""Tests of the bracketed-tree reader and writer (natcomp.trees)."""

from __future__ import annotations

import pytest

from natcomp.errors import InputError
from natcomp.trees import Production, Tree, iter_trees, parse_tree, read_trees, write_trees

POET = "(ROOT (S (NP (DT The) (NN poet)) (VP (VBZ sleeps)) (. .)))"


def test_parse_root_wrapped_tree():
    tree = parse_tree(POET)
    assert tree.label == "ROOT"
    assert [child.label for child in tree.children] == ["S"]
    assert tree.leaves() == ["The", "poet", "sleeps", "."]
    assert tree.to_bracket() == POET
    assert str(tree) == POET


def test_parse_without_root_and_with_unlabeled_outer_bracket():
    bare = parse_tree("(S (NP (DT The) (NN poet)) (VP (VBZ sleeps)) (. .))")
    assert bare.label == "S"
    assert bare.leaves() == ["The", "poet", "sleeps", "."]
    unlabeled = parse_tree("( (S (NP (DT The) (NN poet)) (VP (VBZ sleeps)) (. .)) )")
    assert unlabeled.label == "ROOT"
    assert unlabeled == parse_tree(POET)
    assert parse_tree("( (S (NN x)))", unlabeled_root="TOP").label == "TOP"


def test_whitespace_and_newlines_inside_a_tree_do_not_matter():
    tree = parse_tree("(ROOT\n  (S (NP (DT The)\t(NN poet))\n (VP (VBZ sleeps)) (. .) ) )")
    assert tree.to_bracket() == POET


def test_productions_labels_and_node_kinds():
    tree = parse_tree(POET)
    s = tree.children[0]
    assert s.production() == Production("S", ("NP", "VP", "."))
    assert str(s.production()) == "S -> NP VP ."
    det = s.children[0].children[0]
    assert det.is_preterminal and not det.is_frontier
    assert det.production() == Production("DT", (), "The")
    assert str(det.production()) == "DT -> 'The'"
    assert [node.label for node in tree.subtrees()] == ["ROOT", "S", "NP", "DT", "NN", "VP", "VBZ", "."]
    assert tree.count_nodes() == 8
    assert tree.height() == 4
    assert tree.productions()[0] == Production("ROOT", ("S",))


def test_frontier_nodes_only_in_fragments():
    fragment = parse_tree("(S (NP (DT the) (NN )) (VP ))", allow_frontier=True)
    nn = fragment.children[0].children[1]
    assert nn.is_frontier and nn.label == "NN"
    assert fragment.leaves() == ["the"]
    assert fragment.to_bracket() == "(S (NP (DT the) (NN )) (VP ))"
    assert len(fragment.productions()) == 3  # S, NP, DT; frontier nodes have none
    with pytest.raises(InputError, match="node 'NN' has no children"):
        parse_tree("(S (NP (DT the) (NN )) (VP ))")


def test_trees_compare_and_hash_by_structure():
    a = parse_tree(POET)
    b = parse_tree(POET.replace(" ", "  "))
    assert a == b and hash(a) == hash(b)
    assert a != parse_tree(POET.replace("poet", "king"))
    assert len({a, b}) == 1


def test_constructor_checks():
    with pytest.raises(ValueError):
        Tree("")
    with pytest.raises(ValueError):
        Tree("DT", [Tree("X", word="x")], word="the")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(S (NP (DT a) (NN b)) (VP (VB c))", "unbalanced brackets: 1 '(' not closed"),
        ("(S (NP (DT a) (NN b))) (VP (VB c)))", "text after the end of the tree"),
        ("(S (NP (DT a)))) ", "')' without a matching '('"),
        ("(S ( (DT a)))", "empty label"),
        ("()", "empty label"),
        ("( )", "empty label"),
        ("(S (NP (DT a)) x)", "stray text 'x'"),
        ("(S (NP (DT a b)))", "stray text 'b'"),
        ("(S (NP a (DT b)))", "a word must be the only child"),
        ("S (NP a)", "must start with '('"),
        ("(S (NP ))", "has no children"),
        ("( (S (NN a)) (S (NN b)))", "exactly one tree"),
        ("", "empty"),
    ],
)
def test_malformed_trees(text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        parse_tree(text, path="bank.mrg", line=7)
    assert info.value.path == "bank.mrg"
    assert info.value.line == 7
    assert str(info.value).startswith("bank.mrg, line 7: malformed tree")


def test_errors_name_the_column():
    with pytest.raises(InputError, match="at column 16"):
        parse_tree("(S (NP (DT a)) x)")


def test_read_trees_names_file_and_line(tmp_path):
    path = tmp_path / "bank.mrg"
    path.write_text(POET + "\n(S (NP (DT a)) (VP (VB b))\n" + POET + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_trees(path)
    assert info.value.path == str(path)
    assert info.value.line == 2
    assert "unbalanced" in str(info.value)


def test_read_trees_rejects_empty_lines_and_tolerates_crlf(tmp_path):
    path = tmp_path / "bank.mrg"
    path.write_bytes((POET + "\r\n\r\n" + POET + "\r\n").encode())
    with pytest.raises(InputError, match="empty line") as info:
        read_trees(path)
    assert info.value.line == 2
    path.write_bytes((POET + "\r\n" + POET + "\r\n").encode())
    assert [tree.to_bracket() for tree in read_trees(path)] == [POET, POET]


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_trees(tmp_path / "nope.mrg")


def test_write_and_read_back(tmp_path):
    trees = [parse_tree(POET), parse_tree("( (S (NP (PRP I)) (VP (VBP run))) )")]
    path = tmp_path / "sub" / "out.mrg.gz"
    assert write_trees(trees, path) == 2
    back = list(iter_trees(path))
    assert back == trees
    assert back[1].to_bracket() == "(ROOT (S (NP (PRP I)) (VP (VBP run))))"
