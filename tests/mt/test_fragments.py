"""Tests of Double-DOP fragment extraction, selection, choice and tree search (natcomp.mt.semi_natural.fragments)."""

from __future__ import annotations

import os
import random
import stat
import sys
from pathlib import Path

import pytest

from natcomp.mt.semi_natural import fragments as frag
from natcomp.cli import main
from natcomp.mt.demo_corpus import generate_pairs
from natcomp.errors import InputError, NatcompError
from natcomp.mt.semi_natural.fragments import (
    ChosenFragment,
    Phrase,
    choose_fragments,
    count_nonterminals,
    discodop_fragments,
    discodop_fragments_command,
    discodop_treesearch,
    discodop_treesearch_command,
    extract_fragments,
    find_matches,
    fragment_label,
    match_phrases,
    parse_treesearch_output,
    read_choice_table,
    read_fragments,
    read_matches,
    select_fragments,
    structural_distance,
    write_choice_table,
    write_fragments,
    write_matches,
)
from natcomp.trees import Tree, parse_tree

RESOURCES = Path(__file__).resolve().parents[2] / "resources"

SLEEPERS = [
    "(S (NP (DT the) (NN cat)) (VP (VBZ sleeps)))",
    "(S (NP (DT the) (NN dog)) (VP (VBZ sleeps)))",
    "(S (NP (DT the) (NN bird)) (VP (VBZ sleeps)))",
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------
# extraction: hand-made treebanks


def test_three_trees_share_one_fragment():
    assert extract_fragments(SLEEPERS) == {"(S (NP (DT the) (NN )) (VP (VBZ sleeps)))": 3}


def test_trees_sharing_nothing_give_nothing():
    assert extract_fragments(["(S (NP (NN a)) (VP (VB b)))", "(X (Y c))"]) == {}
    assert extract_fragments([SLEEPERS[0]]) == {}
    assert extract_fragments([]) == {}


def test_single_productions_are_kept():
    # the S productions differ (NP VP / VP NP); NP -> NN and VP -> VB match in different contexts
    trees = ["(S (NP (NN a)) (VP (VB b)))", "(S (VP (VB c)) (NP (NN d)))"]
    assert extract_fragments(trees) == {"(NP (NN ))": 2, "(VP (VB ))": 2}


def test_identical_trees():
    tree = "(S (NP (DT the) (NN cat)) (VP (VBZ sees) (NP (DT the) (NN cat))))"
    # the whole tree (2 trees) and the NP, shared as subject and object (2 per tree)
    assert extract_fragments([tree, tree]) == {tree: 2, "(NP (DT the) (NN cat))": 4}


def test_one_tree_with_a_repeated_subtree_has_no_pair():
    tree = "(S (NP (DT the) (NN cat)) (VP (VBZ sees) (NP (DT the) (NN cat))))"
    assert extract_fragments([tree]) == {}


def test_pairs_within_one_tree_do_not_count():
    # the two NPs have the same production in different contexts, but in the same tree
    assert extract_fragments(["(S (NP (NN a)) (VP (VB x) (NP (NN b))))"]) == {}
    # with a second tree, the pairs across the trees do count
    trees = ["(S (NP (NN a)) (VP (VB x) (NP (NN b))))", "(S (VP (VB x) (NP (NN c))))"]
    assert extract_fragments(trees) == {"(VP (VB x) (NP (NN )))": 2, "(NP (NN ))": 3}


def test_fragment_recurring_inside_a_bigger_one():
    trees = [
        "(S (NP (DT the) (NN cat)) (VP (VBZ sleeps)))",
        "(S (NP (DT the) (NN cat)) (VP (VBZ eats)))",
        "(VP (VBZ sees) (NP (DT the) (NN cat)))",
    ]
    assert extract_fragments(trees) == {
        "(S (NP (DT the) (NN cat)) (VP (VBZ )))": 2,
        "(NP (DT the) (NN cat))": 3,  # counted everywhere, also inside the bigger fragment
    }


def test_counts_are_exact_not_pair_counts():
    # the fragment comes from one pair only, but it matches a third tree as well
    trees = [
        "(S (NP (DT a) (NN x)) (VP (VB y)))",
        "(S (NP (DT a) (NN z)) (VP (VB y)))",
        "(S (NP (DT a) (NN x)) (VP (VB y) (NP (NN w))))",
    ]
    assert extract_fragments(trees) == {
        "(S (NP (DT a) (NN )) (VP (VB y)))": 2,  # trees 1-2
        "(S (NP (DT a) (NN x)) (VP ))": 2,  # trees 1-3
        "(S (NP (DT a) (NN )) (VP ))": 3,  # from trees 2-3, also matches tree 1
        "(VB y)": 3,  # the VPs differ (VB / VB NP), their VB children do not
    }


def test_children_at_different_positions_are_maximal():
    # NP -> NN at position 0 of S in one tree, position 1 in the other: same parent production
    trees = ["(S (NP (NN a)) (NP (NN b)))", "(S (NP (NN c)) (NP (NN a)))"]
    assert extract_fragments(trees) == {
        "(S (NP (NN )) (NP (NN )))": 2,
        "(NP (NN a))": 2,  # position 0 in one tree, 1 in the other
        "(NP (NN ))": 4,  # b (position 1) and c (position 0)
    }


def test_frontier_notation_and_input_types():
    trees = [parse_tree(t) for t in SLEEPERS]
    assert extract_fragments(trees) == extract_fragments(SLEEPERS)
    (fragment,) = extract_fragments(trees)
    assert "(NN )" in fragment
    assert parse_tree(fragment, allow_frontier=True).to_bracket() == fragment


def test_malformed_string_tree_is_an_input_error():
    with pytest.raises(InputError, match="line 2"):
        extract_fragments([SLEEPERS[0], "(S (NP x)"])


def test_frontier_in_a_treebank_tree_is_rejected():
    with pytest.raises(ValueError, match="frontier"):
        extract_fragments([parse_tree("(S (NP ) (VP (VB x)))", allow_frontier=True)])


# --------------------------------------------------------------------------------------
# extraction: against a brute-force reference


def _common(x: Tree, y: Tree) -> Tree:
    if x.word is not None:
        return Tree(x.label, word=x.word)
    return Tree(
        x.label,
        [_common(a, b) if a.production() == b.production() else Tree(a.label) for a, b in zip(x.children, y.children)],
    )


def _matches(fragment: Tree, node: Tree) -> bool:
    if fragment.label != node.label:
        return False
    if fragment.is_frontier:
        return True
    if fragment.production() != node.production():
        return False
    return all(f.is_frontier or _matches(f, n) for f, n in zip(fragment.children, node.children))


def _brute_force(trees: list[Tree]) -> dict[str, int]:
    """Every pair of nodes of every pair of distinct trees, as literally as the definition."""

    def nodes(tree):
        out, stack = [(tree, None, None)], [tree]
        while stack:
            node = stack.pop()
            for i, child in enumerate(node.children):
                out.append((child, node, i))
                stack.append(child)
        return out

    all_nodes = [nodes(tree) for tree in trees]
    found = set()
    for i in range(len(trees)):
        for j in range(i + 1, len(trees)):
            for x, px, ix in all_nodes[i]:
                for y, py, iy in all_nodes[j]:
                    if x.production() != y.production():
                        continue
                    if px is not None and py is not None and ix == iy and px.production() == py.production():
                        continue  # part of the parents' fragment
                    found.add(_common(x, y).to_bracket())
    counts = {}
    for text in found:
        fragment = parse_tree(text, allow_frontier=True)
        counts[text] = sum(1 for tree in trees for node in tree.subtrees() if _matches(fragment, node))
    return counts


_RULES = {
    "S": [["NP", "VP"], ["S", "CC", "S"], ["NP", "VP", "PU"]],
    "NP": [["DT", "NN"], ["NP", "PP"], ["NN"]],
    "VP": [["VB", "NP"], ["VB"], ["VB", "NP", "PP"]],
    "PP": [["IN", "NP"]],
}
_WORDS = {"DT": ["the", "a"], "NN": ["cat", "dog", "man"], "VB": ["sees", "runs"], "IN": ["of", "in"]}
_WORDS.update(CC=["and"], PU=["."])


def _random_tree(rng: random.Random, label: str, depth: int = 0) -> Tree:
    if label in _WORDS:
        return Tree(label, word=rng.choice(_WORDS[label]))
    options = _RULES[label] if depth < 4 else [r for r in _RULES[label] if label not in r] or _RULES[label][:1]
    return Tree(label, [_random_tree(rng, child, depth + 1) for child in rng.choice(options)])


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_brute_force_on_random_treebanks(seed):
    rng = random.Random(seed)
    trees = [_random_tree(rng, "S") for _ in range(rng.randint(2, 7))]
    if seed % 3 == 0:
        trees.append(trees[0])  # an identical tree
    if seed % 2 == 0:
        trees = [Tree("ROOT", [tree]) for tree in trees]
    expected = _brute_force(trees)
    assert expected  # the grammar is small enough for trees to share something
    assert extract_fragments(trees) == expected


@pytest.fixture(scope="module")
def demo_trees() -> list[Tree]:
    pairs = generate_pairs(RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv", 300, 7)
    return [parse_tree(pair.tree) for pair in pairs]


@pytest.fixture(scope="module")
def demo_fragments(demo_trees) -> dict[str, int]:
    return extract_fragments(demo_trees)


def test_counts_equal_tree_search_matches_on_demo_trees(demo_trees, demo_fragments):
    assert len(demo_fragments) > 500
    assert min(demo_fragments.values()) >= 2
    big = [f for f in demo_fragments if count_nonterminals(f) >= 10]
    assert len(big) > 50
    for fragment in big[:200]:
        assert len(match_phrases(fragment, demo_trees)) == demo_fragments[fragment], fragment


def test_demo_trees_give_large_np_and_vp_fragments(demo_fragments):
    selected = select_fragments(demo_fragments, top=100, min_nonterminals=15)
    assert len(selected["NP"]) >= 5
    assert len(selected["VP"]) >= 3


# --------------------------------------------------------------------------------------
# fragment files


def test_write_sorted_and_read_back(tmp_path):
    fragments = {"(NP (DT a) (NN ))": 3, "(VP (VB ))": 7, "(ADJP (JJ ))": 3}
    path = tmp_path / "out" / "fragments.txt"
    assert write_fragments(fragments, path) == 3
    assert path.read_text(encoding="utf-8").splitlines() == [
        "(VP (VB ))\t7",
        "(ADJP (JJ ))\t3",
        "(NP (DT a) (NN ))\t3",
    ]
    assert read_fragments(path) == fragments
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".part")]


