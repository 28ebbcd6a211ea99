"""Does batching change a bf16 causal LM's greedy translations? (issue 41, point 4)

A model shaped like Qwen2.5-0.5B (causal_generation_gpu.py's ``qwen2-0.5b`` shape: hidden
896, 24 layers, 14 heads, 2 KV heads) with random weights, saved in bf16, decodes the same
prompts ("English: {source}\\nDutch:" on generated demo sentences, causal_generation.py's
demo_pairs) greedily through natcomp's CausalGenerator at batch 1 and at batch 64
(length-sorted, left-padded batches), and the script counts the outputs that differ (text,
tokens written, finished). In fp32 on a CPU none may differ (tests/hf/test_causal.py); in
bf16 on a GPU, padding changes the shapes of the matrix products and so their rounding,
which can flip a greedy choice between two nearly equal tokens.

The output layer has the tokenizer's few thousand ids (not the real 151,936) so that every
token written is text. Random weights give flatter next-token distributions than a trained
model's, so near-ties, and with them flips, are more frequent here than in a real model: a
count above 0 says batching *can* change outputs, the rate is an upper bound.

Usage:
  .venv/bin/python benchmarks/batch_invariance_gpu.py            # on a GPU machine (about 3 minutes)
  .venv/bin/python benchmarks/batch_invariance_gpu.py --tiny     # CPU dry run (fp32: expect 0)
"""

import argparse
import dataclasses
import logging
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch
import transformers
from causal_generation import PROMPT, STOP, demo_pairs
from causal_generation_gpu import build_model

from natcomp import hf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="CPU dry run: tiny config, few prompts, fp32")
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args()
    on_gpu = torch.cuda.is_available() and not args.tiny
    if not on_gpu and not args.tiny:
        sys.exit(
            "batch_invariance_gpu: no CUDA device here; run it on a GPU machine, or with --tiny for the CPU dry run"
        )
    if args.tiny:
        args.prompts, args.batch_size = 24, 8
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    transformers.utils.logging.disable_progress_bar()

    train, test = demo_pairs(2000, args.prompts)
    prompts = [PROMPT.format(source=pair.en) for pair in test]
    settings = hf.GenerationSettings(
        decoding="greedy",
        max_new_tokens=args.max_new_tokens,
        stop=(STOP,),
        precision="auto",  # the checkpoint's bf16 on a GPU, fp32 on a CPU
        device="cuda" if on_gpu else "cpu",
    )
    with tempfile.TemporaryDirectory() as scratch:
        model, parameters = build_model(
            Path(scratch), "qwen2-0.5b", args.tiny, [pair.en for pair in train], on_gpu, tokenizer_vocabulary=True
        )
        outputs, seconds = {}, {}
        for batch_size in (1, args.batch_size):
            generator = hf.CausalGenerator(model, dataclasses.replace(settings, batch_size=batch_size), threads=1)
            start = time.perf_counter()
            outputs[batch_size] = [items[0] for items in generator.generate(prompts)]
            seconds[batch_size] = time.perf_counter() - start
            precision = generator.precision
            del generator
    batched, alone = outputs[args.batch_size], outputs[1]
    differ = [index for index, (a, b) in enumerate(zip(alone, batched)) if a != b]
    device = torch.cuda.get_device_name(0) if on_gpu else "CPU"
    print(
        f"model: {'tiny ' if args.tiny else ''}qwen2-0.5b-shaped, {parameters:,} parameters, random weights, "
        f"{precision} on {device}"
    )
    print(f"batch 1: {seconds[1]:.0f} s; batch {args.batch_size}: {seconds[args.batch_size]:.0f} s")
    print(
        f"greedy outputs that differ between batch 1 and batch {args.batch_size}: {len(differ)} of {len(prompts)} "
        f"({100 * len(differ) / len(prompts):.1f}%)"
    )
    for index in differ[:3]:
        print(f"  {prompts[index]!r}: alone {alone[index].text!r}, batched {batched[index].text!r}")


if __name__ == "__main__":
    main()
