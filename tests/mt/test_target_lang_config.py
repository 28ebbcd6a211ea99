"""Other target languages (issues 44, 53): the config check of the pair, the demo scale's
English-side-only rule, the systems' languages, what the pair decides in a paper config
(derive_pair_settings) and the paper run's plan per pair with mt.target_lang the one change."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from natcomp.download import download_entry
from natcomp.errors import ConfigError
from natcomp.mt.config import (
    check_mt_config,
    derive_pair_settings,
    download_fields,
    english_side_only,
    flores_langs,
    missing_at_demo_scale,
    selection_options,
    tatoeba_pair,
)
from natcomp.mt.hf_translation import check_system_languages

REPO = Path(__file__).resolve().parents[2]
DEMO = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["mt"]
PAPER = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["mt"]


def paper(**changes):
    mt = copy.deepcopy(PAPER)
    mt.update(changes)
    return mt


def german_paper(**changes):
    """The paper config into German: mt.target_lang is the one change."""
    return paper(target_lang="de", **changes)


def refused(mt, pattern):
    with pytest.raises(ConfigError) as error:
        check_mt_config(mt)
    message = str(error.value)
    assert "\n" not in message, "one line"
    assert __import__("re").search(pattern, message), message
    return message


def test_the_pair_is_derived_from_the_language_resources():
    assert tatoeba_pair(paper()) == "eng-nld" and flores_langs(paper()) == ["eng", "nld"]
    assert tatoeba_pair(paper(target_lang="de")) == "deu-eng"
    assert flores_langs(paper(target_lang="fr")) == ["eng", "fra"]
    assert tatoeba_pair(DEMO) == "eng-nld", "the demo's given pair agrees with nl"
    check_mt_config(german_paper())


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"target_lang": "Deutsch"}, r"^config mt.target_lang: 'Deutsch' is not a language code"),
        ({"target_lang": "it"}, r"^config mt.target_lang: no language resource for 'it'"),
        ({"source_lang": "de"}, r"^config mt.source_lang: 'de': the test items are English"),
        ({"target_lang": "en"}, r"^config mt.target_lang: English is the source language"),
        (
            {"target_lang": "de", "tatoeba_pair": "eng-nld"},
            r"^config mt.tatoeba_pair: eng-nld is not the pair .*deu-eng",
        ),
        ({"target_lang": "de", "flores_langs": ["eng", "nld"]}, r"^config mt.flores_langs: .*\['eng', 'deu'\]"),
    ],
)
def test_a_wrong_pair_is_one_line(changes, pattern):
    refused(paper(**changes), pattern)


def test_shipped_synonyms_given_explicitly_are_refused_for_german():
    mt = german_paper()
    mt["synonyms"] = {**mt["synonyms"], "candidates": "shipped"}
    refused(mt, r"^config mt.synonyms.candidates: shipped: .* are Dutch; a German run uses probes \(auto chooses")


def test_the_pair_fills_in_the_systems_and_the_auto_values_and_the_plan_says_so():
    dutch, lines = derive_pair_settings(paper())
    assert "opus-mt-en-nl" in dutch["systems"] and "opus-mt-en-{target}" not in dutch["systems"]
    assert dutch["systems"]["opus-mt-en-nl"]["model"] == "Helsinki-NLP/opus-mt-en-nl"
    assert list(dutch["systems"]) == [name.replace("{target}", "nl") for name in PAPER["systems"]], "order kept"
    assert (dutch["synonyms"]["candidates"], dutch["tests"]["keyword_matching"]) == ("shipped", "substring")
    german, lines = derive_pair_settings(german_paper())
    assert german["systems"]["opus-mt-en-de"]["model"] == "Helsinki-NLP/opus-mt-en-de"
    assert (german["synonyms"]["candidates"], german["tests"]["keyword_matching"]) == ("probes", "inflected")
    assert lines == [
        "German (de): Tatoeba pair deu-eng (English on its .trg side), download "
        "https://object.pouta.csc.fi/Tatoeba-Challenge-v2020-07-28/deu-eng.tar",
        "German (de): mt.systems.opus-mt-en-{target}: opus-mt-en-de, model Helsinki-NLP/opus-mt-en-de",
        "German (de): mt.synonyms.candidates auto: probes (the shipped lists are Dutch)",
        "German (de): mt.tests.keyword_matching auto: inflected (the German keyword lists are drafted for its own "
        "matching)",
        "German (de): mt.tests.paraphrase_references_only: false (the released natural items' references are Dutch: "
        "every natural item is scored)",
    ]
    assert PAPER["systems"]["opus-mt-en-{target}"]["model"].endswith("{target}"), "the config is not changed"
    assert derive_pair_settings(DEMO) == (DEMO, []), "nothing to derive in the demo"


def test_auto_decodes_the_synonym_probes_into_a_language_without_shipped_lists():
    """Where auto chooses the probes, every system's translation job decodes them (a
    profile plans that one job per system, no job of the probes' own)."""
    from natcomp.profile.fit import ModelKinds
    from natcomp.profile.jobs import planned_rules

    chosen = {code: derive_pair_settings(paper(target_lang=code))[0]["synonyms"]["candidates"] for code in ("nl", "de")}
    assert chosen == {"nl": "shipped", "de": "probes"}, "Dutch: the shipped lists"
    translation = ModelKinds(translation=True, encoder=False, masked_lm=False, nli=False)
    for code in ("nl", "de"):
        assert planned_rules(translation, ["mt"], {"mt": paper(target_lang=code)}) == ["mt_system_translate"], code