DISCODOP_SAMPLE = (
    "(S (NP (DT the) (NN )) (VP (VBZ sleeps)))\t3\r\n"
    "(NP (DT the) (NP|<DT.JJ,NN> (JJ ) (NN )))\t[0, 4, 4, 9]\r\n"
    "(VP (VB ) (NP ))\t5/20\r\n"
    "\r\n"
    "(NP  (DT the)  (NN ))\t2\r\n"
    "(NP (DT the) (NN ))\t1\r\n"
)


def test_read_discodop_output(tmp_path):
    path = tmp_path / "discodop.txt"
    path.write_bytes(DISCODOP_SAMPLE.encode())
    assert read_fragments(path) == {
        "(S (NP (DT the) (NN )) (VP (VBZ sleeps)))": 3,
        "(NP (DT the) (JJ ) (NN ))": 4,  # --indices: one index per occurrence; debinarized
        "(VP (VB ) (NP ))": 5,  # --relfreq n/m
        "(NP (DT the) (NN ))": 3,  # the same fragment twice (spacing differs): summed
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("(S (VP (VB 0=is) (JJ 2=)) (NP 1=))\tis John rich\t2", "--fmt=bracket"),
        ("(NP (DT a) (NN ))", "expected 'fragment<TAB>count'"),
        ("(NP (DT a) (NN ))\tmany", "not a number"),
        ("(NP (DT a) NN)\t2", "stray text 'NN'"),  # --alt notation
        ("(NP (DT a) (NN )\t2", "unbalanced"),
    ],
)
def test_read_fragments_errors_name_the_line(tmp_path, line, message):
    path = _write(tmp_path / "f.txt", ["(VP (VB ))\t2", line])
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        read_fragments(path)
    assert info.value.line == 2
    assert info.value.path == str(path)


