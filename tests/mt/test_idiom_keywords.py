"""The target languages' idiom keyword lists, checked as a native reader would (issue 53):
each language file's probes, the collisions of keywords with the templates' words, stems
that match ordinary words, word-for-word idioms, and the keyword notation (exact forms,
compound heads, capitalised nouns)."""

from __future__ import annotations

import csv
import dataclasses

import pytest

from natcomp.mt import keyword_checks, languages
from natcomp.mt.consistency import is_overgeneralised, reference_is_paraphrase
from natcomp.mt.keyword_checks import keyword_collisions, probe_failures, template_words, unlisted_collisions
from natcomp.mt.languages import target_language
from natcomp.mt.lexicon import load_idioms
from natcomp.shipped import resource_path

TARGETS = ["nl", "de", "fr", "es"]
IDIOMS = [idiom.idiom for idiom in load_idioms(resource_path("idioms.tsv"))]


def keywords(code: str, idiom: str) -> tuple[str, ...]:
    return target_language(code).idiom_keywords.keywords[idiom]


# --------------------------------------------------------------------------------------
# the probes of each language file


@pytest.mark.parametrize("code", TARGETS)
def test_every_idiom_has_probes_and_every_probe_of_the_language_file_passes(code):
    """Per idiom at least one idiomatic translation scored 0 and one literal scored 1,
    and no keyword fires on the file's ordinary sentences."""
    language = target_language(code)
    probes = language.idiom_probes
    assert sorted(probes.idiomatic) == sorted(probes.literal) == sorted(IDIOMS)
    assert all(probes.idiomatic[idiom] and probes.literal[idiom] for idiom in IDIOMS)
    assert probes.ordinary, "ordinary sentences check the stems against frequent words"
    assert "idiom_probes" in language.drafted, "natcomp wrote the probes"
    assert probe_failures(code) == []


def test_the_papers_dutch_lists_pass_their_probes_under_the_papers_substring_matching_too():
    assert probe_failures("nl", "substring", ordinary=False) == []
    failures = probe_failures("nl", "substring")
    assert failures and all(line.startswith("ordinary ") for line in failures), "even in leven, land in Nederland"


def test_a_probe_fails_when_its_keyword_leaves_the_list(monkeypatch):
    """The probes guard the lists: without Herz, German's literal 'durch das Herz' is
    not found; with Verstand alone, the idiomatic 'den Verstand verloren' is."""
    german = target_language("de")
    lists = {**german.idiom_keywords.keywords, "by heart": ("Herzchen",), "out of your mind": ("Verstand",)}
    changed = dataclasses.replace(german, idiom_keywords=dataclasses.replace(german.idiom_keywords, keywords=lists))
    monkeypatch.setattr(keyword_checks, "target_language", lambda code: changed)
    failures = probe_failures("de")
    assert "by heart: literal 'Ich kannte die Formel durch das Herz.' is not scored as overgeneralised" in failures
    assert "out of your mind: idiomatic 'Hast du den Verstand verloren?' is scored as overgeneralised" in failures


# --------------------------------------------------------------------------------------
# collisions with the templates' words


def test_template_words_cover_every_word_of_the_templates_in_every_language():
    """Every English word of the template lexicon has a row, with the lexicon's own Dutch
    forms, and every target language has forms for it."""
    path = resource_path("mt", "template_words.tsv")
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    by_english = {row["en"]: row for row in rows}
    for name in keyword_checks.TEMPLATE_LEXICON:
        with open(resource_path("lexicon", name), encoding="utf-8") as handle:
            for entry in csv.DictReader(handle, delimiter="\t"):
                # a noun by its singular, a verb by its plural (the infinitive), others as they are
                english = entry["en_plural"] if name.endswith("_verbs.tsv") else entry.get("en_singular") or entry["en"]
                assert english in by_english, f"{name}: {english} has no row in template_words.tsv"
                dutch = by_english[english]["nl"].split(";")
                for column in ("nl_singular", "nl_plural", "nl"):
                    if column in entry:
                        assert entry[column] in dutch, f"{english}: {entry[column]} (lexicon) not in its nl forms"
    for code in TARGETS:
        assert {english for english, _ in template_words(code)} == set(by_english)


