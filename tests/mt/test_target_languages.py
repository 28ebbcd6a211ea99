"""Hand-made German, French and Spanish translations scored by every MT measure (issue 44).

:data:`CASES` is a table of known answers: each row is scored under its own language and
under the Dutch rules, and both answers are part of the row, so that a row fails when the
language-specific line it guards changes (the tokeniser, a conjunction, the first-conjunct
threshold, an equivalence group, the Snowball stems). The same table is printed in
``docs/mt.md`` (``### Hand-made cases per language``; :func:`markdown_table`), and a test
keeps the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from natcomp.cli import main
from natcomp.mt import consistency, languages
from natcomp.mt.consistency import (
    expand_contractions,
    is_overgeneralised,
    np_vp_consistent,
    reference_is_paraphrase,
    s_conj_consistent,
    substitution_consistent,
    synonym_consistent,
    tokens,
)
from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.scoring import probe_synonym_candidates, score_items
from natcomp.shipped import resource_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "design" / "mt.md"
HEADING = "### Hand-made cases per language"

HEART = {"de": ("Herz", "Herzchen"), "fr": ("cœur", "coeur"), "es": ("corazón",)}


@dataclass(frozen=True)
class Case:
    """One hand-made case: ``measure`` of :data:`MEASURES` on ``a`` (and ``b``) in ``language``."""

    language: str
    measure: str
    a: str
    b: str | None
    words: tuple[str, ...]  # the keywords or synonym candidates the measure searches
    expected: bool | None
    dutch: bool | None  # the answer of the Dutch rules (language="nl") on the same text
    shows: str

    @property
    def id(self) -> str:
        return f"{self.language}-{self.measure}-{self.a[:24]}"


#: measure -> how a case is scored in a language
MEASURES: dict[str, Callable[[Case, str], bool | None]] = {
    "np_vp": lambda c, lang: np_vp_consistent(c.a, c.b, language=lang),
    "s_conj": lambda c, lang: s_conj_consistent(c.a, c.b, language=lang),
    "s_conj original": lambda c, lang: s_conj_consistent(c.a, c.b, "original", language=lang),
    "substitution": lambda c, lang: substitution_consistent(c.a, c.b, language=lang),
    "synonym": lambda c, lang: synonym_consistent(c.a, c.b, c.words, language=lang),
    "overgeneralised": lambda c, lang: is_overgeneralised(c.a, c.words, language=lang),
    "overgeneralised word": lambda c, lang: is_overgeneralised(c.a, c.words, "word", language=lang),
    "overgeneralised substring": lambda c, lang: is_overgeneralised(c.a, c.words, "substring", language=lang),
    "reference paraphrase": lambda c, lang: reference_is_paraphrase(c.a, c.words, language=lang),
}

DE_S2 = "und der Hund schläft ."
FR_S2 = "et le chien dort ."
ES_S2 = "y el perro duerme ."

CASES = [
    # German
    Case(
        "de",
        "np_vp",
        "Der Junge sieht den König .",
        "Der Junge sieht die Königin .",
        (),
        True,
        False,
        "den/die are one group of equivalent_tokens; Dutch has no den",
    ),
    Case(
        "de",
        "np_vp",
        "Der Junge sieht den alten König .",
        "Der Junge sieht die junge Königin .",
        (),
        False,
        False,
        "two words change (alten/junge, König/Königin)",
    ),
    Case(
        "de",
        "np_vp",
        "Der Junge steht beim König .",
        "Der Junge steht bei der Königin .",
        (),
        True,
        False,
        "contractions: beim is bei dem, and dem/der are one group",
    ),
    Case(
        "de",
        "s_conj",
        f"Der Junge sieht den König , {DE_S2}",
        f"Die Frau sieht den König , {DE_S2}",
        (),
        True,
        None,
        "S2 follows und; Dutch finds no en",
    ),
    Case(
        "de",
        "s_conj",
        f"Der Junge und das Mädchen sehen den König , {DE_S2}",
        f"Der Junge sieht den König , {DE_S2}",
        (),
        True,
        None,
        "the und of the subject has 2 tokens before it (< 5): skipped",
    ),
    Case(
        "de",
        "s_conj original",
        f"Der Junge und das Mädchen sehen den König , {DE_S2}",
        f"Der Junge sieht den König , {DE_S2}",
        (),
        True,
        None,
        "fewer than 5 words before the first und: S2 follows the second",
    ),
    Case(
        "de",
        "s_conj",
        "Der Junge und das Mädchen schlafen .",
        "Der Mann und die Frau schlafen .",
        (),
        None,
        None,
        "only an early und: no S2, not scored",
    ),
    Case(
        "de",
        "s_conj original",
        "Der Junge und das Mädchen schlafen .",
        "Der Mann und die Frau schlafen .",
        (),
        True,
        None,
        "the original's empty S2 after a single early und equals any other",
    ),
    Case(
        "de",
        "substitution",
        "Ich reise mit dem Flugzeug .",
        "Ich fliege mit dem Flugzeug .",
        ("Flugzeug",),
        False,
        False,
        "the full translations differ",
    ),
    Case(
        "de",
        "synonym",
        "Ich reise mit dem Flugzeug .",
        "Ich fliege mit dem Flugzeug .",
        ("Flugzeug",),
        True,
        True,
        "both synonym spans are the given candidate Flugzeug",
    ),
    Case(
        "de",
        "synonym",
        "Ich reise mit dem Flugzeug .",
        "Ich reise mit dem Flieger .",
        ("Flugzeug",),
        False,
        False,
        "no candidate in B: its span is the whole translation",
    ),
    Case(
        "de",
        "overgeneralised",
        "Ich kannte die Formel mit dem Herzen .",
        None,
        HEART["de"],
        True,
        True,
        "Herzen has the Snowball stem of Herz",
    ),
    Case(
        "de",
        "overgeneralised word",
        "Ich kannte die Formel mit dem Herzen .",
        None,
        HEART["de"],
        False,
        False,
        "word matching: Herzen is not the word Herz",
    ),
    Case(
        "de",
        "overgeneralised",
        "Ich kannte die Formel auswendig .",
        None,
        HEART["de"],
        False,
        False,
        "the idiomatic paraphrase has no keyword",
    ),
    Case(
        "de",
        "overgeneralised",
        "Er grüßte mich herzlich .",
        None,
        HEART["de"],
        False,
        False,
        "herzlich has its own stem (herzlich): not inside another word",
    ),
    Case(
        "de",
        "overgeneralised substring",
        "Er grüßte mich herzlich .",
        None,
        HEART["de"],
        True,
        True,
        "substring matching finds herz in herzlich",
    ),
    Case(
        "de",
        "overgeneralised",
        "Er liebt die Künste .",
        None,
        ("Kunst",),
        True,
        False,
        "Künste has the stem of Kunst; no Dutch ending makes Künste",
    ),
    Case(
        "de",
        "reference paraphrase",
        "Ich kannte die Formel auswendig .",
        None,
        HEART["de"],
        True,
        True,
        "a reference without keyword is a paraphrase",
    ),
    Case(
        "de",
        "reference paraphrase",
        "Ich kannte die Formel mit dem Herzen .",
        None,
        HEART["de"],
        False,
        False,
        "a reference with the literal Herzen is not a paraphrase",
    ),
    # French
    Case(
        "fr",
        "np_vp",
        "L'homme voit le roi .",
        "La femme voit le roi .",
        (),
        True,
        False,
        "the French tokeniser keeps L' one token, equivalent to La; Dutch splits L ' homme",
    ),
    Case(
        "fr",
        "np_vp",
        "L’homme voit le roi .",
        "La femme voit le roi .",
        (),
        True,
        False,
        "the typographic apostrophe is read as ': L’ is L'",
    ),
    Case(
        "fr",
        "np_vp",
        "Le garçon parle au roi .",
        "Le garçon parle à la reine .",
        (),
        True,
        False,
        "contractions: au is à le, and le/la are one group",
    ),
    Case(
        "fr",
        "s_conj",
        f"Le garçon voit le roi , {FR_S2}",
        f"La fille voit le roi , {FR_S2}",
        (),
        True,
        None,
        "S2 follows et",
    ),
    Case(
        "fr",
        "s_conj",
        f"Le garçon et la fille voient le roi , {FR_S2}",
        f"Le garçon voit le roi , {FR_S2}",
        (),
        True,
        None,
        "the et of the subject has 2 tokens before it: skipped",
    ),
    Case(
        "fr",
        "s_conj original",
        f"Le garçon et la fille voient le roi , {FR_S2}",
        f"Le garçon voit le roi , {FR_S2}",
        (),
        True,
        None,
        "fewer than 5 words before the first et: S2 follows the second",
    ),
    Case(
        "fr",
        "synonym",
        "J'ai pris l'avion .",
        "Je voyage en avion .",
        ("avion",),
        True,
        True,
        "both spans are the candidate avion",
    ),
    Case(
        "fr",
        "overgeneralised",
        "Je connaissais la formule dans mon cœur .",
        None,
        HEART["fr"],
        True,
        True,
        "the literal keyword cœur",
    ),
    Case(
        "fr",
        "overgeneralised",
        "C'est un artiste .",
        None,
        ("art",),
        False,
        False,
        "artiste has its own stem (artist): not inside another word",
    ),
    Case(
        "fr",
        "overgeneralised",
        "Il a les yeux bleus .",
        None,
        ("bleu",),
        False,
        True,
        "a limit of stems: French Snowball keeps bleus whole; the Dutch -s ending would match",
    ),
    Case(
        "fr",
        "reference paraphrase",
        "Je connaissais la formule de mémoire .",
        None,
        HEART["fr"],
        True,
        True,
        "a reference without keyword is a paraphrase",
    ),
    # Spanish
    Case(
        "es",
        "np_vp",
        "El chico ve al rey .",
        "La chica ve al rey .",
        (),
        True,
        False,
        "el/la are one group; Dutch has no el",
    ),
    Case(
        "es",
        "np_vp",
        "El chico ve al rey .",
        "El chico ve a la reina .",
        (),
        True,
        False,
        "contractions: al is a el, and el/la are one group",
    ),
    Case(
        "es", "s_conj", f"El chico ve al rey , {ES_S2}", f"La chica ve al rey , {ES_S2}", (), True, None, "S2 follows y"
    ),
    Case(
        "es",
        "s_conj",
        "El chico ve al rey , e Inés duerme .",
        "La chica ve al rey , e Inés duerme .",
        (),
        True,
        None,
        "e (y before an i sound) is a conjunction too",
    ),
    Case(
        "es",
        "s_conj original",
        "El chico ve al rey , e Inés duerme .",
        "La chica ve al rey , e Inés duerme .",
        (),
        True,
        None,
        "the original rule splits on every conjunction",
    ),
    Case(
        "es",
        "s_conj",
        f"El chico y la chica ven al rey , {ES_S2}",
        f"El chico ve al rey , {ES_S2}",
        (),
        True,
        None,
        "the y of the subject has 2 tokens before it: skipped",
    ),
    Case(
        "es",
        "s_conj original",
        f"El padre e hijo ven al rey , {ES_S2}",
        f"El chico ve al rey , {ES_S2}",
        (),
        True,
        None,
        "an early e counts as the first conjunction: S2 follows the second",
    ),
    Case(
        "es",
        "s_conj original",
        "El chico ve al rey , y el perro duerme y Inés canta .",
        "La chica ve al rey , y el perro duerme e Inés canta .",
        (),
        False,
        None,
        "later conjunctions stay in S2 as written (y vs e)",
    ),
    Case(
        "es",
        "synonym",
        "Viajo en avión .",
        "Yo viajo en avión .",
        ("avión",),
        True,
        True,
        "both spans are the candidate avión",
    ),
    Case(
        "es",
        "substitution",
        "Viajo en avión .",
        "Yo viajo en avión .",
        ("avión",),
        False,
        False,
        "the full translations differ",
    ),
    Case(
        "es",
        "overgeneralised",
        "Me sabía la fórmula de corazones .",
        None,
        HEART["es"],
        True,
        False,
        "corazones has the stem of corazón; no Dutch ending makes it",
    ),
    Case(
        "es",
        "reference paraphrase",
        "Me sabía la fórmula de memoria .",
        None,
        HEART["es"],
        True,
        True,
        "a reference without keyword is a paraphrase",
    ),
]


def _answer(value: bool | None) -> str:
    return "not scored" if value is None else str(value).lower()


def markdown_table(cases: list[Case] = CASES) -> str:
    """The cases as the markdown table of docs/mt.md."""
    lines = [
        "| language | measure | translation A | translation B | keywords / candidates | expected | Dutch rules | shows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case in cases:
        cells = [
            case.language,
            case.measure,
            f"`{case.a}`",
            f"`{case.b}`" if case.b is not None else "",
            ", ".join(case.words),
            _answer(case.expected),
            _answer(case.dutch),
            case.shows,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_hand_made_case_has_its_known_answer_in_its_language_and_under_the_dutch_rules(case):
    assert MEASURES[case.measure](case, case.language) is case.expected
    assert MEASURES[case.measure](case, "nl") is case.dutch


def test_every_measure_and_language_has_cases():
    assert {(c.language, c.measure) for c in CASES} >= {
        (lang, measure) for lang in ("de", "fr", "es") for measure in ("np_vp", "s_conj", "s_conj original")
    }
    assert {c.measure for c in CASES} == set(MEASURES)


def test_docs_print_the_table_of_cases():
    text = DOCS.read_text(encoding="utf-8")
    assert HEADING in text, f"docs/design/mt.md lacks {HEADING!r}"
    section = text.split(HEADING, 1)[1]
    assert markdown_table() in section


def test_each_language_uses_its_own_moses_tokeniser():
    assert tokens("L'homme dort.", language="fr") == ["L'", "homme", "dort", "."]
    assert tokens("L'homme dort.", language="nl") == ["L", "'", "homme", "dort", "."]
    assert tokens("L'homme dort.") == tokens("L'homme dort.", language="nl")


def test_contractions_are_written_out_in_the_case_of_the_contracted_word_and_dutch_has_none():
    assert expand_contractions(["Al", "rey", "del", "AL", "alto"], language="es") == [
        "A",
        "el",
        "rey",
        "de",
        "el",
        "A",
        "EL",
        "alto",
    ]
    assert expand_contractions(["zur", "Königin"], language="de") == ["zu", "der", "Königin"]
    assert languages.load_language("nl").contractions == {}
    dutch = tokens("De dichter ziet de koning in het huis .")
    assert expand_contractions(dutch) == dutch


def test_s_conj_compares_second_conjuncts_with_contractions_written_out():
    a = "El chico ve al rey , y el perro duerme al sol ."
    b = "El chico ve al rey , y el perro duerme a el sol ."
    assert s_conj_consistent(a, b, language="es") is True
    assert s_conj_consistent(a, b, "original", language="es") is True
    assert s_conj_consistent(a, b.replace("a el sol", "a la luna"), language="es") is False


@pytest.mark.parametrize("language", ["nl", "de", "fr", "es"])
def test_the_typographic_apostrophe_is_read_as_the_straight_one_in_every_language(language):
    assert tokens("L’homme et l’auto’s.", language=language) == tokens("L'homme et l'auto's.", language=language)
    assert tokens("Lʼhomme", language=language) == tokens("L'homme", language=language)


def test_a_single_capital_is_a_capitalised_word_when_neutralised():
    """French L' and La both map to Le (a lone capital is not an all-capitals word)."""
    equivalents = languages.load_language("fr").equivalents
    assert [consistency._neutralise(t, equivalents) for t in ("L'", "La", "LA", "la", "l'")] == [
        "Le",
        "Le",
        "LE",
        "le",
        "le",
    ]