def test_debinarize():
    tree = parse_tree("(VP (VB see) (VP|<VB.NP,PP,PP> (NP ) (VP|<NP.PP,PP> (PP ) (PP ))))", allow_frontier=True)
    assert frag.debinarize(tree).to_bracket() == "(VP (VB see) (NP ) (PP ) (PP ))"
    frontier = parse_tree("(VP (VB see) (VP|<VB.NP,PP> ))", allow_frontier=True)
    assert frag.debinarize(frontier).to_bracket() == frontier.to_bracket()


# --------------------------------------------------------------------------------------
# non-terminals and selection

TABLE2_TEMPLATE1 = "(VP (TO ) (VP (VB ) (NP (NP ) (PP (IN ) (NP (NP ) (PP (IN ) (NP )))))))"


def test_count_nonterminals():
    assert count_nonterminals("(NP (NP (DT the) (NN )) (PP ))") == 5
    assert count_nonterminals("(DT the)") == 1
    assert count_nonterminals(TABLE2_TEMPLATE1) == 13  # below the paper's 15 (documented)
    assert count_nonterminals(parse_tree(TABLE2_TEMPLATE1, allow_frontier=True)) == 13
    assert fragment_label(TABLE2_TEMPLATE1) == "VP"
    assert fragment_label(" (NP-SBJ (DT a))") == "NP-SBJ"


