"""Wall time of one NonCompSST SST-7 fine-tuning (one model, one seed) as the paper runs it:
seconds per epoch, the whole run and peak GPU memory, and what that means for the paper's
models x seeds.

It runs :func:`natcomp.noncompsst.models.train_and_predict`, the code path of the
workflow's ``noncompsst_train`` jobs: the bare encoder with the released code's fresh MLP
head, appendix D's settings read from ``config/paper.yaml`` (``noncompsst.training``:
batch 32, learning rate 5e-6, cosine schedule with 20 % warm-up, 5 epochs, best epoch on
validation), then the test set and the stimuli predicted.

The encoder is ``--model`` (a hub name or local folder), or by default a randomly
initialised *base-size* BERT (12 layers, 768 dimensions, 110M parameters: the size of
roberta-base) built from its config with the shipped all-MiniLM-L6-v2 tokenizer (or
``--tokenizer``), since nothing can be downloaded here. Its F1 is that of an untrained
encoder and means nothing; the timing is what is measured.

Data: the released SST-7 validation and test files (``--sst7``, default
``../shared/data/noncompsst/sst7``) and a training set of ``--train-sentences`` (default
8,544, the size of SST train) drawn with replacement from those sentences, since SST train
is not among the test data here: the time depends on the number and length of the
sentences, which are SST's own.

Usage:
  .venv/bin/python benchmarks/sst7_finetune.py                       # base-size BERT, GPU if present
  .venv/bin/python benchmarks/sst7_finetune.py --model roberta-base  # a real checkpoint, where it is cached
  .venv/bin/python benchmarks/sst7_finetune.py --smoke               # tiny encoder, 1 epoch, CPU: seconds
"""

from __future__ import annotations

import argparse
import logging
import random
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SST_TRAIN_SENTENCES = 8544


def build_encoder(folder: Path, tokenizer_source: str, size: str) -> str:
    """Save a randomly initialised BERT of ``size`` ("base" or "tiny") with the given tokenizer."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_source)
    dims = {
        "base": {},
        "tiny": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64},
    }
    config = BertConfig(vocab_size=tokenizer.vocab_size, **dims[size])
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="hub name or local folder (default: a random base-size BERT)")
    parser.add_argument("--tokenizer", help="tokenizer of the random BERT (default: the shipped all-MiniLM-L6-v2)")
    parser.add_argument("--sst7", type=Path, default=REPO.parent / "shared" / "data" / "noncompsst" / "sst7")
    parser.add_argument("--train-sentences", type=int, default=SST_TRAIN_SENTENCES)
    parser.add_argument("--epochs", type=int, help="default: config/paper.yaml's")
    parser.add_argument("--smoke", action="store_true", help="tiny random encoder, 1 epoch, 200 sentences, CPU")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    import torch

    from natcomp import hf
    from natcomp.noncompsst.models import train_and_predict
    from natcomp.noncompsst.pipeline import fine_tune_settings
    from natcomp.noncompsst.sst7 import read_sst7

    section = dict(yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["noncompsst"]["training"])
    seeds = section.pop("seeds")
    if args.smoke:
        args.train_sentences, args.epochs, section["device"] = 200, 1, "cpu"
        torch.set_num_threads(1)
    if args.epochs:
        section["epochs"] = args.epochs
    settings = fine_tune_settings(section, seeds[0])
    sst7 = {split: read_sst7(args.sst7 / f"{split}.tsv") for split in ("validation", "test")}
    if args.smoke:
        sst7 = {split: rows[:100] for split, rows in sst7.items()}
    pool = sst7["validation"] + sst7["test"]
    sst7["train"] = random.Random(1).choices(pool, k=args.train_sentences)
    on_gpu = torch.cuda.is_available() and section["device"] != "cpu"
    device = torch.cuda.get_device_name(0) if on_gpu else "CPU"
    with tempfile.TemporaryDirectory() as folder:
        if args.model:
            model, what = args.model, args.model
        else:
            size = "tiny" if args.smoke else "base"
            model = build_encoder(Path(folder), args.tokenizer or hf.shipped_model_path("all-MiniLM-L6-v2"), size)
            what = f"random {size}-size BERT"
        print(f"device: {device}; encoder: {what}; settings: {settings}")
        print(f"sentences: train {len(sst7['train'])}, validation {len(sst7['validation'])}, test {len(sst7['test'])}")
        if on_gpu:
            torch.cuda.reset_peak_memory_stats()
        started = time.perf_counter()
        result = train_and_predict(model, sst7, [text for text, _ in sst7["test"][:200]], settings)
        seconds = time.perf_counter() - started
    peak = f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB" if on_gpu else "n/a on CPU"
    print(
        f"one fine-tuning: {seconds:.1f} s for {settings.epochs} epoch(s) ({seconds / settings.epochs:.1f} s per epoch, "
        f"validation, test and stimuli included); peak GPU memory {peak}; test macro-F1 {result.test_f1:.3f}"
    )
    runs = len(seeds) * len(yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["noncompsst"]["models"])
    print(f"paper: {runs} fine-tunings (models x seeds) of this size would take {runs * seconds / 3600:.2f} hours here")


if __name__ == "__main__":
    main()
