"""TRE training time per 1,000 trees (full-batch RMSprop, 400 steps by default).

Usage: python benchmarks/tre_training.py [--trees 1000] [--dimension 384] [--steps 400]
[--composition add linear] [--threads 2]

Trees: real SST trees when ../shared/data/sst is there (dev, then test, then train), else the
demo sentiment treebank's; targets are random (timing does not depend on them).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from natcomp.tre import TreSettings, read_sentiment_trees, tree_reconstruction_error

SST = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sst"


def trees(count: int):
    if (SST / "dev.txt").exists():
        loaded = []
        for split in ("dev", "test", "train"):
            loaded += read_sentiment_trees(SST / f"{split}.txt")
            if len(loaded) >= count:
                break
        return loaded[:count], "SST"
    from natcomp.sst_demo import generate_treebank

    treebank = generate_treebank(count, seed=1)
    return [treebank.sentiment_tree(sentence) for sentence in treebank.sentences][:count], "demo treebank"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--composition", nargs="+", default=["add", "linear"], choices=("add", "linear"))
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    selected, source = trees(args.trees)
    targets = np.random.default_rng(0).normal(size=(len(selected), args.dimension)).astype(np.float32)
    for composition in args.composition:
        settings = TreSettings(composition=composition, steps=args.steps, device=args.device)
        start, cpu_start = time.perf_counter(), time.process_time()
        result = tree_reconstruction_error(targets, selected, settings)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(
            f"TRE {composition}: {len(selected)} {source} trees, {len(result.vocabulary)} word types, dim {args.dimension}, "
            f"{args.steps} steps, {args.threads} threads: {seconds:.1f} s wall ({cpu:.1f} s CPU) = "
            f"{1000 * seconds / len(selected):.1f} s wall, {1000 * cpu / len(selected):.1f} s CPU per 1,000 trees"
        )


if __name__ == "__main__":
    main()