# --------------------------------------------------------------------------------------
# score_items: the language reaches every labeller


def _pairs(rows: list[tuple[str, str]], **columns) -> tuple[pd.DataFrame, dict[str, str]]:
    """Pair items with ``columns`` (name -> one value per row) and their translations ``rows``."""
    frame = pd.DataFrame(
        [
            {
                "item": str(i),
                "template": "1",
                **{k: v[i] for k, v in columns.items()},
                "source_a": f"a{i}",
                "source_b": f"b{i}",
            }
            for i in range(len(rows))
        ]
    )
    translations = {}
    for i, (a, b) in enumerate(rows):
        translations[f"a{i}"], translations[f"b{i}"] = a, b
    return frame, translations


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_score_items_labels_systematicity_in_the_language(language):
    for test, measure, condition in (("np_vp", "np_vp", "np_prime"), ("s_conj", "s_conj", "s1_prime")):
        cases = [c for c in CASES if c.language == language and c.measure == measure]
        items, translations = _pairs([(c.a, c.b) for c in cases], condition=[condition] * len(cases))
        labels = score_items(items, translations, test, language=language)
        assert [None if pd.isna(v) else bool(v) for v in labels["consistent"]] == [c.expected for c in cases]


def test_score_items_takes_the_s_conj_split_rule_in_the_language():
    cases = [c for c in CASES if c.language == "es" and c.measure == "s_conj original"]
    items, translations = _pairs([(c.a, c.b) for c in cases], condition=["s3"] * len(cases))
    labels = score_items(items, translations, "s_conj", s_conj_split="original", language="es")
    assert [bool(v) for v in labels["consistent"]] == [c.expected for c in cases]


