"""Time the built-in Double-DOP fragment extraction (natcomp.mt.semi_natural.fragments) on demo trees.

Builds the English parse trees of the demo corpus (natcomp.mt.demo_corpus, the same grammar
the demo workflow uses), extracts the fragments of the first N trees for each size, and
prints the time, the number of fragments, the growth exponent k fitted to the two
largest sizes (time ~ N^k) and the time extrapolated to 100,000 trees (the paper's
treebank size). The extraction compares all pairs of distinct subtree types, so k is
close to 2 once most trees are distinct.

Usage: .venv/bin/python benchmarks/fragment_extraction.py [--sizes 1000 4000] [--seed 1]
"""

import argparse
import math
import time
from pathlib import Path

from natcomp.mt.demo_corpus import generate_pairs
from natcomp.mt.semi_natural.fragments import extract_fragments, select_fragments
from natcomp.trees import parse_tree

REPO = Path(__file__).resolve().parents[1]
RESOURCES = REPO / "resources"
PAPER_TREES = 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = sorted(set(args.sizes))
    if len(sizes) < 1 or sizes[0] < 2:
        parser.error("give sizes of at least 2 trees")

    pairs = generate_pairs(
        RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv", sizes[-1], args.seed
    )
    trees = [parse_tree(pair.tree) for pair in pairs]
    print(f"{'trees':>8} {'distinct':>9} {'seconds':>9} {'fragments':>10} {'NP>=15':>7} {'VP>=15':>7}")
    timings = []
    for n in sizes:
        subset = trees[:n]
        start = time.perf_counter()
        fragments = extract_fragments(subset)
        seconds = time.perf_counter() - start
        selected = select_fragments(fragments, top=10**9)
        distinct = len({tree.to_bracket() for tree in subset})
        print(
            f"{n:8d} {distinct:9d} {seconds:9.2f} {len(fragments):10d} "
            f"{len(selected['NP']):7d} {len(selected['VP']):7d}"
        )
        timings.append((n, seconds))
    if len(timings) >= 2:
        (n1, t1), (n2, t2) = timings[-2], timings[-1]
        k = math.log(t2 / t1) / math.log(n2 / n1)
        estimate = t2 * (PAPER_TREES / n2) ** k
        print(f"growth exponent k = {k:.2f} (time ~ trees^k, from {n1} and {n2} trees)")
        print(f"extrapolated time for {PAPER_TREES:,} trees: {estimate:,.0f} s ({estimate / 3600:.1f} h)")


if __name__ == "__main__":
    main()
