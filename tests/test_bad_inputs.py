"""Every bad input of issue 21 point 2 through the command line: one line on stderr, exit 2.

Each case runs ``natcomp.cli.main`` on a folder of small valid inputs with one argument
made bad (a folder as a file, a missing file, non-UTF-8 bytes, an empty or broken file, a
folder or an existing file as output, a bad option value). The shared mechanism of
``natcomp.cli.main`` must turn it into ``natcomp: error: <path>[, line N]: <what was
expected>`` with exit status 2: no traceback (an exception escaping ``main`` fails the
test), one line naming the path, and no output file left behind.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from natcomp.cli import main

SST_TREES = "(3 (2 A) (3 (3 (3 good) (2 film)) (2 .)))\n(1 (2 The) (1 (1 (1 bad) (2 plot)) (2 .)))\n(2 (2 It) (2 (2 is) (2 .)))\n"
STUDY2_HEADER = "phrase 1\tphrase 1 clean\tphrase 2\tphrase 2 clean\tside to be replaced\tSST replacement 1\n"
RELEASED_HEADER = "sentence\tlabel\tclass\tadj\tnoun\thyp\tnoun_hyp\n"
LATIN1 = "caf\xe9".encode("latin-1")  # not UTF-8


def make_inputs(folder: Path) -> Path:
    """A folder of small valid inputs for every family, a sub-folder ``dir`` and a non-UTF-8 file."""
    d = folder / "in"
    d.mkdir()
    (d / "dir").mkdir()
    (d / "items.tsv").write_text(
        "item\ttemplate\tcondition\tsource_a\tsource_b\n1\t1\tnp_prime\tThe girl sees .\tThe boy sees .\n",
        encoding="utf-8",
    )
    (d / "hyp.tsv").write_text(
        "source\ttranslation\nThe girl sees .\tHet meisje ziet.\nThe boy sees .\tDe jongen ziet.\n", encoding="utf-8"
    )
    (d / "trees.txt").write_text(SST_TREES, encoding="utf-8")
    (d / "empty.txt").write_text("", encoding="utf-8")
    (d / "x.zip").write_bytes(b"")
    (d / "stimuli.tsv").write_text(
        STUDY2_HEADER + "a x\ta x\tb y\tb y\tleft\tc z\na x\ta x\tb y\tb y\tright\tc w\n", encoding="utf-8"
    )
    (d / "human.tsv").write_text("phrase\tmaxabs_rating\tsentiment\na x b y\t1.5\t3\n", encoding="utf-8")
    # non-UTF-8 bytes on line 2, after a header each reader accepts
    (d / "latin1.tsv").write_bytes(
        b"item\ttemplate\tcondition\tsource_a\tsource_b\n1\t1\tnp_prime\t" + LATIN1 + b"\tb\n"
    )
    (d / "stimuli_latin1.tsv").write_bytes(STUDY2_HEADER.encode() + b"a x\ta x\tb y\tb y\tleft\t" + LATIN1 + b"\n")
    (d / "released_latin1.tsv").write_bytes(
        RELEASED_HEADER.encode() + b"A red " + LATIN1 + b" is a dog\t1\tI\tred\tdog\tcanine\tdog_canine\n"
    )
    (d / "pairs_latin1.txt").write_bytes(b"a good film\ta bad film\n" + LATIN1 + b"\tit is\n")
    (d / "pairs.txt").write_text("a good film\ta bad film\nit is fine\tit is not fine\n", encoding="utf-8")
    (d / "predictions.tsv").write_text(
        "sentence\tprediction\na good film\t1\na bad film\t0\nit is fine\t1\nit is not fine\t0\n", encoding="utf-8"
    )
    (d / "phrases.tsv").write_text("phrase\ttype\ngood film\tNP\n", encoding="utf-8")
    (d / "sent.tsv").write_text("stimulus\tsentiment\na b\t3\n", encoding="utf-8")
    (d / "existing.txt").write_text("keep me\n", encoding="utf-8")
    (d / "bad.yaml").write_text("mt:\n  seeds: [1, 2\n  sizes: {}\n", encoding="utf-8")
    import numpy as np

    np.save(d / "emb.npy", np.ones((3, 4)))
    np.save(d / "nan.npy", np.array([[1.0, 2.0], [np.nan, 1.0], [1.0, np.inf]]))
    (d / "empty.npy").write_bytes(b"")
    return d


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    return make_inputs(tmp_path)


# (id, argv with {d} for the inputs folder and {o} for the output folder, the path the line must name,
#  a piece of the expected message)
CASES = [
    # a folder given as an input file
    (
        "mt-score-items-folder",
        "mt score --test np_vp --items {d}/dir --translations {d}/hyp.tsv --labels {o}/l.tsv --summary {o}/s.tsv",
        "{d}/dir",
        "folder",
    ),
    (
        "noncompsst-ratings-stimuli-folder",
        "noncompsst ratings --stimuli {d}/dir --sentiment {d}/sent.tsv --out {o}/r.tsv",
        "{d}/dir",
        "folder",
    ),
    (
        "noncompsst-ratings-sentiment-folder",
        "noncompsst ratings --stimuli {d}/stimuli.tsv --sentiment {d}/dir --out {o}/r.tsv",
        "{d}/dir",
        "folder",
    ),
    (
        "noncompsst-evaluate-predictions-folder",
        "noncompsst evaluate --predictions {d}/dir --human {d}/human.tsv --stimuli {d}/stimuli.tsv",
        "{d}/dir",
        "folder",
    ),
    ("plane-check-released-folder", "plane check-released {d}/dir", "{d}/dir", "folder"),
    (
        "plane-resource-input-folder",
        "plane resource --source released --input {d}/dir --out {o}/res",
        "{d}/dir",
        "folder",
    ),
    ("pss-score-predictions-folder", "pss score --pairs {d}/pairs.txt 0 --predictions {d}/dir", "{d}/dir", "folder"),
    ("pss-clean-pairs-folder", "pss clean --pairs {d}/dir --out {o}/kept.txt", "{d}/dir", "folder"),
    ("mt-evaluate-configfile-folder", "mt evaluate --model m --configfile {d}/dir -n", "{d}/dir", "folder"),
    (
        "noncompsst-candidates-entities-latin1",
        "noncompsst candidates {d}/trees.txt --no-parser --phrase-types {d}/phrases.tsv --entities {d}/pairs_latin1.txt --quiet --out {o}/c.tsv",
        "{d}/pairs_latin1.txt, line 2",
        "UTF-8",
    ),
    # a missing file
    (
        "noncompsst-ratings-stimuli-missing",
        "noncompsst ratings --stimuli {d}/nope.tsv --sentiment {d}/sent.tsv --out {o}/r.tsv",
        "{d}/nope.tsv",
        "not found",
    ),
    ("plane-check-released-missing", "plane check-released {d}/nope.tsv", "{d}/nope.tsv", "not found"),
    (
        "plane-resource-input-missing",
        "plane resource --source released --input {d}/nope.tsv --out {o}/res",
        "{d}/nope.tsv",
        "not found",
    ),
    (
        "mt-score-translations-missing",
        "mt score --test np_vp --items {d}/items.tsv --translations {d}/nope.tsv --labels {o}/l.tsv --summary {o}/s.tsv",
        "{d}/nope.tsv",
        "not found",
    ),
    (
        "tre-fit-embeddings-missing",
        "tre fit --trees {d}/trees.txt --embeddings {d}/nope.npy --out {o}/f.tsv",
        "{d}/nope.npy",
        "not found",
    ),
    # bytes that are not UTF-8: the line is named
    (
        "noncompsst-ratings-stimuli-latin1",
        "noncompsst ratings --stimuli {d}/stimuli_latin1.tsv --sentiment {d}/sent.tsv --out {o}/r.tsv",
        "{d}/stimuli_latin1.tsv, line 2",
        "UTF-8",
    ),
    (
        "plane-check-released-latin1",
        "plane check-released {d}/released_latin1.tsv",
        "{d}/released_latin1.tsv, line 2",
        "UTF-8",
    ),
    (
        "plane-resource-released-latin1",
        "plane resource --source released --input {d}/released_latin1.tsv --out {o}/res",
        "{d}/released_latin1.tsv, line 2",
        "UTF-8",
    ),
    (
        "mt-score-items-latin1",
        "mt score --test np_vp --items {d}/latin1.tsv --translations {d}/hyp.tsv --labels {o}/l.tsv --summary {o}/s.tsv",
        "{d}/latin1.tsv, line 2",
        "UTF-8",
    ),
    (
        "pss-clean-latin1",
        "pss clean --pairs {d}/pairs_latin1.txt --out {o}/kept.txt",
        "{d}/pairs_latin1.txt, line 2",
        "UTF-8",
    ),
    # empty or unreadable inputs, bad option values
    (
        "noncompsst-candidates-empty-trees",
        "noncompsst candidates {d}/empty.txt --no-parser --no-ner --quiet --out {o}/c.tsv",
        "{d}/empty.txt",
        "no tree",
    ),
    (
        "tre-fit-nan-row",
        "tre fit --trees {d}/trees.txt --embeddings {d}/nan.npy --out {o}/f.tsv",
        "{d}/nan.npy",
        "row 2 (the embedding of tree 2) holds NaN",
    ),
    ("tre-scores-empty-trees", "tre scores --trees {d}/empty.txt --out {o}/s.tsv", "{d}/empty.txt", "no tree"),
    ("tre-scores-zip-without-split", "tre scores --trees {d}/x.zip --out {o}/s.tsv", "{d}/x.zip", "--split"),
    (
        "tre-fit-empty-npy",
        "tre fit --trees {d}/trees.txt --embeddings {d}/empty.npy --out {o}/f.tsv",
        "{d}/empty.npy",
        ".npy",
    ),
    (
        "tre-fit-steps-0",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --out {o}/f.tsv --steps 0",
        "--steps",
        "from 1 to 1000000",
    ),
    (
        "plane-split-unknown-setting",
        'plane split --resource {d}/dir --kind good --seed 1 --settings {{"train_draw":5}} --train {o}/tr.tsv --test {o}/te.tsv',
        "--settings",
        "train_draw",
    ),
    ("plane-hypernyms-negative-distance", "plane hypernyms dog --max-distance -1", "--max-distance", "from 1 to 20"),
    # no upper bound looped for ever, or overflowed into a traceback (issue 45)
    (
        "plane-hypernyms-huge-distance",
        "plane hypernyms dog --max-distance 100000000000000000000000000000",
        "--max-distance",
        "from 1 to 20",
    ),
    (
        "plane-resource-huge-distance",
        "plane resource --source released --input {d}/dir --out {o}/res --max-distance I=3,S=30,O=1",
        "--max-distance",
        "from 1 to 20",
    ),
    (
        "tre-fit-huge-steps",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --out {o}/f.tsv --steps 100000000000000000000000000000",
        "--steps",
        "from 1 to 1000000",
    ),
    (
        "tre-fit-huge-seed",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --out {o}/f.tsv --seed 100000000000000000000000000000",
        "--seed",
        "from 0 to 4294967295",
    ),
    (
        "tre-fit-huge-learning-rate",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --out {o}/f.tsv --learning-rate 1e300",
        "--learning-rate",
        "above 0 and at most 10",
    ),
    (
        "pss-score-accuracy-150",
        "pss score --pairs {d}/pairs.txt 0 --predictions {d}/predictions.tsv --accuracy 150",
        "--accuracy",
        "above 0 and at most 100",
    ),
    (
        "pss-score-accuracy-0",
        "pss score --pairs {d}/pairs.txt 0 --predictions {d}/predictions.tsv --accuracy 0",
        "--accuracy",
        "above 0 and at most 100",
    ),
    # a unit mistake (issue 45): a fraction where a percent is expected
    (
        "pss-score-accuracy-fraction",
        "pss score --pairs {d}/pairs.txt 0 --predictions {d}/predictions.tsv --accuracy 0.8",
        "--accuracy",
        "looks like a fraction",
    ),
    # option values out of range (issue 32 point 7): the option and the allowed range
    (
        "noncompsst-evaluate-top-k-negative",
        "noncompsst evaluate --predictions {d}/predictions.tsv --human {d}/human.tsv --stimuli {d}/stimuli.tsv "
        "--top-k -5 --out {o}/e.tsv",
        "--top-k",
        "expected an integer from 1 to 1000000, not -5",
    ),
    (
        "noncompsst-evaluate-top-k-more-than-phrases",
        "noncompsst evaluate --predictions {d}/predictions.tsv --human {d}/human.tsv --stimuli {d}/stimuli.tsv "
        "--top-k 1000000 --out {o}/e.tsv",
        "--top-k",
        "expected at most 1, the number of phrases in {d}/stimuli.tsv, not 1000000",
    ),
    (
        "noncompsst-candidates-max-raw-sd-negative",
        "noncompsst candidates {d}/trees.txt --no-parser --no-ner --quiet --out {o}/c.tsv --max-raw-sd -1",
        "--max-raw-sd",
        "expected a number from 0 to 12, not -1",
    ),
    (
        "noncompsst-candidates-max-tokens-0",
        "noncompsst candidates {d}/trees.txt --no-parser --no-ner --quiet --out {o}/c.tsv --max-tokens 0 --min-tokens 5",
        "--max-tokens",
        "expected an integer from 1 to 200, not 0",
    ),
    (
        "noncompsst-candidates-max-tokens-below-min",
        "noncompsst candidates {d}/trees.txt --no-parser --no-ner --quiet --out {o}/c.tsv --max-tokens 2 --min-tokens 5",
        "--max-tokens",
        "expected at least --min-tokens (5), not 2",
    ),
    (
        "evaluate-cores-negative",
        "evaluate --model m --cores -4 -n",
        "--cores",
        "expected an integer from 1 to 4096, not -4",
    ),
    ("evaluate-cores-0", "evaluate --model m --cores 0", "--cores", "expected an integer from 1 to 4096, not 0"),
    ("evaluate-name-empty", "evaluate --model m --name= -n", "--name", "'' must be letters, digits"),
    ("mt-evaluate-beam-0", "mt evaluate --model m --beam 0", "--beam", "expected an integer from 1 to 256, not 0"),
    (
        "mt-evaluate-batch-size-huge",
        "mt evaluate --model m --batch-size 99999999999999999999",
        "--batch-size",
        "expected an integer from 1 to 4096",
    ),
    ("mt-fragments-threads-negative", "mt fragments {d}/trees.txt --threads -1", "--threads", "from 0 to 4096"),
    (
        "tre-fit-learning-rate-0",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --out {o}/f.tsv --learning-rate 0",
        "--learning-rate",
        "expected a number above 0",
    ),  # fmt: skip
    (
        "plane-resource-distance-0",
        "plane resource --source released --input {d}/dir --out {o}/res --max-distance I=3,S=0,O=1",
        "--max-distance",
        "distances from 1 to 20",
    ),
    # a folder (or, for a folder output, an existing file) given as output
    (
        "mt-score-labels-folder",
        "mt score --test np_vp --items {d}/items.tsv --translations {d}/hyp.tsv --labels {d}/dir --summary {o}/s.tsv",
        "{d}/dir",
        "folder",
    ),
    ("mt-sources-output-folder", "mt sources --test np_vp --items {d}/items.tsv --output {d}/dir", "{d}/dir", "folder"),
    ("mt-fragments-output-folder", "mt fragments {d}/trees.txt --output {d}/dir", "{d}/dir", "folder"),
    (
        "noncompsst-candidates-out-folder",
        "noncompsst candidates {d}/trees.txt --no-parser --no-ner --out {d}/dir --quiet",
        "{d}/dir",
        "folder",
    ),
    ("pss-clean-out-folder", "pss clean --pairs {d}/pairs.txt --out {d}/dir", "{d}/dir", "folder"),
    ("tre-scores-out-folder", "tre scores --trees {d}/trees.txt --out {d}/dir", "{d}/dir", "folder"),
    (
        "tre-fit-out-folder",
        "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --steps 1 --out {d}/dir",
        "{d}/dir",
        "folder",
    ),
    (
        "plane-resource-out-existing-file",
        "plane resource --source released --input {d}/released_latin1.tsv --out {d}/existing.txt",
        "{d}/existing.txt",
        "exists",
    ),
    # an output that is also an input, under a file, or in a folder that cannot be written (issue 45)
    ("pss-clean-out-is-input", "pss clean --pairs {d}/pairs.txt --out {d}/pairs.txt", "{d}/pairs.txt", "is an input"),
    (
        "pss-clean-out-under-a-file",
        "pss clean --pairs {d}/pairs.txt --out {d}/existing.txt/o.tsv",
        "{d}/existing.txt/o.tsv",
        "is a file; expected a folder above the output",
    ),
    (
        "pss-clean-out-in-proc",
        "pss clean --pairs {d}/pairs.txt --out /proc/natcomp-x/o.tsv",
        "/proc/natcomp-x",
        "cannot be written",
    ),
    # an input file of another test, which the command would not read (issue 45: accepted in silence)
    (
        "mt-score-idioms-for-np-vp",
        "mt score --test np_vp --items {d}/items.tsv --translations {d}/hyp.tsv --labels {o}/l.tsv --summary {o}/s.tsv "
        "--idioms {d}/nope.tsv",
        "--idioms apply to --test overgeneralisation only",
        "",
    ),
    # a config file with a YAML syntax error: its line and column (issue 45)
    (
        "evaluate-configfile-yaml-syntax",
        "evaluate -n --model all-MiniLM-L6-v2 --configfile {d}/bad.yaml",
        "{d}/bad.yaml, line 3: column 8",
        "not valid YAML",
    ),
    # a JSON setting of the wrong type or out of range (issue 45)
    (
        "plane-split-settings-type",
        'plane split --resource {d}/dir --kind good --seed 1 --settings {{"test_adjective_fraction":"lots"}} '
        "--train {o}/t.tsv --test {o}/s.tsv",
        "--settings",
        "expected a number above 0 and below 1",
    ),
    (
        "plane-split-settings-huge-distance",
        'plane split --resource {d}/dir --kind good --seed 1 --settings {{"hypernym_max_distance":1e29}} '
        "--train {o}/t.tsv --test {o}/s.tsv",
        "--settings",
        "from 1 to 20",
    ),
]


def _files(folder: Path) -> set[Path]:
    """Every file and folder under ``folder`` (a run folder such as runs/m/ counts too)."""
    return {Path(root) / name for root, folders, names in os.walk(folder) for name in [*folders, *names]}


@pytest.mark.parametrize(("argv", "path", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_is_one_line_and_exit_2(inputs, tmp_path, capsys, monkeypatch, argv, path, expected):
    monkeypatch.chdir(tmp_path)  # natcomp evaluate's run folders (runs/<name>) would be made here
    out = tmp_path / "out"
    out.mkdir()
    before = _files(tmp_path)
    status = main(argv.format(d=inputs, o=out).split())
    captured = capsys.readouterr()
    err = captured.err
    assert status == 2, (status, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert captured.out == "", captured.out  # no information line before the error (issue 45)
    assert lines[0].startswith(f"natcomp: error: {path.format(d=inputs)}"), lines[0]
    assert expected.format(d=inputs) in lines[0], lines[0]
    assert "Traceback" not in err
    assert _files(tmp_path) == before  # no output left behind (nor a temporary file)


@pytest.fixture(autouse=True)
def _quiet_natcomp_logger():
    """A command run in the same process before (e.g. noncompsst's) may have set natcomp's logger to INFO."""
    import logging

    logger = logging.getLogger("natcomp")
    level = logger.level
    logger.setLevel(logging.WARNING)
    yield
    logger.setLevel(level)


def test_a_failing_command_prints_no_information_line_before_its_error(inputs, tmp_path, capsys):
    """noncompsst candidates said "no --raw-scores: the spread filter is off" before finding
    that its trees file was missing (issue 45): information goes after the checks."""
    status = main(
        ["noncompsst", "candidates", str(inputs / "missing.txt"), "--no-parser", "--no-ner"]
        + ["--out", str(tmp_path / "c.tsv")]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines() == [f"natcomp: error: {inputs / 'missing.txt'}: file not found"], err
    # an --sst folder without the release's files is read before the information line too
    status = main(
        ["noncompsst", "candidates", str(inputs / "trees.txt"), "--no-parser", "--no-ner", "--sst", str(inputs / "dir")]
        + ["--out", str(tmp_path / "c.tsv")]
    )
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"natcomp: error: {inputs / 'dir' / 'dictionary.txt'}: file not found"), err


# ---------------------------------------------------------------------------------------
# every numeric option of every sub-command (issue 45): out of range, not a number, not finite


def _numeric_options() -> list[tuple[list[str], str, tuple]]:
    """(sub-command words, option, (kind, low, high)) of every numeric option; an option whose
    type is a bare int or float (no range) fails the sweep on its own."""
    import argparse

    from natcomp.cli import build_parser

    found = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])
            elif action.type in (int, float):
                found.append((words, action.option_strings[0], (action.type, None, None)))
            elif hasattr(action.type, "bounds"):
                found.append((words, action.option_strings[0], action.type.bounds))

    walk(build_parser(), [])
    return found


NUMERIC_OPTIONS = _numeric_options()


def _refused_values(bounds: tuple) -> list[str]:
    kind, low, high = bounds
    values = ["abc", "", "nan", "inf", "-inf", "1e400"]
    values += ["1.5", "1e29"] if kind is int else []
    if low is not None:
        values.append(str(low - 1) if kind is int else "-1e29")
    if high is not None:
        values.append(str(high + 1) if kind is int else f"{high * 2 + 1:g}")
    return values


def test_the_sweep_finds_every_numeric_option():
    assert len(NUMERIC_OPTIONS) >= 18, len(NUMERIC_OPTIONS)  # every family's commands are walked


@pytest.mark.parametrize(
    ("words", "option", "bounds"),
    NUMERIC_OPTIONS,
    ids=[" ".join([*words, option]) for words, option, _ in NUMERIC_OPTIONS],
)
def test_every_numeric_option_has_a_range_and_refuses_what_is_outside_it(words, option, bounds, capsys):
    kind, low, high = bounds
    assert low is not None, f"{option}: no lower bound"
    if kind is int:
        # an integer counts something: without an upper bound a huge value loops per unit (a hang)
        assert high is not None, f"{option}: an integer option without an upper bound"
    for value in _refused_values(bounds):
        status = main([*words, option, value])
        err = capsys.readouterr().err
        assert status == 2, (option, value, err)
        assert err.splitlines() == [err.strip()] and err.startswith(f"natcomp: error: {option}: expected "), err


def test_a_profile_cell_that_is_not_a_number_is_named_not_left_blank(tmp_path, capsys):
    """Issue 45: a profile value 'abc' became a blank cell of compare.tsv."""
    from natcomp.profile.table import PROFILE_COLUMNS

    def profile(model: str, value: str) -> Path:
        row = dict.fromkeys(PROFILE_COLUMNS, "")
        row.update(model=model, family="mt", measure="systematicity consistency", setting="synthetic np_prime")
        row.update(value=value, n="1", unit="%", scale="demo")
        path = tmp_path / model / "profile.tsv"
        path.parent.mkdir()
        path.write_text("\t".join(PROFILE_COLUMNS) + "\n" + "\t".join(row.values()) + "\n", encoding="utf-8")
        return path

    good, bad = profile("a", "33.3333"), profile("b", "abc")
    assert main(["compare", str(good), str(bad), "--output", str(tmp_path / "c.tsv")]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"natcomp: error: {bad}, line 2: value 'abc' is not a number; expected a number or nothing"
    ]
    assert not (tmp_path / "c.tsv").exists()
    assert main(["compare", str(good), str(profile("c", "66.6667")), "--output", str(tmp_path / "c.tsv")]) == 0


def test_a_gpu_asked_for_on_a_machine_without_one_is_one_line_before_any_job(tmp_path, capsys, monkeypatch):
    """``natcomp mt evaluate --device cuda -n`` where torch sees no GPU is refused when the plan
    is made, as ``--dtype bf16`` is; with a cluster profile after '--' the jobs run elsewhere."""
    import torch

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    model = tmp_path / "my-marian"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "marian", "architectures": ["MarianMTModel"]}')
    before = _files(tmp_path)
    assert main(["mt", "evaluate", "--model", str(model), "--device", "cuda", "-n"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert captured.err.startswith(
        "natcomp: error: --device: cuda was asked for (mt.systems.my-marian.device) but the jobs run on this "
        "machine, which has no GPU; expected auto or cpu here"
    ), captured.err
    assert _files(tmp_path) == before
    from natcomp.profile.cli import check_local_gpu

    check_local_gpu({"mt": {"systems": {"m": {"device": "cuda"}}}}, ["--profile", "slurm"])  # GPU nodes: fine
