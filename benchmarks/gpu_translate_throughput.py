"""Decoding throughput of natcomp's translator: sentences per second and GPU busy share
of the batched translator (length-sorted chunks, sources prepared in a worker process
while the model decodes) against the one-sentence-at-a-time loop, same model and
sentences, and what the batched rate means for a paper-scale model's decodes.

Give a trained model (``--checkpoint``, ``--databin``, ``--codes``, e.g. a paper run's
``results/mt/models/full/seed1/checkpoint_best.pt``, ``results/mt/data-bin/full``,
``results/mt/corpus/bpe/codes``) and sources (``--sources``, one sentence a line).
Without them the benchmark trains its own model first, through natcomp's training path,
on a generated word-for-word "translation" corpus of paper-like lengths (it learns to
stop at the right length within a few hundred updates, so beam search does the work a
trained model's does): Transformer-base on a GPU, a tiny model on CPU (``--smoke``).

The GPU busy share is the mean of ``torch.cuda.utilization()`` (NVML) sampled every
0.1 s while the batched translator runs; "n/a" on CPU or without NVML. The estimate
assumes 2.8 million decoded sentences per paper-scale model (systematicity,
substitutivity and overgeneralisation over 10 checkpoints, issue 15) and 15 models.

Usage:
  .venv/bin/python benchmarks/gpu_translate_throughput.py                  # trains a model, GPU if present
  .venv/bin/python benchmarks/gpu_translate_throughput.py --checkpoint ... --databin ... --codes ... --sources ...
  .venv/bin/python benchmarks/gpu_translate_throughput.py --smoke          # tiny model on CPU (the tests)
"""

from __future__ import annotations

import argparse
import itertools
import logging
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from gpu_busy import BusySampler

from natcomp.mt.nmt import Translator, train
from natcomp.mt.preprocess import apply_bpe_chunk, learn_joint_bpe, tokenise_chunk

SENTENCES_PER_MODEL = 2_800_000
PAPER_MODELS = 15
TOKENS_PER_SIDE = 15

TRANSFORMER_BASE = {
    "arch": "transformer_wmt_en_de",
    "share-all-embeddings": True,
    "optimizer": "adam",
    "adam-betas": "(0.9, 0.98)",
    "lr": 0.0007,
    "lr-scheduler": "inverse_sqrt",
    "warmup-updates": 200,
    "dropout": 0.1,
    "criterion": "label_smoothed_cross_entropy",
    "label-smoothing": 0.1,
    "num-workers": 4,  # data loading off the training loop: 135k -> 253k target tokens/s on an H100
    "no-progress-bar": True,
}
TINY = {
    **TRANSFORMER_BASE,
    "arch": "transformer",
    "encoder-layers": 1,
    "decoder-layers": 1,
    "encoder-embed-dim": 64,
    "decoder-embed-dim": 64,
    "encoder-ffn-embed-dim": 128,
    "decoder-ffn-embed-dim": 128,
    "encoder-attention-heads": 2,
    "decoder-attention-heads": 2,
    "lr": 0.005,
    "warmup-updates": 30,
    "num-workers": 0,
}


def word_pairs(types: int, seed: int) -> list[tuple[str, str]]:
    """``types`` pseudo-words and their fixed "translations" (syllable strings, so that
    BPE has something to merge)."""
    rng = random.Random(seed)
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words = set()
    while len(words) < types:
        words.add("".join(rng.choices(syllables, k=rng.randint(1, 3))))
    source = sorted(words)
    target = source[:]
    rng.shuffle(target)
    return list(zip(source, target))


