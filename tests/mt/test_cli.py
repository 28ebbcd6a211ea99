"""Tests of the MT commands of the command line (natcomp.mt.cli): ``natcomp mt score`` and ``natcomp mt sources``.

``natcomp mt fragments`` is tested in test_fragments.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

import natcomp.shipped
from natcomp.cli import main

RESOURCES = Path(__file__).resolve().parents[2] / "resources"

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
NP_VP_SUMMARY = [
    ["template", "condition", "consistency", "n"],
    ["1", "np_prime", "1.0000", "2"],
    ["1", "vp_prime", "1.0000", "1"],
    ["2", "np_prime", "0.0000", "1"],
    ["overall", "np_prime", "0.6667", "3"],
    ["overall", "vp_prime", "1.0000", "1"],
    ["overall", "overall", "0.7500", "4"],
]

SUBSTITUTIVITY_ITEMS = [
    ["item", "template", "pair", "source_a", "source_b"],
    ["1", "1", "doughnut/donut", "The man eats the doughnut .", "The man eats the donut ."],
    ["2", "1", "doughnut/donut", "The king eats the doughnut .", "The king eats the donut ."],
    ["3", "2", "aeroplane/airplane", "I travel by aeroplane .", "I travel by airplane ."],
]
SUBSTITUTIVITY_TRANSLATIONS = {
    "The man eats the doughnut .": "De man eet de donut.",
    "The man eats the donut .": "De man eet de appel.",  # no candidate: the whole translation
    "The king eats the doughnut .": "De koning eet de donuts.",
    "The king eats the donut .": "De koning eet donuts.",
    "I travel by aeroplane .": "Ik reis per vliegtuig.",
    "I travel by airplane .": "Ik reis per vliegtuig.",
}

IDIOM_ITEMS = [
    ["item", "template", "idiom", "source", "reference"],
    ["1", "natural", "once in a while", "I play it once in a while .", "Ik speel het af en toe."],
    ["2", "natural", "once in a while", "Once in a while , we live .", "Soms leven we."],
    ["3", "natural", "by heart", "I knew it by heart .", "Ik kende het door het hart."],
]
IDIOM_TRANSLATIONS = {
    "I play it once in a while .": "Ik speel het eens in een tijdje.",
    "Once in a while , we live .": "Af en toe leven we.",
    "I knew it by heart .": "Ik kende het uit het hoofd.",
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
        "mt",
        "score",
        "--labels",
        str(tmp_path / "out" / "labels.tsv"),
        "--summary",
        str(tmp_path / "out" / "summary.tsv"),
        *extra,
    ]


# --------------------------------------------------------------------------------------
# natcomp mt score: results


def test_score_np_vp_end_to_end(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", NP_VP_TRANSLATIONS)
    status = main(_score(tmp_path, "--test", "np_vp", "--items", str(items), "--translations", str(translations)))
    assert status == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0] == [*NP_VP_ITEMS[0], "translation_a", "translation_b", "consistent"]
    assert [row[-1] for row in labels[1:]] == ["1", "1", "1", "0"]
    assert labels[1][-3:-1] == ["Het meisje ziet de koning.", "De jongen ziet de koning."]
    assert labels[1][5] == "n1"  # extra columns are kept
    assert _read(tmp_path / "out" / "summary.tsv") == NP_VP_SUMMARY
    assert not list((tmp_path / "out").glob(".*part"))  # no temporary files left
    out = capsys.readouterr().out
    assert out == (
        f"natcomp mt score: np_vp, 4 items, consistency 0.7500 "
        f"(labels: {tmp_path / 'out' / 'labels.tsv'}, summary: {tmp_path / 'out' / 'summary.tsv'})\n"
    )


def test_score_s_conj_with_lines_format_and_unscored_item(tmp_path, capsys):
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
        ["4", "s1_prime", "1.0000", "1"],
        ["4", "s3", "0.0000", "1"],
        ["overall", "s1_prime", "1.0000", "1"],
        ["overall", "s3", "0.0000", "1"],
        ["overall", "overall", "0.5000", "2"],
    ]
    assert capsys.readouterr().out.startswith("natcomp mt score: s_conj, 3 items (2 scored), consistency 0.5000 (")


def test_score_substitutivity_names_pairs_and_pools_them(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", SUBSTITUTIVITY_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", SUBSTITUTIVITY_TRANSLATIONS)
    argv = ["--test", "substitutivity", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv, "--synonyms", str(RESOURCES / "synonyms.tsv"))) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0][-4:] == ["synonym_a", "synonym_b", "consistent", "synonym_consistent"]
    assert labels[1][-4:] == ["donut", "De man eet de appel .", "0", "0"]
    assert labels[2][-4:] == ["donuts", "donuts", "0", "1"]
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "pair", "consistency", "synonym_consistency", "n"],
        ["1", "doughnut/donut", "0.0000", "0.5000", "2"],
        ["2", "aeroplane/airplane", "1.0000", "1.0000", "1"],
        ["overall", "doughnut/donut", "0.0000", "0.5000", "2"],
        ["overall", "aeroplane/airplane", "1.0000", "1.0000", "1"],
        ["overall", "overall", "0.3333", "0.6667", "3"],
    ]
    assert capsys.readouterr().out.startswith(
        "natcomp mt score: substitutivity, 3 items, consistency 0.3333, synonym_consistency 0.6667 (labels: "
    )


def test_score_overgeneralisation_names_idioms_and_options(tmp_path):
    items = _write(tmp_path / "items.tsv", IDIOM_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", IDIOM_TRANSLATIONS)
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    argv += ["--idioms", str(RESOURCES / "idioms.tsv")]
    assert main(_score(tmp_path, *argv)) == 0
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1", "0", "0"]
    assert _read(tmp_path / "out" / "summary.tsv") == [
        ["template", "idiom", "overgeneralisation", "n"],
        ["natural", "once in a while", "0.5000", "2"],
        ["natural", "by heart", "0.0000", "1"],
        ["overall", "once in a while", "0.5000", "2"],
        ["overall", "by heart", "0.0000", "1"],
        ["overall", "overall", "0.3333", "3"],
    ]

    assert main(_score(tmp_path, *argv, "--keyword-matching", "substring")) == 0  # "even" inside "leven"
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1", "1", "0"]
    assert main(_score(tmp_path, *argv, "--substring-keywords")) == 0  # the older spelling
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == ["1", "1", "0"]

    assert main(_score(tmp_path, *argv, "--paraphrase-references-only")) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert labels[0][-2:] == ["reference_paraphrase", "overgeneralised"]
    assert [row[-2:] for row in labels[1:]] == [["1", "1"], ["1", "0"], ["0", ""]]
    assert _read(tmp_path / "out" / "summary.tsv")[1:3] == [
        ["natural", "once in a while", "0.5000", "2"],
        ["natural", "by heart", "", "0"],  # no scored item: no score
    ]


# --------------------------------------------------------------------------------------
# natcomp mt score: from any directory


def test_score_finds_the_shipped_lists_from_any_directory(tmp_path, monkeypatch):
    """Relative paths from a directory without resources/: the shipped synonyms and idioms are used."""
    _write(tmp_path / "idioms_items.tsv", IDIOM_ITEMS)
    _translations_tsv(tmp_path / "idioms_hyp.tsv", IDIOM_TRANSLATIONS)
    _write(tmp_path / "pairs_items.tsv", SUBSTITUTIVITY_ITEMS)
    _translations_tsv(tmp_path / "pairs_hyp.tsv", SUBSTITUTIVITY_TRANSLATIONS)
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "resources").exists()
    argv = ["mt", "score", "--labels", "l.tsv", "--summary", "s.tsv"]
    assert (
        main([*argv, "--test", "overgeneralisation", "--items", "idioms_items.tsv", "--translations", "idioms_hyp.tsv"])
        == 0
    )
    assert [row[-1] for row in _read(tmp_path / "l.tsv")[1:]] == ["1", "0", "0"]
    assert (
        main([*argv, "--test", "substitutivity", "--items", "pairs_items.tsv", "--translations", "pairs_hyp.tsv"]) == 0
    )
    assert [row[-1] for row in _read(tmp_path / "l.tsv")[1:]] == ["0", "1", "1"]


def test_python_dash_m_natcomp_score_in_another_directory(tmp_path):
    """The command as a user runs it: a fresh process whose working directory is not the repository."""
    _write(tmp_path / "items.tsv", SUBSTITUTIVITY_ITEMS)
    _translations_tsv(tmp_path / "hyp.tsv", SUBSTITUTIVITY_TRANSLATIONS)
    argv = ["mt", "score", "--test", "substitutivity", "--items", "items.tsv", "--translations", "hyp.tsv"]
    done = subprocess.run(
        [sys.executable, "-m", "natcomp", *argv, "--labels", "labels.tsv", "--summary", "summary.tsv"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "natcomp mt score: substitutivity, 3 items, consistency 0.3333, synonym_consistency 0.6667 "
        "(labels: labels.tsv, summary: summary.tsv)\n"
    )
    assert done.stderr == ""


def test_missing_shipped_list_names_the_flag(tmp_path, monkeypatch, capsys):
    """Where the shipped lists cannot be found the error says which flag gives them."""
    elsewhere = tmp_path / "empty_package"
    elsewhere.mkdir()
    monkeypatch.setattr(natcomp.shipped, "_importlib_resources", SimpleNamespace(files=lambda package: elsewhere))
    pairs = _write(tmp_path / "pairs.tsv", SUBSTITUTIVITY_ITEMS)
    idioms = _write(tmp_path / "idioms.tsv", IDIOM_ITEMS)
    hyp = _translations_tsv(tmp_path / "hyp.tsv", {**SUBSTITUTIVITY_TRANSLATIONS, **IDIOM_TRANSLATIONS})
    for test, items, flag in (("substitutivity", pairs, "--synonyms"), ("overgeneralisation", idioms, "--idioms")):
        assert main(_score(tmp_path, "--test", test, "--items", str(items), "--translations", str(hyp))) == 2
        err = capsys.readouterr().err
        assert err.startswith("natcomp: error: natcomp resource ") and f"Pass {flag} FILE" in err, err
        assert err.count("\n") == 1
    # naming the list works without the shipped copy
    argv = ["--test", "substitutivity", "--items", str(pairs), "--translations", str(hyp)]
    assert main(_score(tmp_path, *argv, "--synonyms", str(RESOURCES / "synonyms.tsv"))) == 0


# --------------------------------------------------------------------------------------
# natcomp mt score: files written by pandas, quotes and byte-order marks


def test_files_written_by_pandas_with_quotes_tabs_and_bom_score_like_natcomp_files(tmp_path):
    """pandas' to_csv(sep="\\t") quotes a field with a '"' or a tab; its items and translations read as written."""
    items = [list(row) for row in NP_VP_ITEMS]
    translations = dict(NP_VP_TRANSLATIONS)
    # a sentence with quotes, one that starts and ends with a quote, and a note with a tab inside
    old, new = "The poet sees the king .", 'The poet says " hi " to the king .'
    items[4][4] = new
    translations[new] = 'De dichter zegt "hoi" tegen de koning.'
    del translations[old]
    items[2][3] = items[4][3] = '"The man sees the king ."'
    translations['"The man sees the king ."'] = "De man ziet de koning."
    del translations["The man sees the king ."]
    items[1][5] = "a note\twith a tab"
    translations["The girl sees the king ."] = "Het meisje\tziet de koning."  # a tab is white space to the tests

    header, *rows = items
    pandas_dir = tmp_path / "pandas"
    pandas_dir.mkdir()
    pd.DataFrame(rows, columns=header).to_csv(pandas_dir / "items.tsv", sep="\t", index=False, encoding="utf-8-sig")
    pd.DataFrame({"source": list(translations), "translation": list(translations.values())}).to_csv(
        pandas_dir / "hyp.tsv", sep="\t", index=False, encoding="utf-8-sig"
    )
    raw = (pandas_dir / "items.tsv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfitem\t") and b'"""The man sees the king ."""' in raw
    assert b'"a note\twith a tab"' in raw

    argv = ["--test", "np_vp", "--items", str(pandas_dir / "items.tsv"), "--translations", str(pandas_dir / "hyp.tsv")]
    assert main(_score(pandas_dir, *argv)) == 0
    labels = pd.read_csv(pandas_dir / "out" / "labels.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert labels["source_a"].tolist()[1] == '"The man sees the king ."'
    assert labels["source_b"].tolist()[3] == new
    assert labels["note"].tolist()[0] == "a note\twith a tab"  # written back CSV-quoted, which pandas reads
    assert labels["consistent"].tolist() == ["1", "1", "1", "0"]
    assert _read(pandas_dir / "out" / "summary.tsv") == NP_VP_SUMMARY

    # the same sentences in natcomp's own unquoted TSV (no tabs: it cannot hold them) score the same
    items[1][5] = "a note"
    translations["The girl sees the king ."] = "Het meisje ziet de koning."
    plain_dir = tmp_path / "plain"
    plain_dir.mkdir()
    _write(plain_dir / "items.tsv", items)
    _translations_tsv(plain_dir / "hyp.tsv", translations)
    argv = ["--test", "np_vp", "--items", str(plain_dir / "items.tsv"), "--translations", str(plain_dir / "hyp.tsv")]
    assert main(_score(plain_dir, *argv)) == 0
    plain = _read(plain_dir / "out" / "labels.tsv")
    assert plain[2][3] == '"The man sees the king ."'  # leading and trailing quotes kept
    assert [row[-1] for row in plain[1:]] == ["1", "1", "1", "0"]
    assert _read(plain_dir / "out" / "summary.tsv") == NP_VP_SUMMARY


def test_natcomp_files_with_sentences_starting_with_a_quote_are_read_as_they_are(tmp_path):
    """Unquoted files whose sentences start (and end) with '"' keep every quote under --quoting auto."""
    sources = ['"Run!" he said .', '"Run!"', '" Run ! "', '"', '""', 'He said "no" .']
    items = [["item", "template", "condition", "source_a", "source_b"]]
    items += [[str(i), "1", "np_prime", source, f"{source} x"] for i, source in enumerate(sources)]
    items_path = _write(tmp_path / "items.tsv", items)
    assert (
        main(["mt", "sources", "--test", "np_vp", "--items", str(items_path), "--output", str(tmp_path / "src.txt")])
        == 0
    )
    expected = [s for source in sources for s in (source, f"{source} x")]
    assert (tmp_path / "src.txt").read_text(encoding="utf-8").splitlines() == expected
    hyp = _translations_tsv(tmp_path / "hyp.tsv", {s: s for s in expected})
    argv = ["--test", "np_vp", "--items", str(items_path), "--translations", str(hyp)]
    assert main(_score(tmp_path, *argv)) == 0
    labels = _read(tmp_path / "out" / "labels.tsv")
    assert [row[3] for row in labels[1:]] == sources
    assert [row[5] for row in labels[1:]] == sources  # translation_a: read back unchanged too

    # --quoting csv forces CSV reading: '"Run!"' then loses its quotes (and '"Run!" he said .' is malformed)
    assert main(["mt", "sources", "--test", "np_vp", "--items", str(items_path), "--quoting", "csv"]) == 2


def test_quoting_none_reads_a_pandas_file_literally(tmp_path, capsys):
    header, *rows = NP_VP_ITEMS
    rows = [list(row) for row in rows]
    rows[0][3] = 'The "girl" sees the king .'
    pd.DataFrame(rows, columns=header).to_csv(tmp_path / "items.tsv", sep="\t", index=False)
    assert main(["mt", "sources", "--test", "np_vp", "--items", str(tmp_path / "items.tsv")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == 'The "girl" sees the king .'
    assert main(["mt", "sources", "--test", "np_vp", "--items", str(tmp_path / "items.tsv"), "--quoting", "none"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == '"The ""girl"" sees the king ."'


INSIDE_WORDS_ITEMS = [
    ["item", "template", "idiom", "source", "reference"],
    ["1", "natural", "from scratch", "We built it from scratches .", ""],  # only inside a longer word
    ["2", "natural", "by heart", "She learned it by heartily .", ""],
    ["3", "natural", "in tandem", "They play main tandem .", ""],
    ["4", "natural", "by heart", "I knew it by heart .", ""],  # as whole words
]
INSIDE_WORDS_TRANSLATIONS = {
    "We built it from scratches .": "We bouwden het uit krassen.",  # keyword kras(sen): overgeneralised
    "She learned it by heartily .": "Ze leerde het hartelijk.",  # hart inside hartelijk: substring mode only
    "They play main tandem .": "Ze spelen hoofdtandem.",  # tandem inside a compound: substring mode only
    "I knew it by heart .": "Ik kende het uit het hoofd.",  # no keyword
}


@pytest.mark.parametrize(
    ("matching", "scores", "reported"),
    [("inflected", "1/0/0/0", True), ("word", "0/0/0/0", True), ("substring", "1/1/1/0", False)],
)
def test_sources_holding_their_idiom_inside_longer_words_are_scored_and_counted(
    tmp_path, capsys, matching, scores, reported
):
    """Released natural items hold idioms as "from scratches", "by heartily", "main tandem": the CLI scores them
    (no exit 2); outside substring mode it reports them on stderr as one line with a count and examples."""
    items = _write(tmp_path / "items.tsv", INSIDE_WORDS_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", INSIDE_WORDS_TRANSLATIONS)
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv, "--keyword-matching", matching)) == 0
    labels = {row[0]: row for row in _read(tmp_path / "out" / "labels.tsv")}
    column = labels["item"].index("overgeneralised")
    assert "/".join(labels[item][column] for item in "1234") == scores
    err = capsys.readouterr().err
    if reported:
        assert err.count("\n") == 1, err
        assert err.startswith("natcomp mt score: 3 of 4 sources hold their idiom only inside longer words"), err
        assert "line 2: 'We built it from scratches .' (from scratch)" in err
        assert "line 4: 'They play main tandem .' (in tandem)" in err
        assert "line 5" not in err
    else:
        assert err == ""


# --------------------------------------------------------------------------------------
# natcomp mt score: errors


def _assert_error(tmp_path, capsys, argv: list[str], *fragments: str) -> str:
    assert main(_score(tmp_path, *argv)) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("natcomp: error: "), err
    assert err.count("\n") == 1, err  # one line
    for fragment in fragments:
        assert fragment in err, err
    assert captured.out == ""
    assert not (tmp_path / "out" / "labels.tsv").exists()
    assert not (tmp_path / "out" / "summary.tsv").exists()
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    return err


def test_header_error_names_the_file_the_header_found_and_every_expected_column(tmp_path, capsys):
    translations = _translations_tsv(tmp_path / "hyp.tsv", NP_VP_TRANSLATIONS)
    bad = _write(tmp_path / "bad.tsv", [["item", "template", "src_a", "src_b"], ["1", "1", "a", "b"]])
    argv = ["--test", "np_vp", "--items", str(bad), "--translations", str(translations)]
    _assert_error(
        tmp_path,
        capsys,
        argv,
        f"{bad}, line 1: ",
        "missing column(s) condition, source_a, source_b",
        "found the header item | template | src_a | src_b",
        "expected the columns item, template, condition, source_a, source_b",
    )
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    hyp = _write(tmp_path / "hyp2.tsv", [["src", "hypothesis"], ["a", "b"]])
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(hyp)]
    _assert_error(
        tmp_path,
        capsys,
        argv,
        f"{hyp}, line 1: missing column(s) source, translation; found the header src | hypothesis",
    )
    comma = tmp_path / "comma.csv"
    comma.write_text("source,translation\na,b\n", encoding="utf-8")
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(comma)]
    _assert_error(tmp_path, capsys, argv, "is the file comma- or semicolon-separated?")


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
    argv = ["--test", "np_vp", "--items", str(tmp_path / "absent.tsv"), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, argv, "absent.tsv", "file not found")

    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(translations), "--substring-keywords"]
    _assert_error(tmp_path, capsys, argv, "overgeneralisation only")

    reserved = [list(row) for row in NP_VP_ITEMS]
    reserved[3][1] = "overall"
    bad = _write(tmp_path / "reserved.tsv", reserved)
    argv = ["--test", "np_vp", "--items", str(bad), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, argv, f"{bad}, line 4: template 'overall' is reserved")


HEART_ITEMS = [
    ["item", "template", "idiom", "source", "reference"],
    ["1", "1", "by heart", "I know it by heart .", "Ik ken het uit het hoofd."],
    ["2", "1", "by heart", "She learnt it by heart .", ""],
    ["3", "1", "by heart", "They know them by heart .", "Ze kennen hun harten."],
]
HEART_TRANSLATIONS = {
    "I know it by heart .": "Ik ken het door het hart.",
    "She learnt it by heart .": "Ze leerde het door haar hartjes.",
    "They know them by heart .": "Ze kennen ze uit het hoofd.",
}


@pytest.mark.parametrize(
    ("matching", "labels"),
    [
        # inflected: hartje and harten are literal translations of "heart"
        (["--keyword-matching", "inflected"], [["1", "1"], ["1", "1"], ["0", ""]]),
        ([], [["1", "1"], ["1", "1"], ["0", ""]]),  # the default
        # word: only the bare "hart" counts, so item 2 is no overgeneralisation and item 3's reference a paraphrase
        (["--keyword-matching", "word"], [["1", "1"], ["1", "0"], ["1", "0"]]),
    ],
)
def test_paraphrase_filter_counts_an_empty_reference_as_a_paraphrase(tmp_path, matching, labels):
    items = _write(tmp_path / "items.tsv", HEART_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", HEART_TRANSLATIONS)
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    argv += ["--idioms", str(RESOURCES / "idioms.tsv"), "--paraphrase-references-only", *matching]
    assert main(_score(tmp_path, *argv)) == 0
    rows = _read(tmp_path / "out" / "labels.tsv")
    assert rows[0][-2:] == ["reference_paraphrase", "overgeneralised"]
    assert [row[-2:] for row in rows[1:]] == labels


def test_keyword_options_contradicting_or_on_another_test_are_errors(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", HEART_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", HEART_TRANSLATIONS)
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    argv += ["--substring-keywords", "--keyword-matching", "word"]
    _assert_error(tmp_path, capsys, argv, "--substring-keywords means --keyword-matching substring", "word")
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, [*argv, "--s-conj-missing-conjunct", "triple"], "apply to --test s_conj only")
    np_vp = _write(tmp_path / "np_vp.tsv", NP_VP_ITEMS)
    argv = ["--test", "np_vp", "--items", str(np_vp), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, [*argv, "--keyword-matching", "word"], "apply to --test overgeneralisation only")
    assert main(_score(tmp_path, *argv, "--keyword-matching", "stem")) == 2
    assert capsys.readouterr().err == (
        "natcomp: error: --keyword-matching: invalid choice 'stem' (choose from substring, word, inflected)\n"
    )


def test_swapped_idiom_is_an_error_naming_the_line(tmp_path, capsys):
    swapped = [list(row) for row in IDIOM_ITEMS]
    swapped[3][2] = "once in a while"  # "I knew it by heart ." labelled with the wrong idiom
    items = _write(tmp_path / "items.tsv", swapped)
    translations = _translations_tsv(tmp_path / "hyp.tsv", IDIOM_TRANSLATIONS)
    argv = ["--test", "overgeneralisation", "--items", str(items), "--translations", str(translations)]
    _assert_error(
        tmp_path,
        capsys,
        argv,
        f"{items}, line 4",
        "'I knew it by heart .' does not contain its idiom 'once in a while'",
    )


S_CONJ_TRIPLES = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["1", "1", "s1_prime", "S1 and S2", "S1' and S2"],
    ["2", "1", "s3", "S1 and S2", "S3 and S2"],
    ["3", "1", "s1_prime", "T1 and T2", "T1' and T2"],
    ["4", "1", "s3", "T1 and T2", "T3 and T2"],
]
S_CONJ_TRIPLE_TRANSLATIONS = {
    "S1 and S2": "De man ziet de koning, en het kind slaapt.",
    "S1' and S2": "De man ziet de leider, en het kind slaapt.",
    "S3 and S2": "De vrouw ziet de generaal; het kind slaapt.",  # no second conjunct
    "T1 and T2": "De boer ziet de koning, en de vrouw lacht.",
    "T1' and T2": "De boer ziet de leider, en de vrouw huilt.",
    "T3 and T2": "De dichter ziet de koning, en de vrouw lacht.",
}


