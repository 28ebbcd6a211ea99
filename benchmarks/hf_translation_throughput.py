"""Decode throughput of the Hugging Face path (HFTranslator) against the fairseq path
(natcomp.mt.nmt.Translator) on the same CPU, same sentences, same beam, one thread.

By default both models are trained here for a few epochs on a generated demo corpus
(natcomp.mt.demo_corpus) with the demo's dimensions (2+2 layers, 64 dimensions, 4 heads,
feed-forward 256), and decode held-out demo sentences; give --checkpoint/--databin/--codes
(e.g. results/mt/models/full/seed1/checkpoint_best.pt, results/mt/data-bin/full,
results/mt/corpus/bpe/codes of a finished demo) and/or --hf-model (a save_pretrained folder)
to time existing models, and --sources FILE for other sentences. Prints sentences per
second of each path, their ratio (both limit a translation to 1.2 * source tokens + 10, as
the fairseq path does; --no-hf-length-limit leaves the HF path only its max_new_tokens), the mean output length (a model that writes longer
translations decodes longer) and, for the held-out demo sentences, BLEU against the
references (so the two models' quality can be compared too).

Usage: .venv/bin/python benchmarks/hf_translation_throughput.py [--sentences 500]
"""

import argparse
import inspect
import logging
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import sacrebleu
import torch
import yaml

from natcomp.hf.seq2seq import Seq2SeqTrainingSettings, build_tiny_translation_model, train_translation_model
from natcomp.mt import nmt
from natcomp.mt.demo_corpus import generate_pairs, split_heldout
from natcomp.mt.hf_translation import HFDecodeSettings, HFTranslator
from natcomp.mt.preprocess import apply_bpe_chunk, learn_joint_bpe, tokenise_chunk

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "resources"


def demo_data(n_train: int, n_test: int, seed: int):
    pool = generate_pairs(
        RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv", n_train + n_test, seed
    )
    train, (test,) = split_heldout(pool, [n_test])
    return train, test


def train_fairseq(work: Path, train, valid, epochs: int) -> tuple[Path, Path, Path]:
    """A demo-sized fairseq Transformer (the demo config's options) trained for ``epochs``."""
    for name, pairs in (("train", train), ("valid", valid)):
        for side, lang in ((0, "en"), (1, "nl")):
            (work / f"{name}.raw.{lang}").write_text("".join((p.en, p.nl)[side] + "\n" for p in pairs))
            tokenise_chunk(work / f"{name}.raw.{lang}", work / f"{name}.tok.{lang}", lang)
    learn_joint_bpe([work / "train.tok.en", work / "train.tok.nl"], work / "codes", 1500)
    for name in ("train", "valid"):
        for lang in ("en", "nl"):
            apply_bpe_chunk(work / "codes", work / f"{name}.tok.{lang}", work / f"{name}.bpe.{lang}")
    preprocess = [sys.executable, "-m", "fairseq_cli.preprocess"]  # no reliance on an installed entry point
    subprocess.run(
        [
            *preprocess,
            "--source-lang",
            "en",
            "--target-lang",
            "nl",
            "--trainpref",
            str(work / "train.bpe"),
            "--validpref",
            str(work / "valid.bpe"),
            "--destdir",
            str(work / "bin"),
            "--joined-dictionary",
            "--workers",
            "1",
        ],
        check=True,
        capture_output=True,
    )
    options = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["mt"]["train"]["fairseq"]
    # The demo's batch: 2048 target tokens per update (its config leaves the split into
    # micro-batches to the hardware; here one micro-batch per update).
    options = {**options, "max-epoch": epochs, "patience": -1, "max-tokens": 2048, "update-freq": 1}
    nmt.train(
        work / "bin",
        work / "fairseq",
        work / "best.pt",
        work / "epochs.tsv",
        [],
        options,
        seed=1,
        source_lang="en",
        target_lang="nl",
        threads=1,
    )
    return work / "best.pt", work / "bin", work / "codes"


def train_hf(work: Path, train, epochs: int) -> Path:
    """A tiny Marian of the demo's dimensions, trained for ``epochs``."""
    english, dutch = [p.en for p in train], [p.nl for p in train]
    initial = build_tiny_translation_model(
        work / "marian_init",
        english,
        dutch,
        family="marian",
        vocab_size=1000,
        d_model=64,
        layers=2,
        heads=4,
        ffn_dim=256,
    )
    settings = Seq2SeqTrainingSettings(epochs=epochs, batch_size=64, learning_rate=3e-3, warmup_steps=100, threads=1)
    figures = train_translation_model(initial, english, dutch, settings, work / "marian")
    print(f"tiny Marian: {epochs} epochs in {figures['seconds']:.0f} s, train loss {figures['train_loss']:.2f}")
    return work / "marian"


