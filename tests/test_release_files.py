"""What a research tool ships: a licence matching pyproject, a citation of the tool and
of every family's paper, and a version the command line reports."""

import re
import tomllib
from pathlib import Path

import yaml

from natcomp.cli import main

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_license_file_matches_pyproject():
    assert PYPROJECT["license"]["text"] == "MIT"
    assert (REPO / "LICENSE").read_text().startswith("MIT License\n")


def test_citation_cites_the_tool_and_the_papers_of_every_family():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert citation["version"] == PYPROJECT["version"] and citation["license"] == PYPROJECT["license"]["text"]
    titles = " | ".join(reference["title"] for reference in citation["references"])
    for paper in (
        "paradox of the compositionality of natural language",  # mt
        "Non-Compositionality in Sentiment",  # noncompsst
        "Phrase-Level Adjective-Noun Entailment",  # plane
        "Evaluating Compositionality of Sentence Representation Models",  # pss, tre
        "Measuring Compositionality in Representation Learning",  # tre (Andreas 2019)
    ):
        assert paper in titles, paper


def test_version_is_the_packages(capsys):
    try:
        main(["--version"])
    except SystemExit as stop:  # argparse's version action exits
        assert stop.code == 0
    printed = capsys.readouterr().out.strip()
    assert re.fullmatch(r"natcomp \d+\.\d+\.\d+", printed) and printed == f"natcomp {PYPROJECT['version']}"
