"""Tests of the ``natcomp`` command line (natcomp.cli): dispatch, ``--version``, ``python -m natcomp``, packaging.

The commands themselves are tested with their families (tests/mt/test_cli.py for ``natcomp score`` and
``natcomp sources``, tests/<family>/ for the others).
"""

from __future__ import annotations

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


def test_every_family_adds_its_commands():
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)
    assert {"score", "sources", "fragments", "noncompsst", "plane", "pss", "tre"} <= commands


def test_python_dash_m_natcomp():
    done = subprocess.run(
        [sys.executable, "-m", "natcomp", "score", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "--translations-format" in done.stdout and "--quoting" in done.stdout
    done = subprocess.run([sys.executable, "-m", "natcomp", "score"], capture_output=True, text=True, check=False)
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
