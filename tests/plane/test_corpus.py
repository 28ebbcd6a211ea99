from __future__ import annotations

import pytest

from natcomp.errors import ConfigError, InputError
from natcomp.plane.adjectives import load_adjectives
from natcomp.plane.corpus import (
    CorpusSettings,
    generate_corpus,
    phrases_from_stanza,
    phrases_from_trees,
    read_tree_phrases,
    stanza_pipeline,
    write_corpus,
)
from natcomp.trees import parse_tree


def test_phrases_from_trees_take_adjective_noun_heads():
    tree = parse_tree(
        "(ROOT (S (NP (DT The) (JJ Fake) (NN gun)) (VP (VBD hit) (NP (DT a) (JJ red) (JJ old) (NNS cars)))"
        " (NP (JJ big) (NN dog) (NN house)) (. .)))"
    )
    # only (JJ)(NN) pairs that end an NP: "dog house" is noun-noun
    assert list(phrases_from_trees([tree])) == [("fake", "gun"), ("old", "cars")]


def test_read_tree_phrases_names_the_bad_line(tmp_path):
    path = tmp_path / "corpus.trees"
    path.write_text("(ROOT (NP (JJ red) (NN car)))\n(ROOT (NP (JJ red) (NN car))\n")
    with pytest.raises(InputError, match="corpus.trees, line 2"):
        read_tree_phrases(path)


def test_phrases_from_a_stanza_document():
    from stanza.models.common.doc import Document

    words = [
        {"id": 1, "text": "The", "upos": "DET", "head": 3, "deprel": "det"},
        {"id": 2, "text": "Former", "upos": "ADJ", "head": 3, "deprel": "amod"},
        {"id": 3, "text": "presidents", "upos": "NOUN", "head": 4, "deprel": "nsubj"},
        {"id": 4, "text": "met", "upos": "VERB", "head": 0, "deprel": "root"},
        {"id": 5, "text": "happy", "upos": "ADJ", "head": 7, "deprel": "amod"},  # not adjacent to its head
        {"id": 6, "text": "local", "upos": "ADJ", "head": 7, "deprel": "amod"},
        {"id": 7, "text": "farmers", "upos": "NOUN", "head": 4, "deprel": "obj"},
    ]
    assert list(phrases_from_stanza(Document([words]))) == [("former", "presidents"), ("local", "farmers")]


def test_missing_stanza_models_are_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"stanza\.download\('en'\)"):
        stanza_pipeline(model_dir=str(tmp_path / "no-models"))


def test_demo_corpus_is_deterministic_and_covers_every_class(tmp_path, wn):
    adjectives = load_adjectives()
    settings = CorpusSettings(seed=4, adjectives_per_noun={"I": 2, "S": 2, "O": 3})
    nouns = ["dog", "river", "teacher"]
    first = generate_corpus(adjectives, nouns, settings)
    assert [str(t) for t in first] == [str(t) for t in generate_corpus(adjectives, nouns, settings)]
    pairs = list(phrases_from_trees(first))
    assert len(set(pairs)) == 3 * 7
    for noun in nouns:
        classes = [adjectives[a] for a, n in set(pairs) if n == noun]
        assert classes.count("I") == 2 and classes.count("S") == 2 and classes.count("O") == 3
    path = tmp_path / "corpus.trees"
    assert write_corpus(path, first) == len(first)
    assert read_tree_phrases(path) == pairs
