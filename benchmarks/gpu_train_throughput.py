"""Training throughput of fairseq Transformer-base as natcomp configures it: target tokens
per second and peak GPU memory, per precision and micro-batch, and what the fastest rate
means for the paper's three corpus sizes.

The corpus is synthetic, generated here with paper-like lengths (about 15 tokens a side,
a Zipf-distributed vocabulary of 40,000 joint types) and binarised with
fairseq-preprocess into a temporary folder, so the benchmark needs no download and no
demo run. Each configuration trains for ``--updates`` updates (after ``--warmup``
untimed ones) with the batch natcomp's jobs use: :func:`natcomp.mt.nmt.plan_batches`
turns ``--tokens-per-update`` and a micro-batch (``auto``: sized to the GPU's memory)
into fairseq's ``--max-tokens`` and ``--update-freq``, with the CUDA settings of
:func:`natcomp.mt.nmt.configure_cuda` (cuDNN attention off, TF32 for fp32).

Rates are fairseq's ``wps``: target tokens (end-of-sentence included) per second of
``train_step``. The paper-scale estimate assumes about 1e9 target tokens per epoch of the
full corpus (issue 15), the other sizes in proportion to their sentence pairs, and the
epochs of config/paper.yaml's last kept checkpoint; the paper's own figures were 3.5 / 17
/ 113 minutes per epoch on 32 V100s.

Usage:
  .venv/bin/python benchmarks/gpu_train_throughput.py                 # on a GPU: fp32 and fp16, auto and 3584
  .venv/bin/python benchmarks/gpu_train_throughput.py --smoke         # tiny model on CPU, seconds (the tests)
"""

from __future__ import annotations

import argparse
import itertools
import logging
import math
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import yaml

from gpu_busy import BusySampler

from natcomp.mt.nmt import configure_cuda, fairseq_argv, hardware_argv, plan_batches

REPO = Path(__file__).resolve().parents[1]
FULL_TARGET_TOKENS_PER_EPOCH = 1e9  # issue 15: the full Tatoeba eng-nld corpus, target side
TOKENS_PER_SIDE = 15  # mean sentence length of the synthetic corpus (and about the paper's)
PAPER_MINUTES_PER_EPOCH_32_V100 = {"small": 3.5, "medium": 17, "full": 113}

TRANSFORMER_BASE = {
    "arch": "transformer_wmt_en_de",
    "share-all-embeddings": True,
    "optimizer": "adam",
    "adam-betas": "(0.9, 0.98)",
    "clip-norm": 0.0,
    "lr": 0.0005,
    "lr-scheduler": "inverse_sqrt",
    "warmup-updates": 4000,
    "warmup-init-lr": 1e-07,
    "dropout": 0.3,
    "weight-decay": 0.0001,
    "criterion": "label_smoothed_cross_entropy",
    "label-smoothing": 0.1,
}
TINY = {
    **TRANSFORMER_BASE,
    "arch": "transformer",
    "encoder-layers": 1,
    "decoder-layers": 1,
    "encoder-embed-dim": 32,
    "decoder-embed-dim": 32,
    "encoder-ffn-embed-dim": 64,
    "decoder-ffn-embed-dim": 64,
    "encoder-attention-heads": 2,
    "decoder-attention-heads": 2,
}