def test_substitutivity_beyond_dutch_needs_given_candidates():
    synonyms = load_synonyms(resource_path("synonyms.tsv"))
    items, translations = _pairs(
        [("Ich reise mit dem Flugzeug .", "Ich fliege mit dem Flugzeug .")], pair=["aeroplane/airplane"]
    )
    with pytest.raises(ValueError, match=r"^the shipped synonym candidates are Dutch; .* give candidates for German"):
        score_items(items, translations, "substitutivity", synonyms=synonyms, language="de")
    labels = score_items(
        items, translations, "substitutivity", language="de", synonym_candidates={"aeroplane/airplane": ["Flugzeug"]}
    )
    assert labels[["synonym_a", "synonym_b"]].iloc[0].tolist() == ["Flugzeug", "Flugzeug"]
    assert (bool(labels["consistent"][0]), bool(labels["synonym_consistent"][0])) == (False, True)


def test_probe_candidates_leave_out_the_dutch_gold_word():
    pair = load_synonyms(resource_path("synonyms.tsv"))[0]
    probed = pair.with_candidates(["Flugzeug", "Flieger"], ["Flieger", "Maschine"])
    assert probed.nl_candidates[0] == pair.nl
    assert probe_synonym_candidates([probed]) == {pair.name: ("Flugzeug", "Flieger", "Maschine")}


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_overgeneralisation_reads_the_keywords_of_the_language_file(language):
    cases = [
        c for c in CASES if c.language == language and c.measure == "overgeneralised" and c.words == HEART[language]
    ]
    items = pd.DataFrame(
        [
            {"item": str(i), "template": "1", "idiom": "by heart", "source": f"s{i} by heart", "reference": ""}
            for i in range(len(cases))
        ]
    )
    translations = {f"s{i} by heart": c.a for i, c in enumerate(cases)}
    labels = score_items(items, translations, "overgeneralisation", language=language)
    assert [bool(v) for v in labels["overgeneralised"]] == [c.expected for c in cases]


