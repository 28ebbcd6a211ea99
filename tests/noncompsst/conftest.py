"""Fixtures of the NonCompSST tests: the shared real data and a small demo release."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED / "noncompsst").is_dir() or not (SHARED / "sst").is_dir():
        pytest.skip("../shared/data (the real SST and NonCompSST files) is not here")
    return SHARED


@pytest.fixture(scope="session")
def demo_release(tmp_path_factory) -> dict[str, Path]:
    """A 300-sentence demo treebank in the SST release layout."""
    from natcomp.sst_demo import generate_treebank, write_release

    return write_release(generate_treebank(300, seed=5), tmp_path_factory.mktemp("release"))
