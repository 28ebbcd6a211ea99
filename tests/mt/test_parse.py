"""Tests of the treebank step (natcomp.mt.semi_natural.parse): sampling, tree lines, stanza loading."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest

from natcomp.errors import InputError, NatcompError
from natcomp.mt.semi_natural.parse import (
    StanzaModelsMissing,
    download_command,
    parse_sentences,
    reservoir_sample,
    sample_sentences,
    sample_trees,
    tree_line,
)

# --------------------------------------------------------------------------------------
# sampling


def _corpus(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_sample_sentences_deterministic_corpus_order_and_filters(tmp_path):
    lines = [f"Sentence number {i} ." for i in range(200)]
    lines[3] = ""
    lines[4] = "   "
    lines[5] = " ".join(["word"] * 51)  # longer than the default 50 words
    lines[6] = "a\ttab"
    corpus = _corpus(tmp_path / "train.en", lines)
    first = sample_sentences(corpus, 20, seed=1)
    assert first == sample_sentences(corpus, 20, seed=1)
    assert len(first) == 20 == len(set(first))
    assert first != sample_sentences(corpus, 20, seed=2)
    # corpus order
    numbers = [int(s.split()[2]) for s in first]
    assert numbers == sorted(numbers)
    assert not {3, 4, 5, 6} & set(numbers)
    everything = sample_sentences(corpus, 1000, seed=1)
    assert len(everything) == 196
    assert "" not in everything and lines[5] not in everything and lines[6] not in everything
    assert lines[5] in sample_sentences(corpus, 1000, seed=1, max_words=100)


def test_sample_sentences_strips_and_reads_gzip(tmp_path):
    lines = [f"  Line {i} .  " for i in range(30)]
    plain = _corpus(tmp_path / "train.en", lines)
    packed = tmp_path / "train.en.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    assert sample_sentences(plain, 7, seed=3) == sample_sentences(packed, 7, seed=3)
    assert all(s == s.strip() for s in sample_sentences(plain, 7, seed=3))


def test_reservoir_sample_is_uniform_enough():
    # one of ten items, over many seeds: every item must come up, none dominate
    counts = Counter(reservoir_sample(iter(range(10)), 1, seed)[0][1] for seed in range(500))
    assert set(counts) == set(range(10))
    assert max(counts.values()) < 100 and min(counts.values()) > 20
    assert reservoir_sample(iter("abc"), 0, 1) == []
    with pytest.raises(ValueError):
        reservoir_sample(iter("abc"), -1, 1)


def test_sample_sentences_streams(tmp_path):
    """Memory stays far below the file size: the file is never read whole."""
    corpus = tmp_path / "big.en"
    with open(corpus, "w", encoding="utf-8") as handle:
        for i in range(200_000):
            handle.write(f"This is the rather long training sentence number {i} of the corpus .\n")
    size = corpus.stat().st_size
    assert size > 10_000_000
    tracemalloc.start()
    try:
        sample = sample_sentences(corpus, 50, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(sample) == 50
    assert peak < size / 10, f"peak {peak} bytes for a {size}-byte file"


def test_sample_trees(tmp_path):
    trees = [f"(ROOT (S (NP (DT The) (NN man)) (VP (VBZ runs) (NP (CD {i}))) (. .)))" for i in range(40)]
    treebank = _corpus(tmp_path / "treebank.mrg", trees[:10] + [""] + trees[10:])
    sample = sample_trees(treebank, 12, seed=4)
    assert sample == sample_trees(treebank, 12, seed=4)
    assert sample != sample_trees(treebank, 12, seed=5)
    assert len(sample) == 12 and set(sample) <= set(trees)
    assert [trees.index(t) for t in sample] == sorted(trees.index(t) for t in sample)
    assert sample_trees(treebank, 100, seed=4) == trees
    bad = _corpus(tmp_path / "bad.mrg", trees[:3] + ["not a tree"])
    with pytest.raises(InputError, match=r"bad\.mrg, line 4"):
        sample_trees(bad, 10, seed=0)


# --------------------------------------------------------------------------------------
# trees


def _stanza_trees(text: str):
    from stanza.models.constituency import tree_reader

    return tree_reader.read_trees(text)


def test_tree_line_one_and_several_sentences():
    one = _stanza_trees("(ROOT (S (NP (PRP It)) (VP (VBZ works)) (. .)))")
    assert tree_line(one) == "(ROOT (S (NP (PRP It)) (VP (VBZ works)) (. .)))"
    two = _stanza_trees("(ROOT (S (NP (PRP It)) (VP (VBZ works)) (. .)))\n(ROOT (FRAG (NP (NN Good)) (. .)))")
    joined = tree_line(two)
    assert joined == "(ROOT (S (NP (PRP It)) (VP (VBZ works)) (. .)) (FRAG (NP (NN Good)) (. .)))"
    assert "\n" not in joined
    with pytest.raises(ValueError):
        tree_line([])


def test_tree_line_escapes_leaves():
    from stanza.models.constituency.parse_tree import Tree

    tree = Tree("ROOT", [Tree("NP", [Tree("-LRB-", [Tree("(")]), Tree("CD", [Tree("8 1/2")])])])
    assert tree_line([tree]) == "(ROOT (NP (-LRB- -LRB-) (CD 8_1/2)))"


class _FakeSentence:
    def __init__(self, tree):
        self.constituency = tree


class _FakeDoc:
    def __init__(self, trees):
        self.sentences = [_FakeSentence(t) for t in trees]


class _FakePipeline:
    """Answers like stanza's bulk_process: one document per text; 'two' gives two trees."""

    def __init__(self):
        self.batches: list[list[str]] = []

    def bulk_process(self, texts):
        self.batches.append(list(texts))
        docs = []
        for text in texts:
            words = " ".join(f"(NN {w})" for w in text.split())
            tree = f"(ROOT (NP {words}))"
            docs.append(_FakeDoc(_stanza_trees(tree + ("\n" + tree if "two" in text.split() else ""))))
        return docs


