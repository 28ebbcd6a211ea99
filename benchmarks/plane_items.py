"""Item generation at full PLANE scale: about 7,800 nouns, 312 adjectives, ~1.9M items.

The paper's AN phrases (a Wikipedia parse) are not released, so this builds phrases of the
same scale from WordNet: 7,800 common nouns with unigram hypernyms, each paired with a seeded
sample of adjectives of every class, then times, on one core, (1) the resource step
(WordNet look-ups, filters, hypernyms, chains) and (2) item generation (make_items).
Prints the item count and the seconds of each step (the issue asks for <= 60 s for items).

    taskset -c 0 .venv/bin/python benchmarks/plane_items.py [--nouns 7800] [--phrases-per-noun 34]
"""

from __future__ import annotations

import argparse
import random
import resource
import time


from natcomp.plane.adjectives import CLASSES, load_adjectives
from natcomp.plane.items import ResourceSettings, make_items, select_phrases
from natcomp.plane.wordnet import hypernyms
from natcomp.wordnet import wordnet


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nouns", type=int, default=7800)
    parser.add_argument("--phrases-per-noun", type=int, default=34, help="~265k AN phrases, ~1.9M items at 7,800 nouns")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    started = time.perf_counter()
    wn = wordnet()
    wn.synsets("dog", pos="n")  # load the index
    print(f"WordNet loaded in {time.perf_counter() - started:.1f} s")
    rng = random.Random(args.seed)
    names = sorted(n for n in wn.all_lemma_names(pos="n") if n.isalpha() and n.islower())
    rng.shuffle(names)
    nouns = []
    for name in names:
        synset = wn.synsets(name, pos="n")[0]
        if synset.lemmas()[0].name() == name and hypernyms(name, 1):
            nouns.append(name)
            if len(nouns) == args.nouns:
                break
    adjectives = load_adjectives()
    by_class = {c: sorted(a for a, k in adjectives.items() if k == c) for c in CLASSES}
    pairs = []
    for noun in nouns:
        chosen = {rng.choice(by_class[c]) for c in CLASSES}  # every class at least once
        chosen |= set(rng.sample(sorted(adjectives), args.phrases_per_noun))
        pairs.extend((adj, noun) for adj in sorted(chosen))
    print(f"{len(pairs)} AN phrases over {len(nouns)} nouns")

    wall, cpu = time.perf_counter(), cpu_seconds()
    settings = ResourceSettings()
    built = select_phrases(pairs, adjectives, settings)
    print(
        f"resource: {len(built.phrases)} phrases, {len(built.hypernyms)} hypernym rows, "
        f"{len(built.chains)} chains in {time.perf_counter() - wall:.1f} s wall, {cpu_seconds() - cpu:.1f} s CPU"
    )

    wall, cpu = time.perf_counter(), cpu_seconds()
    items = make_items(built.phrases, built.hypernyms, settings.max_distance)
    print(f"items: {len(items)} in {time.perf_counter() - wall:.1f} s wall, {cpu_seconds() - cpu:.1f} s CPU")
    print(items.groupby(["class", "it"]).size().to_string())


if __name__ == "__main__":
    main()