@pytest.mark.parametrize("code", TARGETS)
def test_no_keyword_fires_on_a_template_word_unless_the_file_keeps_it_with_a_reason(code):
    assert unlisted_collisions(code) == []
    kept = target_language(code).idiom_keywords.kept_collisions
    colliding = {collision.keyword for collision in keyword_collisions(code)}
    assert set(kept) == colliding, "a kept collision that no longer collides is listed in vain"


def test_dutch_keeps_the_papers_rennen_which_fires_on_the_template_verb_run():
    collisions = keyword_collisions("nl")
    assert [(c.idiom, c.keyword, c.english, c.form) for c in collisions] == [
        ("in the short run", "rennen", "run", "rennen")
    ]
    note = keyword_checks.kept_collision_note(target_language("nl"), "in the short run")
    assert note.startswith("keeps rennen although it fires on a template word: the paper's list")


@pytest.fixture
def german_without_capitals(tmp_path, monkeypatch):
    """German as shipped but for nouns_capitalised: false."""
    folder = tmp_path / "languages"
    folder.mkdir()
    for code in ("de", "en"):
        text = (languages.languages_dir() / f"{code}.yaml").read_text(encoding="utf-8")
        (folder / f"{code}.yaml").write_text(
            text.replace("nouns_capitalised: true", "nouns_capitalised: false"), encoding="utf-8"
        )
    monkeypatch.setattr(languages, "languages_dir", lambda: folder)
    _clear_caches()
    yield "de"
    _clear_caches()


def _clear_caches():
    from natcomp.mt import consistency

    languages.load_language.cache_clear()
    consistency._language.cache_clear()


def test_the_collision_check_finds_a_noun_keyword_that_matches_a_template_verb(german_without_capitals):
    """Without the capital rule, Rennen (a race) has the stem of rennen (run, a template
    verb) and Lauf that of laufen: the check names them."""
    found = {(c.keyword, c.form) for c in keyword_collisions("de")}
    assert ("Rennen", "rennen") in found
    assert all(c.idiom == "in the short run" for c in keyword_collisions("de"))


# --------------------------------------------------------------------------------------
# stems that match ordinary words; words of the language's own idiomatic translation


@pytest.mark.parametrize(
    ("code", "drafted_keyword", "ordinary", "idiom", "literal"),
    [
        # weile: the stem alone (the capital rule already keeps "Weile" off a lowercase weil)
        ("de", "weile", "Ich bleibe hier, weil es regnet.", "once in a while", "Ich spiele es einmal in einer Weile."),
        ("de", "Weile", "Weil es regnet, bleibe ich hier.", "once in a while", "Ich spiele es einmal in einer Weile."),
        ("fr", "chose", "Il a dit quelque chose.", "do the right thing", "Fais juste la bonne chose."),
        ("es", "estado", "Ha estado aquí toda la mañana.", "state of the art", "Es un estado del arte."),
    ],
)
def test_a_stem_of_an_ordinary_word_no_longer_fires(code, drafted_keyword, ordinary, idiom, literal):
    """The earlier drafts' keyword fired on a frequent word (weil "because", quelque chose,
    ha estado); the shipped list does not, and still finds the literal translation."""
    assert is_overgeneralised(ordinary, [drafted_keyword], language=code), "the stem problem the draft had"
    assert not is_overgeneralised(ordinary, keywords(code, idiom), language=code)
    assert is_overgeneralised(literal, keywords(code, idiom), language=code)
    # with paraphrase_references_only, a natural item whose reference holds the word stays in
    assert reference_is_paraphrase(ordinary, keywords(code, idiom), language=code)


def test_a_correct_german_idiomatic_translation_is_not_word_for_word():
    """den Verstand verlieren, von Sinnen sein: German idioms for "out of your mind"."""
    for sentence in ("Hast du den Verstand verloren?", "Bist du von Sinnen?"):
        assert not is_overgeneralised(sentence, keywords("de", "out of your mind"), language="de")
    assert is_overgeneralised(
        "Bist du aus deinem Verstand gegangen?", keywords("de", "out of your mind"), language="de"
    )


def test_word_for_word_idioms_are_marked_per_language_with_a_reason():
    marked = {code: set(target_language(code).idiom_keywords.word_for_word) for code in TARGETS}
    assert marked == {
        "nl": set(),  # the paper chose idioms whose Dutch translation is not the literal one
        "de": {"in tandem"},
        "fr": {"in the final analysis", "in tandem", "by heart", "set eyes on"},
        "es": {"in the final analysis", "in tandem", "set eyes on"},
    }
    french = target_language("fr")
    assert french.is_word_for_word("by heart") and not french.is_word_for_word("out of the blue")
    assert "par cœur" in french.idiom_keywords.word_for_word["by heart"]
    # the word-for-word rendering is correct and scores 1: the score measures accuracy there
    assert is_overgeneralised("Je connaissais la formule par cœur.", keywords("fr", "by heart"), language="fr")


