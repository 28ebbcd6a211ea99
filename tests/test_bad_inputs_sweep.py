"""A generated sweep of every path argument of every sub-command (issue 45).

Each sub-command has ONE valid command line (:data:`TEMPLATES`, checked to exit 0), so a
case that makes one of its path arguments bad tests that argument alone. The path
arguments are found by parsing the template with ``natcomp.cli.build_parser()``: every
value that is a :class:`pathlib.Path` (also inside a list, such as ``pss score --pairs
FILE LABEL``). An argument named in the command's ``output_files`` / ``output_folders`` is
an output, every other one an input. An input file is made missing, a folder, empty,
binary, a PNG, and a file of the wrong format (a TSV with an unrelated header, which is
also plain text where trees or an ``.npy`` array are expected); an input folder missing, a
file, empty, and a folder of unrelated files. An output file is made a folder, a path under
an existing file, a path that cannot be written (``/proc``) and one of the command's inputs;
an output folder the same, with an existing file instead of a folder. Every case must
exit 2 with one line on stderr, ``natcomp: error: <the path or the option>...``, no
traceback, nothing on stdout, and no file made, removed or changed under ``tmp_path``.
A bad kind that is legitimately accepted is listed in :data:`ACCEPTED` with the reason,
and must exit 0.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

import pytest

from natcomp.cli import build_parser, main
from test_bad_inputs import _quiet_natcomp_logger, make_inputs  # noqa: F401 (an autouse fixture)

#: one valid command line per sub-command: {d} the inputs folder, {o} an empty output folder
TEMPLATES = {
    "mt score": "mt score --test np_vp --items {d}/items.tsv --translations {d}/hyp.tsv "
    "--labels {o}/l.tsv --summary {o}/s.tsv",
    "mt sources": "mt sources --test np_vp --items {d}/items.tsv --output {o}/sources.txt",
    "mt fragments": "mt fragments {d}/trees.txt --output {o}/fragments.txt",
    "noncompsst candidates": "noncompsst candidates {d}/trees.txt --no-parser --no-ner --quiet "
    "--phrase-types {d}/phrases.tsv --entities {d}/entities.txt --out {o}/c.tsv",
    "noncompsst ratings": "noncompsst ratings --stimuli {d}/stimuli.tsv --sentiment {d}/sentiment.tsv "
    "--ungrammatical {d}/ungrammatical.tsv --quiet --out {o}/r.tsv",
    "noncompsst evaluate": "noncompsst evaluate --predictions {d}/stimulus_predictions.tsv --human {d}/human.tsv "
    "--stimuli {d}/stimuli.tsv --sentiment {d}/sentiment.tsv --ungrammatical {d}/ungrammatical.tsv --quiet "
    "--out {o}/e.tsv",
    "plane resource": "plane resource --source released --input {d}/released_test.tsv "
    "--adjectives {d}/adjectives.tsv --out {o}/res",
    "plane split": "plane split --resource {d}/resource --kind good --seed 1 "
    '--settings {{"test_noun_fraction":0.2,"train_draws":20,"test_draws":3}} '
    "--train {o}/tr.tsv --test {o}/te.tsv",
    "plane check-released": "plane check-released {d}/released_test.tsv --train {d}/released_train.tsv",
    "pss clean": "pss clean --pairs {d}/pairs.txt --out {o}/kept.txt",
    "pss score": "pss score --pairs {d}/pairs.txt 0 --predictions {d}/predictions.tsv --out {o}/s.tsv",
    "tre scores": "tre scores --trees {d}/trees.txt --out {o}/s.tsv",
    "tre fit": "tre fit --trees {d}/trees.txt --embeddings {d}/emb.npy --steps 1 --out {o}/f.tsv",
    "compare": "compare {d}/profile.tsv {d}/profile_b.tsv --output {o}/c.tsv --figure {o}/c.png",
}

#: the bad kinds of each kind of argument
INPUT_FILE_KINDS = ("missing", "folder", "empty", "binary", "png", "wrong-format")
INPUT_FOLDER_KINDS = ("missing", "file", "empty-folder", "unrelated-folder")
OUTPUT_FILE_KINDS = ("folder", "under-a-file", "unwritable", "an-input")
OUTPUT_FOLDER_KINDS = ("existing-file", "under-a-file", "unwritable", "an-input")

#: "<command> <argument> <kind>" -> why natcomp rightly accepts it (the case must exit 0)
ACCEPTED: dict[str, str] = {
    "noncompsst candidates --entities empty": "an empty list of named entities: no phrase is dropped as one",
    "noncompsst candidates --entities wrong-format": "a list of names, one a line, no header: any line is a name",
    "pss clean --pairs wrong-format": "pairs have no header: any two tab-separated texts are an original and its rewrite",
}

#: "<command> <argument> <kind>" -> a piece its line must hold (messages issue 45 made say what was expected)
MESSAGES = {
    **{f"tre fit --embeddings {kind}": "no .npy header" for kind in ("binary", "png", "wrong-format")},
    **{f"compare RUN {kind}": "expected the profile, with the columns" for kind in ("binary", "wrong-format")},
    **{f"plane split --resource {kind}": "expected a resource folder" for kind in ("missing", "file")},
    "pss score --out an-input": "is an input and the output of --out",
    "compare --output an-input": "is an input and the output of --output",
    "compare --figure an-input": "is an input and the output of --figure",
}

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"


def _released(adjectives: dict[str, str], noun: str, hyp: str) -> str:
    """Rows of one OoD draw as released: each adjective (class I, N or O) with IT1, IT2, IT3."""
    labels = {"I": (1, 1, 1), "N": (1, 1, 0), "O": (0, 0, 1)}
    rows = []
    for adj, cls in adjectives.items():
        for sentence, gold in zip(
            (f"A {adj} {noun} is a {noun}", f"A {adj} {noun} is a {hyp}", f"A {adj} {noun} is a {adj} {hyp}"),
            labels[cls],
        ):
            rows.append(f"{sentence}\t{gold}\t{cls}\t{adj}\t{noun}\t{hyp}\t{noun}_{hyp}\n")
    return "sentence\tlabel\tclass\tadj\tnoun\thyp\tnoun_hyp\n" + "".join(rows)


#: the nouns of the PLANE resource the plane split template reads (tests/plane's demo nouns)
PLANE_NOUNS = "apple bank cat chair dog doctor house knife lawyer letter painting poem river shirt song".split()
PLANE_NOUNS += "teacher truck violin wine book".split()

TEST_ADJECTIVES = {
    "weekly": "I",
    "direct": "N",
    "likely": "O",
    "simulated": "O",
    "artificial": "O",
    "theoretical": "O",
}
TRAIN_ADJECTIVES = {"red": "I", "small": "N", "fake": "O", "former": "O", "alleged": "O", "possible": "O"}


def _add_inputs(d: Path) -> None:
    """The valid inputs the templates need beside :func:`make_inputs`'s, and the bad ones."""
    (d / "entities.txt").write_text("Paris\n", encoding="utf-8")
    (d / "ungrammatical.tsv").write_text("stimulus\tungrammatical\na x b y\t0\n", encoding="utf-8")
    stimuli = ("a x b y", "c z b y", "a x c w")
    (d / "sentiment.tsv").write_text(
        "stimulus\tsentiment\n" + "".join(f"{s}\t{n}\n" for s, n in zip(stimuli, (3, 1, 5))), encoding="utf-8"
    )
    (d / "stimulus_predictions.tsv").write_text(
        "stimulus\tprediction\n" + "".join(f"{s}\t{n}\n" for s, n in zip(stimuli, (2, 4, 3))), encoding="utf-8"
    )
    (d / "released_test.tsv").write_text(_released(TEST_ADJECTIVES, "load", "weight"), encoding="utf-8")
    (d / "released_train.tsv").write_text(_released(TRAIN_ADJECTIVES, "cat", "animal"), encoding="utf-8")
    (d / "adjectives.tsv").write_text(
        "adjective\tclass\n"
        + "".join(f"{adj}\t{cls}\n" for adj, cls in {**TEST_ADJECTIVES, **TRAIN_ADJECTIVES}.items()),
        encoding="utf-8",
    )
    (d / "profile.tsv").write_text(_profile(), encoding="utf-8")
    (d / "profile_b.tsv").write_text(_profile("m2"), encoding="utf-8")  # compare needs two runs
    # the bad kinds
    (d / "bad").mkdir()
    (d / "bad" / "empty.txt").write_bytes(b"")
    (d / "bad" / "binary.bin").write_bytes(bytes(range(256)))
    (d / "bad" / "image.png").write_bytes(PNG)
    (d / "bad" / "wrong.tsv").write_text("colour\tweight\nred\t12\n", encoding="utf-8")
    (d / "bad" / "empty-folder").mkdir()
    (d / "bad" / "unrelated-folder").mkdir()
    (d / "bad" / "unrelated-folder" / "notes.txt").write_text("nothing here\n", encoding="utf-8")