@pytest.mark.parametrize(
    ("systems", "pattern"),
    [
        ({"opus-{lang}": {"model": "x"}}, r"^config mt.systems.opus-\{lang\}: 'opus-\{lang\}' names \{lang\}"),
        ({"m": {"model": "Helsinki-NLP/opus-mt-en-{target"}}, r"^config mt.systems.m.model: .*expected \{source\}"),
        (
            {"m-{target}": {"model": "x"}, "m-de": {"model": "y"}},
            r"^config mt.systems.m-de: is m-de in this pair, as mt.systems.m-\{target\} is",
        ),
    ],
)
def test_a_bad_pair_field_in_a_system_is_one_line(systems, pattern):
    with pytest.raises(ConfigError, match=pattern):
        derive_pair_settings(german_paper(systems=systems))


def test_a_pair_checksum_map_needs_the_runs_pair():
    mt = german_paper()
    mt["downloads"]["tatoeba"]["sha256"] = {"eng-nld": "0" * 64}
    refused(mt, r"^config mt.downloads.tatoeba.sha256: has no entry for deu-eng")
    mt["downloads"]["tatoeba"]["sha256"]["deu-eng"] = None
    check_mt_config(mt)


def test_the_demo_corpus_into_german_reads_its_english_side_only():
    mt = copy.deepcopy(DEMO)
    mt["target_lang"], mt["tatoeba_pair"], mt["flores_langs"] = "de", None, None
    message = refused(mt, r"^config mt.train.enabled: the demo corpus is English-Dutch: a German run at demo scale")
    assert "has no German side" in message
    adapted = english_side_only(mt)
    check_mt_config(adapted)
    assert adapted["train"]["enabled"] is False and adapted["bleu"]["splits"] == []
    assert adapted["synonyms"]["candidates"] == "probes"
    assert all("natural" not in types for types in adapted["tests"]["data_types"].values())
    assert mt["train"].get("enabled", True) is True, "a copy"
    missing = missing_at_demo_scale(adapted)
    assert "BLEU (no German references)" in missing and "natural items (no German side of the corpus)" in missing
    assert missing_at_demo_scale(DEMO) == [], "Dutch at demo scale leaves nothing out"
    for key, value in [("bleu", {"splits": ["devtest"]}), ("synonyms", {"candidates": "shipped"})]:
        partly = {**adapted, key: {**adapted[key], **value}}
        refused(partly, rf"^config mt.{key}.\w+: the demo corpus is English-Dutch")


def test_fairseq_detokenises_in_the_targets_moses_language():
    options = selection_options(german_paper())
    assert json.loads(options["eval-bleu-detok-args"]) == {"source_lang": "en", "target_lang": "de"}


