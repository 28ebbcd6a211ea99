"""Tests of the semi-natural sentences (natcomp.mt.semi_natural.sentences) and their use by the test
item builders of natcomp.mt.items. Phrases are made by hand: tokens + subtree."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.mt.semi_natural.fragments import read_matches
from natcomp.mt.lexicon import load_idioms, load_lexicon, load_synonyms
from natcomp.mt.templates import SyntheticSentence, synthetic_sentences
from natcomp.mt.items import (
    idiom_clause_tokens,
    np_vp_items,
    overgeneralisation_items,
    s_conj_items,
    substitutivity_items,
)
from natcomp.mt.semi_natural.sentences import (
    DEFAULT_TEMPLATE_FRAGMENTS,
    MAX_PHRASE_TOKENS,
    TO_VP_VERB,
    phrase_problem,
    semi_natural_sentences,
    usable_phrases,
    vp_numbers,
)

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@pytest.fixture(scope="module")
def lex():
    return load_lexicon(RESOURCES / "lexicon")


# --------------------------------------------------------------------------------------
# hand-made phrases

NOUNS = ["development", "criterion", "transport", "march", "degree", "network", "report", "price", "rule", "plan"]
THINGS = ["rats", "goods", "states", "costs", "regions", "members", "farms", "ships", "towns", "lakes"]


def np_phrase(i: int) -> tuple[list[str], str]:
    """``the N of the Ms in X`` with its NP tree; distinct for i < 1000."""
    noun, things, place = NOUNS[i % 10], THINGS[(i // 10) % 10], f"area{i // 100}"
    tokens = ["the", noun, "of", "the", things, "in", place]
    tree = (
        f"(NP (NP (DT the) (NN {noun})) (PP (IN of) (NP (NP (DT the) (NNS {things})) (PP (IN in) (NP (NN {place}))))))"
    )
    return tokens, tree


def vp_phrase(tag: str, verb: str, i: int = 0) -> tuple[list[str], str]:
    """``VERB the N of Ms`` with its VP tree."""
    noun, things = NOUNS[i % 10], THINGS[(i // 10) % 10]
    tokens = [verb, "the", noun, "of", things]
    tree = f"(VP ({tag} {verb}) (NP (NP (DT the) (NN {noun})) (PP (IN of) (NP (NNS {things})))))"
    return tokens, tree


def np_phrases(count: int) -> dict[str, list]:
    phrases = [np_phrase(i) for i in range(count)]
    return {f"NP{k}": phrases for k in range(1, 6)}


def people_forms(lex) -> dict[str, bool]:
    forms = {}
    for noun in lex.people:
        forms[noun.en_singular] = False
        forms[noun.en_plural] = True
    return forms


# --------------------------------------------------------------------------------------
# template words and the noun slot


def expected_tokens(template: int, noun: str, plural: bool, phrase: list[str]) -> list[str]:
    if template in (4, 5):
        return ["The", noun, "read" if plural else "reads", "an", "article", "about", *phrase, "."]
    if template == 6:
        return ["An", "article", "about", *phrase, "is", "read", "by", "the", noun, "."]
    if template == 7:
        return ["An", "article", "about", *phrase, ",", "is", "read", "by", "the", noun, "."]
    return ["Did", "the", noun, "hear", "about", *phrase, "?"]


@pytest.mark.parametrize("template", range(4, 11))
def test_np_templates_fixed_words_and_slot(lex, template):
    phrases = np_phrases(60)
    by_tokens = {tuple(tokens): tokens for tokens, _ in phrases["NP1"]}
    forms = people_forms(lex)
    sentences = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, template, 40, seed=1)
    assert len(sentences) == 40
    for s in sentences:
        assert isinstance(s, SyntheticSentence)
        assert s.data_type == "semi_natural" and s.template == template
        assert len(s.nouns) == 1
        slot = s.nouns[0]
        assert slot.role == ("agent" if template in (6, 7) else "subject")
        assert slot.category == "people"
        noun = s.tokens[slot.position]
        assert forms[noun] == slot.plural  # a people noun of the slot's number
        start = 3 if template in (6, 7) else (6 if template in (4, 5) else 5)
        end = start + 7
        phrase = list(s.tokens[start:end])
        assert tuple(phrase) in by_tokens
        assert list(s.tokens) == expected_tokens(template, noun, slot.plural, phrase)
    numbers = [s.nouns[0].plural for s in sentences]
    assert 10 <= sum(numbers) <= 30  # about half plural


def test_text_is_untokenised(lex):
    phrases = {"NP1": [np_phrase(0)]}
    (s,) = semi_natural_sentences(lex, phrases, {6: "NP1"}, 6, 1, seed=0)
    noun = s.tokens[s.nouns[0].position]
    assert s.text == f"An article about the development of the rats in area0 is read by the {noun}."
    (q,) = semi_natural_sentences(lex, phrases, {9: "NP1"}, 9, 1, seed=0)
    assert q.text.startswith("Did the ") and q.text.endswith(" in area0?")


# --------------------------------------------------------------------------------------
# agreement in templates 1-3


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ("(VP (VBZ wants) (S (VP (TO to) (VP (VB go)))))", ((False,), False)),
        ("(VP (VBP are) (VP (VBG going) (S (VP (TO to) (VP (VB go))))))", ((True,), False)),
        ("(VP (VB retain) (NP (CD 10) (NN %)))", ((True,), False)),
        ("(VP (VBD said) (NP (PRP it)))", ((False, True), False)),
        ("(VP (VBD was) (ADJP (JJ late)))", ((False,), False)),
        ("(VP (VBD were) (ADJP (JJ late)))", ((True,), False)),
        ("(VP (MD can) (VP (VB go)))", ((False, True), False)),
        ("(VP (TO to) (VP (VB use) (NP (DT the) (NN Internet))))", ((False, True), True)),
        ("(VP (ADVP (RB also)) (VBZ has) (NP (DT a) (NN car)))", ((False,), False)),
        ("(VP (VP (VBZ sings)) (CC and) (VP (VBZ dances)))", ((False,), False)),
        ("(VP (VP (VBP sing)) (CC and) (VP (VBD danced)))", ((True,), False)),
        ("(ROOT (VP (VBZ sings)))", ((False,), False)),
        ("(VP (VBG going) (ADVP (RB home)))", None),
        ("(VP (VBN taken) (PRT (RP away)))", None),
        ("(VP (VBP am) (ADJP (JJ sure)))", None),
        ("(VP (VB be) (ADJP (JJ sure)))", None),
        ("(VP (VP (VBZ sings)) (CC and) (VP (VBP dance)))", None),
        ("(VP (ADVP (RB here)))", None),
    ],
)
def test_vp_numbers(tree, expected):
    assert vp_numbers(tree) == expected


def test_vp_subject_agrees_with_the_verb(lex):
    forms = people_forms(lex)
    phrases = (
        [vp_phrase("VBZ", "retains", i) for i in range(25)]
        + [vp_phrase("VBP", "retain", i) for i in range(25, 50)]
        + [vp_phrase("VBD", "retained", i) for i in range(50, 60)]
        + [vp_phrase("VBG", "retaining", i) for i in range(60, 70)]
        + [vp_phrase("VBN", "retained", i) for i in range(70, 80)]
    )
    sentences = semi_natural_sentences(lex, {"VP1": phrases}, {1: "VP1"}, 1, 100, seed=3)
    assert len(sentences) == 60  # VBG and VBN phrases are skipped
    seen_verbs = set()
    for s in sentences:
        slot = s.nouns[0]
        assert (slot.role, slot.position, slot.category) == ("subject", 1, "people")
        assert s.tokens[0] == "The" and s.tokens[-1] == "."
        assert forms[s.tokens[1]] == slot.plural
        verb = s.tokens[2]
        seen_verbs.add(verb)
        if verb == "retains":
            assert not slot.plural
        elif verb == "retain":
            assert slot.plural
        else:
            assert verb == "retained"
    assert seen_verbs == {"retains", "retain", "retained"}
    # the free VBD phrases balance the numbers when asked for fewer sentences
    few = semi_natural_sentences(lex, {"VP1": phrases}, {1: "VP1"}, 1, 40, seed=3)
    assert 14 <= sum(s.nouns[0].plural for s in few) <= 26


def test_to_vp_gets_want(lex):
    tokens = "to use the Internet as a means of communication".split()
    tree = (
        "(VP (TO to) (VP (VB use) (NP (NP (DT the) (NNP Internet)) (PP (IN as) (NP (NP (DT a) (NNS means)) "
        "(PP (IN of) (NP (NN communication))))))))"
    )
    sentences = semi_natural_sentences(
        lex, {"VP1": [(tokens, tree)]}, {1: "VP1"}, 1, 30, seed=0, max_uses_per_phrase=30
    )
    assert len(sentences) == 30
    numbers = set()
    for s in sentences:
        plural = s.nouns[0].plural
        numbers.add(plural)
        assert s.tokens[2] == (TO_VP_VERB[1] if plural else TO_VP_VERB[0])
        assert list(s.tokens[3:-1]) == tokens
    assert numbers == {False, True}


def test_opus_noise_and_case_are_kept(lex):
    tokens = "are gOING TO HAVE TO CALL MY LAWYER".split()
    tree = (
        "(VP (VBP are) (VP (VBG gOING) (S (VP (TO TO) (VP (VB HAVE) (S (VP (TO TO) (VP (VB CALL) "
        "(NP (PRP$ MY) (NN LAWYER))))))))))"
    )
    (s,) = semi_natural_sentences(lex, {"VP2": [(tokens, tree)]}, DEFAULT_TEMPLATE_FRAGMENTS, 2, 1, seed=0)
    assert s.nouns[0].plural
    assert s.text == f"The {s.tokens[1]} are gOING TO HAVE TO CALL MY LAWYER."
    capital = (
        ["The", "Development", "of", "Europe"],
        "(NP (NP (DT The) (NN Development)) (PP (IN of) (NP (NNP Europe))))",
    )
    (q,) = semi_natural_sentences(lex, {"NP2": [capital]}, DEFAULT_TEMPLATE_FRAGMENTS, 9, 1, seed=0)
    assert q.tokens[5:9] == ("the", "Development", "of", "Europe")  # only the sentence-initial The


@pytest.mark.parametrize(
    ("tokens", "tree", "first"),
    [
        (
            "An article about the question",
            "(NP (NP (DT An) (NN article)) (PP (IN about) (NP (DT the) (NN question))))",
            "an",
        ),
        ("A report", "(NP (DT A) (NN report))", "a"),
        ("His plan", "(NP (PRP$ His) (NN plan))", "his"),
        ("These plans", "(NP (DT These) (NNS plans))", "these"),
        ("THE PLAN", "(NP (DT THE) (NN PLAN))", "THE"),
        ("MY plan", "(NP (PRP$ MY) (NN plan))", "MY"),
        ("the plan of The Hague", "(NP (NP (DT the) (NN plan)) (PP (IN of) (NP (DT The) (NNP Hague))))", "the"),
        ("Europe 's plan", "(NP (NP (NNP Europe) (POS 's)) (NN plan))", "Europe"),
        ("I", "(NP (PRP I))", "I"),
    ],
)
def test_sentence_initial_capital_of_a_determiner_is_undone(tokens, tree, first):
    (phrase,), _ = usable_phrases([(tokens.split(), tree)], 4)
    assert phrase.tokens == (first, *tokens.split()[1:])


def test_no_capital_determiner_inside_the_sentence(lex):
    tokens = "An article about the question".split()
    tree = "(NP (NP (DT An) (NN article)) (PP (IN about) (NP (DT the) (NN question))))"
    (s,) = semi_natural_sentences(lex, {"NP1": [(tokens, tree)]}, {4: "NP1"}, 4, 1, seed=0)
    assert s.text.endswith(" an article about an article about the question.")
    vp = "(VP (VBZ reads) (NP (DT The) (NNP Times)))"
    assert usable_phrases([("reads The Times".split(), vp)], 1)[0][0].tokens == ("reads", "The", "Times")
    vp = "(VP (ADVP (DT All)) (VBP agree))"
    assert usable_phrases([("All agree".split(), vp)], 1)[0][0].tokens == ("all", "agree")
    # "The plan" and "the plan" count as one phrase
    usable, dropped = usable_phrases(
        [(["The", "plan"], "(NP (DT The) (NN plan))"), (["the", "plan"], "(NP (DT the) (NN plan))")], 4
    )
    assert [p.tokens for p in usable] == [("the", "plan")] and dropped["duplicate"] == 1


# --------------------------------------------------------------------------------------
# filtering


GOOD_NP = np_phrase(1)


@pytest.mark.parametrize(
    ("tokens", "tree", "template", "reason"),
    [
        (*GOOD_NP, 4, None),
        (*vp_phrase("VBZ", "retains"), 1, None),
        (["the", '"', "best", '"', "plan"], "(NP (DT the) (`` \") (JJS best) ('' \") (NN plan))", 4, "quote"),
        (["the", "&quot;", "plan"], "(NP (DT the) (`` &quot;) (NN plan))", 4, "quote"),
        (["the", "``", "plan", "''"], "(NP (DT the) (`` ``) (NN plan) ('' ''))", 4, "quote"),
        (["the", "plan", ".", "It"], "(NP (DT the) (NN plan) (. .) (PRP It))", 4, "sentence-final punctuation inside"),
        (["the", "plan", "?"], "(NP (DT the) (NN plan) (. ?))", 8, "sentence-final punctuation inside"),
        (["the", "plan", ","], "(NP (DT the) (NN plan) (, ,))", 7, "starts or ends with punctuation"),
        (["the", "pl\tan"], "(NP (DT the) (NN pl\tan))", 4, "empty token or whitespace inside a token"),
        ([], "(NP (DT the))", 4, "empty phrase"),
        (["the", "plan"], "(NP (DT the) (NN plan)", 4, "malformed tree"),
        (["the", "plan"], "(NP (DT the) (NN plans))", 4, "tokens differ from the tree's leaves"),
        (["the", "plan"], "(NP (DT the) (NN plan))", 1, "root NP, expected VP"),
        (*vp_phrase("VBZ", "retains"), 5, "root VP, expected NP"),
        (*vp_phrase("VBG", "retaining"), 3, "agreement unknown (first verb VBG)"),
        (["'s", "here"], "(VP (VBZ 's) (ADVP (RB here)))", 1, "starts with a clitic"),
        (["here"], "(VP (ADVP (RB here)))", 1, "no verb"),
    ],
)
def test_phrase_problem(tokens, tree, template, reason):
    assert phrase_problem(tokens, tree, template) == reason


def test_too_long_phrases_are_dropped(lex):
    words = ["the", "plan"] + ["and", "plan"] * 20  # 42 tokens
    tree = "(NP (DT the) " + " ".join(f"(NN {w})" if w == "plan" else f"(CC {w})" for w in words[1:]) + ")"
    assert len(words) > MAX_PHRASE_TOKENS
    assert phrase_problem(words, tree, 4) == f"more than {MAX_PHRASE_TOKENS} tokens"
    assert phrase_problem(words, tree, 4, max_tokens=50) is None
    assert semi_natural_sentences(lex, {"NP1": [(words, tree)]}, {4: "NP1"}, 4, 5, seed=0) == []


def test_bad_phrases_never_reach_sentences(lex, caplog):
    bad = [
        (["the", '"', "plan", '"'], "(NP (DT the) (`` \") (NN plan) ('' \"))"),
        (["the", "plan", "."], "(NP (DT the) (NN plan) (. .))"),
        (["the", "plan"], "(VP (VB plan))"),
    ]
    good = [np_phrase(i) for i in range(5)]
    phrases = {"NP1": bad + good + [good[0]]}  # and a duplicate
    usable, dropped = usable_phrases(phrases["NP1"], 4)
    assert [p.tokens for p in usable] == [tuple(t) for t, _ in good]
    assert dropped["duplicate"] == 1 and sum(dropped.values()) == 4
    with caplog.at_level(logging.INFO, logger="natcomp.mt.semi_natural.sentences"):
        sentences = semi_natural_sentences(lex, phrases, {4: "NP1"}, 4, 10, seed=2)
    assert len(sentences) == 5  # fewer than asked: logged, no error
    assert "only 5 distinct sentences" in caplog.text
    for s in sentences:
        assert '"' not in s.text and s.text.count(".") == 1


def test_bracket_and_moses_escapes_are_undone(lex):
    tokens = ["the", "plan", "-LRB-", "EU", "-RRB-", "of", "the", "union", "&apos;s", "members"]
    tree = (
        "(NP (NP (DT the) (NN plan) (-LRB- -LRB-) (NNP EU) (-RRB- -RRB-)) (PP (IN of) (NP (NP (DT the) "
        "(NN union) (POS &apos;s)) (NNS members))))"
    )
    (s,) = semi_natural_sentences(lex, {"NP1": [(tokens, tree)]}, {4: "NP1"}, 4, 1, seed=0)
    assert s.tokens[6:16] == ("the", "plan", "(", "EU", ")", "of", "the", "union", "'s", "members")


# --------------------------------------------------------------------------------------
# sampling


def test_deterministic_and_distinct(lex):
    phrases = np_phrases(200)
    a = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 8, 100, seed=7)
    b = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 8, 100, seed=7)
    c = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 8, 100, seed=8)
    assert a == b
    assert a != c
    assert len({s.tokens for s in a}) == 100
    # each phrase at most once by default, drawn in a random order (not the input order)
    used = [s.tokens[5:-1] for s in a]
    assert len(set(used)) == 100
    first_hundred = {tuple(tokens) for tokens, _ in phrases["NP1"][:100]}
    assert set(used) != first_hundred
    assert used != sorted(used, key=lambda t: [tuple(x) for x, _ in phrases["NP1"]].index(t))


def test_reuse_of_phrases(lex):
    phrases = {"NP5": [np_phrase(0), np_phrase(1)]}
    assert len(semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 10, 10, seed=0)) == 2
    more = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 10, 10, seed=0, max_uses_per_phrase=5)
    assert len(more) == 10 and len({s.tokens for s in more}) == 10


def test_mapping_and_argument_errors(lex, caplog):
    assert sorted(DEFAULT_TEMPLATE_FRAGMENTS) == list(range(1, 11))
    assert {DEFAULT_TEMPLATE_FRAGMENTS[t] for t in (1, 2, 3)} == {"VP1", "VP2", "VP3"}
    assert {DEFAULT_TEMPLATE_FRAGMENTS[t] for t in range(4, 11)} == {"NP1", "NP2", "NP3", "NP4", "NP5"}
    # Table 2's shared structures share a fragment: 4 and 8, 5 and 9
    assert DEFAULT_TEMPLATE_FRAGMENTS[4] == DEFAULT_TEMPLATE_FRAGMENTS[8]
    assert DEFAULT_TEMPLATE_FRAGMENTS[5] == DEFAULT_TEMPLATE_FRAGMENTS[9]
    assert len({DEFAULT_TEMPLATE_FRAGMENTS[t] for t in (4, 5, 7, 10)}) == 4
    with caplog.at_level(logging.WARNING, logger="natcomp.mt.semi_natural.sentences"):
        assert semi_natural_sentences(lex, {}, DEFAULT_TEMPLATE_FRAGMENTS, 4, 5, seed=0) == []
    assert "no phrases for fragment NP1" in caplog.text
    with pytest.raises(ValueError, match="template"):
        semi_natural_sentences(lex, np_phrases(3), DEFAULT_TEMPLATE_FRAGMENTS, 11, 5, seed=0)
    with pytest.raises(ValueError, match="no fragment id"):
        semi_natural_sentences(lex, np_phrases(3), {4: "NP1"}, 5, 5, seed=0)
    with pytest.raises(ValueError):
        semi_natural_sentences(lex, np_phrases(3), DEFAULT_TEMPLATE_FRAGMENTS, 4, -1, seed=0)


def test_wrappers_and_malformed_trees():
    tokens, tree = np_phrase(0)
    for wrapped in [f"( {tree})", f"(ROOT {tree})", f"(TOP (ROOT {tree}))"]:
        assert phrase_problem(tokens, wrapped, 4) is None
    assert vp_numbers("( (VP (VBZ runs)))") == ((False,), False)
    for bad in ["", "NP", "(NP (DT the)", "(NP (DT the)) x", "(NP)", "(NP (DT the) x)", "(NP ((DT the)))"]:
        assert phrase_problem(["the"], bad, 4) == "malformed tree"
    with pytest.raises(InputError, match="malformed tree"):
        vp_numbers("(VP (VBZ runs)")


def test_treesearch_output_is_read_by_read_matches(lex, tmp_path):
    """The ``id<TAB>tokens<TAB>tree`` TSV of the treesearch step, read by
    natcomp.mt.semi_natural.fragments.read_matches, is usable as ``phrases`` as it is."""
    path = tmp_path / "phrases.tsv"
    tokens, tree = np_phrase(0)
    vtokens, vtree = vp_phrase("VBZ", "wants")
    path.write_text(
        "id\ttokens\ttree\n" + f"NP1\t{' '.join(tokens)}\t{tree}\n" + f"VP1\t{' '.join(vtokens)}\t{vtree}\n"
        f"NP1\t{' '.join(tokens)}\t{tree}\n",
        encoding="utf-8",
    )
    phrases = read_matches(path)
    assert {fid: [(list(p.tokens), p.tree.to_bracket()) for p in ps] for fid, ps in phrases.items()} == {
        "NP1": [(tokens, tree), (tokens, tree)],
        "VP1": [(vtokens, vtree)],
    }
    (s,) = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 4, 5, seed=0)
    assert list(s.tokens[6:-1]) == tokens
    (v,) = semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, 1, 5, seed=0)
    assert list(v.tokens[2:-1]) == vtokens and not v.nouns[0].plural
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"NP1\t{' '.join(tokens)}\t{tree}\nNP2\tonly two\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv, line 2"):
        read_matches(bad)


# --------------------------------------------------------------------------------------
# the test item builders on semi-natural sentences


@pytest.fixture(scope="module")
def semi(lex) -> dict[int, list[SyntheticSentence]]:
    phrases = np_phrases(80)
    phrases.update(
        {
            "VP1": [vp_phrase("VBZ", "wants", i) for i in range(40)]
            + [vp_phrase("VBP", "want", i) for i in range(40, 80)],
            "VP2": [vp_phrase("VBD", "saw", i) for i in range(80)],
            "VP3": [vp_phrase("VB", "retain", i) for i in range(80)],
        }
    )
    return {t: semi_natural_sentences(lex, phrases, DEFAULT_TEMPLATE_FRAGMENTS, t, 50, seed=t) for t in range(1, 11)}


def _one_word_differs(a: str, b: str) -> int:
    wa, wb = a.split(), b.split()
    assert len(wa) == len(wb)
    diff = [i for i, (x, y) in enumerate(zip(wa, wb)) if x != y]
    assert len(diff) == 1, (a, b)
    return diff[0]


@pytest.mark.parametrize("template", range(1, 11))
def test_np_prime_items(lex, semi, template):
    rows = np_vp_items(semi[template], template, 20, seed=1, lexicon=lex, conditions=("np_prime",))
    assert len(rows) == 20
    noun_word = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 8: 2, 9: 2, 10: 2}.get(template)
    for row in rows:
        assert row["condition"] == "np_prime"
        position = _one_word_differs(row["source_a"], row["source_b"])
        if noun_word is None:  # 6-7: "... is read by the N." -- the last word
            assert position == len(row["source_a"].split()) - 1
        else:
            assert position == noun_word


@pytest.mark.parametrize("template", [1, 6, 7, 9])
def test_substitutivity_clause_follows_the_person_noun(lex, semi, template):
    synonyms = load_synonyms(RESOURCES / "synonyms.tsv")
    pair = synonyms[0]
    expected = {}
    for s in semi[template]:
        slot = s.nouns[0]
        for spelling in ("british", "american"):
            clause = pair.clause(spelling, slot.plural).split()
            expected.setdefault(spelling, set()).add(s.with_tokens_after(slot.position, clause).text)
    rows = substitutivity_items(semi[template], synonyms, template, 0, 15, seed=3)
    assert len(rows) == 15
    for row in rows:
        assert row["source_a"] in expected["british"]
        assert row["source_b"] in expected["american"]
        assert pair.british in row["source_a"] and pair.american in row["source_b"]


@pytest.mark.parametrize("template", [2, 4, 6, 10])
def test_overgeneralisation_clause_follows_the_person_noun(semi, template):
    idioms = load_idioms(RESOURCES / "idioms.tsv")
    clause = idiom_clause_tokens(idioms[3])
    expected = {s.with_tokens_after(s.nouns[0].position, clause).text for s in semi[template]}
    rows = overgeneralisation_items(semi[template], idioms, template, 3, 12, seed=0)
    assert len(rows) == 12
    for row in rows:
        assert row["source"] in expected
        noun_then_that = [w for i, w in enumerate(row["source"].split()[:-1]) if row["source"].split()[i + 1] == "that"]
        assert noun_then_that and noun_then_that[0].rstrip(",") in people_forms(load_lexicon(RESOURCES / "lexicon"))


def test_semi_natural_texts_as_second_conjuncts(lex, semi):
    first = [s for t in range(1, 11) for s in synthetic_sentences(lex, t, 20, seed=0)]
    references = [s.text for s in semi[5]]
    rows = s_conj_items(first, references, 5, 10, seed=0, lexicon=lex)
    assert len(rows) == 20
    for row in rows:
        second = row["source_a"].split(", and ", 1)[1]
        assert second[:1].upper() + second[1:] in references


def test_phrase_objects_with_attributes(lex):
    """Objects with ``tokens`` and ``tree`` (a string or an object with to_bracket) work too."""

    class TreeObject:
        def __init__(self, text):
            self.text = text

        def to_bracket(self):
            return self.text

    class Match:
        def __init__(self, tokens, tree):
            self.tokens = tuple(tokens)
            self.tree = tree

    tokens, tree = np_phrase(3)
    phrases = {"NP1": [Match(tokens, TreeObject(tree)), Match(*np_phrase(4))]}
    sentences = semi_natural_sentences(lex, phrases, {4: "NP1"}, 4, 5, seed=0)
    assert {s.tokens[6:-1] for s in sentences} == {tuple(tokens), tuple(np_phrase(4)[0])}