def _profile(model: str = "m") -> str:
    from natcomp.profile.table import PROFILE_COLUMNS

    row = dict.fromkeys(PROFILE_COLUMNS, "")
    row.update(model=model, family="mt", measure="systematicity consistency", setting="synthetic np_prime")
    row.update(value="33.3333", n="1", unit="%", scale="demo")
    return "\t".join(PROFILE_COLUMNS) + "\n" + "\t".join(row.values()) + "\n"


@pytest.fixture(scope="session")
def _resource(tmp_path_factory) -> Path:
    """A PLANE resource folder, built once by ``plane resource`` from the released test rows."""
    from natcomp.plane.adjectives import load_adjectives
    from natcomp.plane.corpus import CorpusSettings, generate_corpus, write_corpus

    folder = tmp_path_factory.mktemp("plane")
    settings = CorpusSettings(seed=2, adjectives_per_noun={"I": 4, "S": 4, "O": 12})
    write_corpus(folder / "corpus.trees", generate_corpus(load_adjectives(), PLANE_NOUNS, settings))
    argv = [
        "plane",
        "resource",
        "--source",
        "trees",
        "--input",
        str(folder / "corpus.trees"),
        "--out",
        str(folder / "res"),
    ]
    assert main(argv) == 0
    return folder / "res"


