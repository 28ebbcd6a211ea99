"""Tests of the scoring of the compositionality tests (natcomp.mt.scoring)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.mt.lexicon import load_idioms, load_synonyms
from natcomp.mt.scoring import (
    CONDITIONS,
    ITEM_COLUMNS,
    OVERALL,
    edit_distance,
    inflected_forms,
    is_overgeneralised,
    np_vp_consistent,
    read_items,
    read_translations,
    reference_is_paraphrase,
    s_conj_consistent,
    score_items,
    score_test_files,
    second_conjunct,
    source_contains_idiom,
    substitution_consistent,
    summarise,
    synonym_consistent,
    synonym_translation,
    tokens,
    unique_sources,
    write_summary,
)
from natcomp.mt.consistency import _one_edit_apart

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
ORIGINAL = Path("/work/shared/data/paradox_mt")


# --------------------------------------------------------------------------------------
# tokens


def test_tokens_split_punctuation_and_accept_tokenised_or_escaped_input():
    assert tokens("De dichter ziet de koning, en het kind slaapt.") == [
        "De", "dichter", "ziet", "de", "koning", ",", "en", "het", "kind", "slaapt", ".",
    ]  # fmt: skip
    assert tokens("koning.") == tokens("koning .") == ["koning", "."]
    assert tokens("De auto's.") == tokens("De auto &apos;s .") == tokens("De auto ' s .")
    assert tokens('Hij zei: "nee".') == tokens("Hij zei : &quot; nee &quot; .")
    assert tokens("") == []


# --------------------------------------------------------------------------------------
# S -> NP VP


def test_edit_distance_examples():
    assert edit_distance([], []) == 0
    assert edit_distance(["a"], []) == 1
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    assert edit_distance(["a", "b"], ["b", "a"]) == 2


def test_linear_one_edit_check_agrees_with_levenshtein():
    rng = random.Random(7)
    for _ in range(3000):
        a = [rng.choice("abc") for _ in range(rng.randint(0, 5))]
        b = [rng.choice("abc") for _ in range(rng.randint(0, 5))]
        assert _one_edit_apart(a, b) == (edit_distance(a, b) == 1), (a, b)


def test_het_de_and_dat_die_differences_do_not_count():
    # subject noun replaced: the article and the relative pronoun follow its gender
    assert np_vp_consistent("Het meisje dat loopt ziet de koning .", "De jongen die loopt ziet de koning .")
    assert np_vp_consistent("Het meisje dat loopt ziet de koning.", "De jongen die loopt ziet de koning.")
    assert np_vp_consistent("De man ziet het kind.", "De man ziet de koning.")
    assert np_vp_consistent("HET KIND ZIET DE KONING.", "DE MAN ZIET DE KONING.")
    # complementiser dat vs relative die is neutralised too (as in the original)
    assert np_vp_consistent("De man denkt dat de boeren lachen.", "De vrouw denkt die de boeren lachen.")


def test_identical_translations_are_not_consistent():
    assert not np_vp_consistent("De man ziet de koning.", "De man ziet de koning.")
    # only an article changed: after neutralising het/de nothing is left
    assert not np_vp_consistent("Het kind ziet de koning.", "De kind ziet de koning.")


def test_two_changed_words_are_not_consistent():
    assert not np_vp_consistent("De man ziet de koning.", "De vrouw bewondert de koning.")
    assert not np_vp_consistent("De man ziet de koning.", "De vrouw ziet de koning zeker.")


def test_insertion_deletion_and_punctuation():
    assert np_vp_consistent("De man ziet de koning.", "De man ziet de koning zeker.")  # insertion
    assert np_vp_consistent("De man die rent, ziet de koning.", "De man die rent ziet de koning.")  # comma
    # attached vs detached punctuation is the same tokenisation: not a difference
    assert np_vp_consistent("De man ziet de koning.", "De vrouw ziet de koning .")
    assert not np_vp_consistent("De man ziet de koning.", "De man ziet de koning .")
    # a case change is a real change
    assert np_vp_consistent("De man ziet de koning.", "de man ziet de koning.")


# --------------------------------------------------------------------------------------
# S -> S CONJ S


def test_second_conjunct_basic_and_normalised_spacing():
    assert second_conjunct("De dichter ziet de koning, en het kind slaapt.") == "het kind slaapt ."
    assert second_conjunct("De dichter ziet de koning , en het kind slaapt .") == "het kind slaapt ."


def test_second_conjunct_when_first_conjunct_contains_en():
    assert second_conjunct("De dichter en het kind zien de koning , en de man slaapt .") == "de man slaapt ."
    assert second_conjunct("De dichters en de kinderen zien de koning en de man slaapt.") == "de man slaapt ."


def test_second_conjunct_needs_five_tokens_before_its_en():
    """The original ``get_conjunct`` skips an ``en`` with fewer than 5 words before it
    (``len(parts[0].split()) < 5``) and takes one with exactly 5; tokens count, so the
    comma is one. An ``en`` at token 4 or 5 (3 or 4 tokens before it) is skipped, one at
    token 6 (5 before) is taken."""
    s2 = "de man slaapt ."
    # 3 tokens before the first en (De dichter ,): skipped, the second en is the boundary
    assert second_conjunct("De dichter , en de koning ziet het kind , en de man slaapt .") == s2
    # 4 tokens before it (De oude dichter zegt): still skipped
    assert second_conjunct("De oude dichter zegt en de koning ziet het kind , en de man slaapt .") == s2
    # 5 tokens before it (De oude dichter ziet hem): taken, the later en stays inside S2
    five = "De oude dichter ziet hem en de koning ziet het kind , en de man slaapt ."
    assert second_conjunct(five) == "de koning ziet het kind , en de man slaapt ."
    # 6 before it: taken too
    six = "De oude dichter ziet hem , en de koning ziet het kind , en de man slaapt ."
    assert second_conjunct(six) == "de koning ziet het kind , en de man slaapt ."
    # the only en has 4 tokens before it: no conjunct at all
    assert second_conjunct("De oude dichter zegt en de man slaapt .") is None


def test_second_conjunct_keeps_en_inside_s2_and_ignores_the_boundary_comma():
    with_comma = "De man ziet de koning, en de vrouw lacht, en het kind slaapt."
    without_comma = "De man ziet de koning en de vrouw lacht, en het kind slaapt."
    assert second_conjunct(with_comma) == second_conjunct(without_comma) == "de vrouw lacht , en het kind slaapt ."
    assert s_conj_consistent(with_comma, without_comma) is True


def test_second_conjunct_not_found():
    assert second_conjunct("De man ziet de koning; het kind slaapt.") is None
    assert second_conjunct("De dichter en het kind slapen.") is None  # only an en inside S1
    assert second_conjunct("De man ziet de koning en") is None  # nothing after the conjunction
    assert second_conjunct("") is None


def test_s_conj_consistency():
    a = "De man ziet de koning, en het kind slaapt."
    assert s_conj_consistent(a, "De vrouw ziet de leider, en het kind slaapt.") is True
    assert s_conj_consistent(a, "De vrouw ziet de leider, en het kind rust.") is False
    assert s_conj_consistent(a, "De vrouw ziet de leider; het kind slaapt.") is None
    assert s_conj_consistent("De vrouw ziet de leider; het kind slaapt.", a) is None


# The original code's rule (``rule="original"``, the anchor's get_conjunct): split the
# space-joined tokens on " en "; when the part before the first en has fewer than 5 words,
# S2 is everything after the second en (empty when there is none), else after the first.


def test_second_conjunct_original_rule_on_a_template_4_first_conjunct():
    # the en inside a template-4 S1 has 2 tokens before it, the boundary en 7 (De dichter en
    # het kind zagen ,): both rules skip the first and split at the second
    template_4 = "De dichter en het kind zagen , en de man liep"
    assert second_conjunct(template_4) == second_conjunct(template_4, rule="original") == "de man liep"
    # detokenised: the comma is still a token of its own, so the counts are the same
    assert second_conjunct("De dichter en het kind zagen, en de man liep", rule="original") == "de man liep"
    # a short template-4 S1 (Hij en zij ,): the boundary en has 4 tokens before it, so
    # natcomp finds no S2; the original skips the first en blindly and takes the second
    short = "Hij en zij , en de man liep ."
    assert second_conjunct(short) is None
    assert second_conjunct(short, rule="original") == "de man liep ."


def test_second_conjunct_original_rule_gives_an_empty_conjunct_for_a_single_early_en():
    # a single en with fewer than 5 words before it: the original takes parts[2:] of two
    # parts, the empty conjunct, which equals every other empty conjunct
    a, b = "De man en de vrouw lachen .", "De boer en het kind huilen."
    assert second_conjunct(a, rule="original") == second_conjunct(b, rule="original") == ""
    assert s_conj_consistent(a, b, rule="original") is True
    # natcomp: no S2, not scored
    assert second_conjunct(a) is None and second_conjunct(b) is None
    assert s_conj_consistent(a, b) is None
    assert s_conj_consistent(a, b, rule="tokens") is None
    # an empty conjunct against a real one is inconsistent in the original rule
    assert s_conj_consistent(a, "De man ziet de koning , en de vrouw lacht .", rule="original") is False


def test_second_conjunct_original_rule_keeps_every_en_inside_s2():
    plain = "De man ziet de koning , en de vrouw en het kind lachen en zingen ."
    s2 = "de vrouw en het kind lachen en zingen ."
    assert second_conjunct(plain) == second_conjunct(plain, rule="original") == s2
    template_4 = "De dichter en het kind zien de koning , en de vrouw en de man lachen ."
    assert second_conjunct(template_4) == second_conjunct(template_4, rule="original") == "de vrouw en de man lachen ."
    # three early ens: natcomp takes the first en with 5 tokens before it, the original
    # the text after the second en, whatever its position
    early = "Hij en zij en wij zagen hem , en de man liep ."
    assert second_conjunct(early) == "de man liep ."
    assert second_conjunct(early, rule="original") == "wij zagen hem , en de man liep ."


def test_second_conjunct_original_rule_not_found_and_spacing():
    for translation in (
        "De man ziet de koning; het kind slaapt.",
        "De man ziet de koning en",
        "En toen sliep hij.",
        "",
    ):
        assert second_conjunct(translation, rule="original") is None, translation
    # it works on natcomp's tokens joined by single spaces, as the original on a Moses-tokenised D- line
    assert second_conjunct("De man ziet de koning,   en het kind slaapt.", rule="original") == "het kind slaapt ."
    assert second_conjunct("De auto&apos;s rijden snel , en het kind slaapt .", rule="original") == "het kind slaapt ."


def test_second_conjunct_rule_must_be_known():
    with pytest.raises(ValueError, match="conjunct rule must be one of tokens, original, not 'comma'"):
        second_conjunct("De man ziet de koning , en het kind slaapt .", rule="comma")
    with pytest.raises(ValueError, match="conjunct rule must be one of"):
        s_conj_consistent("a", "b", rule="comma")


# --------------------------------------------------------------------------------------
# substitutivity


def test_full_consistency_ignores_spacing_only():
    assert substitution_consistent("De man eet de donut.", "De man eet de donut .")
    assert not substitution_consistent("De man eet de donut.", "De man eet een donut.")


def test_synonym_span_with_compounds_and_priority():
    candidates = ["vliegtuig", "vliegtuigen", "vliegtuigje"]
    assert synonym_translation("De man die per vliegtuigje reist.", candidates) == "vliegtuigje"
    assert synonym_translation("De man die per Vliegtuig reist.", candidates) == "Vliegtuig"
    # the gold candidate is searched first, even when another candidate occurs earlier
    assert synonym_translation("De toestel-man reist per vliegtuig.", ["vliegtuig", "toestel"]) == "vliegtuig"
    assert synonym_consistent("Hij reist per vliegtuig.", "Zij reist met het vliegtuig.", candidates)
    assert not synonym_consistent("Hij reist per vliegtuig.", "Hij reist per vliegtuigje.", candidates)


def test_synonym_missing_from_both_translations():
    candidates = ["snor", "snorren"]
    a = "De koning die een baard heeft, slaapt."
    assert synonym_translation(a, candidates) == "De koning die een baard heeft , slaapt ."
    assert synonym_consistent(a, "De koning die een baard heeft , slaapt .", candidates)
    assert not synonym_consistent(a, "De koning die een baard heeft, rust.", candidates)
    # present in one translation only: inconsistent
    assert not synonym_consistent(a, "De koning die een snor heeft, slaapt.", candidates)


def test_multi_word_and_apostrophe_candidates_are_glued():
    candidates = ["winkelwagen", "winkelwagen trolley"]
    assert synonym_translation("Hij duwt de winkelwagen trolleys.", candidates) == "winkelwagen trolleys"
    assert synonym_translation("Hij duwt de winkelwagen.", candidates) == "winkelwagen"
    pyjamas = ["pyjama", "pyjama's"]
    assert synonym_translation("De man die pyjama's draagt.", pyjamas) == "pyjama ' s"
    assert not synonym_consistent("De man die pyjama's draagt.", "De man die een pyjama draagt.", pyjamas)


# --------------------------------------------------------------------------------------
# overgeneralisation


def test_keyword_matching_modes_on_the_documented_examples():
    heart = ["hart"]
    # inflected (default): whole words with Dutch endings, never inside another word
    assert is_overgeneralised("Ik kende de formule door het hart.", heart)
    assert is_overgeneralised("Ik kende het hartje van de formule.", heart)
    assert is_overgeneralised("Twee harten.", heart)
    assert is_overgeneralised("Het kwam uit het blauwe.", ["blauw"])
    assert not is_overgeneralised("Het leven is mooi.", ["even"])
    assert not is_overgeneralised("Hij woont in Nederland.", ["land"])
    assert not is_overgeneralised("Met hartelijke groet.", heart)
    # word: whole words only
    assert is_overgeneralised("door het hart", heart, matching="word")
    assert not is_overgeneralised("het hartje", heart, matching="word")
    assert not is_overgeneralised("het blauwe licht", ["blauw"], matching="word")
    assert not is_overgeneralised("Het leven is mooi.", ["even"], matching="word")
    # substring: anywhere, as the original code did
    assert is_overgeneralised("het hartje", heart, matching="substring")
    assert is_overgeneralised("Het leven is mooi.", ["even"], matching="substring")
    assert is_overgeneralised("Hij woont in Nederland.", ["land"], matching="substring")
    with pytest.raises(ValueError, match="inflected"):
        is_overgeneralised("x", heart, matching="stem")


@pytest.mark.parametrize(
    ("keyword", "form"),
    [
        ("hart", "hartje"),  # -je
        ("hart", "hartjes"),
        ("hart", "harten"),  # -en
        ("blauw", "blauwe"),  # adjective -e
        ("kostuum", "kostuums"),  # -s
        ("kostuum", "kostuumpje"),  # -pje
        ("kleur", "kleurtje"),  # -tje
        ("ding", "dingetje"),  # -etje
        ("ding", "dingetjes"),
        ("koning", "koninkje"),  # -kje after -ng
        ("gedachte", "gedachten"),  # -n after -e
        ("idee", "ideeën"),
        ("pak", "pakken"),  # doubled consonant after a short vowel
        ("kras", "krassen"),
        ("stem", "stemmetje"),
        ("staat", "staten"),  # long vowel written single in an open syllable
        ("zaak", "zaken"),
        ("probleem", "problemen"),
        ("poos", "pozen"),  # s voiced after a long vowel
        ("even", "eventjes"),
        ("Staat", "STATEN"),  # case-insensitive
    ],
)
def test_inflected_matching_accepts_dutch_endings(keyword, form):
    assert form.lower() in inflected_forms(keyword)
    assert is_overgeneralised(f"Het was {form} .", [keyword])
    assert not is_overgeneralised(f"Het was {form} .", [keyword], matching="word")


@pytest.mark.parametrize(
    ("keyword", "word"),
    [
        ("even", "leven"),  # not inside another word
        ("even", "evenwel"),
        ("land", "Nederland"),
        ("land", "landbouw"),  # compound: no ending
        ("hart", "hartelijk"),
        ("tijd", "tijdens"),
        ("weg", "wegwijzer"),
        ("staat", "staatsgreep"),
        ("kunst", "kunstwerk"),
        ("pak", "pakket"),
    ],
)
def test_inflected_matching_never_fires_inside_another_word(keyword, word):
    assert not is_overgeneralised(f"Het {word} .", [keyword])
    assert is_overgeneralised(f"Het {word} .", [keyword], matching="substring")


def test_keyword_matching_is_case_insensitive_and_detaches_punctuation():
    for matching in ("inflected", "word", "substring"):
        assert is_overgeneralised("Ik kende de formule door HART.", ["hart", "hartje"], matching=matching)
        assert is_overgeneralised("De Staat van de kunst.", ["staat"], matching=matching)
        assert is_overgeneralised("de staat van de kunst.", ["Staat"], matching=matching)
        assert is_overgeneralised("Ik speel het af en toe, even.", ["even"], matching=matching)
    assert is_overgeneralised("KUNSTWERK", ["kunst"], matching="substring")
    assert not is_overgeneralised("KUNSTWERK", ["kunst"])
    # the tokeniser splits the apostrophe of -'s off, so the keyword is a word of its own
    assert is_overgeneralised("De tandem's.", ["tandem"], matching="word")


def test_multi_word_keywords_match_as_token_sequences():
    for matching in ("inflected", "word"):
        assert is_overgeneralised("Hij kijkt de andere manier op.", ["andere manier"], matching=matching)
        assert not is_overgeneralised(
            "Hij kijkt de andere kant op, op zijn manier.", ["andere manier"], matching=matching
        )
    assert is_overgeneralised("Op andere manieren.", ["andere manier"])  # the last word inflected
    assert not is_overgeneralised("Op andere manieren.", ["andere manier"], matching="word")
    assert not is_overgeneralised("Op anderen manier.", ["andere manier"])  # only the last word


def test_reference_is_paraphrase():
    assert reference_is_paraphrase("Ik kende de formule uit het hoofd.", ["hart", "hartje"])
    assert not reference_is_paraphrase("Ik kende de formule door het hart.", ["hart", "hartje"])
    assert reference_is_paraphrase("Het leven gaat door.", ["even"])
    assert not reference_is_paraphrase("Het leven gaat door.", ["even"], matching="substring")
    assert not reference_is_paraphrase("Met zijn harten.", ["hart"])
    assert reference_is_paraphrase("Met zijn harten.", ["hart"], matching="word")
    for matching in ("inflected", "word", "substring"):
        assert reference_is_paraphrase("", ["hart"], matching=matching)  # empty: no keyword, as the original


# --------------------------------------------------------------------------------------
# items, translations, aggregation


def _write(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


S_CONJ_ITEMS = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["1", "1", "s1_prime", "A1", "B1"],
    ["2", "1", "s1_prime", "A2", "B2"],
    ["3", "1", "s3", "A1", "C1"],
    ["4", "2", "s3", "A2", "C2"],
]
S_CONJ_TRANSLATIONS = {
    "A1": "De man ziet de koning, en het kind slaapt.",
    "B1": "De man ziet de leider, en het kind slaapt.",
    "A2": "De vrouw ziet de koning, en de boer lacht.",
    "B2": "De vrouw ziet de leider; de boer lacht.",  # no conjunction: item 2 is not scored
    "C1": "De dichters en de kinderen zien de generaal en het kind rust.",
    "C2": "De slager bewondert de president , en de boer lacht .",
}


def test_score_items_and_summarise_s_conj(tmp_path):
    items = read_items(_write(tmp_path / "items.tsv", S_CONJ_ITEMS), "s_conj")
    labels = score_items(items, S_CONJ_TRANSLATIONS, "s_conj")
    assert labels["consistent"].tolist() == [True, pd.NA, False, True]
    assert labels["conjunct_a"].tolist()[0] == "het kind slaapt ."
    summary = summarise(labels, ["template", "condition"])
    assert summary.columns.tolist() == ["template", "condition", "consistency", "n"]
    assert summary.to_dict("records") == [
        {"template": "1", "condition": "s1_prime", "consistency": 1.0, "n": 1},
        {"template": "1", "condition": "s3", "consistency": 0.0, "n": 1},
        {"template": "2", "condition": "s3", "consistency": 1.0, "n": 1},
    ]
    overall = summarise(labels, [])
    assert overall.to_dict("records") == [{"consistency": 2 / 3, "n": 3}]


def test_summarise_group_without_scored_items_has_na_metric(tmp_path):
    items = read_items(_write(tmp_path / "items.tsv", S_CONJ_ITEMS[:3]), "s_conj")
    labels = score_items(items, S_CONJ_TRANSLATIONS, "s_conj")
    labels.loc[0, "consistent"] = pd.NA
    summary = summarise(labels, ["template"])
    assert summary["n"].tolist() == [0]
    assert pd.isna(summary["consistency"].iloc[0])


def test_score_substitutivity_and_overgeneralisation_with_resources():
    synonyms = load_synonyms(RESOURCES / "synonyms.tsv")
    items = pd.DataFrame(
        [
            {
                "item": "a",
                "template": "1",
                "pair": "aeroplane/airplane",
                "source_a": "x aeroplane",
                "source_b": "x airplane",
            },
            {
                "item": "b",
                "template": "1",
                "pair": "aeroplane/airplane",
                "source_a": "y aeroplane",
                "source_b": "y airplane",
            },
        ]
    )
    translations = {
        "x aeroplane": "De man reist per vliegtuig.",
        "x airplane": "De man reist met het vliegtuig.",
        "y aeroplane": "De man reist per vliegtuig.",
        "y airplane": "De man reist per vliegtuig .",
    }
    labels = score_items(items, translations, "substitutivity", synonyms=synonyms)
    assert labels["consistent"].tolist() == [False, True]
    assert labels["synonym_consistent"].tolist() == [True, True]
    summary = summarise(labels, ["template", "pair"])
    assert summary.to_dict("records") == [
        {"template": "1", "pair": "aeroplane/airplane", "consistency": 0.5, "synonym_consistency": 1.0, "n": 2}
    ]

    idioms = load_idioms(RESOURCES / "idioms.tsv")
    assert "even" in idioms[0].dutch_keywords
    once = idioms[0].idiom
    items = pd.DataFrame(
        [
            {"item": "1", "template": "n", "idiom": once, "source": "s1", "reference": "Af en toe speel ik het."},
            {"item": "2", "template": "n", "idiom": once, "source": "s2", "reference": "Speel het even."},
            {"item": "3", "template": "n", "idiom": once, "source": "s3", "reference": "Het leven."},
        ]
    )
    translations = {"s1": "Ik speel het even.", "s2": "Ik speel het even.", "s3": "Het leven gaat door."}
    labels = score_items(items, translations, "overgeneralisation", idioms=idioms)
    assert labels["overgeneralised"].tolist() == [True, True, False]
    labels = score_items(items, translations, "overgeneralisation", idioms=idioms, paraphrase_references_only=True)
    assert labels["reference_paraphrase"].tolist() == [True, False, True]
    assert labels["overgeneralised"].tolist() == [True, pd.NA, False]
    labels = score_items(
        items,
        translations,
        "overgeneralisation",
        idioms=idioms,
        paraphrase_references_only=True,
        keyword_matching="substring",
    )
    assert labels["overgeneralised"].tolist() == [True, pd.NA, pd.NA]


def test_an_empty_reference_is_a_paraphrase_under_the_filter():
    idioms = load_idioms(RESOURCES / "idioms.tsv")
    items = pd.DataFrame(
        [
            {"item": "1", "template": "n", "idiom": "by heart", "source": "s1", "reference": ""},
            {"item": "2", "template": "n", "idiom": "by heart", "source": "s2", "reference": "Door het hart."},
            {"item": "3", "template": "n", "idiom": "by heart", "source": "s3", "reference": "  "},
        ]
    )
    translations = {"s1": "Door het hart.", "s2": "Door het hart.", "s3": "Uit het hoofd."}
    labels = score_items(items, translations, "overgeneralisation", idioms=idioms, paraphrase_references_only=True)
    assert labels["reference_paraphrase"].tolist() == [True, False, True]
    assert labels["overgeneralised"].tolist() == [True, pd.NA, False]


def test_unknown_option_values_are_errors():
    items = pd.DataFrame([{"item": "1", "template": "1", "condition": "s3", "source_a": "a", "source_b": "b"}])
    with pytest.raises(ValueError, match="keyword matching must be one of"):
        score_items(items, {"a": "x", "b": "y"}, "s_conj", keyword_matching="words")
    with pytest.raises(ValueError, match="s_conj_missing_conjunct must be one of pair, triple"):
        score_items(items, {"a": "x", "b": "y"}, "s_conj", s_conj_missing_conjunct="item")
    with pytest.raises(ValueError, match="s_conj_split must be one of tokens, original"):
        score_items(items, {"a": "x", "b": "y"}, "s_conj", s_conj_split="comma")


# Three S -> S CONJ S triples of template 1 (S1 with S2 "het kind slaapt" etc.): in triple A every
# translation has a second conjunct; in B the S3 translation has none; in C the S1 translation (shared by
# both conditions) has none. Template 2 repeats triple A's sources: triples are per template.
TRIPLE_ITEMS = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["0", "1", "s1_prime", "A", "A1"],
    ["1", "1", "s1_prime", "B", "B1"],
    ["2", "1", "s1_prime", "C", "C1"],
    ["3", "1", "s3", "A", "A3"],
    ["4", "1", "s3", "B", "B3"],
    ["5", "1", "s3", "C", "C3"],
    ["6", "2", "s1_prime", "A", "A1"],
    ["7", "2", "s3", "A", "B3"],
]
TRIPLE_TRANSLATIONS = {
    "A": "De man ziet de koning, en het kind slaapt.",
    "A1": "De man ziet de leider, en het kind slaapt.",
    "A3": "De vrouw bewondert de generaal, en het kind rust.",
    "B": "De boer ziet de koning, en de vrouw lacht.",
    "B1": "De boer ziet de leider, en de vrouw lacht.",
    "B3": "De dichter vermijdt de koning; de vrouw lacht.",  # no second conjunct
    "C": "De slager ziet de koning; de vrouw lacht.",  # no second conjunct
    "C1": "De slager ziet de leider, en de vrouw lacht.",
    "C3": "De oom vergeet de burgemeester, en de vrouw lacht.",
}


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # pair: an item is unscored when one of its own two translations lacks the conjunct
        ("pair", [True, True, pd.NA, False, pd.NA, pd.NA, True, pd.NA]),
        # triple: also when the triple's other condition lacks it (B's S1' item, template 2's S1' item)
        ("triple", [True, pd.NA, pd.NA, False, pd.NA, pd.NA, pd.NA, pd.NA]),
    ],
)
def test_s_conj_missing_conjunct_pair_or_triple(tmp_path, rule, expected):
    items = read_items(_write(tmp_path / "items.tsv", TRIPLE_ITEMS), "s_conj")
    labels = score_items(items, TRIPLE_TRANSLATIONS, "s_conj", s_conj_missing_conjunct=rule)
    assert labels["consistent"].tolist() == expected
    assert labels["conjunct_b"].isna().tolist() == [False, False, False, False, True, False, False, True]
    summary = summarise(labels, ["condition"])
    n = {"pair": [3, 1], "triple": [1, 1]}[rule]
    assert summary[["condition", "n"]].values.tolist() == [["s1_prime", n[0]], ["s3", n[1]]]


# Three S -> S CONJ S triples (S1, S1', S3) to reproduce the original code's denominator.
# A: every translation has a conjunct found by both rules; S3 changes S2.
# B: S1 and S1' have a short template-4 S1 (Hij en zij ,): the original finds S2 after the
#    second en, natcomp finds none; S3 has a single early en: the original's empty conjunct.
# C: the S1' translation has no " en " at all: skipped by both rules.
ORIGINAL_TRIPLE_ITEMS = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["0", "4", "s1_prime", "A", "A1"],
    ["1", "4", "s1_prime", "B", "B1"],
    ["2", "4", "s1_prime", "C", "C1"],
    ["3", "4", "s3", "A", "A3"],
    ["4", "4", "s3", "B", "B3"],
    ["5", "4", "s3", "C", "C3"],
]
ORIGINAL_TRIPLE_TRANSLATIONS = {
    "A": "De dichter en het kind zagen de koning , en de man liep .",
    "A1": "De dichter en het kind zagen de leider , en de man liep .",
    "A3": "De vrouw bewondert de generaal , en de man rende .",
    "B": "Hij en zij , en de vrouw lacht .",
    "B1": "Hij en wij , en de vrouw lacht .",
    "B3": "De dichter en de vrouw lachen .",
    "C": "De boer ziet de koning , en het kind slaapt .",
    "C1": "De boer ziet de leider ; het kind slaapt .",
    "C3": "De oom vergeet de burgemeester , en het kind slaapt .",
}


def _original_scores(s1: list[str], s1p: list[str], s3: list[str]) -> tuple[float, float, int]:
    """The anchor's compute_systematicity_s_conj by hand: skip a triple unless all three
    translations contain " en "; (mean s1p_ok, mean s3_ok, scored triples)."""
    kept = [(a, b, c) for a, b, c in zip(s1, s1p, s3) if all(" en " in t for t in (a, b, c))]

    def conj(sent: str) -> str:  # the anchor's get_conjunct, found case
        parts = sent.split(" en ")
        return " en ".join(parts[2:] if len(parts[0].split()) < 5 else parts[1:])

    s1p_ok = [conj(a) == conj(b) for a, b, _ in kept]
    s3_ok = [conj(a) == conj(c) for a, _, c in kept]
    return sum(s1p_ok) / len(kept), sum(s3_ok) / len(kept), len(kept)


@pytest.mark.parametrize(
    ("split", "missing", "expected", "n"),
    [
        # the original code's rules: C dropped from both conditions; B scored (S1' consistent,
        # S3's empty conjunct inconsistent): s1p 2/2, s3 0/2
        ("original", "triple", [True, True, pd.NA, False, False, pd.NA], [2, 2]),
        # the original split, natcomp's pairs: C's S3 item stays
        ("original", "pair", [True, True, pd.NA, False, False, True], [2, 3]),
        # natcomp's split: B has no S2 in S1, so B leaves both conditions too
        ("tokens", "triple", [True, pd.NA, pd.NA, False, pd.NA, pd.NA], [1, 1]),
        ("tokens", "pair", [True, pd.NA, pd.NA, False, pd.NA, True], [1, 2]),
    ],
)
def test_s_conj_split_and_missing_conjunct_rules(tmp_path, split, missing, expected, n):
    items = read_items(_write(tmp_path / "items.tsv", ORIGINAL_TRIPLE_ITEMS), "s_conj")
    labels = score_items(
        items, ORIGINAL_TRIPLE_TRANSLATIONS, "s_conj", s_conj_split=split, s_conj_missing_conjunct=missing
    )
    assert labels["consistent"].tolist() == expected
    summary = summarise(labels, ["condition"])
    assert summary[["condition", "n"]].values.tolist() == [["s1_prime", n[0]], ["s3", n[1]]]
    if (split, missing) == ("original", "triple"):
        t = ORIGINAL_TRIPLE_TRANSLATIONS
        s1p, s3, kept = _original_scores(
            [t[k] for k in "ABC"], [t[k + "1"] for k in "ABC"], [t[k + "3"] for k in "ABC"]
        )
        assert (s1p, s3, kept) == (1.0, 0.0, 2)
        assert summary["consistency"].tolist() == [s1p, s3]
        assert labels["conjunct_b"].tolist()[4] == ""  # B3's empty conjunct, found


def test_score_items_missing_translation_names_the_sentence(tmp_path):
    items = read_items(_write(tmp_path / "items.tsv", S_CONJ_ITEMS), "s_conj")
    with pytest.raises(ValueError, match="'C2'"):
        score_items(items, {k: v for k, v in S_CONJ_TRANSLATIONS.items() if k != "C2"}, "s_conj")


def test_read_items_checks(tmp_path):
    with pytest.raises(InputError, match="missing column.*condition"):
        read_items(
            _write(tmp_path / "a.tsv", [["item", "template", "source_a", "source_b"], ["1", "1", "x", "y"]]), "np_vp"
        )
    bad = [S_CONJ_ITEMS[0], ["1", "1", "np_prime", "x", "y"]]
    with pytest.raises(InputError, match="condition must be one of s1_prime, s3") as error:
        read_items(_write(tmp_path / "b.tsv", bad), "s_conj")
    assert error.value.line == 2
    duplicate = [S_CONJ_ITEMS[0], S_CONJ_ITEMS[1], S_CONJ_ITEMS[1]]
    with pytest.raises(InputError, match="duplicate item id '1' \\(first on line 2\\)"):
        read_items(_write(tmp_path / "c.tsv", duplicate), "s_conj")
    pairs = [["item", "template", "pair", "source_a", "source_b"], ["1", "1", "aeroplane/jet", "x", "y"]]
    with pytest.raises(InputError, match="unknown pair 'aeroplane/jet'; expected one of") as error:
        read_items(_write(tmp_path / "d.tsv", pairs), "substitutivity", {"aeroplane/airplane"})
    assert error.value.line == 2
    # an empty reference is allowed
    idioms = [["item", "template", "idiom", "source", "reference"], ["1", "1", "by heart", "I know it by heart.", ""]]
    frame = read_items(_write(tmp_path / "e.tsv", idioms), "overgeneralisation", {"by heart"})
    assert frame["idiom"].tolist() == ["by heart"] and frame["reference"].tolist() == [""]
    assert frame.attrs["lines"] == [2]


@pytest.mark.parametrize(
    ("source", "idiom", "contained"),
    [
        ("I knew the formula by heart .", "by heart", True),
        ("BY HEART, he said", "by heart", True),  # case-insensitive
        ("By the  same\ttoken", "by the same token", True),  # any white space between the words
        ('that said "I keep tabs on you"', "keep tabs on", True),
        ("He keeps tabs on you", "keep tabs on", False),  # whole words
        ("a heartless lawyer, by heartless means", "by heart", False),
        ("Out of the blueprint", "out of the blue", False),
        ("heart by", "by heart", False),
    ],
)
def test_source_contains_idiom(source, idiom, contained):
    assert source_contains_idiom(source, idiom) is contained


def test_read_items_rejects_an_idiom_numbering_out_of_step_with_the_sources(tmp_path):
    """A swapped idiom numbering (the sources of idiom 9 labelled as idiom 10 ...) is caught when read."""
    idioms = load_idioms(RESOURCES / "idioms.tsv")
    names = [idiom.idiom for idiom in idioms]
    header = ["item", "template", "idiom", "source", "reference"]
    rows = [
        [str(i), "natural", name, f'He said "{idiom.clause}" .', ""]
        for i, (name, idiom) in enumerate(zip(names, idioms))
    ]
    right = read_items(_write(tmp_path / "right.tsv", [header, *rows]), "overgeneralisation", set(names))
    assert right["idiom"].tolist() == names
    swapped = [list(row) for row in rows]
    swapped[9][2], swapped[10][2] = swapped[10][2], swapped[9][2]  # in tandem <-> by heart
    path = _write(tmp_path / "swapped.tsv", [header, *swapped])
    with pytest.raises(InputError, match="does not contain its idiom 'by heart'") as error:
        read_items(path, "overgeneralisation", set(names))
    assert error.value.line == 11  # item 9, after the header
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("test", "column"), [(test, column) for test, columns in ITEM_COLUMNS.items() for column in columns]
)
def test_read_items_rejects_a_file_without_a_required_column(tmp_path, test, column):
    """Every required column is checked, ``reference`` too (it may be empty, not absent)."""
    header = [c for c in ITEM_COLUMNS[test] if c != column]
    values = {"condition": CONDITIONS.get(test, ("x",))[0], "pair": "aeroplane/airplane", "idiom": "by heart"}
    path = _write(tmp_path / "items.tsv", [header, [values.get(c, f"{c} 1") for c in header]])
    with pytest.raises(InputError) as error:
        read_items(path, test)
    assert error.value.path == str(path) and error.value.line == 1
    assert f"missing column(s) {column};" in error.value.message
    assert f"expected the columns {', '.join(ITEM_COLUMNS[test])}" in error.value.message


def test_read_items_rejects_a_line_break_inside_a_source(tmp_path):
    path = tmp_path / "items.tsv"
    pd.DataFrame([{"item": "1", "template": "1", "condition": "s3", "source_a": "A\nB", "source_b": "C"}]).to_csv(
        path, sep="\t", index=False
    )
    with pytest.raises(InputError, match="line break inside source_a") as error:
        read_items(path, "s_conj", quoted="auto")
    assert error.value.line == 2


def test_read_items_and_translations_written_by_pandas(tmp_path):
    items = pd.DataFrame(
        [
            {"item": "1", "template": "1", "condition": "s1_prime", "source_a": '"A1"', "source_b": "B\t1"},
            {"item": "2", "template": "1", "condition": "s3", "source_a": '"A1"', "source_b": 'say "C1"'},
        ]
    )
    items.to_csv(tmp_path / "items.tsv", sep="\t", index=False, encoding="utf-8-sig")
    frame = read_items(tmp_path / "items.tsv", "s_conj", quoted="auto")
    assert frame[list(items.columns)].to_dict("records") == items.to_dict("records")
    sources = unique_sources(frame, "s_conj")
    assert sources == ['"A1"', "B\t1", 'say "C1"']
    translations = pd.DataFrame({"source": sources, "translation": ['"x"', "y\tz", 'zeg "w"']})
    translations.to_csv(tmp_path / "hyp.tsv", sep="\t", index=False, encoding="utf-8-sig")
    assert read_translations(tmp_path / "hyp.tsv", sources, quoted="auto") == dict(
        zip(sources, translations["translation"])
    )
    with pytest.raises(InputError, match="expected 2 tab-separated fields"):  # read literally, split at its tab
        read_translations(tmp_path / "hyp.tsv", sources, quoted=False)


def test_lines_translations_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "hyp.txt"
    path.write_text("\ufeffeen\r\ntwee\r\n", encoding="utf-8")
    assert read_translations(path, ["one", "two"], "lines") == {"one": "een", "two": "twee"}


def test_summarise_overall_rows_pool_items_not_groups(tmp_path):
    labels = pd.DataFrame(
        {
            "template": ["1", "1", "1", "2", "2"],
            "pair": ["a/b", "a/b", "c/d", "a/b", "c/d"],
            "consistent": pd.array([True, False, True, True, pd.NA], dtype="boolean"),
            "synonym_consistent": pd.array([True, True, False, True, True], dtype="boolean"),
        }
    )
    summary = summarise(labels, ["template", "pair"], overall=True)
    records = summary.to_dict("records")
    assert [(r["template"], r["pair"], r["n"]) for r in records] == [
        ("1", "a/b", 2),
        ("1", "c/d", 1),
        ("2", "a/b", 1),
        ("2", "c/d", 0),
        ("overall", "a/b", 3),
        ("overall", "c/d", 1),
        ("overall", "overall", 4),
    ]
    assert records[4]["consistency"] == pytest.approx(2 / 3)  # items of a/b over templates 1 and 2
    assert records[-1]["consistency"] == pytest.approx(3 / 4)  # not the mean of the group means
    assert records[-1]["synonym_consistency"] == pytest.approx(3 / 4)
    assert summarise(labels, ["template", "pair"]).shape[0] == 4  # no pooled rows unless asked
    assert summarise(labels, [], overall=True).to_dict("records") == summarise(labels, []).to_dict("records")
    labels.loc[0, "template"] = OVERALL
    with pytest.raises(ValueError, match="holds the value 'overall'"):
        summarise(labels, ["template", "pair"], overall=True)


def test_write_summary_rounds_to_four_places(tmp_path):
    summary = pd.DataFrame({"pair": ["a/b"], "consistency": [2 / 3], "synonym_consistency": [pd.NA], "n": [3]})
    write_summary(summary, tmp_path / "s.tsv")
    assert (tmp_path / "s.tsv").read_text(
        encoding="utf-8"
    ) == "pair\tconsistency\tsynonym_consistency\tn\na/b\t0.6667\t\t3\n"


def test_translations_lines_format_and_checks(tmp_path):
    items = read_items(_write(tmp_path / "items.tsv", S_CONJ_ITEMS), "s_conj")
    sources = unique_sources(items, "s_conj")
    assert sources == ["A1", "B1", "A2", "B2", "C1", "C2"]
    lines = tmp_path / "hyp.txt"
    lines.write_text("".join(S_CONJ_TRANSLATIONS[s] + "\n" for s in sources), encoding="utf-8")
    assert read_translations(lines, sources, "lines") == S_CONJ_TRANSLATIONS
    with pytest.raises(InputError, match="has 6 lines but the items have 5 unique source sentences"):
        read_translations(lines, sources[:5], "lines")
    table = _write(tmp_path / "t.tsv", [["source", "translation"], ["A1", "x"], ["A1", "y"]])
    with pytest.raises(InputError, match="two different translations") as error:
        read_translations(table, ["A1"])
    assert error.value.line == 3
    table = _write(tmp_path / "u.tsv", [["source", "hypothesis"], ["A1", "x"]])
    with pytest.raises(InputError, match="missing column\(s\) translation"):
        read_translations(table, ["A1"])
    table = _write(tmp_path / "v.tsv", [["source", "translation"], ["A1", "x"], ["Z", "extra rows are fine"]])
    with pytest.raises(InputError, match="no translation for the source sentence 'B1' \\(and 1 more\\)"):
        read_translations(table, ["A1", "B1", "C1"])


# --------------------------------------------------------------------------------------
# our resources against the original keyword lists (optional data)


def test_our_idiom_keywords_come_from_the_original_keyword_sets():
    original = ORIGINAL / "idioms.tsv"
    if not original.is_file():
        pytest.skip(f"{original} (the original repository's idioms.tsv) is not available")
    sets = {}
    for line in original.read_text(encoding="utf-8").splitlines()[1:]:
        fields = line.rstrip("\r").split("\t")
        sets[fields[0].strip()] = set(ast.literal_eval(fields[2].strip()))
    for idiom in load_idioms(RESOURCES / "idioms.tsv"):
        assert idiom.idiom in sets, idiom.idiom
        extra = set(idiom.dutch_keywords) - sets[idiom.idiom]
        assert not extra, f"{idiom.idiom}: keywords not in the original set: {sorted(extra)}"


def test_score_test_files_passes_the_options_on(tmp_path):
    """The workflow's entry point: keyword matching and the S CONJ S rule reach the labels."""
    model = {"system": "trained", "size": "full", "seed": "1", "checkpoint": "best"}
    s_conj = _write(tmp_path / "s_conj.tsv", TRIPLE_ITEMS)
    # translation files as the workflow writes them: with the decode signature
    header = ["source", "translation", "decode_signature"]
    translations = _write(tmp_path / "hyp.tsv", [header, *([s, t, "sig"] for s, t in TRIPLE_TRANSLATIONS.items())])
    n = {}
    for rule in ("pair", "triple"):
        labels = score_test_files(
            {"synthetic": s_conj}, translations, "s_conj", model=model, s_conj_missing_conjunct=rule
        )
        n[rule] = int(labels["consistent"].notna().sum())
    assert n == {"pair": 4, "triple": 2}
    s_conj = _write(tmp_path / "s_conj_original.tsv", ORIGINAL_TRIPLE_ITEMS)
    translations = _write(
        tmp_path / "hyp_original.tsv", [header, *([s, t, "sig"] for s, t in ORIGINAL_TRIPLE_TRANSLATIONS.items())]
    )
    n = {}
    for split in ("tokens", "original"):
        labels = score_test_files(
            {"synthetic": s_conj},
            translations,
            "s_conj",
            model=model,
            s_conj_split=split,
            s_conj_missing_conjunct="triple",
        )
        n[split] = int(labels["consistent"].notna().sum())
    assert n == {"tokens": 2, "original": 4}

    idioms = load_idioms(RESOURCES / "idioms.tsv")
    items = _write(
        tmp_path / "idioms.tsv",
        [
            ["item", "template", "idiom", "source", "reference"],
            ["1", "natural", "by heart", "I know it by heart .", ""],
        ],
    )
    translations = _write(tmp_path / "hyp2.tsv", [header, ["I know it by heart .", "Met harten.", "sig"]])
    found = {
        matching: score_test_files(
            {"natural": items},
            translations,
            "overgeneralisation",
            model=model,
            idioms=idioms,
            keyword_matching=matching,
        )["overgeneralised"].tolist()
        for matching in ("substring", "word", "inflected")
    }
    assert found == {"substring": [True], "word": [False], "inflected": [True]}


# --------------------------------------------------------------------------------------
# the config's choices are the library's


def test_schema_choices_are_the_library_options():
    import yaml

    from natcomp.mt.config import AUTO
    from natcomp.mt.scoring import KEYWORD_MATCHING, S_CONJ_MISSING_CONJUNCT, S_CONJ_SPLIT

    schema = yaml.safe_load((RESOURCES.parent / "config" / "schema" / "mt.yaml").read_text(encoding="utf-8"))
    tests = schema["properties"]["tests"]["properties"]
    assert set(tests["keyword_matching"]["enum"]) == {*KEYWORD_MATCHING, AUTO}, "auto: the config's, per language"
    assert tests["keyword_matching"]["default"] == "inflected"
    assert set(tests["s_conj_missing_conjunct"]["enum"]) == set(S_CONJ_MISSING_CONJUNCT)
    assert tests["s_conj_missing_conjunct"]["default"] == "pair"
    assert set(tests["s_conj_split"]["enum"]) == set(S_CONJ_SPLIT)
    assert tests["s_conj_split"]["default"] == "tokens"
