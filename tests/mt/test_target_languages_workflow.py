"""``natcomp mt evaluate --target-lang nl de`` (issue 44): every code checked before any run,
every language's plan in a dry run, and (marked ``demo``) one tiny multilingual M2M100
model at demo scale into Dutch and German, compared in the per-language tables."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.workflow

ENGLISH = ["The poet sees the king .", "The baker admires the mayor .", "The king forgets the poet ."] * 4
DUTCH = ["De dichter ziet de koning .", "De bakker bewondert de burgemeester .", "De koning vergeet de dichter ."] * 4
GERMAN = [
    "Der Dichter sieht den König .",
    "Der Bäcker bewundert den Bürgermeister .",
    "Der König vergisst den Dichter .",
]


def natcomp(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "natcomp", *args], cwd=cwd, capture_output=True, text=True, env=environment
    )


@pytest.fixture(scope="module")
def tiny_m2m100(tmp_path_factory) -> Path:
    """A tiny multilingual M2M100 saved with save_pretrained: its tokenizer has the real
    language tokens (__en__, __nl__, __de__ ...), checked through from_pretrained."""
    from natcomp.hf.seq2seq import build_tiny_translation_model

    from transformers import AutoTokenizer  # noqa: I001

    folder = build_tiny_translation_model(
        tmp_path_factory.mktemp("models") / "tiny-m2m",
        ENGLISH * 2,
        DUTCH + GERMAN * 4,
        family="m2m100",
        vocab_size=80,
        d_model=16,
        layers=1,
        heads=2,
        ffn_dim=32,
        max_length=24,
    )
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    ids = tokenizer.convert_tokens_to_ids(["__nl__", "__de__"])
    assert tokenizer.unk_token_id not in ids and len(set(ids)) == 2
    return folder


@pytest.mark.parametrize(
    ("codes", "message"),
    [
        (["de", "xx"], "natcomp: error: --target-lang: no language resource for 'xx'"),
        (["nl", "en"], "natcomp: error: --target-lang: English is the source language"),
        (["de", "fr", "de"], "natcomp: error: --target-lang: 'de' is given twice"),
    ],
)
def test_every_target_language_is_checked_before_the_model_and_any_run(tmp_path, codes, message):
    """A bad code stops the command in one line (exit 2) before the model is read: the
    model here does not even exist."""
    run = tmp_path / "runs" / "x"
    result = natcomp(
        "mt", "evaluate", "--model", str(tmp_path / "no-model"), "--target-lang", *codes, "--directory", str(run),
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1, result.stderr
    assert not run.exists()


def test_a_dry_run_shows_every_languages_plan_and_jobs(tiny_m2m100, tmp_path, monkeypatch, capfd):
    """``-n`` with nl and de: one plan per language (de through the English-side adaptation
    of the demo config, natcomp.mt.config.english_side_only, with what it leaves out),
    Snakemake's jobs for each, and no run folder."""
    from natcomp import cli
    from natcomp.mt import config

    seen = []
    adapt = config.english_side_only
    monkeypatch.setattr(config, "english_side_only", lambda mt: seen.append(mt["target_lang"]) or adapt(mt))
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "tiny-m2m"
    status = cli.main(["mt", "evaluate", "--model", str(tiny_m2m100), "--target-lang", "nl", "de", "-n"])
    out, err = capfd.readouterr()
    assert status == 0, err[-3000:]
    assert seen == ["de"], "only the language the demo corpus lacks is adapted"
    assert "2 target languages (Dutch (nl), German (de)), one run each in runs/tiny-m2m/<code>" in err
    assert "--- Dutch (nl): runs/tiny-m2m/nl" in err and "--- German (de): runs/tiny-m2m/de" in err
    assert "is translation model; target language Dutch (nl); demo scale" in err
    assert "is translation model; target language German (de); demo scale" in err
    assert "left out at demo scale in German (de): " in err
    assert err.count("dry run of 'tiny-m2m': a new run folder runs/tiny-m2m/") == 2
    counts = [line.split() for line in out.splitlines() if line.split()[:1] == ["mt_system_translate"]]
    assert counts and all(count == ["mt_system_translate", "1"] for count in counts), "one system per run"
    assert out.count("This was a dry-run") == 2, "each language's jobs"
    assert not run.exists(), "a dry run creates no run folder"


def test_without_target_lang_the_run_folder_and_record_are_as_before(tiny_m2m100, tmp_path):
    from natcomp.cli import build_parser
    from natcomp.mt.cli import system_settings
    from natcomp.profile.cli import plan_run

    options = build_parser().parse_args(["mt", "evaluate", "--model", str(tiny_m2m100)])
    assert options.target_lang is None
    plan = plan_run(str(tiny_m2m100), families=["mt"], mt_system=system_settings(options))
    assert "target_lang" not in plan.record and "target language" not in plan.description
    assert plan.config["mt"]["target_lang"] == "nl", "the base config's"


@pytest.mark.demo
def test_a_tiny_m2m100_at_demo_scale_in_dutch_and_german_end_to_end(tiny_m2m100, tmp_path):
    """The whole command into nl and de (about 2 minutes on 2 cores): a run folder per
    language, each with its profile naming its target language, and the per-language
    tables: systematicity valued in both, BLEU empty in German with the reason."""
    run = tmp_path / "runs" / "tiny-m2m"
    start = time.perf_counter()
    result = natcomp(
        "mt", "evaluate", "--model", str(tiny_m2m100), "--max-new-tokens", "16", "--target-lang", "nl", "de",
        "--directory", str(run), "--cores", "2", cwd=tmp_path,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-5000:]
    for code, name in (("nl", "Dutch"), ("de", "German")):
        page = (run / code / "results" / "profile.html").read_text()
        assert f"demo scale, target language: {name} ({code})" in page
    tables = run / "languages"

    def rows(measure):
        lines = (tables / f"{measure}.tsv").read_text().splitlines()
        header = lines[0].split("\t")
        return header, [dict(zip(header, line.split("\t"))) for line in lines[1:]]

    header, systematicity = rows("systematicity")
    assert header == ["data_type", "condition", "nl", "de", "note"]
    synthetic = [row for row in systematicity if row["data_type"] == "synthetic"]
    assert synthetic and all(row["nl"] != "" and row["de"] != "" for row in synthetic)
    header, bleu = rows("bleu")
    assert header == ["split", "score", "nl", "de", "note"]
    assert all(row["nl"] != "" and row["de"] == "" for row in bleu)
    assert all("de: BLEU not scored: no German references at demo scale" in row["note"] for row in bleu)
    header, overgeneralisation = rows("overgeneralisation")
    assert overgeneralisation[-1]["data_type"] == "keyword lists"
    assert (overgeneralisation[-1]["nl"], overgeneralisation[-1]["de"]) == ("the paper's", "drafted by natcomp")
    assert rows("substitutivity")[0] == ["data_type", "metric", "nl", "de", "note"]
    print(f"demo-scale tiny M2M100 into nl and de: {seconds:.0f} s")