@pytest.fixture
def language_without_keywords(tmp_path, monkeypatch):
    """A language ``xx`` (German in all but its name) whose file has no idiom keywords."""
    folder = tmp_path / "languages"
    folder.mkdir()
    german = (languages.languages_dir() / "de.yaml").read_text(encoding="utf-8")
    text = german.split("idiom_keywords:")[0].replace("code: de", "code: xx").replace("name: German", "name: Testish")
    (folder / "xx.yaml").write_text(text.replace(", idiom_keywords]", "]"), encoding="utf-8")
    monkeypatch.setattr(languages, "languages_dir", lambda: folder)
    languages.load_language.cache_clear()
    consistency._language.cache_clear()
    yield "xx"
    languages.load_language.cache_clear()
    consistency._language.cache_clear()


def test_a_language_without_idiom_keywords_cannot_score_overgeneralisation(language_without_keywords):
    items = pd.DataFrame([{"item": "1", "template": "1", "idiom": "by heart", "source": "s", "reference": ""}])
    message = "Testish has no idiom keywords (resources/mt/languages/xx.yaml): overgeneralisation cannot be scored"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        score_items(items, {"s": "Ich kannte es mit dem Herzen ."}, "overgeneralisation", language="xx")
    np_vp, translations = _pairs([(CASES[0].a, CASES[0].b)], condition=["np_prime"])
    assert bool(score_items(np_vp, translations, "np_vp", language="xx")["consistent"][0]) is True


