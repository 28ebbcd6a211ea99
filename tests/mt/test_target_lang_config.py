"""Other target languages (issue 44): the config check of the pair, the demo scale's
English-side-only rule, the systems' languages and the paper run's plan per pair."""

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
    """The paper config into German: probes' synonyms, the opus-mt system of en-de, and every
    natural idiom scored (the released items' references are Dutch)."""
    mt = paper(target_lang="de", **changes)
    mt["synonyms"] = {**mt.get("synonyms", {}), "candidates": "probes"}
    mt["tests"] = {**mt["tests"], "paraphrase_references_only": False}
    mt["systems"] = {
        ("opus-mt-en-de" if name == "opus-mt-en-nl" else name): (
            {**system, "model": "Helsinki-NLP/opus-mt-en-de"} if name == "opus-mt-en-nl" else system
        )
        for name, system in mt["systems"].items()
    }
    return mt


def refused(mt, pattern):
    with pytest.raises(ConfigError) as error:
        check_mt_config(mt)
    message = str(error.value)
    assert "\n" not in message, "one line"
    assert __import__("re").search(pattern, message), message
    return message


def test_the_pair_is_derived_from_the_language_resources():
    assert tatoeba_pair(paper()) == "eng-nld" and flores_langs(paper()) == ["eng", "nld"]
    assert tatoeba_pair(paper(target_lang="de")) == "eng-deu"
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
            r"^config mt.tatoeba_pair: eng-nld is not the pair .*eng-deu",
        ),
        ({"target_lang": "de", "flores_langs": ["eng", "nld"]}, r"^config mt.flores_langs: .*\['eng', 'deu'\]"),
    ],
)
def test_a_wrong_pair_is_one_line(changes, pattern):
    refused(paper(**changes), pattern)


def test_shipped_synonyms_are_refused_for_german():
    refused(paper(target_lang="de"), r"^config mt.synonyms.candidates: shipped: .* are Dutch; a German run uses probes")


def test_a_pair_checksum_map_needs_the_runs_pair():
    mt = german_paper()
    mt["downloads"]["tatoeba"]["sha256"] = {"eng-nld": "0" * 64}
    refused(mt, r"^config mt.downloads.tatoeba.sha256: has no entry for eng-deu")
    mt["downloads"]["tatoeba"]["sha256"]["eng-deu"] = None
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
    assert url == "https://object.pouta.csc.fi/Tatoeba-Challenge-v2020-07-28/eng-deu.tar" and sha256 is None
    entry = {"url": PAPER["downloads"]["tatoeba"]["url"], "sha256": {"eng-fra": "a" * 64, "eng-deu": "b" * 64}}
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
    mt["systems"]["opus-mt-en-nl"]["model"] = str(folder)
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


def _dry_run(tmp_path, name, mt_changes):
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["mt"] = german_paper() if mt_changes.get("target_lang") == "de" else None
    if config["mt"] is None:
        config["mt"] = paper(**mt_changes)
        config["mt"]["synonyms"] = {**config["mt"].get("synonyms", {}), "candidates": "probes"}
        config["mt"]["tests"] = {**config["mt"]["tests"], "paraphrase_references_only": False}
        config["mt"]["systems"] = {
            name_: system for name_, system in config["mt"]["systems"].items() if name_ != "opus-mt-en-nl"
        }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
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
    return result.stdout


@pytest.mark.workflow
def test_the_paper_run_plans_for_en_de_and_for_en_fr_in_a_folder_each(tmp_path):
    for lang, iso in (("de", "deu"), ("fr", "fra")):
        out = _dry_run(tmp_path, f"paper-en-{lang}", {"target_lang": lang})
        assert "rule download:" in out and "results/downloads/mt/tatoeba" in out, "the pair's archive is downloaded"
        assert f"results/mt/corpus/raw/flores_devtest.{lang}" in out, f"FLORES {iso} extracted"
        assert "rule mt_train:" in out and "rule mt_score:" in out, "training and tests are planned"
        assert f"results/mt/corpus/raw/train.{lang}" in out