def test_parse_sentences_batches_and_one_line_per_input():
    fake = _FakePipeline()
    sentences = ["alpha beta", "gamma", "two  parts", "delta", "epsilon"]
    trees = parse_sentences(sentences, "unused", batch_size=2, pipeline=fake)
    assert fake.batches == [["alpha beta", "gamma"], ["two parts", "delta"], ["epsilon"]]
    assert len(trees) == len(sentences)
    assert trees[0] == "(ROOT (NP (NN alpha) (NN beta)))"
    assert trees[2] == "(ROOT (NP (NN two) (NN parts)) (NP (NN two) (NN parts)))"
    assert all("\n" not in t for t in trees)
    with pytest.raises(ValueError, match="empty"):
        parse_sentences(["fine", "  "], "unused", pipeline=fake)
    assert parse_sentences([], "unused", pipeline=fake) == []


# --------------------------------------------------------------------------------------
# stanza without models: the real loading code, no network, no hang

_NO_NETWORK_LOAD = r"""
import json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network disabled in this test")
socket.socket.connect = refuse
socket.create_connection = refuse
from natcomp.mt.semi_natural.parse import StanzaModelsMissing, parse_sentences
try:
    parse_sentences(["The man reads a book ."], sys.argv[1])
    result = {"error": None}
except StanzaModelsMissing as error:
    result = {"error": "StanzaModelsMissing", "message": str(error)}
except Exception as error:
    result = {"error": type(error).__name__, "message": str(error)}
result["network"] = attempts
print(json.dumps(result))
"""


def _load_in_subprocess(model_dir: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK_LOAD, str(model_dir)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_missing_models_in_empty_dir(tmp_path):
    model_dir = tmp_path / "stanza"
    model_dir.mkdir()
    result = _load_in_subprocess(model_dir)
    assert result["network"] == []
    assert result["error"] == "StanzaModelsMissing", result
    expected = (
        f"stanza English models not found in {model_dir}; download them with "
        f"python -c \"import stanza; stanza.download('en', model_dir='{model_dir}', "
        "processors='tokenize,pos,constituency')\""
    )
    assert result["message"].startswith(expected)
    assert list(model_dir.iterdir()) == []  # nothing was downloaded or written


def test_missing_model_files_with_a_resources_file(tmp_path):
    """resources.json lists the English models but their files are absent."""
    model_dir = tmp_path / "stanza"
    model_dir.mkdir()
    packages = {"tokenize": "combined", "pos": "combined_charlm", "constituency": "ptb3-revised_charlm"}
    resources = {
        "en": {
            "lang_name": "English",
            "packages": {"default": packages},
            "default_processors": packages,
            **{processor: {package: {}} for processor, package in packages.items()},
        }
    }
    (model_dir / "resources.json").write_text(json.dumps(resources), encoding="utf-8")
    result = _load_in_subprocess(model_dir)
    assert result["network"] == []
    assert result["error"] == "StanzaModelsMissing", result
    assert result["message"].startswith(f"stanza English models not found in {model_dir}; download them with")


def test_missing_model_dir_in_process(tmp_path):
    with pytest.raises(StanzaModelsMissing) as caught:
        parse_sentences(["A sentence ."], tmp_path / "absent")
    assert isinstance(caught.value, NatcompError)
    assert download_command(tmp_path / "absent") in str(caught.value)