def toy_corpus(folder: Path, pairs: int, types: int, merges: int, seed: int = 1) -> tuple[Path, Path, list[str]]:
    """A word-for-word corpus (``en`` -> ``nl``), BPE codes and a data-bin; returns
    (data-bin, codes, held-out source sentences)."""
    rng = random.Random(seed)
    lexicon = word_pairs(types, seed)
    splits = {"train": pairs, "valid": max(20, pairs // 100), "test": max(2000, pairs // 20)}
    for split, count in splits.items():
        rows = []
        for _ in range(count):
            words = rng.choices(lexicon, k=max(1, min(60, round(rng.gauss(TOKENS_PER_SIDE, 5)))))
            rows.append(
                (" ".join(w for w, _ in words).capitalize() + ".", " ".join(t for _, t in words).capitalize() + ".")
            )
        for side, lang in enumerate(("en", "nl")):
            (folder / f"{split}.raw.{lang}").write_text("".join(row[side] + "\n" for row in rows))
            tokenise_chunk(folder / f"{split}.raw.{lang}", folder / f"{split}.tok.{lang}", lang)
    learn_joint_bpe([folder / "train.tok.en", folder / "train.tok.nl"], folder / "codes", merges)
    for split in ("train", "valid"):
        for lang in ("en", "nl"):
            apply_bpe_chunk(folder / "codes", folder / f"{split}.tok.{lang}", folder / f"{split}.bpe.{lang}")
    preprocess = [sys.executable, "-m", "fairseq_cli.preprocess"]  # no reliance on an installed entry point
    command = [*preprocess, "--source-lang", "en", "--target-lang", "nl", "--joined-dictionary", "--workers", "4"]
    command += ["--trainpref", str(folder / "train.bpe"), "--validpref", str(folder / "valid.bpe")]
    subprocess.run([*command, "--destdir", str(folder / "bin")], check=True, capture_output=True)
    return folder / "bin", folder / "codes", (folder / "test.raw.en").read_text().splitlines()


def rate(translate, sentences) -> float:
    start = time.perf_counter()
    translate(sentences)
    return len(sentences) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny model and few sentences on CPU: seconds")
    parser.add_argument("--checkpoint", type=Path)
    parser.add_argument("--databin", type=Path)
    parser.add_argument("--codes", type=Path)
    parser.add_argument("--sources", type=Path, help="source sentences, one a line (default: generated)")
    parser.add_argument("--source-lang", default="en")
    parser.add_argument("--target-lang", default="nl")
    parser.add_argument("--sentences", type=int, default=20000, help="sentences for the batched translator")
    parser.add_argument("--loop-sentences", type=int, default=200, help="sentences for the one-at-a-time loop")
    parser.add_argument("--max-tokens", nargs="+", default=["auto"], help="decoding batch sizes to compare")
    parser.add_argument("--precisions", nargs="+", default=["fp32"], choices=["fp32", "fp16"])
    parser.add_argument("--pairs", type=int, default=200_000, help="training pairs of the generated model")
    parser.add_argument("--train-updates", type=int, default=1500, help="updates of the generated model")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    import torch

    on_gpu = torch.cuda.is_available() and not args.smoke
    if args.smoke:
        args.sentences, args.loop_sentences = 300, 20
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        sources = args.sources.read_text().splitlines() if args.sources else None
        if args.checkpoint is None:
            pairs, types, merges = (2000, 60, 60) if args.smoke else (args.pairs, 20_000, 8000)
            databin, codes, generated = toy_corpus(folder, pairs, types, merges)
            args.databin, args.codes, sources = databin, codes, sources or generated
            checkpoint = folder / "model" / "best.pt"
            train(
                databin, folder / "work", checkpoint, folder / "model" / "epochs.tsv", [],
                {**(TINY if args.smoke else TRANSFORMER_BASE), **({"max-epoch": 3} if args.smoke else
                                                                  {"max-update": args.train_updates})},
                seed=1, source_lang=args.source_lang, target_lang=args.target_lang, threads=1,
                tokens_per_update=2048 if args.smoke else 28672, precision="fp16" if on_gpu else "fp32",
                gpus=1 if on_gpu else 0,
            )  # fmt: skip
            args.checkpoint = checkpoint
        if sources is None:
            raise SystemExit("--sources is needed with --checkpoint")
        sources, translator = list(dict.fromkeys(sources)), None
        if len(sources) < args.sentences:
            sources = (sources * (args.sentences // len(sources) + 1))[: args.sentences]
        device = torch.cuda.get_device_name(0) if on_gpu else "CPU, 1 thread"
        batch = list(dict.fromkeys(sources[: args.sentences]))
        print(f"device: {device}")
        batched = 0.0
        for precision, max_tokens in itertools.product(args.precisions, args.max_tokens):
            if translator is not None:
                translator.close()
            common = dict(max_tokens=max_tokens, threads=1, precision=precision)
            translator = Translator(
                args.checkpoint, args.databin, args.codes, args.source_lang, args.target_lang, **common
            )
            translator.translate(sources[:50])  # warm-up (CUDA kernels, workers)
            with BusySampler() as busy:
                measured = rate(translator.translate, batch)
            batched = max(batched, measured)
            print(
                f"batched ({translator.prepare_workers} preparing worker(s)): {measured:.0f} sentences/s "
                f"({len(batch)} sentences; {translator.precision}, beam {translator.beam}, "
                f"{translator.max_tokens} source tokens per batch), GPU busy {busy.share()}"
            )
        translator.close()  # the loop as before: each sentence prepared in this process
        with BusySampler() as busy:
            looped = rate(lambda ss: [translator.translate([s]) for s in ss], batch[: args.loop_sentences])
        print(f"one sentence at a time: {looped:.1f} sentences/s ({args.loop_sentences} sentences), "
              f"GPU busy {busy.share()}")  # fmt: skip
        print(f"speed-up: {batched / looped:.1f}x")
        minutes = SENTENCES_PER_MODEL / batched / 60
        print(f"paper-scale estimate at {batched:.0f} sentences/s: {minutes:.1f} minutes for one model's "
              f"{SENTENCES_PER_MODEL:,} decodes, {minutes * PAPER_MODELS / 60:.1f} hours for {PAPER_MODELS} models")  # fmt: skip


if __name__ == "__main__":
    main()
