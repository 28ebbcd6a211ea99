"""Tests of the ``natcomp`` command line (natcomp.cli): dispatch, ``--version``, ``python -m natcomp``, packaging.

The commands themselves are tested with their families (tests/mt/test_cli.py for ``natcomp mt score`` and
``natcomp mt sources``, tests/<family>/ for the others); every bad input in tests/test_bad_inputs.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import natcomp
from natcomp import cli
from natcomp.cli import main

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"natcomp {metadata.version('natcomp')}\n"
    assert metadata.version("natcomp") == natcomp.__version__  # pyproject and the package agree


def test_version_falls_back_to_the_package_attribute(monkeypatch, capsys):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    monkeypatch.setattr(natcomp, "__version__", "9.8.7")
    assert cli.version() == "9.8.7"
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == "natcomp 9.8.7\n"


def _sub_parsers(parser: argparse.ArgumentParser):
    """``(name, help, sub-parser)`` of every command of ``parser``'s sub-command action, if it has one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name), sub


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command path, parser)`` of the whole tree, recursively."""
    yield path, parser
    for name, _, sub in _sub_parsers(parser):
        yield from _walk(sub, (*path, name))


def test_every_family_is_a_group_with_its_commands():
    """natcomp <family> <verb>; beside the groups only the cross-family evaluate and compare."""
    tree = {path: parser for path, parser in _walk(cli.build_parser())}
    assert {path for path in tree if len(path) == 1} == {
        ("mt",),
        ("noncompsst",),
        ("plane",),
        ("pss",),
        ("tre",),
        ("evaluate",),
        ("compare",),
    }
    assert {path[1] for path in tree if len(path) == 2 and path[0] == "mt"} == {
        "score",
        "sources",
        "fragments",
        "evaluate",
    }


def test_every_command_and_option_has_a_one_line_help_in_plain_text():
    """Walks the whole parser tree: a command without a help line in its group's list or without a
    description in its own --help, or an option (other than -h) without a help text, fails."""
    missing = []
    for path, parser in _walk(cli.build_parser()):
        name = " ".join(("natcomp", *path))
        if not (parser.description or "").strip():
            missing.append(f"{name}: no description")
        for command, help_text, _ in _sub_parsers(parser):
            if not (help_text or "").strip() or "\n" in help_text:
                missing.append(f"{name} {command}: no one-line help in the command list")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if action.help is None or (action.help != argparse.SUPPRESS and not action.help.strip()):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
        texts = [parser.description or "", *(a.help or "" for a in parser._actions)]
        if any("``" in text for text in texts):
            missing.append(f"{name}: raw double backticks in its help (help is plain text)")
    assert missing == []


def test_the_walk_finds_a_command_or_option_without_help():
    """The check above can fail: a command and an option without help are found."""
    parser = cli.build_parser()
    family = next(sub for name, _, sub in _sub_parsers(parser) if name == "pss")
    commands = next(a for a in family._actions if isinstance(a, argparse._SubParsersAction))
    bare = commands.add_parser("bare")
    bare.add_argument("--flag")
    found = [(path, p) for path, p in _walk(parser) if path == ("pss", "bare")]
    assert len(found) == 1 and not found[0][1].description
    assert found[0][1]._actions[-1].help is None


def test_old_top_level_mt_commands_still_work_with_a_one_line_notice(tmp_path, capsys):
    trees = tmp_path / "bank.txt"
    trees.write_text("(S (NP (D the) (N cat)) (VP (V saw) (NP (D the) (N dog))))\n" * 2, encoding="utf-8")
    assert main(["fragments", str(trees), "--output", str(tmp_path / "old.txt")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "natcomp: 'natcomp fragments' is now 'natcomp mt fragments'; the old name goes after natcomp 0.2"
    assert main(["mt", "fragments", str(trees), "--output", str(tmp_path / "new.txt")]) == 0
    assert "is now" not in capsys.readouterr().err
    assert (tmp_path / "old.txt").read_bytes() == (tmp_path / "new.txt").read_bytes()
    for old in ("score", "sources"):
        with pytest.raises(SystemExit):
            main([old, "--help"])
        captured = capsys.readouterr()
        assert (
            captured.err
            == f"natcomp: '{'natcomp'} {old}' is now 'natcomp mt {old}'; the old name goes after natcomp 0.2\n"
        )
        assert f"usage: natcomp mt {old}" in captured.out


def test_an_unknown_error_is_not_hidden(monkeypatch):
    """Only errors on named paths and natcomp's own become the one line; a bug keeps its traceback."""
    from natcomp.pss import cli as pss_cli

    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pss_cli, "_cmd_clean", broken)
    with pytest.raises(ZeroDivisionError):
        main(["pss", "clean", "--pairs", "p.txt", "--out", "o.txt"])


def test_building_the_parser_imports_no_model_library_nor_pandas():
    """Start-up stays fast: `import natcomp.cli` and building the parser import no torch, transformers,
    fairseq, pandas, scipy, matplotlib or nltk (checked in a fresh interpreter)."""
    heavy = ("torch", "transformers", "fairseq", "pandas", "scipy", "matplotlib", "nltk")
    code = (
        "import sys; import natcomp.cli; natcomp.cli.build_parser(); "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_python_dash_m_natcomp():
    done = subprocess.run(
        [sys.executable, "-m", "natcomp", "mt", "score", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "--translations-format" in done.stdout and "--quoting" in done.stdout
    done = subprocess.run([sys.executable, "-m", "natcomp", "mt", "score"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "required" in done.stderr
    done = subprocess.run([sys.executable, "-m", "natcomp", "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == f"natcomp {metadata.version('natcomp')}\n"


def test_a_built_wheel_carries_the_resources(tmp_path):
    """An installed natcomp finds its word lists: the wheel holds resources/ as package data."""
    import zipfile

    repo = RESOURCES.parent
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(repo),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("natcomp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for resource in ("synonyms.tsv", "idioms.tsv", "lexicon/nouns_people.tsv"):
        assert f"natcomp/resources/{resource}" in names, resource