def test_the_paper_tatoeba_url_is_the_runs_pair():
    url, sha256 = download_entry(PAPER["downloads"]["tatoeba"], download_fields(german_paper()))
    assert url == "https://object.pouta.csc.fi/Tatoeba-Challenge-v2020-07-28/deu-eng.tar" and sha256 is None
    entry = {"url": PAPER["downloads"]["tatoeba"]["url"], "sha256": {"eng-fra": "a" * 64, "deu-eng": "b" * 64}}
    assert download_entry(entry, download_fields(paper(target_lang="fr")))[1] == "a" * 64
    assert download_entry(PAPER["downloads"]["flores"], download_fields(paper()))[0].endswith(
        "flores101_dataset.tar.gz"
    )


def _model_folder(path: Path, model_type: str, tokenizer_config: dict) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"model_type": model_type}))
    (path / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    return path


def test_a_marian_system_of_another_pair_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"mt.systems.opus.model: Helsinki-NLP/opus-mt-en-de translates into 'de'"):
        check_system_languages("Helsinki-NLP/opus-mt-en-de", "marian", "en", "nl", key="mt.systems.opus.model")
    check_system_languages("Helsinki-NLP/opus-mt-en-de", "auto", "en", "de")
    folder = _model_folder(tmp_path / "marian", "marian", {"source_lang": "en", "target_lang": "nl"})
    with pytest.raises(ConfigError, match=r"translates into 'nl' \(its tokenizer_config.json\).*mt.target_lang is de"):
        check_system_languages(folder, "auto", "en", "de", key="k")
    check_system_languages(folder, "marian", "en", "nl")
    mt = paper()
    mt["systems"]["opus-mt-en-{target}"]["model"] = str(folder)
    check_mt_config(mt)
    refused(
        german_paper(systems={"opus": {"model": str(folder), "family": "marian"}}), r"^config mt.systems.opus.model"
    )


def test_an_nllb_tokenizer_without_the_target_token_is_one_line(tmp_path):
    tokens = ["eng_Latn", "nld_Latn", "fra_Latn"]
    folder = _model_folder(
        tmp_path / "nllb", "m2m_100", {"tokenizer_class": "NllbTokenizer", "additional_special_tokens": tokens}
    )
    check_system_languages(folder, "nllb", "en", "nl")
    with pytest.raises(ConfigError, match=r"^config k: .* has no language token deu_Latn for the target language"):
        check_system_languages(folder, "nllb", "en", "de", key="k")


def _dry_run(tmp_path, name, target_lang):
    """``snakemake -n`` of a copy of config/paper.yaml whose one change is ``mt.target_lang``
    (the line itself replaced, the rest of the file as it is)."""
    text = (REPO / "config" / "paper.yaml").read_text()
    assert text.count("\n  target_lang: nl\n") == 1
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace("\n  target_lang: nl\n", f"\n  target_lang: {target_lang}\n"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "--forceall",
            "--directory",
            str(tmp_path / name),
            "--configfile",
            str(path),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout, result.stderr


@pytest.mark.workflow
def test_the_paper_config_with_target_lang_the_one_change_plans_for_en_de_and_en_fr(tmp_path):
    """The German run downloads the release's deu-eng folder (English on its .trg side)
    and tests opus-mt-en-de; the French one eng-fra."""
    for lang, pair, side in (("de", "deu-eng", "trg"), ("fr", "eng-fra", "src")):
        out, err = _dry_run(tmp_path, f"paper-en-{lang}", lang)
        url = f"https://object.pouta.csc.fi/Tatoeba-Challenge-v2020-07-28/{pair}.tar"
        assert (
            f"natcomp: mt: {{}}: Tatoeba pair {pair} (English on its .{side} side), download {url}".format(
                {"de": "German (de)", "fr": "French (fr)"}[lang]
            )
            in err
        )
        assert "rule download:" in out and "results/downloads/mt/tatoeba" in out, "the pair's archive is downloaded"
        assert "rule mt_extract_tatoeba:" in out and f"results/mt/corpus/raw/train.{lang}" in out
        assert f"results/mt/corpus/raw/flores_devtest.{lang}" in out, "FLORES extracted"
        assert "rule mt_train:" in out and "rule mt_score:" in out, "training and tests are planned"
        assert f"results/mt/systems/opus-mt-en-{lang}/" in out and "opus-mt-en-nl" not in out
        assert f"results/mt/systems/opus-mt-en-{lang}/synonym_probes.tsv" in out, "synonym candidates from probes"
