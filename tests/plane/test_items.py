from __future__ import annotations

import pandas as pd

from natcomp.plane import label
from natcomp.plane.items import ResourceSettings, item_counts, make_items, select_phrases

ADJECTIVES = {"red": "I", "famous": "S", "fake": "O", "former": "O"}


def test_select_phrases_filters_like_the_paper(wn):
    pairs = [
        ("red", "dog"),
        ("famous", "dog"),
        ("fake", "dog"),
        ("Red", "dog"),  # duplicate after lower-casing
        ("big", "dog"),  # adjective not in the list
        ("red", "qzxv"),
        ("famous", "qzxv"),
        ("fake", "qzxv"),  # noun without a synset
        ("red", "cat"),
        ("famous", "cat"),  # cat never occurs with an O adjective
    ]
    resource = select_phrases(pairs, ADJECTIVES, ResourceSettings())
    assert sorted(zip(resource.phrases["adj"], resource.phrases["noun"])) == [
        ("fake", "dog"),
        ("famous", "dog"),
        ("red", "dog"),
    ]
    assert resource.dropped["adjective not in the list"] == 1
    assert resource.dropped["noun without a noun synset"] == 3
    assert resource.dropped["noun not seen with every class"] == 2
    loose = select_phrases(pairs, ADJECTIVES, ResourceSettings(require_all_classes=False))
    assert ("red", "cat") in set(zip(loose.phrases["adj"], loose.phrases["noun"]))


def test_items_follow_table_1_and_the_distance_per_class(wn):
    resource = select_phrases([("red", "dog"), ("famous", "dog"), ("fake", "dog")], ADJECTIVES, ResourceSettings())
    items = make_items(resource.phrases, resource.hypernyms, {"I": 3, "S": 3, "O": 1})
    assert not items["sentence"].duplicated().any()
    for row in items.itertuples(index=False):
        assert row.label == label(row._2, row.it)  # _2: the class column
        x = {"IT1": row.noun, "IT2": row.hyp, "IT3": f"{row.adj} {row.hyp}"}[row.it]
        assert row.sentence == f"A {row.adj} {row.noun} is a {x}" == f"A {row.c1} is a {row.c2}"
    fake = items[items["adj"] == "fake"]
    assert set(fake["distance"]) == {0, 1}  # O: direct hypernyms only (paper)
    assert "A fake dog is a canine" in set(fake["sentence"]) and "A fake dog is a fake canine" in set(fake["sentence"])
    red = items[items["adj"] == "red"]
    assert red["distance"].max() == 3 and "A red dog is a red placental" in set(red["sentence"])
    # the released One-IT choice: distance 3 for every class
    every = make_items(resource.phrases, resource.hypernyms, {"I": 3, "S": 3, "O": 3})
    assert every.loc[every["adj"] == "fake", "distance"].max() == 3


def test_item_counts_table(wn):
    resource = select_phrases([("red", "dog"), ("famous", "dog"), ("fake", "dog")], ADJECTIVES, ResourceSettings())
    items = make_items(resource.phrases, resource.hypernyms, {"I": 1, "S": 1, "O": 1})
    counts = item_counts(items)
    assert list(counts.columns) == ["class", "it", "items", "positive"]
    assert counts.iloc[-1].to_dict() == {
        "class": "all",
        "it": "all",
        "items": len(items),
        "positive": int(items["label"].sum()),
    }
    assert counts.set_index(["class", "it"]).loc[("S", "IT3"), "positive"] == 0


def test_small_resource_items(small_resource):
    resource, items = small_resource
    assert set(resource.phrases["noun"]) <= set(resource.hypernyms["noun"])
    assert isinstance(items, pd.DataFrame) and len(items) > 1000
    assert (resource.phrases.groupby("noun")["class"].nunique() == 3).all()
