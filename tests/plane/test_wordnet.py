from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from natcomp.plane import hypernyms
from natcomp.plane.wordnet import NoNounSynset, hypernym_chain, noun_synset, unigram_hypernyms


def test_first_synset_and_direct_hypernyms(wn):
    assert noun_synset("crossings").name() == "crossing.n.01"  # morphy: plural surface forms
    assert hypernyms("crossings", 1) == ["travel"]
    assert hypernyms("load", 1) == ["weight"]
    # dog.n.01's direct hypernyms are canine.n.02 and domestic_animal.n.01: the MWE is dropped
    assert hypernyms("dog", 1) == ["canine"]


def test_hypernyms_by_distance_are_unigrams_nearest_first(wn):
    found = unigram_hypernyms("dog", 3)
    assert [h.word for h in found] == hypernyms("dog", 3)
    assert [h.distance for h in found] == sorted(h.distance for h in found)
    assert {"canine", "animal", "carnivore"} <= set(hypernyms("dog", 3, reading="all"))
    assert all("_" not in word for word in hypernyms("dog", 3, reading="all"))
    assert "animal" not in hypernyms("dog", 1, reading="all")


def test_first_reading_follows_the_first_hypernym_at_each_step(wn):
    """dog.n.01 -> canine.n.02 (first of canine.n.02, domestic_animal.n.01) -> carnivore.n.01
    -> placental.n.01; every branch adds domestic_animal's parent animal.n.01 and its
    parent organism.n.01 (distances 2 and 3)."""
    assert hypernyms("dog", 3) == ["canine", "carnivore", "placental"]
    assert hypernyms("dog", 3, reading="all") == ["canine", "animal", "carnivore", "organism", "placental"]
    # missile.n.01 has two direct unigram hypernyms: the first reading keeps the name-first
    assert hypernyms("missiles", 1) == ["rocket"]
    assert hypernyms("missiles", 1, reading="all") == ["rocket", "weapon"]
    with pytest.raises(ValueError, match="unknown hypernym reading 'some'"):
        hypernyms("dog", 1, reading="some")


def test_irregular_plural_needs_the_exception_lists(wn):
    if wn.morphy("mice", "n") is None:
        pytest.skip("WordNet was installed without the .exc files (no apt): irregular plurals are lost")
    assert hypernyms("mice", 1) == ["rodent"]


def test_noun_without_synset_is_a_clear_error(wn):
    with pytest.raises(NoNounSynset, match="'qzxv' has no noun synset"):
        hypernyms("qzxv", 3)


def test_chain_is_the_one_it_chain(wn):
    assert hypernym_chain("corporation") == ("firm", "business", "enterprise")


_PROBE = (
    "import json; from natcomp.plane.wordnet import hypernyms, hypernym_chain; from natcomp.wordnet import wordnet;"
    "wn = wordnet(); s = wn.synset('substance.n.01');"
    "print(json.dumps({'raw': [h.name() for h in s.hypernyms()], 'ours': hypernyms('substance', 3),"
    " 'chain': hypernym_chain('substance')}))"
)


def test_results_do_not_change_with_the_hash_seed(wn, tmp_path):
    """NLTK's raw hypernym order changes with PYTHONHASHSEED (substance.n.01: seeds 0/1 vs 2/3);
    natcomp's lists do not. Runs from another directory without NLTK_DATA: the venv finds WordNet."""
    outputs = {}
    for seed in ("0", "2"):
        env = {k: v for k, v in os.environ.items() if k != "NLTK_DATA"}
        env["PYTHONHASHSEED"] = seed
        result = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
        )
        outputs[seed] = json.loads(result.stdout)
    assert outputs["0"]["raw"] != outputs["2"]["raw"], "NLTK's order no longer depends on the hash seed"
    assert outputs["0"]["ours"] == outputs["2"]["ours"]
    assert outputs["0"]["chain"] == outputs["2"]["chain"]


def test_install_script_is_idempotent(wn):
    """A second run of tools/install_wordnet.sh on the venv finds the finished install and stops."""
    from pathlib import Path

    marker = Path(sys.prefix) / "nltk_data" / "corpora" / "wordnet" / "NATCOMP_INSTALLED"
    if not marker.exists():
        pytest.skip("WordNet in this venv was not installed by tools/install_wordnet.sh")
    script = Path(__file__).resolve().parents[2] / "tools" / "install_wordnet.sh"
    result = subprocess.run(["bash", str(script), sys.prefix], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "already installed" in result.stdout