def synthetic_corpus(folder: Path, sentences: int, vocabulary: int, seed: int = 1) -> Path:
    """Write ``train``/``valid`` text of random Zipf-distributed tokens with about
    :data:`TOKENS_PER_SIDE` tokens a side, binarise it; return the data-bin folder."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{index}" for index in range(vocabulary)])
    weights = 1 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    for split, count in (("train", sentences), ("valid", max(10, sentences // 100))):
        for lang in ("src", "trg"):
            lengths = np.clip(rng.poisson(TOKENS_PER_SIDE - 1, count) + 1, 1, 100)
            tokens = rng.choice(words, size=int(lengths.sum()), p=weights)
            bounds = np.concatenate([[0], np.cumsum(lengths)])
            lines = (" ".join(tokens[bounds[i] : bounds[i + 1]]) for i in range(count))
            (folder / f"{split}.{lang}").write_text("\n".join(lines) + "\n")
    preprocess = [sys.executable, "-m", "fairseq_cli.preprocess"]  # no reliance on an installed entry point
    command = [*preprocess, "--source-lang", "src", "--target-lang", "trg", "--joined-dictionary"]
    command += ["--trainpref", str(folder / "train"), "--validpref", str(folder / "valid")]
    command += ["--destdir", str(folder / "bin"), "--workers", "4"]
    subprocess.run(command, check=True, capture_output=True)
    return folder / "bin"


def measure(databin: Path, options: dict, plan, precision: str, on_gpu: bool, updates: int, warmup: int) -> dict:
    """Target tokens per second over ``updates`` timed updates, GPU busy share and peak GPU memory."""
    import torch
    from fairseq import options as fairseq_options
    from fairseq import tasks
    from fairseq.data import iterators
    from fairseq.dataclass.utils import convert_namespace_to_omegaconf
    from fairseq.trainer import Trainer

    argv = [str(databin), "--source-lang", "src", "--target-lang", "trg", "--seed", "1", *fairseq_argv(options)]
    argv += hardware_argv(plan, precision, 1 if on_gpu else 0)
    parser = fairseq_options.get_training_parser()
    cfg = convert_namespace_to_omegaconf(fairseq_options.parse_args_and_arch(parser, argv))
    cfg.distributed_training.distributed_world_size = 1
    if on_gpu:
        configure_cuda(precision, allow_tf32=True)
        torch.cuda.reset_peak_memory_stats()
    task = tasks.setup_task(cfg.task)
    task.load_dataset("train", combine=False, epoch=1)
    model, criterion = task.build_model(cfg.model), task.build_criterion(cfg.criterion)
    trainer = Trainer(cfg, task, model, criterion)
    epoch_itr = trainer.get_train_iterator(epoch=1, load_dataset=False)
    timed_tokens, timed_updates, done, start = 0, 0, 0, None
    busy = BusySampler()
    while timed_updates < updates:  # epochs, as many as it takes
        for samples in iterators.GroupedIterator(epoch_itr.next_epoch_itr(shuffle=True), plan.update_freq):
            if done == warmup:
                if on_gpu:
                    torch.cuda.synchronize()
                busy.start()
                start = time.perf_counter()
            trainer.train_step(samples)
            done += 1
            if start is not None:
                timed_tokens += sum(int(s["ntokens"]) for s in samples if s)
                timed_updates += 1
                if timed_updates == updates:
                    break
    if on_gpu:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    busy.stop()
    peak = torch.cuda.max_memory_allocated() / 2**30 if on_gpu else None
    return {
        "tokens_per_s": timed_tokens / seconds,
        "peak_gib": peak,
        "tokens_per_update": timed_tokens / updates,
        "busy": busy.share(),
    }


def paper_scale(tokens_per_s: float, paper_config: Path = REPO / "config" / "paper.yaml") -> list[tuple]:
    """(size, pairs, hours per epoch, epochs, hours per model) for the paper's sizes."""
    mt = yaml.safe_load(paper_config.read_text())["mt"]
    full_pairs = FULL_TARGET_TOKENS_PER_EPOCH / TOKENS_PER_SIDE
    rows = []
    for size, pairs in mt["sizes"].items():
        pairs = full_pairs if pairs == "all" else int(pairs)
        hours = pairs * TOKENS_PER_SIDE / tokens_per_s / 3600
        epochs = max(mt["train"]["epoch_checkpoints"][size])
        rows.append((size, pairs, hours, epochs, hours * epochs))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny model and corpus on CPU: seconds")
    parser.add_argument("--sentences", type=int, default=300_000, help="synthetic training pairs")
    parser.add_argument("--vocabulary", type=int, default=40_000)
    # 28672: the paper's 3584 x 8 of one of its 32 GPUs (config/paper.yaml trains with all
    # 32 GPUs' 917504); an epoch's time depends on the micro-batch, hardly on the update.
    parser.add_argument("--tokens-per-update", type=int, default=28672)
    parser.add_argument("--precisions", nargs="+", default=["fp32", "fp16"], choices=["fp32", "fp16"])
    parser.add_argument("--max-tokens", nargs="+", default=["auto", "3584"], help="micro-batches: auto or numbers")
    parser.add_argument(
        "--num-workers",
        nargs="+",
        type=int,
        default=[1],
        help="fairseq data-loading workers (1: fairseq's default, which the paper config keeps)",
    )
    parser.add_argument("--updates", type=int, default=60, help="timed updates per configuration")
    parser.add_argument("--warmup", type=int, default=10, help="untimed updates first")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # fairseq logs every model and dataset detail
    warnings.filterwarnings("ignore")
    import torch

    on_gpu = torch.cuda.is_available() and not args.smoke
    options = TRANSFORMER_BASE
    if args.smoke:
        args.sentences, args.vocabulary, args.tokens_per_update = 400, 300, 1024
        args.updates, args.warmup, args.precisions, args.max_tokens = 4, 1, ["fp32"], ["auto", "512"]
        args.num_workers = [0]
        options = TINY
        torch.set_num_threads(1)
    memory = torch.cuda.get_device_properties(0).total_memory / 2**30 if on_gpu else None
    device = f"{torch.cuda.get_device_name(0)} ({memory:.0f} GiB)" if on_gpu else "CPU, 1 thread"
    print(f"device: {device}; model: {options['arch']}{' (tiny)' if args.smoke else ''}")
    print(f"target tokens per update: {args.tokens_per_update}")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        databin = synthetic_corpus(Path(folder), args.sentences, args.vocabulary)
        for precision in args.precisions:
            if precision == "fp16" and not on_gpu:
                print("fp16: skipped (fp16 training needs a GPU)")
                continue
            for max_tokens, workers in itertools.product(args.max_tokens, args.num_workers):
                chosen = max_tokens if max_tokens == "auto" else int(max_tokens)
                plan = plan_batches(args.tokens_per_update, chosen, precision, 1 if on_gpu else 0, memory)
                loading = {**options, "num-workers": workers}
                figures = measure(databin, loading, plan, precision, on_gpu, args.updates, args.warmup)
                results.append((precision, max_tokens, plan, figures))
                peak = f"{figures['peak_gib']:.1f} GiB" if figures["peak_gib"] is not None else "n/a on CPU"
                print(
                    f"{precision} max_tokens {max_tokens} ({plan.max_tokens} x update-freq {plan.update_freq}), "
                    f"{workers} loading worker(s): {figures['tokens_per_s']:.0f} target tokens/s, "
                    f"GPU busy {figures['busy']}, peak GPU memory {peak}, "
                    f"{figures['tokens_per_update']:.0f} target tokens per update"
                )
    if not results:
        raise SystemExit("no configuration could run here")
    precision, max_tokens, plan, best = max(results, key=lambda result: result[3]["tokens_per_s"])
    rate = best["tokens_per_s"]
    print(f"paper-scale estimate at {rate:.0f} target tokens/s ({precision}, max_tokens {max_tokens}), one device:")
    for size, pairs, hours, epochs, model_hours in paper_scale(rate):
        paper = PAPER_MINUTES_PER_EPOCH_32_V100[size] if size in PAPER_MINUTES_PER_EPOCH_32_V100 else math.nan
        print(
            f"  {size}: {pairs:,.0f} pairs, {hours:.2f} hours per epoch, {epochs} epochs, {model_hours:.1f} hours "
            f"per model (paper: {paper} minutes per epoch on 32 V100s)"
        )


if __name__ == "__main__":
    main()
