"""Tests of the shipped vocabulary resources and their loaders (natcomp.mt.lexicon)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.mt.lexicon import (
    LEXICON_FILES,
    load_idioms,
    load_lexicon,
    load_synonyms,
    tree_leaves,
)

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
LEXICON = RESOURCES / "lexicon"
SYNONYMS = RESOURCES / "synonyms.tsv"
IDIOMS = RESOURCES / "idioms.tsv"

TABLE5_BRITISH = [
    "aeroplane", "aluminium", "doughnut", "foetus", "flautist", "moustache", "tumour", "pyjamas",
    "sulphate", "yoghurt", "aubergine", "shopping trolley", "veterinary surgeon", "sailing boat",
    "football", "holiday", "ladybird", "theatre", "postcode", "whisky",
]  # fmt: skip
TABLE5_AMERICAN = [
    "airplane", "aluminum", "donut", "fetus", "flutist", "mustache", "tumor", "pajamas", "sulfate",
    "yogurt", "eggplant", "shopping cart", "veterinarian", "sailboat", "soccer", "vacation",
    "ladybug", "theater", "zip code", "whiskey",
]  # fmt: skip
TABLE7_IDIOMS = [
    "once in a while", "do the right thing", "out of your mind", "state of the art", "from scratch",
    "take stock", "across the board", "in the final analysis", "out of the blue", "in tandem",
    "by heart", "come to terms with", "by the same token", "at your fingertips",
    "look the other way", "follow suit", "keep tabs on", "in the short run", "by dint of",
    "set eyes on",
]  # fmt: skip


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon(LEXICON)


@pytest.fixture(scope="module")
def synonyms():
    return load_synonyms(SYNONYMS)


@pytest.fixture(scope="module")
def idioms():
    return load_idioms(IDIOMS)


# ---------------------------------------------------------------- shipped content


def test_paper_vocabulary_sizes(lexicon):
    sizes = {
        "people": 20,
        "elite": 7,
        "vehicles": 6,
        "groups": 2,
        "transitive_verbs": 7,
        "intransitive_verbs": 8,
        "stative_verbs": 5,
        "adverbs": 5,
        "prepositions": 3,
        "pronouns": 4,
    }
    for name, size in sizes.items():
        assert len(getattr(lexicon, name)) == size, name


def test_dutch_genders(lexicon):
    het_people = {n.nl_singular for n in lexicon.people if n.nl_article == "het"}
    assert het_people == {"meisje", "kind", "slachtoffer"}
    assert all(n.nl_article == "de" for n in lexicon.elite)
    assert {n.nl_singular for n in lexicon.vehicles if n.nl_article == "het"} == {"vliegtuig"}
    assert {n.en_singular: n.nl_article for n in lexicon.groups} == {"group": "de", "team": "het"}
    girl = next(n for n in lexicon.people if n.en_singular == "girl")
    assert (girl.nl_definite(False), girl.nl_relative_pronoun(False)) == ("het", "dat")
    assert (girl.nl_definite(True), girl.nl_relative_pronoun(True)) == ("de", "die")


def test_verb_forms(lexicon):
    want = next(v for v in lexicon.stative_verbs if v.en_plural == "want")
    assert (want.nl_singular, want.nl_plural) == ("wil", "willen")
    forget = next(v for v in lexicon.transitive_verbs if v.en_plural == "forget")
    assert forget.nl_aux_form(False) == "is" and forget.nl_aux_form(True) == "zijn"
    admire = next(v for v in lexicon.transitive_verbs if v.en_plural == "admire")
    assert admire.nl_aux_form(False) == "heeft" and admire.nl_past_participle == "bewonderd"
    try_ = next(v for v in lexicon.control_verbs if v.en_plural == "try")
    assert try_.nl_te and not next(v for v in lexicon.control_verbs if v.en_plural == "want").nl_te
    for verb in lexicon.transitive_verbs + lexicon.intransitive_verbs + lexicon.abstract_verbs:
        assert verb.nl_past_participle and verb.nl_aux in ("hebben", "zijn")


def test_synonyms_follow_table5(synonyms):
    assert [s.british for s in synonyms] == TABLE5_BRITISH
    assert [s.american for s in synonyms] == TABLE5_AMERICAN
    assert [s.nl for s in synonyms][:3] == ["vliegtuig", "aluminium", "donut"]
    assert synonyms[2].clause("british", False) == "that eats the doughnut"
    assert synonyms[2].clause("american", True) == "that eat the donut"
    assert synonyms[12].clause("american", False) == "that knows the veterinarian"
    assert synonyms[16].clause_singular == synonyms[16].clause_plural == "that caught a ladybird"
    assert synonyms[18].clause("american", True) == "with the same zip code"
    assert not synonyms[18].is_relative and synonyms[0].is_relative
    for pair in synonyms:
        assert pair.nl_candidates[0] == pair.nl
        for spelling in ("british", "american"):
            for plural in (False, True):
                assert pair.clause(spelling, plural).endswith(pair.term(spelling))
        # the Dutch clause is the same for both spellings and names the synonym
        assert any(c in pair.clause_nl_singular for c in pair.nl_candidates)
        assert any(c in pair.clause_nl_plural for c in pair.nl_candidates)
    assert synonyms[2].clause_nl_singular == "de donut eet"
    assert synonyms[2].clause_nl_plural == "de donut eten"
    assert synonyms[18].clause_nl_singular == "met dezelfde postcode"


def test_idioms_follow_table7(idioms):
    assert [i.idiom for i in idioms] == TABLE7_IDIOMS
    assert idioms[10].clause == "I knew the formula by heart"
    assert idioms[10].clause_nl_idiomatic == "Ik kende de formule uit het hoofd"
    assert idioms[3].english_keywords == ("state", "art")
    assert idioms[2].is_question and not idioms[0].is_question
    junk = {"kunstkunst", "krrammetje", "vluchtvlucht"}
    for idiom in idioms:
        assert not junk & set(idiom.dutch_keywords)
        assert not idiom.has_keyword(idiom.clause_nl_idiomatic), idiom.idiom
        assert idiom.idiom in idiom.clause.lower()
        assert tree_leaves(idiom.clause_tree)[0] == idiom.clause.split()[0]


def test_has_keyword_is_case_insensitive_substring(idioms):
    heart = idioms[10]
    assert heart.has_keyword("De dokter onderzoekt het HARTje")
    assert not heart.has_keyword("Ik kende het uit het hoofd")


def test_context_vocabulary_is_free_of_dutch_keywords(lexicon, idioms):
    """Nouns and present-tense verbs outside nouns_keywords.tsv contain no Dutch keyword
    (except run/rennen, the paper's verb and the literal use of "run"), so the idiom test
    sentences built from them are not scored as word-by-word because of their context."""
    keywords = {k.lower() for idiom in idioms for k in idiom.dutch_keywords}
    words = []
    for group in ("people", "elite", "vehicles", "groups", "abstract_nouns"):
        words += [w for n in getattr(lexicon, group) for w in (n.nl_singular, n.nl_plural)]
    for group in ("transitive_verbs", "intransitive_verbs", "abstract_verbs", "stative_verbs", "control_verbs"):
        words += [w for v in getattr(lexicon, group) for w in (v.nl_singular, v.nl_plural) if v.en_plural != "run"]
    words += [w.nl for group in ("adverbs", "prepositions", "pronouns") for w in getattr(lexicon, group)]
    hits = sorted((w, k) for w in words for k in keywords if k in w.lower())
    assert hits == []


# ---------------------------------------------------------------- loader errors


@pytest.fixture()
def lexicon_copy(tmp_path):
    target = tmp_path / "lexicon"
    shutil.copytree(LEXICON, target)
    return target


def test_missing_lexicon_file(lexicon_copy):
    (lexicon_copy / "adverbs.tsv").unlink()
    with pytest.raises(InputError) as info:
        load_lexicon(lexicon_copy)
    assert info.value.path.endswith("adverbs.tsv")
    assert "not found" in str(info.value)


def test_missing_lexicon_directory(tmp_path):
    with pytest.raises(InputError, match="directory not found"):
        load_lexicon(tmp_path / "nowhere")


def test_missing_column(lexicon_copy):
    path = lexicon_copy / "nouns_people.tsv"
    text = path.read_text(encoding="utf-8").replace("nl_article", "article", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_lexicon(lexicon_copy)
    assert info.value.path == str(path) and info.value.line == 1
    assert "nl_article" in str(info.value)


def test_wrong_field_count_names_file_and_line(lexicon_copy):
    path = lexicon_copy / "transitive_verbs.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3] + "\textra"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_lexicon(lexicon_copy)
    assert info.value.path == str(path)
    assert info.value.line == 4
    assert f"{path}, line 4" in str(info.value)
    assert "expected 6 tab-separated fields" in str(info.value)


def test_bad_article_value(lexicon_copy):
    path = lexicon_copy / "nouns_vehicles.tsv"
    path.write_text(path.read_text(encoding="utf-8").replace("\thet\n", "\tdet\n"), encoding="utf-8")
    with pytest.raises(InputError, match="nl_article") as info:
        load_lexicon(lexicon_copy)
    assert info.value.line is not None


def test_synonyms_missing_column_and_file(tmp_path):
    text = SYNONYMS.read_text(encoding="utf-8").replace("clause_nl_plural", "clause_nl_pl", 1)
    path = tmp_path / "synonyms.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="clause_nl_plural"):
        load_synonyms(path)
    with pytest.raises(InputError, match="not found"):
        load_synonyms(tmp_path / "absent.tsv")


def test_synonyms_wrong_field_count(tmp_path):
    lines = SYNONYMS.read_text(encoding="utf-8").splitlines()
    lines[5] = "\t".join(lines[5].split("\t")[:-1])
    path = tmp_path / "synonyms.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_synonyms(path)
    assert info.value.line == 6 and "fields" in str(info.value)


def test_idiom_with_literal_keyword_in_idiomatic_dutch_is_rejected(tmp_path):
    text = IDIOMS.read_text(encoding="utf-8").replace(
        "Ik kende de formule uit het hoofd", "Ik kende de formule uit mijn hart"
    )
    path = tmp_path / "idioms.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="hart") as info:
        load_idioms(path)
    assert info.value.line == 12


def test_idiom_with_malformed_tree_is_rejected(tmp_path):
    text = IDIOMS.read_text(encoding="utf-8").replace("(NN formula))", "(NN formula)")
    path = tmp_path / "idioms.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="malformed tree"):
        load_idioms(path)


def test_every_lexicon_file_is_documented():
    readme = (RESOURCES / "README.md").read_text(encoding="utf-8")
    for name in LEXICON_FILES:
        assert name in readme


@pytest.mark.parametrize(
    "tree",
    ["(S (NP a)", "(S)", "(S (NP a)) x", "( (a b) (c d))", "(S ((a b)))", "(S (NP (DT a) b))", "S (NP a)", ""],
)
def test_tree_leaves_rejects_malformed(tree):
    with pytest.raises(ValueError, match="malformed tree"):
        tree_leaves(tree)


def test_tree_leaves():
    assert tree_leaves("(ROOT (S (NP (DT The) (NN poet)) (VP (VBZ sleeps)) (. .)))") == ["The", "poet", "sleeps", "."]
    # natcomp.trees reads a WSJ-style unlabeled outer bracket as ROOT
    assert tree_leaves("( (S (NP (PRP I)) (VP (VBP run))))") == ["I", "run"]


def test_records_are_frozen(lexicon):
    with pytest.raises(dataclasses.FrozenInstanceError):
        lexicon.people[0].en_singular = "x"


# ---------------------------------------------------------------- synonym candidates

ORIGINAL_SYNONYMS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "paradox_mt" / "synonyms.tsv"


def _original_lists(column: str) -> list[list[str]]:
    """A model_translations column of the original synonyms.tsv as lists of candidates.

    The original code split it on ';' as it stood, which cut the Moses escape of
    ``pyjama &apos; s`` into ``pyjama &apos`` and `` s`` (a candidate matching any token
    with an s); here the escape is undone first, so ``pyjama's`` stays one candidate.
    """
    lines = ORIGINAL_SYNONYMS.read_text(encoding="utf-8").splitlines()
    header = lines[0].rstrip("\r").split("\t")
    lists = []
    for line in lines[1:]:
        row = dict(zip(header, line.rstrip("\r").split("\t")))
        lists.append([c.strip() for c in row[column].replace("&apos;", "'").split(";")])
    return lists


@pytest.mark.skipif(not ORIGINAL_SYNONYMS.is_file(), reason=f"the original study's data is absent: {ORIGINAL_SYNONYMS}")
def test_shipped_candidate_lists_are_the_originals_per_pair(synonyms):
    from natcomp.mt.consistency import tokens

    british, american = _original_lists("model_translations1"), _original_lists("model_translations2")
    assert len(british) == len(synonyms) == 20
    for pair, original_british, original_american in zip(synonyms, british, american):
        for shipped, original in (
            (pair.candidates_british, original_british),
            (pair.candidates_american, original_american),
        ):
            # the same candidates in the same order; ours are detokenised ("pyjama's" for
            # "pyjama ' s"), which the scorer tokenises back to the same tokens
            assert [tokens(c) for c in shipped] == [tokens(c) for c in original], pair.name
        assert pair.nl_candidates[0] == pair.nl
        assert set(pair.nl_candidates) == {pair.nl, *pair.candidates_british, *pair.candidates_american}
    pyjamas = synonyms[7]
    assert "pyjama's" in pyjamas.candidates_british and "s" not in pyjamas.nl_candidates
    assert "winkelwagen trolley" in synonyms[11].candidates_british
    assert [len(set(p.nl_candidates)) for p in synonyms][:3] == [5, 5, 8]


def test_candidates_follow_gold_word_then_british_then_american(synonyms):
    pair = synonyms[0].with_candidates(["vliegtuigje", "vliegtuig"], ["toestel", "vliegtuigje"])
    assert pair.nl_candidates == ("vliegtuig", "vliegtuigje", "toestel")
    assert pair.candidates("american") == ("toestel", "vliegtuigje")
    assert pair.with_candidates([], []).nl_candidates == ("vliegtuig",)
    with pytest.raises(ValueError, match="spelling"):
        pair.candidates("scottish")


def test_empty_candidate_is_named(tmp_path):
    lines = SYNONYMS.read_text(encoding="utf-8").splitlines()
    fields = lines[3].split("\t")
    column = lines[0].split("\t").index("candidates_american")
    fields[column] += ";"
    lines[3] = "\t".join(fields)
    path = tmp_path / "synonyms.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="candidates_american has an empty entry") as info:
        load_synonyms(path)
    assert info.value.line == 4