def test_the_docs_list_each_languages_word_for_word_idioms_and_kept_collisions():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    text = (docs / "mt.md").read_text(encoding="utf-8")
    design = (docs / "design" / "mt.md").read_text(encoding="utf-8")
    # the table of languages in the guide, the kept collisions on the design page
    section = text.split("## Other target languages", 1)[1].split("### Comparing a model", 1)[0]
    section += design.split("### Idiom keywords, probes and collisions", 1)[1].split("\n### ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| ")}
    for code in TARGETS:
        listed = target_language(code).idiom_keywords.word_for_word
        assert all(idiom in rows[code] for idiom in listed), code
        assert not listed or "none" not in rows[code].split("|")[2]
        for keyword in target_language(code).idiom_keywords.kept_collisions:
            assert f"*{keyword}*" in section, f"{code}: the kept collision {keyword} is not in docs/design/mt.md"


# --------------------------------------------------------------------------------------
# the keyword notation: capitalised nouns, exact forms, compound heads


def test_a_capitalised_german_keyword_matches_capitalised_tokens_only():
    assert is_overgeneralised("Das Rennen war kurz.", ["Rennen"], language="de")
    assert not is_overgeneralised("Die Kinder rennen.", ["Rennen"], language="de"), "the verb"
    assert is_overgeneralised("Die Kinder rennen.", ["rennen"], language="de"), "a lowercase keyword: any case"
    assert not is_overgeneralised("Wir schauen weg.", ["Weg"], language="de"), "the particle of wegschauen"
    assert is_overgeneralised("Wir schauen den anderen Weg.", ["Weg"], language="de")
    assert is_overgeneralised("Die Kinder rennen.", ["Rennen"], "word", language="de"), "word: case-insensitive"
    assert is_overgeneralised("Die Kinder rennen.", ["Rennen"], language="nl"), "Dutch has no capital rule"


def test_an_exact_form_keyword_skips_the_stem():
    assert is_overgeneralised("Weil es regnet.", ["Weile"], language="de"), "Weile and weil share a stem"
    assert not is_overgeneralised("Weil es regnet.", ["=Weile"], language="de")
    assert is_overgeneralised("Nach einer Weile.", ["=Weile"], language="de")
    assert not is_overgeneralised("Lo hago a ratos.", ["=rato"], language="es")
    assert is_overgeneralised("Lo hago a ratos.", ["rato"], language="es")
    assert is_overgeneralised("Nach einer Weile.", ["=Weile"], "substring", language="de"), "prefix dropped"


def test_a_compound_head_keyword_matches_right_headed_compounds():
    assert is_overgeneralised("In der Endanalyse zählt das.", ["*Analyse"], language="de")
    assert not is_overgeneralised("In der Endanalyse zählt das.", ["Analyse"], language="de")
    assert is_overgeneralised("Quer über das Schachbrett.", ["*Brett"], language="de")
    assert not is_overgeneralised("Ein Analysebericht.", ["*Analyse"], language="de"), "a head, not a modifier"
    assert not is_overgeneralised("Das Xanalyse.", ["*Analyse"], language="de"), "a modifier of 3 letters at least"


def test_a_prefix_without_a_word_or_a_multiword_compound_head_is_an_error_naming_the_file(tmp_path, monkeypatch):
    from natcomp.errors import InputError

    folder = tmp_path / "languages"
    folder.mkdir()
    german = (languages.languages_dir() / "de.yaml").read_text(encoding="utf-8")
    monkeypatch.setattr(languages, "languages_dir", lambda: folder)
    for bad, message in (('"*Brett"', "a compound head is one word"), ('"=Weile"', "has no word after its prefix")):
        replacement = '"*Brett Spiel"' if bad == '"*Brett"' else '"="'
        (folder / "de.yaml").write_text(german.replace(bad, replacement), encoding="utf-8")
        languages.load_language.cache_clear()
        with pytest.raises(InputError, match=message):
            languages.load_language("de")
    languages.load_language.cache_clear()
