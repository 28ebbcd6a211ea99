"""Fixtures of the PLANE tests: the released splits in ../shared/data/plane, WordNet, and a
small resource built from the demo generator (real WordNet, built once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_PLANE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "plane"


def wordnet_missing() -> str | None:
    from natcomp.wordnet import WordNetMissing, wordnet

    try:
        wordnet()
    except WordNetMissing as error:
        return str(error)
    return None


@pytest.fixture(scope="session")
def wn():
    reason = wordnet_missing()
    if reason:
        pytest.skip(f"WordNet is not installed: {reason}")
    from natcomp.wordnet import wordnet

    return wordnet()


@pytest.fixture(scope="session")
def shared_plane() -> Path:
    if not SHARED_PLANE.is_dir():
        pytest.skip(f"the released PLANE test splits are not here ({SHARED_PLANE}); they live outside the project")
    return SHARED_PLANE


@pytest.fixture(scope="session")
def released_files(shared_plane):
    files = sorted(shared_plane.glob("*_test_*.tsv"))
    assert len(files) == 10, files
    return files


RELEASED_NAMES = {
    ("ood", "train"): "OoD/OOV_Train_{}.pkl",
    ("ood", "test"): "OoD/OOV_test_{}.pkl",
    ("one_it", "train"): "One-IT/IT3_OoV_Train_{}.pkl",
    ("one_it", "test"): "One-IT/IT3_OoV_test_{}.pkl",
}


@pytest.fixture(scope="session")
def released_pickles(shared_plane):
    """``{(layout, side, split): path}`` of the released pickles at hand (as published:
    the shared copy holds every test split and the train splits 1, 2, 4, 5)."""
    folder = shared_plane / "released"
    if not folder.is_dir():
        pytest.skip(f"the released PLANE pickles are not here ({folder}); they live outside the project")
    found = {}
    for (layout, side), pattern in RELEASED_NAMES.items():
        for split in range(1, 6):
            path = folder / pattern.format(split)
            if path.is_file():
                found[(layout, side, split)] = path
    return found


# A fixed small noun set (no WordNet scan): common nouns with 3-step unigram hypernym chains.
DEMO_NOUNS = [
    "apple",
    "bank",
    "cat",
    "chair",
    "dog",
    "doctor",
    "house",
    "knife",
    "lawyer",
    "letter",
    "painting",
    "poem",
    "river",
    "shirt",
    "song",
    "teacher",
    "truck",
    "violin",
    "wine",
    "book",
]


@pytest.fixture(scope="session")
def demo_nouns():
    return list(DEMO_NOUNS)


@pytest.fixture(scope="session")
def small_resource(wn):
    """A resource from demo sentences over DEMO_NOUNS (every noun with 4 I, 4 S, 12 O adjectives)."""
    from natcomp.plane.adjectives import load_adjectives
    from natcomp.plane.corpus import CorpusSettings, generate_corpus, phrases_from_trees
    from natcomp.plane.items import ResourceSettings, make_items, select_phrases

    adjectives = load_adjectives()
    settings = CorpusSettings(seed=3, adjectives_per_noun={"I": 4, "S": 4, "O": 12})
    trees = generate_corpus(adjectives, DEMO_NOUNS, settings)
    resource = select_phrases(phrases_from_trees(trees), adjectives, ResourceSettings())
    items = make_items(resource.phrases, resource.hypernyms, {"I": 3, "S": 3, "O": 1})
    return resource, items
