"""Greedy generation throughput of natcomp's CausalGenerator for a 0.5B-1B-class causal LM on
a GPU: batched (length-sorted, left-padded batches) against one prompt at a time, in
sentences/s and new tokens/s, with the GPU busy share and peak GPU memory.

The model is built from a config with random weights (nothing is downloaded): Qwen2-0.5B's
shape by default (hidden 896, 24 layers, 14 heads, 2 KV heads, feed-forward 4864, vocabulary
151,936, tied embeddings), or Llama-3.2-1B's (--shape llama-1b). Its tokenizer is a small
byte-level BPE trained on demo sentences (natcomp.hf.build_tiny_causal_lm): the model's
vocabulary and so its output layer keep the real size (a large share of a 0.5B model's
work), but random weights almost never pick one of the tokenizer's few ids, so every prompt
runs to the token limit (--max-new-tokens): the figures are those of full-length outputs,
and new tokens/s is the comparable one. The prompts are causal_generation.py's
("English: {source}\\nDutch:" on generated demo sentences).

On CUDA: the checkpoint's bf16 (--precision auto), --prompts prompts batched for each --batch-sizes, and the first
--loop-prompts of them one at a time. Without CUDA it stops with a message; --tiny runs the
same code on CPU with a tiny config of the same architecture and few prompts (a dry run, so
the script is known to work before a GPU is lent).

Usage:
  .venv/bin/python benchmarks/causal_generation_gpu.py                  # on a GPU machine
  .venv/bin/python benchmarks/causal_generation_gpu.py --shape llama-1b --batch-sizes 64 256
  .venv/bin/python benchmarks/causal_generation_gpu.py --tiny           # CPU dry run
"""

import argparse
import dataclasses
import logging
import sys
import tempfile
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import torch
import transformers
from causal_generation import PROMPT, STOP, demo_pairs, timed_generate
from gpu_busy import BusySampler

from natcomp import hf

SHAPES = {
    # Qwen/Qwen2-0.5B's config.json
    "qwen2-0.5b": (
        transformers.Qwen2Config,
        dict(
            hidden_size=896,
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            intermediate_size=4864,
            vocab_size=151936,
            max_position_embeddings=32768,
            rope_theta=1_000_000.0,
            tie_word_embeddings=True,
        ),
    ),
    # meta-llama/Llama-3.2-1B's config.json (without its RoPE scaling, which long contexts need)
    "llama-1b": (
        transformers.LlamaConfig,
        dict(
            hidden_size=2048,
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            head_dim=64,
            intermediate_size=8192,
            vocab_size=128256,
            max_position_embeddings=131072,
            rope_theta=500_000.0,
            tie_word_embeddings=True,
        ),
    ),
}
# --tiny: the same architecture, small (vocabulary still larger than the tokenizer's, as above)
TINY = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    intermediate_size=128,
    vocab_size=4096,
    max_position_embeddings=512,
)


def build_model(
    folder: Path, shape: str, tiny: bool, texts: list[str], on_gpu: bool, tokenizer_vocabulary: bool = False
) -> tuple[Path, int]:
    """A random-weight model of ``shape`` with a small trained tokenizer, saved in bf16 on a
    GPU (half the bytes to write and read), fp32 on CPU; returns (folder, parameters).
    ``tokenizer_vocabulary``: the output layer as large as the tokenizer's vocabulary (not
    the shape's), so that every token the model writes is text."""
    tokenizer_folder = hf.build_tiny_causal_lm(folder / "tokenizer", texts, kind="llama")
    tokenizer = hf.load_tokenizer(tokenizer_folder)
    config_class, options = SHAPES[shape]
    vocabulary = {"vocab_size": len(tokenizer)} if tokenizer_vocabulary else {}
    config = config_class(
        **{**options, **(TINY if tiny else {}), **vocabulary},
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(1)
    with torch.device("cuda" if on_gpu else "cpu"):  # initialised where it runs: seconds, not minutes
        model = transformers.AutoModelForCausalLM.from_config(config)
    if on_gpu:
        model = model.to(torch.bfloat16)
    parameters = sum(p.numel() for p in model.parameters())
    return hf.save_model(model, tokenizer, folder / "model"), parameters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="CPU dry run: tiny config, few prompts")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="qwen2-0.5b")
    parser.add_argument("--prompts", type=int, default=1000, help="prompts for the batched runs")
    parser.add_argument("--loop-prompts", type=int, default=50, help="of them, generated one at a time")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--precision", choices=hf.CAUSAL_PRECISIONS, default="auto")
    args = parser.parse_args()
    on_gpu = torch.cuda.is_available() and not args.tiny
    if not on_gpu and not args.tiny:
        sys.exit(
            "causal_generation_gpu: no CUDA device here; run it on a GPU machine, or with --tiny for the CPU dry run"
        )
    if args.tiny:
        args.prompts, args.loop_prompts, args.batch_sizes = 40, 8, [16]
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    transformers.utils.logging.disable_progress_bar()

    train, test = demo_pairs(2000, args.prompts)
    prompts = [PROMPT.format(source=p.en) for p in test]
    settings = hf.GenerationSettings(
        decoding="greedy",
        max_new_tokens=args.max_new_tokens,
        stop=(STOP,),
        precision=args.precision,
        device="cuda" if on_gpu else "cpu",
    )
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        model, parameters = build_model(Path(scratch), args.shape, args.tiny, [p.en for p in train], on_gpu)
        size = f"{'tiny ' if args.tiny else ''}{args.shape}-shaped, {parameters:,} parameters"
        print(f"model: {size}, random weights (built and saved in {time.perf_counter() - start:.0f} s)")
        device = torch.cuda.get_device_name(0) if on_gpu else "CPU, 1 thread"
        runs = [(batch_size, prompts) for batch_size in args.batch_sizes] + [(1, prompts[: args.loop_prompts])]
        rates = {}
        for batch_size, subset in runs:
            generator = hf.CausalGenerator(model, dataclasses.replace(settings, batch_size=batch_size), threads=1)
            if on_gpu:
                torch.cuda.reset_peak_memory_stats()
            busy = BusySampler()
            run = timed_generate(generator, subset, around=lambda busy=busy: busy)
            memory = f", peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB" if on_gpu else ""
            rates[batch_size] = len(subset) / run.seconds
            print(
                f"batch {batch_size}: {rates[batch_size]:.1f} sentences/s, {run.new_tokens / run.seconds:.0f} new"
                f" tokens/s ({len(subset)} prompts, {run.new_tokens / len(subset):.1f} new tokens each,"
                f" {run.cut_off} cut off by the limit of {args.max_new_tokens}; {generator.precision} on {device}),"
                f" GPU busy {busy.share()}{memory}"
            )
            del generator
            if on_gpu:
                torch.cuda.empty_cache()
    best = max(args.batch_sizes, key=rates.get)
    print(f"speed-up of batch {best} over one at a time: {rates[best] / rates[1]:.1f}x")
    print(f"versions: natcomp {version('natcomp')}, torch {torch.__version__}, transformers {version('transformers')}")


if __name__ == "__main__":
    main()