def timed(translate, sentences) -> tuple[float, list[str]]:
    translate(sentences[:8])  # warm-up: first-call allocations and lazy imports
    start = time.perf_counter()
    translations = translate(sentences)
    return len(sentences) / (time.perf_counter() - start), translations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=500, help="source sentences to decode")
    parser.add_argument("--sources", type=Path, help="decode these sentences (one a line) instead of demo ones")
    parser.add_argument("--checkpoint", type=Path, help="fairseq checkpoint (with --databin and --codes)")
    parser.add_argument("--databin", type=Path)
    parser.add_argument("--codes", type=Path)
    parser.add_argument("--hf-model", type=Path, help="a Marian save_pretrained folder instead of training one")
    parser.add_argument("--fairseq-epochs", type=int, default=6)
    parser.add_argument("--hf-epochs", type=int, default=4)
    parser.add_argument("--train-pairs", type=int, default=8000)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64, help="HF: sentences per batch")
    parser.add_argument("--max-tokens", type=int, default=4096, help="fairseq: source tokens per batch")
    parser.add_argument("--max-len-a", type=float, default=1.2, help="both: translations end at a * source + b")
    parser.add_argument("--max-len-b", type=int, default=10)
    parser.add_argument("--no-hf-length-limit", action="store_true", help="HF: only max_new_tokens (256) limits")
    args = parser.parse_args()
    if args.checkpoint and not (args.databin and args.codes):
        parser.error("--checkpoint needs --databin and --codes")
    logging.disable(logging.INFO)  # fairseq logs every batch
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)

    train, test = demo_data(args.train_pairs, max(args.sentences, 300), seed=1)
    references = None
    if args.sources:
        sentences = [line.rstrip("\n") for line in args.sources.read_text(encoding="utf-8").splitlines()]
        sentences = sentences[: args.sentences]
    else:
        sentences, references = [p.en for p in test[: args.sentences]], [p.nl for p in test[: args.sentences]]

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        if args.checkpoint:
            checkpoint, databin, codes = args.checkpoint, args.databin, args.codes
        else:
            start = time.perf_counter()
            checkpoint, databin, codes = train_fairseq(work, train, test[-300:], args.fairseq_epochs)
            print(f"fairseq: {args.fairseq_epochs} epochs in {time.perf_counter() - start:.0f} s (with preprocessing)")
        hf_model = args.hf_model or train_hf(work, train, args.hf_epochs)

        options = {
            "beam": args.beam,
            "max_tokens": args.max_tokens,
            "threads": 1,
            "max_len_a": args.max_len_a,
            "max_len_b": args.max_len_b,
        }
        if "prepare_workers" in inspect.signature(nmt.Translator).parameters:
            options["prepare_workers"] = 0  # one process for both paths
        fairseq_translator = nmt.Translator(checkpoint, databin, codes, "en", "nl", **options)
        hf_translator = HFTranslator(
            hf_model,
            source_lang="en",
            target_lang="nl",
            settings=HFDecodeSettings(
                beam=args.beam,
                batch_size=args.batch_size,
                device="cpu",
                max_len_a=None if args.no_hf_length_limit else args.max_len_a,
                max_len_b=args.max_len_b,
            ),
            threads=1,
        )
        results = {
            "fairseq (nmt.Translator)": timed(fairseq_translator.translate, sentences),
            f"Hugging Face ({hf_translator.family}, HFTranslator)": timed(hf_translator.translate, sentences),
        }

    print(
        f"{len(sentences)} sentences, beam {args.beam}, 1 CPU thread ({torch.__version__}); HF: {hf_translator.signature}"
    )
    for name, (rate, translations) in results.items():
        words = sum(len(t.split()) for t in translations) / len(translations)
        bleu = f", BLEU {sacrebleu.corpus_bleu(translations, [references]).score:.1f}" if references else ""
        print(f"{name}: {rate:.1f} sentences/s, {words:.1f} words per translation{bleu}")
    (fairseq_rate, _), (hf_rate, _) = results.values()
    print(f"HF / fairseq: {hf_rate / fairseq_rate:.2f}x")


if __name__ == "__main__":
    main()
