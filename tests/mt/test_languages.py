"""Tests of natcomp.mt.languages: the target languages' resource files (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest

from natcomp.errors import ConfigError, InputError
from natcomp.mt import languages
from natcomp.mt.languages import check_idiom_names, load_language, shipped_codes, target_language
from natcomp.mt.lexicon import load_idioms
from natcomp.shipped import resource_path

SHIPPED_IDIOMS = load_idioms(resource_path("idioms.tsv"))
IDIOM_NAMES = [idiom.idiom for idiom in SHIPPED_IDIOMS]

#: the smallest valid target-language file; each bad-file test changes one line of it
GOOD = """\
code: xx
name: Testish
iso639_3: xxx
flores200: xxx_Latn
m2m100: xx
marian: xx
moses: en
conjunctions: [und]
min_first_conjunct: 5
keyword_matching: snowball
snowball: german
"""


@pytest.fixture
def language_folder(tmp_path, monkeypatch):
    """A folder of language files of one's own, read instead of the shipped ones."""
    folder = tmp_path / "languages"
    folder.mkdir()
    monkeypatch.setattr(languages, "languages_dir", lambda: folder)
    load_language.cache_clear()
    yield folder
    load_language.cache_clear()


def _write(folder: Path, text: str, code: str = "xx") -> Path:
    path = folder / f"{code}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_shipped_file_loads():
    assert shipped_codes() == ["de", "en", "es", "fr", "nl"]
    for code in shipped_codes():
        language = load_language(code)
        assert language.code == code and language.name
    assert languages.shipped_target_codes() == ["de", "es", "fr", "nl"]


def test_the_dutch_file_is_the_papers_dutch():
    dutch = target_language("nl")
    assert dutch.idiom_keywords.source == "paper"
    assert dict(dutch.idiom_keywords.keywords) == {idiom.idiom: idiom.dutch_keywords for idiom in SHIPPED_IDIOMS}
    assert (dutch.moses, dutch.conjunctions, dutch.min_first_conjunct) == ("nl", ("en",), 5)
    assert dict(dutch.equivalents) == {"de": "de", "het": "de", "die": "die", "dat": "die"}
    assert dutch.keyword_matching == "dutch_endings"


@pytest.mark.parametrize("code", ["de", "fr", "es"])
def test_drafted_languages_name_only_idioms_of_idioms_tsv_and_all_of_them(code):
    language = target_language(code)
    check_idiom_names(language, IDIOM_NAMES)
    assert sorted(language.idiom_keywords.keywords) == sorted(IDIOM_NAMES)
    assert language.idiom_keywords.source_label == "drafted by natcomp"
    assert language.keyword_matching == "snowball"


def test_a_good_file_of_ones_own_loads(language_folder):
    _write(language_folder, GOOD)
    language = target_language("xx")
    assert (language.name, language.conjunctions, language.snowball, language.idiom_keywords) == (
        "Testish",
        ("und",),
        "german",
        None,
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("name: Testish", "name: Testish\ncolour: blue"), "unknown field 'colour'"),
        (("code: xx", "code: yy"), "code is 'yy'; expected 'xx', the file's name"),
        (("keyword_matching: snowball", "keyword_matching: lemmas"), "keyword_matching 'lemmas'; expected one of"),
        (("snowball: german", "snowball: klingon"), "snowball 'klingon'; expected one of NLTK's"),
    ],
)
def test_a_bad_file_is_an_input_error_naming_it(language_folder, change, message):
    path = _write(language_folder, GOOD.replace(*change))
    with pytest.raises(InputError) as error:
        load_language("xx")
    assert str(error.value).startswith(f"{path}: ")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_an_idiom_name_not_in_idioms_tsv_is_an_input_error_naming_the_file(language_folder):
    text = GOOD + "idiom_keywords:\n  source: natcomp\n  keywords:\n    by hart: [Herz]\n"
    path = _write(language_folder, text)
    language = load_language("xx")
    with pytest.raises(
        InputError, match="idiom_keywords names 'by hart', which is not an idiom of idioms.tsv"
    ) as error:
        check_idiom_names(language, IDIOM_NAMES)
    assert str(error.value).startswith(f"{path}: ")


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("xx", "config mt.target_lang: no language resource for 'xx' (resources/mt/languages/xx.yaml); shipped: de"),
        ("NL", "config mt.target_lang: 'NL' is not a language code; expected an ISO 639-1 code"),
        ("en", "config mt.target_lang: English is the source language; expected a target language other than en"),
    ],
)
def test_an_unknown_code_a_missing_file_or_english_is_a_one_line_config_error(code, message):
    with pytest.raises(ConfigError) as error:
        target_language(code)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_a_command_line_option_is_named_as_typed():
    with pytest.raises(ConfigError, match=r"^--target-lang: no language resource for 'xx'"):
        target_language("xx", "--target-lang")
