"""Translation throughput of the batched path versus a per-sentence loop, same model.

Uses a demo model (run `make demo` first, or pass --workdir of a finished demo run) and
the demo's synthetic overgeneralisation items as input. Prints sentences per second for
both paths, the speed-up, and what the batched rate means for the paper-scale decode
count (see benchmarks/decode_counts.py) -- for this tiny model on one CPU core, which is
a lower bound on the work, not a forecast for Transformer-base on a GPU.

Usage: .venv/bin/python benchmarks/translation_throughput.py [--workdir .] [--sentences 1000]
"""

import argparse
import logging
import time
import warnings
from pathlib import Path

from natcomp.mt.nmt import Translator
from natcomp.mt.translation_cache import set_sources

PAPER_DECODES = 19_975_560  # benchmarks/decode_counts.py on config/paper.yaml, natural sets excluded


def rate(translate, sentences) -> float:
    start = time.perf_counter()
    translate(sentences)
    return len(sentences) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=".")
    parser.add_argument("--size", default="full")
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--loop-sentences", type=int, default=150)
    parser.add_argument("--max-tokens", type=int, default=4096)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # fairseq logs every batch
    warnings.filterwarnings("ignore")
    root = Path(args.workdir) / "results" / "mt"
    checkpoint = root / "models" / args.size / "seed1" / "checkpoint_best.pt"
    if not checkpoint.exists():
        raise SystemExit(f"{checkpoint} not found: run `make demo` first or pass --workdir")
    translator = Translator(
        checkpoint,
        root / "data-bin" / args.size,
        root / "corpus" / "bpe" / "codes",
        "en",
        "nl",
        max_tokens=args.max_tokens,
        threads=1,
    )
    sentences = list(dict.fromkeys(set_sources(root / "items" / "overgeneralisation" / "synthetic.tsv")))
    batched = rate(translator.translate, sentences[: args.sentences])
    looped = rate(lambda ss: [translator.translate([s]) for s in ss], sentences[: args.loop_sentences])
    print(f"batched ({args.max_tokens} tokens per batch): {batched:.0f} sentences/s on 1 core")
    print(f"per-sentence loop: {looped:.0f} sentences/s")
    print(f"speed-up: {batched / looped:.1f}x")
    print(
        f"paper-scale decodes ({PAPER_DECODES:,}, natural sets excluded) at the batched rate of this tiny model: "
        f"{PAPER_DECODES / batched / 3600:.1f} core-hours"
    )


if __name__ == "__main__":
    main()
