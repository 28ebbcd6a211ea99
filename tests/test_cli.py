"""Tests of the ``natcomp`` command line (natcomp.cli), in process and as ``python -m natcomp``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


from natcomp.cli import main

RESOURCES = Path(__file__).resolve().parents[1] / "resources"

NP_VP_ITEMS = [
    ["item", "template", "condition", "source_a", "source_b", "note"],
    ["1", "1", "np_prime", "The girl sees the king .", "The boy sees the king .", "n1"],
    ["2", "1", "np_prime", "The man sees the king .", "The woman sees the king .", "n2"],
    ["3", "1", "vp_prime", "The girl sees the king .", "The girl sees the poet .", "n3"],
    ["4", "2", "np_prime", "The man sees the king .", "The poet sees the king .", "n4"],
]
NP_VP_TRANSLATIONS = {
    "The girl sees the king .": "Het meisje ziet de koning.",
    "The boy sees the king .": "De jongen ziet de koning.",  # consistent (het/de)
    "The man sees the king .": "De man ziet de koning.",
    "The woman sees the king .": "De vrouw ziet de koning.",  # consistent
    "The girl sees the poet .": "Het meisje ziet de dichter .",  # consistent
    "The poet sees the king .": "De dichter bewondert de koning.",  # two words: inconsistent
}


def _write(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _read(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def _translations_tsv(path: Path, translations: dict[str, str]) -> Path:
    return _write(path, [["source", "translation"], *[[s, t] for s, t in translations.items()]])


def _score(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "score",
        "--labels",
        str(tmp_path / "out" / "labels.tsv"),
        "--summary",
        str(tmp_path / "out" / "summary.tsv"),
        *extra,
    ]


def test_score_np_vp_end_to_end(tmp_path):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", NP_VP_TRANSLATIONS)
    status = main(_score(tmp_path, "--test", "np_vp", "--items", str(items), "--translations", str(translations)))
    assert status == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0] == [*NP_VP_ITEMS[0], "translation_a", "translation_b", "consistent"]
    assert [row[-1] for row in labels[1:]] == ["1", "1", "1", "0"]
    assert labels[1][-3:-1] == ["Het meisje ziet de koning.", "De jongen ziet de koning."]
    assert labels[1][5] == "n1"  # extra columns are kept
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "condition", "consistency", "n"],
        ["1", "np_prime", "1.0", "2"],
        ["1", "vp_prime", "1.0", "1"],
        ["2", "np_prime", "0.0", "1"],
    ]
    assert not list((tmp_path / "out").glob(".*part"))  # no temporary files left


def test_score_s_conj_with_lines_format_and_unscored_item(tmp_path):
    items = _write(
        tmp_path / "items.tsv",
        [
            ["item", "template", "condition", "source_a", "source_b"],
            ["1", "4", "s1_prime", "S1 , and S2", "S1' , and S2"],
            ["2", "4", "s3", "S1 , and S2", "S3 , and S2"],
            ["3", "4", "s3", "T1 , and T2", "T3 , and T2"],
        ],
    )
    # first-seen order: S1.., S1'.., S3.., T1.., T3..
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(
        "De dichter en het kind zien de koning, en de man slaapt.\n"
        "De dichter en het kind zien de leider en de man slaapt.\n"
        "De boer ziet de koning, en de man rust.\n"
        "De boer ziet de koning, en de vrouw lacht.\n"
        "De boer ziet de koning; de vrouw lacht.\n",
        encoding="utf-8",
    )
    argv = _score(tmp_path, "--test", "s_conj", "--items", str(items), "--translations", str(hyp))
    assert main([*argv, "--translations-format", "lines"]) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0][-3:] == ["conjunct_a", "conjunct_b", "consistent"]
    assert [row[-1] for row in labels[1:]] == ["1", "0", ""]
    assert labels[3][-2] == ""  # conjunct not found
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "condition", "consistency", "n"],
        ["4", "s1_prime", "1.0", "1"],
        ["4", "s3", "0.0", "1"],
    ]


def test_score_substitutivity_end_to_end(tmp_path):
    items = _write(
        tmp_path / "items.tsv",
        [
            ["item", "template", "pair", "source_a", "source_b"],
            ["1", "1", "doughnut/donut", "The man eats the doughnut .", "The man eats the donut ."],
            ["2", "1", "doughnut/donut", "The king eats the doughnut .", "The king eats the donut ."],
        ],
    )
    translations = _translations_tsv(
        tmp_path / "hyp.tsv",
        {
            "The man eats the doughnut .": "De man eet de donut.",
            "The man eats the donut .": "De man eet de ezel.",
            "The king eats the doughnut .": "De koning eet de donuts.",
            "The king eats the donut .": "De koning eet donuts.",
        },
    )
    argv = ["--test", "substitutivity", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv, "--synonyms", str(RESOURCES / "synonyms.tsv"))) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0][-4:] == ["synonym_a", "synonym_b", "consistent", "synonym_consistent"]
    assert labels[1][-4:] == ["donut", "De man eet de ezel .", "0", "0"]
    assert labels[2][-4:] == ["donuts", "donuts", "0", "1"]
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "pair", "consistency", "synonym_consistency", "n"],
        ["1", "doughnut/donut", "0.0", "0.5", "2"],
    ]


def test_score_overgeneralisation_options(tmp_path):
    items = _write(
        tmp_path / "items.tsv",
        [
            ["item", "template", "idiom", "source", "reference"],
            ["1", "natural", "once in a while", "I play it once in a while .", "Ik speel het af en toe."],
            ["2", "natural", "once in a while", "Once in a while , we live .", "Soms leven we."],
            ["3", "natural", "by heart", "I knew it by heart .", "Ik kende het door het hart."],
        ],
    )
    translations = _translations_tsv(
        tmp_path / "hyp.tsv",
        {
            "I play it once in a while .": "Ik speel het eens in een tijdje.",
            "Once in a while , we live .": "Af en toe leven we.",
            "I knew it by heart .": "Ik kende het uit het hoofd.",
        },
    )
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    argv += ["--idioms", str(RESOURCES / "idioms.tsv")]
    assert main(_score(tmp_path, *argv)) == 0
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1", "0", "0"]
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "idiom", "overgeneralisation", "n"],
        ["natural", "once in a while", "0.5", "2"],
        ["natural", "by heart", "0.0", "1"],
    ]

    assert main(_score(tmp_path, *argv, "--substring-keywords")) == 0  # "even" inside "leven"
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1", "1", "0"]

    assert main(_score(tmp_path, *argv, "--paraphrase-references-only")) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0][-2:] == ["reference_paraphrase", "overgeneralised"]
    assert [row[-2:] for row in labels[1:]] == [["1", "1"], ["1", "0"], ["0", ""]]
    assert _read(tmp_path / "out" / "summary.tsv")[1:] == [
        ["natural", "once in a while", "0.5", "2"],
        ["natural", "by heart", "", "0"],
    ]


def _assert_error(tmp_path, capsys, argv: list[str], *fragments: str) -> None:
    assert main(_score(tmp_path, *argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("natcomp: error: "), err
    for fragment in fragments:
        assert fragment in err, err
    assert not (tmp_path / "out" / "labels.tsv").exists()
    assert not (tmp_path / "out" / "summary.tsv").exists()
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_missing_translation_names_the_sentence_and_writes_nothing(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    partial = {k: v for k, v in NP_VP_TRANSLATIONS.items() if k != "The poet sees the king ."}
    translations = _translations_tsv(tmp_path / "hyp.tsv", partial)
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, argv, str(translations), "'The poet sees the king .'")


def test_wrong_line_count_and_bad_items_are_errors(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("Een.\nTwee.\n", encoding="utf-8")
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(hyp), "--translations-format", "lines"]
    _assert_error(tmp_path, capsys, argv, "has 2 lines but the items have 6 unique source sentences")

    translations = _translations_tsv(tmp_path / "hyp.tsv", NP_VP_TRANSLATIONS)
    bad = _write(tmp_path / "bad.tsv", [["item", "template", "source_a", "source_b"], ["1", "1", "a", "b"]])
    argv = ["--test", "np_vp", "--items", str(bad), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, argv, f"{bad}, line 1", "missing column(s) condition")

    argv = ["--test", "np_vp", "--items", str(tmp_path / "absent.tsv"), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, argv, "absent.tsv", "file not found")

    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(translations), "--substring-keywords"]
    _assert_error(tmp_path, capsys, argv, "overgeneralisation only")


def test_paraphrase_filter_needs_references(tmp_path, capsys):
    items = _write(
        tmp_path / "items.tsv",
        [["item", "template", "idiom", "source", "reference"], ["1", "1", "by heart", "x", "ref"], ["2", "1", "by heart", "y", ""]],
    )
    translations = _translations_tsv(tmp_path / "hyp.tsv", {"x": "a", "y": "b"})
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    argv += ["--idioms", str(RESOURCES / "idioms.tsv"), "--paraphrase-references-only"]
    _assert_error(tmp_path, capsys, argv, f"{items}, line 3", "empty reference")


def test_existing_outputs_survive_a_failing_run(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "labels.tsv").write_text("old\n")
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", {})
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv)) == 2
    assert (out / "labels.tsv").read_text() == "old\n"
    assert not (out / "summary.tsv").exists()


def test_python_dash_m_natcomp(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "natcomp", "score", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "--translations-format" in done.stdout
    done = subprocess.run([sys.executable, "-m", "natcomp", "score"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "required" in done.stderr


def test_score_finds_the_shipped_lists_from_any_directory(tmp_path, monkeypatch):
    items = _write(
        tmp_path / "items.tsv",
        [["item", "template", "idiom", "source", "reference"], ["1", "1", "by heart", "I knew it by heart .", ""]],
    )
    translations = _translations_tsv(tmp_path / "hyp.tsv", {"I knew it by heart .": "Ik kende het uit mijn hart."})
    monkeypatch.chdir(tmp_path)  # no resources/ here
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv)) == 0
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1"]


def test_a_built_wheel_carries_the_resources(tmp_path):
    """An installed natcomp finds its word lists: the wheel holds resources/ as package data."""
    import zipfile

    repo = RESOURCES.parent
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(repo), "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("natcomp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for resource in ("synonyms.tsv", "idioms.tsv", "lexicon/nouns_people.tsv"):
        assert f"natcomp/resources/{resource}" in names, resource