@pytest.fixture
def inputs(tmp_path: Path, _resource: Path) -> Path:
    d = make_inputs(tmp_path)
    _add_inputs(d)
    shutil.copytree(_resource, d / "resource")
    return d


# ---------------------------------------------------------------------------------------
# the cases, generated from the parser


def _sub_parsers() -> dict[str, argparse.ArgumentParser]:
    found = {}

    def walk(parser, words):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[" ".join(words)] = parser
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, [*words, name])

    walk(build_parser(), [])
    return found


def _paths(value):
    """The :class:`Path` values in an argument's value (a path, a list of them, a list of lists)."""
    if isinstance(value, Path):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _paths(item)


def _arguments(command: str) -> list[tuple[str, int, str]]:
    """(name shown in the id, index of the value in the template's argv, role) of each path argument."""
    parser = _sub_parsers()[command]
    argv = TEMPLATES[command].format(d="D", o="O").split()
    args = build_parser().parse_args(argv)
    outputs = {
        **dict.fromkeys(getattr(args, "output_files", ()), "output-file"),
        **dict.fromkeys(getattr(args, "output_folders", ()), "output-folder"),
    }
    found = []
    for action in parser._actions:
        for path in _paths(getattr(args, action.dest, None)):
            if str(path) not in argv:
                continue  # a default the template does not give
            name = action.option_strings[0] if action.option_strings else (action.metavar or action.dest)
            role = outputs.get(action.dest, "input-folder" if str(path) == "D/resource" else "input-file")
            found.append((name, argv.index(str(path)), role))
    return found


KINDS = {
    "input-file": INPUT_FILE_KINDS,
    "input-folder": INPUT_FOLDER_KINDS,
    "output-file": OUTPUT_FILE_KINDS,
    "output-folder": OUTPUT_FOLDER_KINDS,
}


def _cases() -> list[tuple[str, str, int, str, str]]:
    cases = []
    for command in TEMPLATES:
        for name, index, role in _arguments(command):
            for kind in KINDS[role]:
                cases.append((command, name, index, role, kind))
    return cases


CASES = _cases()


def _bad_path(kind: str, role: str, d: Path, template: list[str]) -> str:
    if kind == "missing":
        return str(d / "nope" / "missing.tsv")
    return str(
        {
            "folder": d / "dir",
            "file": d / "existing.txt",
            "existing-file": d / "existing.txt",
            "empty": d / "bad" / "empty.txt",
            "binary": d / "bad" / "binary.bin",
            "png": d / "bad" / "image.png",
            "wrong-format": d / "bad" / "wrong.tsv",
            "empty-folder": d / "bad" / "empty-folder",
            "unrelated-folder": d / "bad" / "unrelated-folder",
            "under-a-file": d / "existing.txt" / "out.tsv",
            "unwritable": Path("/proc/natcomp-sweep/x"),
        }.get(kind)
        or _first_input(template, d)
    )


def _first_input(argv: list[str], d: Path) -> str:
    """The template's first input (the path the "an-input" kind writes to)."""
    return next(arg for arg in argv if arg.startswith(str(d) + "/"))


def _snapshot(folder: Path) -> dict[Path, bytes | None]:
    """Every file (with its bytes) and folder under ``folder``."""
    found = {}
    for root, folders, names in os.walk(folder):
        for name in folders:
            found[Path(root) / name] = None
        for name in names:
            found[Path(root) / name] = (Path(root) / name).read_bytes()
    return found


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("command", list(TEMPLATES))
def test_the_template_is_valid(command, inputs, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    status, _, err = _run(TEMPLATES[command].format(d=inputs, o=out).split(), capsys)
    assert status == 0, err


def test_the_sweep_covers_every_command_and_argument():
    assert set(TEMPLATES) == set(_sub_parsers()) - {"evaluate", "mt evaluate", "plane hypernyms"}
    assert len({(c, n) for c, n, *_ in CASES}) >= 35
    assert set(ACCEPTED) | set(MESSAGES) <= {f"{c} {n} {k}" for c, n, _, _, k in CASES}


@pytest.mark.parametrize(
    ("command", "name", "index", "role", "kind"), CASES, ids=[f"{c} {n} {k}" for c, n, _, _, k in CASES]
)
def test_a_bad_path_is_one_line_and_exit_2(command, name, index, role, kind, inputs, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    argv = TEMPLATES[command].format(d=inputs, o=out).split()
    bad = _bad_path(kind, role, inputs, argv)
    argv[index] = bad
    before = _snapshot(tmp_path)
    status, stdout, err = _run(argv, capsys)
    case = f"{command} {name} {kind}"
    if case in ACCEPTED:
        assert status == 0, err
        return
    assert status == 2, (status, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert stdout == "", stdout
    assert lines[0].startswith("natcomp: error: "), lines[0]
    assert bad in lines[0] or lines[0].startswith(f"natcomp: error: {name}: "), lines[0]  # the path or the option
    assert MESSAGES.get(case, "") in lines[0], lines[0]
    assert _snapshot(tmp_path) == before, "a file was made, removed or changed"