def _chain(label: str, n: int, word: str = "") -> str:
    """A fragment with exactly n non-terminals: label over a chain of n - 2 X nodes over (Y word)."""
    inner = f"(Y {word})" if word else "(Y )"
    for _ in range(n - 2):
        inner = f"(X {inner})"
    return f"({label} {inner})"


def test_select_thresholds_top_and_labels():
    fragments = {
        _chain("NP", 15): 5,
        _chain("NP", 14): 50,  # too small
        _chain("NP", 16, "w"): 5,
        _chain("NP", 20): 9,
        _chain("VP", 15): 2,
        _chain("NP-SBJ", 20): 100,  # another label
        _chain("S", 30): 100,
    }
    assert count_nonterminals(_chain("NP", 15)) == 15
    selected = select_fragments(fragments, top=100, min_nonterminals=15)
    assert list(selected) == ["NP", "VP"]
    # ties in count: by fragment string ("(X" sorts before "(Y")
    assert selected["NP"] == [(_chain("NP", 20), 9), (_chain("NP", 16, "w"), 5), (_chain("NP", 15), 5)]
    assert selected["VP"] == [(_chain("VP", 15), 2)]
    assert select_fragments(fragments, top=1)["NP"] == [(_chain("NP", 20), 9)]
    assert select_fragments(fragments, min_nonterminals=14)["NP"][0] == (_chain("NP", 14), 50)
    assert select_fragments(fragments, labels=("S", "ADJP")) == {"S": [(_chain("S", 30), 100)], "ADJP": []}


# --------------------------------------------------------------------------------------
# choice

VP_A = "(VP (VBZ ) (NP (NP (DT ) (NN )) (PP (IN ) (NP (DT ) (NN )))))"
VP_A_LEX = "(VP (VBZ ) (NP (NP (DT the) (NN )) (PP (IN of) (NP (DT ) (NN )))))"  # same structure, words
VP_B = "(VP (TO ) (VP (VB ) (S (VP (TO ) (VP (VB ) (NP ))))))"
VP_C = "(VP (VBD ) (SBAR (IN ) (S (NP ) (VP ))))"
VP_FIXED = "(VP (VBZ sees) (NP (DT the) (NN cat)))"  # no frontier: not eligible