# --------------------------------------------------------------------------------------
# natcomp mt score --target-lang


def _write(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _score_argv(tmp_path: Path, test: str, items: list[list[str]], translations: dict[str, str], *extra: str):
    _write(tmp_path / "items.tsv", items)
    _write(tmp_path / "hyp.tsv", [["source", "translation"], *map(list, translations.items())])
    return [
        "mt",
        "score",
        "--test",
        test,
        "--items",
        str(tmp_path / "items.tsv"),
        "--translations",
        str(tmp_path / "hyp.tsv"),
        "--labels",
        str(tmp_path / "labels.tsv"),
        "--summary",
        str(tmp_path / "summary.tsv"),
        *extra,
    ]


NP_VP_ITEMS = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["1", "1", "np_prime", "The boy sees the king .", "The boy sees the queen ."],
    ["2", "1", "np_prime", "The boy sees the old king .", "The boy sees the young queen ."],
]
NP_VP_GERMAN = {
    "The boy sees the king .": "Der Junge sieht den König.",
    "The boy sees the queen .": "Der Junge sieht die Königin.",
    "The boy sees the old king .": "Der Junge sieht den alten König.",
    "The boy sees the young queen .": "Der Junge sieht die junge Königin.",
}
SUBSTITUTIVITY_ITEMS = [
    ["item", "template", "pair", "source_a", "source_b"],
    ["1", "1", "aeroplane/airplane", "I travel by aeroplane .", "I travel by airplane ."],
]
SUBSTITUTIVITY_GERMAN = {
    "I travel by aeroplane .": "Ich reise mit dem Flugzeug.",
    "I travel by airplane .": "Ich fliege mit dem Flugzeug.",
}


