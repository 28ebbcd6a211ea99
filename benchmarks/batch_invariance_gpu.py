"""Does batching change a bf16 causal LM's greedy translations? (docs/design/hf.md, "Batch invariance")

A model shaped like Qwen2.5-0.5B (causal_generation_gpu.py's ``qwen2-0.5b`` shape: hidden
896, 24 layers, 14 heads, 2 KV heads) with random weights, saved in bf16, decodes the same
prompts ("English: {source}\\nDutch:" on generated demo sentences, causal_generation.py's
demo_pairs) greedily through natcomp's CausalGenerator at batch 1 and at batch 64
(length-sorted, left-padded batches), and the script counts the outputs that differ (text,
tokens written, finished). In fp32 on a CPU none may differ (tests/hf/test_causal.py); in
bf16 on a GPU, padding changes the shapes of the matrix products and so their rounding,
which can flip a greedy choice between two nearly equal tokens.

Two counts, because two things differ between the runs:

- *as natcomp decodes*: at batch 1 nothing is padded, transformers drops the all-ones padding
  mask and SDPA takes its causal kernel (flash attention on a GPU); a padded batch of 64 has a
  mask and takes another kernel. This count is what a user of natcomp meets: kernel choice and
  batch shape together;
- *one kernel*: both runs keep the padding mask (transformers' SDPA mask never skipped, its
  ``allow_is_causal_skip`` off), so batch 1 runs the same masked kernel as batch 64 and only
  the batch's shape and padding differ.

The output layer has the tokenizer's few thousand ids (not the real 151,936) so that every
token written is text. Random weights give flatter next-token distributions than a trained
model's, so near-ties, and with them flips, are more frequent here than in a real model: a
count above 0 says batching *can* change outputs, the rate is an upper bound.

Usage:
  .venv/bin/python benchmarks/batch_invariance_gpu.py            # on a GPU machine (about 3 minutes)
  .venv/bin/python benchmarks/batch_invariance_gpu.py --tiny     # CPU dry run (fp32: expect 0)
"""

import argparse
import contextlib
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


@contextlib.contextmanager
def padding_mask_kept():
    """Decode with transformers' SDPA padding mask always built: without it a batch with no
    padding (batch 1) drops the mask and SDPA chooses its causal kernel, unlike a padded batch."""
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface, sdpa_mask

    skipping = ALL_MASK_ATTENTION_FUNCTIONS["sdpa"]

    def never_skipped(*args, allow_is_causal_skip=True, **kwargs):
        return sdpa_mask(*args, allow_is_causal_skip=False, **kwargs)

    AttentionMaskInterface.register("sdpa", never_skipped)
    try:
        yield
    finally:
        AttentionMaskInterface.register("sdpa", skipping)


def differing(alone, batched) -> list[int]:
    return [index for index, (a, b) in enumerate(zip(alone, batched)) if a != b]


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
        for kept in (False, True):
            for batch_size in (1, args.batch_size):
                generator = hf.CausalGenerator(model, dataclasses.replace(settings, batch_size=batch_size), threads=1)
                start = time.perf_counter()
                with padding_mask_kept() if kept else contextlib.nullcontext():
                    outputs[kept, batch_size] = [items[0] for items in generator.generate(prompts)]
                seconds[kept, batch_size] = time.perf_counter() - start
                precision = generator.precision
                del generator
    device = torch.cuda.get_device_name(0) if on_gpu else "CPU"
    print(
        f"model: {'tiny ' if args.tiny else ''}qwen2-0.5b-shaped, {parameters:,} parameters, random weights, "
        f"{precision} on {device}"
    )
    for kept, what in ((False, "as natcomp decodes (batch 1 unmasked)"), (True, "one kernel (padding mask kept)")):
        alone, batched = outputs[kept, 1], outputs[kept, args.batch_size]
        differ = differing(alone, batched)
        print(
            f"{what}: batch 1 {seconds[kept, 1]:.0f} s, batch {args.batch_size} {seconds[kept, args.batch_size]:.0f} s;"
            f" greedy outputs that differ between batch 1 and batch {args.batch_size}: {len(differ)} of"
            f" {len(prompts)} ({100 * len(differ) / len(prompts):.1f}%)"
        )
        for index in differ[:3]:
            print(f"  {prompts[index]!r}: alone {alone[index].text!r}, batched {batched[index].text!r}")
    kernels = differing(outputs[False, 1], outputs[True, 1])
    print(f"batch 1 unmasked against batch 1 masked (the kernel alone): {len(kernels)} of {len(prompts)} differ")


if __name__ == "__main__":
    main()