@pytest.mark.parametrize(
    ("option", "consistent", "line"),
    [
        ([], ["1", "", "0", "1"], "s_conj, 4 items (3 scored), consistency 0.6667"),
        (["--s-conj-missing-conjunct", "pair"], ["1", "", "0", "1"], "s_conj, 4 items (3 scored), consistency 0.6667"),
        (["--s-conj-missing-conjunct", "triple"], ["", "", "0", "1"], "s_conj, 4 items (2 scored), consistency 0.5000"),
    ],
)
def test_score_s_conj_missing_conjunct_option(tmp_path, capsys, option, consistent, line):
    items = _write(tmp_path / "items.tsv", S_CONJ_TRIPLES)
    translations = _translations_tsv(tmp_path / "hyp.tsv", S_CONJ_TRIPLE_TRANSLATIONS)
    argv = ["--test", "s_conj", "--items", str(items), "--translations", str(translations), *option]
    assert main(_score(tmp_path, *argv)) == 0
    assert [row[-1] for row in _read(tmp_path / "out" / "labels.tsv")[1:]] == consistent
    assert line in capsys.readouterr().out


# The original code's conjunct rule (--s-conj-split original): B's short template-4 S1 (Hij en
# zij ,) has S2 after the second en and B3's single early en the empty conjunct; C1 has no en.
S_CONJ_ORIGINAL_TRIPLES = [
    ["item", "template", "condition", "source_a", "source_b"],
    ["0", "4", "s1_prime", "A", "A1"],
    ["1", "4", "s1_prime", "B", "B1"],
    ["2", "4", "s1_prime", "C", "C1"],
    ["3", "4", "s3", "A", "A3"],
    ["4", "4", "s3", "B", "B3"],
    ["5", "4", "s3", "C", "C3"],
]
S_CONJ_ORIGINAL_TRANSLATIONS = {
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


@pytest.mark.parametrize(
    ("option", "consistent", "line"),
    [
        ([], ["1", "", "", "0", "", "1"], "s_conj, 6 items (3 scored), consistency 0.6667"),
        (["--s-conj-split", "tokens"], ["1", "", "", "0", "", "1"], "s_conj, 6 items (3 scored), consistency 0.6667"),
        (
            ["--s-conj-split", "tokens", "--s-conj-missing-conjunct", "triple"],
            ["1", "", "", "0", "", ""],
            "s_conj, 6 items (2 scored), consistency 0.5000",
        ),
        (
            ["--s-conj-split", "original"],
            ["1", "1", "", "0", "0", "1"],
            "s_conj, 6 items (5 scored), consistency 0.6000",
        ),
        # the released code's rules: C left out of both conditions (the anchor's 417/498)
        (
            ["--s-conj-split", "original", "--s-conj-missing-conjunct", "triple"],
            ["1", "1", "", "0", "0", ""],
            "s_conj, 6 items (4 scored), consistency 0.5000",
        ),
    ],
)
def test_score_s_conj_split_option(tmp_path, capsys, option, consistent, line):
    items = _write(tmp_path / "items.tsv", S_CONJ_ORIGINAL_TRIPLES)
    translations = _translations_tsv(tmp_path / "hyp.tsv", S_CONJ_ORIGINAL_TRANSLATIONS)
    argv = ["--test", "s_conj", "--items", str(items), "--translations", str(translations), *option]
    assert main(_score(tmp_path, *argv)) == 0
    rows = _read(tmp_path / "out" / "labels.tsv")
    assert rows[0][-3:] == ["conjunct_a", "conjunct_b", "consistent"]
    assert [row[-1] for row in rows[1:]] == consistent
    assert line in capsys.readouterr().out
    if "original" in option:
        assert rows[2][-3:-1] == ["de vrouw lacht .", "de vrouw lacht ."]
    if option[-2:] == ["--s-conj-missing-conjunct", "triple"] and "original" in option:
        summary = _read(tmp_path / "out" / "summary.tsv")
        header = summary[0]
        by_condition = {
            row[header.index("condition")]: (row[header.index("consistency")], row[header.index("n")])
            for row in summary[1:]
            if row[header.index("template")] == "4"
        }
        assert by_condition == {"s1_prime": ("1.0000", "2"), "s3": ("0.0000", "2")}


def test_s_conj_split_applies_to_s_conj_only(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    translations = _translations_tsv(tmp_path / "hyp.tsv", {})
    argv = ["--test", "np_vp", "--items", str(items), "--translations", str(translations)]
    _assert_error(tmp_path, capsys, [*argv, "--s-conj-split", "original"], "--s-conj-split apply to --test s_conj only")
    argv = ["--test", "s_conj", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv, "--s-conj-split", "comma")) == 2
    assert "--s-conj-split: invalid choice 'comma' (choose from tokens, original)" in capsys.readouterr().err


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


# --------------------------------------------------------------------------------------
# natcomp mt sources


def test_sources_to_stdout_and_to_a_file(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", NP_VP_ITEMS)
    assert main(["mt", "sources", "--test", "np_vp", "--items", str(items)]) == 0
    captured = capsys.readouterr()
    expected = [
        "The girl sees the king .",
        "The boy sees the king .",
        "The man sees the king .",
        "The woman sees the king .",
        "The girl sees the poet .",
        "The poet sees the king .",
    ]
    assert captured.out.splitlines() == expected
    assert captured.err == "natcomp mt sources: 6 unique source sentences of 4 items -> stdout\n"
    out = tmp_path / "sub" / "sources.txt"
    assert main(["mt", "sources", "--test", "np_vp", "--items", str(items), "--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == "".join(f"{s}\n" for s in expected)
    assert capsys.readouterr().out == ""
    assert [p.name for p in out.parent.iterdir()] == ["sources.txt"]  # no temporary file left


def test_sources_of_bad_items_write_nothing(tmp_path, capsys):
    out = tmp_path / "sources.txt"
    out.write_text("old\n", encoding="utf-8")
    bad = _write(tmp_path / "bad.tsv", [["item", "template", "idiom", "source"], ["1", "1", "by heart", "x"]])
    assert main(["mt", "sources", "--test", "overgeneralisation", "--items", str(bad), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 1: missing column(s) reference" in err
    assert out.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tsv", "sources.txt"]


@pytest.mark.parametrize(
    ("test", "items", "translations", "extra"),
    [
        ("np_vp", NP_VP_ITEMS, NP_VP_TRANSLATIONS, []),
        ("substitutivity", SUBSTITUTIVITY_ITEMS, SUBSTITUTIVITY_TRANSLATIONS, []),
        ("overgeneralisation", IDIOM_ITEMS, IDIOM_TRANSLATIONS, ["--substring-keywords"]),
    ],
)
@pytest.mark.parametrize("system", ["identity", "upper", "dictionary"])
def test_sources_round_trip_scores_like_the_tsv_format(tmp_path, capsys, test, items, translations, extra, system):
    """Export the sources, translate them line by line, score as lines: the labels of the TSV format."""
    items_path = _write(tmp_path / "items.tsv", items)
    sources_path = tmp_path / "sources.txt"
    assert main(["mt", "sources", "--test", test, "--items", str(items_path), "--output", str(sources_path)]) == 0
    translate = {"identity": lambda s: s, "upper": str.upper, "dictionary": translations.__getitem__}[system]
    sources = sources_path.read_text(encoding="utf-8").splitlines()
    (tmp_path / "hyp.txt").write_text("".join(translate(s) + "\n" for s in sources), encoding="utf-8")
    _translations_tsv(tmp_path / "hyp.tsv", {s: translate(s) for s in sources})

    labels = {}
    for fmt, hyp in (("lines", "hyp.txt"), ("tsv", "hyp.tsv")):
        out = tmp_path / fmt
        argv = ["mt", "score", "--test", test, "--items", str(items_path), "--translations", str(tmp_path / hyp)]
        argv += ["--translations-format", fmt, "--labels", str(out / "l.tsv"), "--summary", str(out / "s.tsv")]
        assert main([*argv, *extra]) == 0
        labels[fmt] = ((out / "l.tsv").read_text(encoding="utf-8"), (out / "s.tsv").read_text(encoding="utf-8"))
    assert labels["lines"] == labels["tsv"]


def test_score_warns_when_translations_equal_their_sources_and_says_why_none_is_scored(tmp_path, capsys):
    """English 'translations' (the sources copied): a warning line, and the reason for 0 items scored."""
    items = _write(tmp_path / "items.tsv", S_CONJ_TRIPLES)
    copied = {source: source for source in S_CONJ_TRIPLE_TRANSLATIONS}
    copied["T3 and T2"] = "De dichter ziet de koning, en de vrouw lacht."  # one of 6 is Dutch
    translations = _translations_tsv(tmp_path / "hyp.tsv", copied)
    argv = ["--test", "s_conj", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv)) == 0
    captured = capsys.readouterr()
    assert "4 items (0 scored)" in captured.out
    assert captured.err.splitlines() == [
        "natcomp mt score: warning: 5 of 6 translations equal their source: is this the English side?",
        "natcomp mt score: 0 of 4 items scored: no translation has a second conjunct (a Dutch 'en' after the first "
        "conjunct), so no item can be compared; are the translations Dutch?",
    ]


def test_score_of_dutch_translations_warns_about_nothing(tmp_path, capsys):
    items = _write(tmp_path / "items.tsv", S_CONJ_TRIPLES)
    translations = _translations_tsv(tmp_path / "hyp.tsv", S_CONJ_TRIPLE_TRANSLATIONS)
    argv = ["--test", "s_conj", "--items", str(items), "--translations", str(translations)]
    assert main(_score(tmp_path, *argv)) == 0
    assert capsys.readouterr().err == ""
