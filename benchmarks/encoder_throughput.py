"""Sentence-embedding throughput (sentences/s) of the PSS/TRE encoders on CPU or GPU.

Usage: python benchmarks/encoder_throughput.py [--model all-MiniLM-L6-v2] [--sentences 1000]
[--batch-size 64] [--threads 2] [--pooling mean]

Sentences: the real SST dev sentences when ../shared/data/sst is there, else the demo
sentiment treebank's. Prints one line per run; the first batch warms up and is not timed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from natcomp import hf
from natcomp.tre import read_sentiment_trees, sentence_text

SST_DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sst" / "dev.txt"


def sentences(count: int) -> tuple[list[str], str]:
    if SST_DEV.exists():
        texts = [sentence_text(tree) for tree in read_sentiment_trees(SST_DEV)]
        source = "SST dev"
    else:
        from natcomp.sst_demo import generate_treebank

        texts = [" ".join(s.tokens) for s in generate_treebank(max(count, 100), seed=1).sentences]
        source = "demo treebank"
    while len(texts) < count:
        texts = texts + texts
    return texts[:count], source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, nargs="+", default=[64])
    parser.add_argument("--threads", type=int, nargs="+", default=[torch.get_num_threads()])
    parser.add_argument("--pooling", default="mean", choices=("cls", "mean"))
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    texts, source = sentences(args.sentences)
    encoder, tokenizer = hf.load_encoder(args.model), hf.load_tokenizer(args.model)
    run_device = hf.device(args.device)
    for threads in args.threads:
        torch.set_num_threads(threads)
        for batch_size in args.batch_size:
            hf.encode(
                encoder, tokenizer, texts[:batch_size], pooling=args.pooling, batch_size=batch_size, device=run_device
            )
            start, cpu_start = time.perf_counter(), time.process_time()
            hf.encode(encoder, tokenizer, texts, pooling=args.pooling, batch_size=batch_size, device=run_device)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            print(
                f"{args.model} ({args.pooling} pooling) on {run_device}, {threads} threads, batch {batch_size}: "
                f"{len(texts)} {source} sentences in {seconds:.2f} s wall ({cpu:.2f} s CPU) = {len(texts) / seconds:.0f} sentences/s "
                f"({len(texts) / cpu:.0f} per CPU second)"
            )


if __name__ == "__main__":
    main()