def test_structural_distance():
    assert structural_distance(VP_A, VP_A_LEX) == 0.0
    assert structural_distance(VP_A, VP_B) == 1.0
    assert 0 < structural_distance(VP_A, "(VP (VBZ ) (NP (NP (DT ) (NN )) (PP (IN ) (NP ))))") < 1


def test_automatic_choice_prefers_frequent_and_different():
    selected = {
        "VP": [(VP_FIXED, 90), (VP_A, 50), (VP_A_LEX, 40), (VP_B, 30), (VP_C, 3)],
        "NP": [(f"(NP (NP ) (X{i} ))", 10 - i) for i in range(8)],
    }
    chosen = choose_fragments(selected, n_vp=3, n_np=5)
    assert [c.id for c in chosen] == ["VP1", "VP2", "VP3", "NP1", "NP2", "NP3", "NP4", "NP5"]
    assert [c.fragment for c in chosen[:3]] == [VP_A, VP_B, VP_C]  # not the lexical variant, not the fixed one
    assert chosen[0] == ChosenFragment("VP1", "VP", VP_A, 50, 11)
    # NP candidates all differ in structure (distance 0.5 >= 0.4): the five most frequent
    assert [c.count for c in chosen[3:]] == [10, 9, 8, 7, 6]
    # with a stricter distance nothing is far enough: most distant, then most frequent
    strict = choose_fragments(selected, n_vp=2, n_np=0, min_distance=1.01)
    assert [c.fragment for c in strict] == [VP_A, VP_B]


def test_automatic_choice_needs_enough_eligible_fragments():
    with pytest.raises(NatcompError, match="only 2 of the 3 selected VP fragments"):
        choose_fragments({"VP": [(VP_FIXED, 9), (VP_A, 5), (VP_B, 4)], "NP": []}, n_vp=3, n_np=0)


def test_overrides():
    selected = {"VP": [(VP_A, 50), (VP_A_LEX, 40), (VP_B, 30), (VP_C, 3)], "NP": [("(NP (NP ) (PP ))", 4)]}
    chosen = choose_fragments(selected, n_vp=3, n_np=1, overrides={"VP": [VP_C, VP_A_LEX.replace(" (", "  ("), VP_A]})
    assert [(c.id, c.fragment, c.count) for c in chosen] == [
        ("VP1", VP_C, 3),
        ("VP2", VP_A_LEX, 40),
        ("VP3", VP_A, 50),
        ("NP1", "(NP (NP ) (PP ))", 4),  # no NP override: automatic
    ]


def test_override_errors_name_the_fragments():
    selected = {"VP": [(VP_A, 50), (VP_B, 30), (VP_C, 3)], "NP": []}
    with pytest.raises(NatcompError) as info:
        choose_fragments(selected, n_vp=2, n_np=0, overrides={"VP": [VP_A, VP_FIXED]})
    assert VP_FIXED in str(info.value) and "not among the 3 selected VP fragments" in str(info.value)
    with pytest.raises(NatcompError, match="1 VP fragment overrides given, 2 needed"):
        choose_fragments(selected, n_vp=2, n_np=0, overrides={"VP": [VP_A]})
    with pytest.raises(NatcompError, match="twice"):
        choose_fragments(selected, n_vp=2, n_np=0, overrides={"VP": [VP_A, VP_A]})
    with pytest.raises(NatcompError, match="unknown labels"):
        choose_fragments(selected, n_vp=2, n_np=0, overrides={"PP": [VP_A]})
    with pytest.raises(NatcompError, match="not a fragment"):
        choose_fragments(selected, n_vp=2, n_np=0, overrides={"VP": ["(VP (VB ", VP_A]})


