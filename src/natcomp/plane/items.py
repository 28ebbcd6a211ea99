"""The PLANE resource: AN phrases, their hypernyms and the entailment items.

From AN phrases ``(adjective, noun)`` (any source: a parsed corpus, the released splits,
the demo generator) this builds, following the paper (Section 3.2):

1. phrases whose adjective is in the class list and whose noun has a noun synset;
2. nouns that occur with at least one adjective of each class (``require_all_classes``);
3. each noun's unigram hypernyms up to a distance per class (paper: 3 for I and S, 1 for O;
   the released One-IT files use 3 for every class: ``max_distance`` is a per-class choice);
4. items ``<c1, c2, label>`` for IT1 (c2 = N), IT2 (c2 = h(N)) and IT3 (c2 = A h(N)) with the
   label of Table 1, as sentences ``A {adj} {noun} is a {x}`` (no a/an agreement, as in the
   released files), deduplicated.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping

import pandas as pd

from natcomp.plane.adjectives import CLASSES, label
from natcomp.plane import wordnet as wn_lookup

log = logging.getLogger(__name__)

ITEM_COLUMNS = ["sentence", "label", "class", "it", "adj", "noun", "hyp", "distance", "c1", "c2"]
PHRASE_COLUMNS = ["adj", "noun", "class"]
HYPERNYM_COLUMNS = ["noun", "hyp", "distance", "synset"]
CHAIN_COLUMNS = ["noun", "h1", "h2", "h3"]


def sentence(adj: str, noun: str, c2: str) -> str:
    """The surface form of an item (the released files' form)."""
    return f"A {adj} {noun} is a {c2}"


@dataclasses.dataclass(frozen=True)
class ResourceSettings:
    """How the resource is built (config ``plane.resource``)."""

    max_distance: Mapping[str, int] = dataclasses.field(default_factory=lambda: {"I": 3, "S": 3, "O": 1})
    require_all_classes: bool = True
    chain_length: int = 3
    hypernym_reading: str = "first"  # natcomp.plane.wordnet.READINGS

    def __post_init__(self):
        if self.hypernym_reading not in ("first", "all"):
            raise ValueError(f"hypernym_reading must be first or all, got {self.hypernym_reading!r}")
        missing = [c for c in CLASSES if c not in self.max_distance]
        if missing:
            raise ValueError(f"max_distance needs a distance for the classes {missing}")


@dataclasses.dataclass
class Resource:
    phrases: pd.DataFrame  # adj, noun, class
    hypernyms: pd.DataFrame  # noun, hyp, distance, synset (up to the largest class distance)
    chains: pd.DataFrame  # noun, h1, h2, h3 (nouns with an all-unigram chain)
    dropped: dict[str, int]


def select_phrases(
    pairs: Iterable[tuple[str, str]],
    adjectives: Mapping[str, str],
    settings: ResourceSettings = ResourceSettings(),
) -> Resource:
    """Filter AN pairs to the PLANE resource and look up hypernyms and chains (sorted output)."""
    dropped = defaultdict(int)
    unique = set()
    for adj, noun in pairs:
        adj, noun = adj.lower(), noun.lower()
        if adj not in adjectives:
            dropped["adjective not in the list"] += 1
            continue
        unique.add((adj, noun))
    synset_ok = {}
    kept = []
    for adj, noun in sorted(unique):
        if noun not in synset_ok:
            synset_ok[noun] = wn_lookup.has_noun_synset(noun)
        if not synset_ok[noun]:
            dropped["noun without a noun synset"] += 1
            continue
        kept.append((adj, noun, adjectives[adj]))
    phrases = pd.DataFrame(kept, columns=PHRASE_COLUMNS)
    if settings.require_all_classes and len(phrases):
        classes_per_noun = phrases.groupby("noun")["class"].nunique()
        complete = set(classes_per_noun[classes_per_noun == len(CLASSES)].index)
        before = len(phrases)
        phrases = phrases[phrases["noun"].isin(complete)]
        dropped["noun not seen with every class"] += before - len(phrases)
    deepest = max(settings.max_distance.values())
    hyp_rows, chain_rows = [], []
    nouns_with_hypernyms = set()
    for noun in sorted(set(phrases["noun"])):
        for h in wn_lookup.unigram_hypernyms(noun, deepest, settings.hypernym_reading):
            hyp_rows.append((noun, h.word, h.distance, h.synset))
            nouns_with_hypernyms.add(noun)
        chain = wn_lookup.hypernym_chain(noun, settings.chain_length)
        if chain:
            chain_rows.append((noun, *chain))
    before = len(phrases)
    phrases = phrases[phrases["noun"].isin(nouns_with_hypernyms)].reset_index(drop=True)
    dropped["noun without a unigram hypernym"] += before - len(phrases)
    chain_columns = ["noun"] + [f"h{i}" for i in range(1, settings.chain_length + 1)]
    return Resource(
        phrases=phrases,
        hypernyms=pd.DataFrame(hyp_rows, columns=HYPERNYM_COLUMNS),
        chains=pd.DataFrame(chain_rows, columns=chain_columns),
        dropped=dict(dropped),
    )


def make_items(
    phrases: pd.DataFrame,
    hypernyms: pd.DataFrame,
    max_distance: Mapping[str, int],
) -> pd.DataFrame:
    """All items of the phrases: one IT1 item per AN, one IT2 and one IT3 item per hypernym
    word within the class's distance. Sorted, deduplicated on the sentence."""
    by_noun: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for noun, hyp, distance in zip(hypernyms["noun"], hypernyms["hyp"], hypernyms["distance"].astype(int)):
        by_noun[noun].append((hyp, distance))
    labels = {(cls, it): label(cls, it) for cls in CLASSES for it in ("IT1", "IT2", "IT3")}
    rows = []
    seen = set()
    for adj, noun, cls in zip(phrases["adj"], phrases["noun"], phrases["class"]):
        c1 = f"{adj} {noun}"
        limit = max_distance[cls]
        candidates = [("IT1", "", 0, noun)]
        for hyp, distance in by_noun.get(noun, ()):
            if distance <= limit:
                candidates.append(("IT2", hyp, distance, hyp))
                candidates.append(("IT3", hyp, distance, f"{adj} {hyp}"))
        for it, hyp, distance, c2 in candidates:
            text = sentence(adj, noun, c2)
            if text in seen:
                continue
            seen.add(text)
            rows.append((text, labels[cls, it], cls, it, adj, noun, hyp, distance, c1, c2))
    items = pd.DataFrame(rows, columns=ITEM_COLUMNS)
    return items.sort_values(["noun", "adj", "it", "distance", "hyp"], kind="stable").reset_index(drop=True)


def item_counts(items: pd.DataFrame) -> pd.DataFrame:
    """Items per class and inference type, with positives and totals (the report's first table)."""
    table = (
        items.groupby(["class", "it"])["label"]
        .agg(items="size", positive=lambda s: int((s.astype(int) == 1).sum()))
        .reset_index()
    )
    order = {c: i for i, c in enumerate(CLASSES)}
    table = table.sort_values(["class", "it"], key=lambda s: s.map(order) if s.name == "class" else s)
    totals = pd.DataFrame(
        [
            {
                "class": "all",
                "it": "all",
                "items": int(table["items"].sum()),
                "positive": int(table["positive"].sum()),
            }
        ]
    )
    return pd.concat([table, totals], ignore_index=True)


def sample_triplets(items: pd.DataFrame, per_class: int, seed: int) -> pd.DataFrame:
    """``per_class`` random triplets (adj, noun, hyp, class) per class from the items' IT2 rows."""
    rng = random.Random(seed)
    triplets = items.loc[items["it"] == "IT2", ["adj", "noun", "hyp", "class"]].drop_duplicates()
    chosen = []
    for cls in CLASSES:
        rows = sorted(triplets[triplets["class"] == cls].itertuples(index=False, name=None))
        chosen.extend(rng.sample(rows, min(per_class, len(rows))))
    return pd.DataFrame(chosen, columns=["adj", "noun", "hyp", "class"])
