"""Regression test of the MT scorer against the original code on real data.

``../shared/data/paradox_mt/released_natural/`` holds the original study's released natural
overgeneralisation items of five idioms (4,200), translations made for the check (4,073
distinct sources) and the label the original ``evaluate.py`` gives each item (1, 0, or
empty: not scored). ``natcomp mt score`` with the paper's options (keywords as substrings,
paraphrase references only) must give every item the same label.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from natcomp.cli import main

RELEASED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "paradox_mt" / "released_natural"

pytestmark = pytest.mark.skipif(
    not RELEASED.is_dir(),
    reason=f"the released natural overgeneralisation items are not here ({RELEASED}); they live outside the project",
)


def _labels(path: Path, column: str) -> pd.Series:
    """An item -> label column of a TSV, labels as written ('1', '0', '' = not scored)."""
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    return frame.set_index("item")[column]


def test_natcomp_labels_the_released_natural_items_as_the_original_code(tmp_path, capsys):
    labels = tmp_path / "labels.tsv"
    argv = ["mt", "score", "--test", "overgeneralisation", "--items", str(RELEASED / "items.tsv")]
    argv += ["--translations", str(RELEASED / "translations.tsv"), "--labels", str(labels)]
    argv += ["--summary", str(tmp_path / "summary.tsv"), "--keyword-matching", "substring"]
    argv += ["--paraphrase-references-only"]
    assert main(argv) == 0
    ours = _labels(labels, "overgeneralised")
    original = _labels(RELEASED / "original_labels.tsv", "original")
    assert sorted(ours.index) == sorted(original.index)
    ours = ours.reindex(original.index)
    assert (original != "").sum() == 3872 and set(original) == {"0", "1", ""}
    disagree = original[ours != original]
    assert disagree.empty, f"{len(disagree)} of {len(original)} labels differ, e.g. {disagree.index[:3].tolist()}"
    assert "overgeneralisation, 4200 items (3872 scored)" in capsys.readouterr().out