def test_choice_table_round_trip(tmp_path):
    chosen = choose_fragments({"VP": [(VP_A, 50), (VP_B, 30)], "NP": [("(NP (NP ) (PP ))", 4)]}, n_vp=2, n_np=1)
    path = tmp_path / "choice.tsv"
    assert write_choice_table(chosen, path) == 3
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "id\tlabel\tcount\tnonterminals\tfragment"
    assert lines[1] == f"VP1\tVP\t50\t11\t{VP_A}"
    assert read_choice_table(path) == chosen
    path.write_text(lines[0] + "\nVP1\tNP\t50\t11\t" + VP_A + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="differs from the fragment's root label") as info:
        read_choice_table(path)
    assert info.value.line == 2


def test_demo_choice_end_to_end(demo_fragments):
    chosen = choose_fragments(select_fragments(demo_fragments))
    assert [c.id for c in chosen] == ["VP1", "VP2", "VP3", "NP1", "NP2", "NP3", "NP4", "NP5"]
    for item in chosen:
        assert fragment_label(item.fragment) == item.label
        assert item.nonterminals >= 15
        assert item.count == demo_fragments[item.fragment]
        assert "( )" not in item.fragment and " )" in item.fragment  # has a frontier
    assert len({c.fragment for c in chosen}) == 8


# --------------------------------------------------------------------------------------
# tree search

SEARCH_TREES = [
    "(ROOT (S (NP (NP (DT the) (NN king)) (PP (IN of) (NP (NNP Spain)))) (VP (VBZ sleeps)) (. .)))",
    "(ROOT (S (NP (PRP I)) (VP (VBP read) (NP (NP (DT a) (NN book)) (PP (IN of) (NP (NN poetry))))) (. .)))",
    "(ROOT (S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN car)))) (VP (VBZ sings)) (. .)))",
    "(ROOT (S (NP (NP (DT the) (JJ old) (NN man)) (PP (IN of) (NP (NN war)))) (VP (VBZ sings)) (. .)))",
]


def test_match_phrases():
    query = "(NP (NP (DT ) (NN )) (PP (IN of) (NP )))"
    found = match_phrases(query, SEARCH_TREES)
    assert [" ".join(node.leaves()) for node in found] == ["the king of Spain", "a book of poetry"]
    assert found[0].to_bracket() == "(NP (NP (DT the) (NN king)) (PP (IN of) (NP (NNP Spain))))"
    # a frontier matches any subtree with its label; productions must match exactly
    assert len(match_phrases("(NP (NP ) (PP ))", SEARCH_TREES)) == 4
    assert len(match_phrases("(NP (DT ) (NN ))", SEARCH_TREES)) == 4  # not (DT JJ NN)
    assert match_phrases("(VP (VBZ sings))", SEARCH_TREES)[0].leaves() == ["sings"]
    assert match_phrases("(NP (NP ) (SBAR ))", SEARCH_TREES) == []


def test_find_write_and_read_matches(tmp_path):
    bank = _write(tmp_path / "bank.mrg", SEARCH_TREES)
    chosen = [
        ChosenFragment("NP1", "NP", "(NP (NP (DT ) (NN )) (PP (IN of) (NP )))", 2, 9),
        ChosenFragment("VP1", "VP", "(VP (VBZ sings))", 2, 2),
        ChosenFragment("NP2", "NP", "(NP (NP ) (SBAR ))", 2, 3),
    ]
    matches = find_matches(chosen, bank)
    assert list(matches) == ["NP1", "VP1", "NP2"]
    assert [p.tokens for p in matches["NP1"]] == [("the", "king", "of", "Spain"), ("a", "book", "of", "poetry")]
    assert matches["NP1"][1].tree.children[1].children[0].production().word == "of"
    assert [p.text for p in matches["VP1"]] == ["sings", "sings"]
    assert matches["NP2"] == []
    assert find_matches({"X": "(VP (VBZ sings))"}, bank)["X"] == matches["VP1"]

    out = tmp_path / "matches.tsv"
    assert write_matches(matches, out) == 4
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "id\ttokens\ttree"
    assert lines[1] == "NP1\tthe king of Spain\t(NP (NP (DT the) (NN king)) (PP (IN of) (NP (NNP Spain))))"
    back = read_matches(out)
    assert back == {"NP1": matches["NP1"], "VP1": matches["VP1"]}  # ids without matches are not written