def test_score_command_scores_in_the_target_language(tmp_path, capsys):
    assert main(_score_argv(tmp_path, "np_vp", NP_VP_ITEMS, NP_VP_GERMAN, "--target-lang", "de")) == 0
    assert "np_vp, 2 items, consistency 0.5000" in capsys.readouterr().out
    assert main(_score_argv(tmp_path, "np_vp", NP_VP_ITEMS, NP_VP_GERMAN)) == 0
    assert "np_vp, 2 items, consistency 0.0000" in capsys.readouterr().out, "Dutch rules by default"


def test_score_command_refuses_an_unknown_target_language_in_one_line(tmp_path, capsys):
    assert main(_score_argv(tmp_path, "np_vp", NP_VP_ITEMS, NP_VP_GERMAN, "--target-lang", "xx")) == 2
    err = capsys.readouterr().err
    assert err.startswith("natcomp: error: --target-lang: no language resource for 'xx'")
    assert err.count("\n") == 1


def test_score_command_needs_candidates_for_substitutivity_beyond_dutch(tmp_path, capsys):
    argv = _score_argv(tmp_path, "substitutivity", SUBSTITUTIVITY_ITEMS, SUBSTITUTIVITY_GERMAN, "--target-lang", "de")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("natcomp: error: --target-lang: the shipped synonym candidates are Dutch; give candidates")
    assert err.count("\n") == 1
    candidates = _write(
        tmp_path / "candidates.tsv",
        [["pair", "spelling", "candidate"], ["aeroplane/airplane", "british", "Flugzeug"]],
    )
    assert main([*argv, "--synonym-candidates", str(candidates)]) == 0
    assert "consistency 0.0000, synonym_consistency 1.0000" in capsys.readouterr().out


def test_synonym_candidates_apply_to_substitutivity_only(tmp_path, capsys):
    argv = _score_argv(tmp_path, "np_vp", NP_VP_ITEMS, NP_VP_GERMAN, "--synonym-candidates", "c.tsv")
    assert main(argv) == 2
    assert "--synonym-candidates apply to --test substitutivity only" in capsys.readouterr().err