def test_read_matches_checks_tokens_against_the_tree(tmp_path):
    path = _write(tmp_path / "m.tsv", ["id\ttokens\ttree", "NP1\tthe kings\t(NP (DT the) (NN king))"])
    with pytest.raises(InputError, match="differ from the leaves") as info:
        read_matches(path)
    assert info.value.line == 2
    path = _write(tmp_path / "m.tsv", ["NP1\tthe king"])
    with pytest.raises(InputError, match="3 tab-separated fields"):
        read_matches(path)


def test_find_matches_reports_malformed_treebank_lines(tmp_path):
    bank = _write(tmp_path / "bank.mrg", [SEARCH_TREES[0], "(ROOT (S (NP x) y))"])
    with pytest.raises(InputError) as info:
        find_matches({"A": "(NP (NN ))"}, bank)
    assert info.value.line == 2 and info.value.path == str(bank)


def test_phrase_of_tree():
    phrase = Phrase.of(parse_tree("(NP (DT the) (NN king))"))
    assert phrase.tokens == ("the", "king") and phrase.text == "the king"


# --------------------------------------------------------------------------------------
# CLI


def test_cli_fragments_to_stdout(tmp_path, capsys):
    bank = _write(tmp_path / "bank.mrg", SLEEPERS)
    assert main(["mt", "fragments", str(bank)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "(S (NP (DT the) (NN )) (VP (VBZ sleeps)))\t3\n"
    assert "3 trees, 1 fragments (builtin" in captured.err


def test_cli_fragments_to_file_and_auto_backend(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no discodop
    bank = _write(tmp_path / "bank.mrg", SEARCH_TREES)
    out = tmp_path / "out" / "fragments.txt"
    assert main(["mt", "fragments", str(bank), "--output", str(out), "--backend", "auto"]) == 0
    assert capsys.readouterr().out == ""
    fragments = read_fragments(out)
    assert fragments["(NP (NP (DT ) (NN )) (PP (IN ) (NP )))"] == 3  # not the (DT JJ NN) one
    assert fragments == extract_fragments(SEARCH_TREES)


def test_cli_fragments_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    bank = _write(tmp_path / "bank.mrg", [SLEEPERS[0], "(S (NP (DT the) (NN cat)) (VP (VBZ sleeps))"])
    out = tmp_path / "fragments.txt"
    assert main(["mt", "fragments", str(bank), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"natcomp: error: {bank}, line 2: malformed tree" in err
    assert not out.exists()
    assert main(["mt", "fragments", str(bank), "--backend", "discodop"]) == 2
    assert "'discodop' command is not on PATH" in capsys.readouterr().err
    empty = tmp_path / "empty.mrg"
    empty.write_text("", encoding="utf-8")
    assert main(["mt", "fragments", str(empty)]) == 2
    assert "no trees" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# disco-dop backend (a stand-in ``discodop`` script on PATH; the real one is not installable here)


def test_discodop_command_lines():
    assert discodop_fragments_command("bank.mrg", 4) == [
        "discodop", "fragments", "bank.mrg", "--fmt=bracket", "--debin", "--numproc=4",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        discodop_fragments_command("bank.mrg", -1)
    command = discodop_treesearch_command("(NP  (NP ) (PP ))", "bank.mrg", 2)
    assert command[:2] == ["discodop", "treesearch"]
    assert "--engine=frag" in command and "--brackets" in command and "--only-matching" in command
    assert command[-2:] == ["(NP (NP ) (PP ))", "bank.mrg"]


def _fake_discodop(bin_dir: Path, output: str, status: int = 0) -> Path:
    """A ``discodop`` stand-in that records its arguments and prints ``output``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "output.txt").write_text(output, encoding="utf-8")
    script = bin_dir / "discodop"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        "here = pathlib.Path(__file__).parent\n"
        "(here / 'argv.txt').write_text('\\n'.join(sys.argv[1:]))\n"
        "tree = pathlib.Path([a for a in sys.argv[1:] if a.endswith('.mrg')][0])\n"
        "(here / 'treebank.txt').write_text(tree.read_text())\n"
        "sys.stdout.write((here / 'output.txt').read_text())\n"
        "sys.stderr.write('some progress message\\n')\n"
        f"sys.exit({status})\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_discodop_fragments_normalises_output(tmp_path, monkeypatch):
    bin_dir = _fake_discodop(tmp_path / "bin", DISCODOP_SAMPLE.replace("\r\n", "\n"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert frag.discodop_available()
    bank = _write(tmp_path / "bank.mrg", ["( (S (NP (DT the) (NN cat)) (VP (VBZ sleeps))) )", SLEEPERS[1]])
    out = tmp_path / "fragments.txt"
    result = discodop_fragments(bank, out, threads=3)
    assert result["(NP (DT the) (JJ ) (NN ))"] == 4
    assert read_fragments(out) == result
    assert out.read_text(encoding="utf-8").splitlines()[0] == "(VP (VB ) (NP ))\t5"  # sorted, our format
    argv = (bin_dir / "argv.txt").read_text().splitlines()
    assert argv[0] == "fragments" and argv[2:] == ["--fmt=bracket", "--debin", "--numproc=3"]
    # disco-dop gets a normalised copy: the unlabeled root is labelled
    assert (bin_dir / "treebank.txt").read_text().splitlines()[0] == (
        "(ROOT (S (NP (DT the) (NN cat)) (VP (VBZ sleeps))))"
    )


def test_discodop_failure_is_reported(tmp_path, monkeypatch):
    bin_dir = _fake_discodop(tmp_path / "bin", "", status=1)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    bank = _write(tmp_path / "bank.mrg", SLEEPERS)
    with pytest.raises(NatcompError, match="exit status 1:\nsome progress message"):
        discodop_fragments(bank, tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()


def test_cli_discodop_backend(tmp_path, capsys, monkeypatch):
    bin_dir = _fake_discodop(tmp_path / "bin", "(NP (DT the) (NN ))\t2\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    bank = _write(tmp_path / "bank.mrg", SLEEPERS)
    assert main(["mt", "fragments", str(bank), "--backend", "auto", "--threads", "0"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "(NP (DT the) (NN ))\t2\n"
    assert "(discodop" in captured.err
    assert "--numproc=0" in (bin_dir / "argv.txt").read_text().splitlines()


TREESEARCH_SAMPLE = (
    "bank.mrg:1:(NP (NP (DT the) (NN king)) (PP (IN of) (NP (NNP Spain))))\n"
    "2:\x1b[1m(NP (NP (DT a) (NN book)) (NP|<NP.PP> (PP (IN of) (NP (NN poetry)))))\x1b[0m\n"
    "\n"
    "some summary line without a tree\n"
)


def test_parse_treesearch_output():
    found = parse_treesearch_output(TREESEARCH_SAMPLE)
    assert [n for n, _ in found] == [1, 2]
    assert found[1][1].to_bracket() == "(NP (NP (DT a) (NN book)) (PP (IN of) (NP (NN poetry))))"
    with pytest.raises(InputError, match="line 1"):
        parse_treesearch_output("3:(NP (DT a)")


def test_discodop_treesearch(tmp_path, monkeypatch):
    bin_dir = _fake_discodop(tmp_path / "bin", TREESEARCH_SAMPLE)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    bank = _write(tmp_path / "bank.mrg", SEARCH_TREES)
    result = discodop_treesearch({"NP1": "(NP (NP (DT ) (NN )) (PP (IN of) (NP )))"}, bank)
    assert [p.text for p in result["NP1"]] == ["the king of Spain", "a book of poetry"]
    assert result["NP1"] == find_matches({"NP1": "(NP (NP (DT ) (NN )) (PP (IN of) (NP )))"}, bank)["NP1"]
    argv = (bin_dir / "argv.txt").read_text().splitlines()
    assert argv[0] == "treesearch" and argv[-2] == "(NP (NP (DT ) (NN )) (PP (IN of) (NP )))"
