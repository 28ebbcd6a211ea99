"""Greedy generation speed of a causal LM: natcomp's batched CausalGenerator against the
same one sentence at a time and against lm-evaluation-harness's Hugging Face backend (HFLM),
on the same tiny model, prompts and CPU thread, and whether their outputs agree.

The model is a tiny GPT-2 (or Llama, --kind llama) built by natcomp.hf.build_tiny_causal_lm
with a tokenizer trained on generated demo sentences (natcomp.mt.demo_corpus), then trained
for --train-epochs (default 3) by natcomp.hf.train_causal_lm on the demo pairs in the
prompt's format, so that it answers with a Dutch line and stops at the newline, as a
translating LLM does: items of one batch then end at different steps, where padding and
stopping bugs show. --train-epochs 0 keeps random weights: every output runs to the token
limit (the slowest case, and the longest outputs to agree on). The prompts are
lm-evaluation-harness's WMT-style completion prompt, "English: {source}\\nDutch:", on held-out
demo sentences; decoding is greedy, stops at the first newline, at most 64 new tokens.

Three runs, each timed over all prompts after an untimed warm-up on the first 8:
  (a) natcomp CausalGenerator.generate, its batches (--batch-size, length-sorted);
  (b) the same generator with batch_size 1 (one sentence at a time);
  (c) lm-eval's HFLM.generate_until on "generate_until" Instances of the same prompts
      (until ["\\n"], do_sample False, max_gen_toks 64), batch_size the same as (a), in the
      venv of tools/bench_lm_eval_venv.sh through the driver benchmarks/lm_eval_generate.py.
Prints sentences/s of each, and how many of the N outputs are identical to (a)'s (the
continuation cut before the newline, not stripped), with the versions used. Without the
lm-eval venv, (c) is reported as not run, with the command that creates it.

Usage: nice .venv/bin/python benchmarks/causal_generation.py [--sentences 300] [--train-epochs 0]
"""

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import sacrebleu
import torch
import transformers

from natcomp import hf
from natcomp.mt.demo_corpus import generate_pairs, split_heldout

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "resources"
LM_EVAL_PYTHON = ROOT / ".venv-lm-eval" / "bin" / "python"
LM_EVAL_SETUP = "bash tools/bench_lm_eval_venv.sh"
PROMPT = "English: {source}\nDutch:"
STOP = "\n"
WARM_UP = 8


def demo_pairs(n_train: int, n_test: int):
    pool = generate_pairs(
        RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv", n_train + n_test, seed=1
    )
    train, (test,) = split_heldout(pool, [n_test])
    return train, test


def build_model(work: Path, kind: str, train, epochs: int) -> tuple[Path, str]:
    """The tiny model folder and how it was made."""
    untrained = hf.build_tiny_causal_lm(work / "untrained", [p.en for p in train] + [p.nl for p in train], kind=kind)
    if epochs == 0:
        return untrained, "random weights"
    settings = hf.CausalTrainingSettings(epochs=epochs, threads=1, device="cpu")
    prompts = [PROMPT.format(source=p.en) for p in train]
    completions = [f" {p.nl}{STOP}" for p in train]
    figures = hf.train_causal_lm(untrained, prompts, completions, settings, work / "trained")
    return work / "trained", f"trained {epochs} epochs on {len(train)} pairs ({figures['seconds']:.0f} s)"


@dataclasses.dataclass(frozen=True)
class Timed:
    seconds: float
    texts: list[str]
    new_tokens: int
    cut_off: int  # outputs that the token limit ended (Generation.finished False)


def timed_generate(generator, prompts: list[str], around=contextlib.nullcontext) -> Timed:
    """CausalGenerator.generate over all prompts, timed (inside the context ``around``, e.g.
    a GPU busy sampler) after an untimed warm-up on the first few."""
    generator.generate(prompts[:WARM_UP])
    with around():
        start = time.perf_counter()
        generations = generator.generate(prompts)
        seconds = time.perf_counter() - start
    best = [candidates[0] for candidates in generations]
    return Timed(seconds, [g.text for g in best], sum(g.new_tokens for g in best), sum(not g.finished for g in best))


def lm_eval_run(python: Path, model: Path, prompts: list[str], batch_size: int, max_new: int, work: Path):
    """(seconds, outputs, versions) of HFLM.generate_until, run in the lm-eval venv."""
    request, answer = work / "lm_eval_request.json", work / "lm_eval_answer.json"
    payload = {
        "model": str(model),
        "prompts": prompts,
        "batch_size": batch_size,
        "max_gen_toks": max_new,
        "until": [STOP],
    }
    request.write_text(json.dumps(payload), encoding="utf-8")
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    environment.pop("PYTHONPATH", None)  # the lm-eval venv's own packages only
    driver = Path(__file__).with_name("lm_eval_generate.py")
    run = subprocess.run([str(python), str(driver), str(request), str(answer)], env=environment, capture_output=True)
    if run.returncode != 0:  # its warnings are noise when it works, the reason when it fails
        sys.exit(f"lm-eval driver failed ({python}):\n{run.stderr.decode(errors='replace')[-3000:]}")
    result = json.loads(answer.read_text(encoding="utf-8"))
    return result["seconds"], result["outputs"], result["versions"]


def git_commit() -> str:
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return run.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=300, help="prompts (held-out demo sentences)")
    parser.add_argument("--train-pairs", type=int, default=4000, help="sentences for the tokenizer (and training)")
    parser.add_argument("--kind", choices=hf.TINY_CAUSAL_KINDS, default="gpt2")
    parser.add_argument("--train-epochs", type=int, default=3, help="0: random weights")
    parser.add_argument("--batch-size", type=int, default=16, help="natcomp's and lm-eval's batch size")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--lm-eval-python", type=Path, default=LM_EVAL_PYTHON, help="python of the lm-eval venv")
    args = parser.parse_args()
    commit = git_commit()  # the code that runs, read before it does
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()

    train, test = demo_pairs(args.train_pairs, args.sentences)
    prompts = [PROMPT.format(source=p.en) for p in test]
    settings = hf.GenerationSettings(
        decoding="greedy",
        max_new_tokens=args.max_new_tokens,
        stop=(STOP,),
        device="cpu",
    )
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        model, made = build_model(work, args.kind, train, args.train_epochs)
        for name, batch_size in ((f"(a) natcomp CausalGenerator, batch {args.batch_size}", args.batch_size),
                                 ("(b) natcomp CausalGenerator, batch 1", 1)):  # fmt: skip
            generator = hf.CausalGenerator(model, dataclasses.replace(settings, batch_size=batch_size), threads=1)
            run = timed_generate(generator, prompts)
            rows.append((name, run.seconds, run.texts, run.new_tokens, run.cut_off))
        lm_eval_versions = None
        if args.lm_eval_python.exists():
            seconds, outputs, lm_eval_versions = lm_eval_run(
                args.lm_eval_python, model, prompts, args.batch_size, args.max_new_tokens, work
            )
            name = f"(c) lm-eval {lm_eval_versions['lm_eval']} HFLM, batch {args.batch_size}"
            rows.append((name, seconds, outputs, None, None))

    print(
        f"{len(prompts)} prompts {PROMPT!r} (greedy, stop at newline, at most"
        f" {args.max_new_tokens} new tokens), tiny {args.kind} ({made}), CPU, 1 thread"
    )
    print("| run | sentences/s | new tokens/s | outputs identical to (a) | cut off by the token limit |")
    print("|---|---|---|---|---|")
    reference = rows[0][2]
    for name, seconds, outputs, tokens, unfinished in rows:
        # lm-eval returns texts only: its token counts and cut-offs are not known
        per_token = f"{tokens / seconds:.0f}" if tokens is not None else "n/a"
        cut_off = unfinished if unfinished is not None else "n/a"
        identical = sum(a == b for a, b in zip(reference, outputs, strict=True))
        print(f"| {name} | {len(prompts) / seconds:.1f} | {per_token} | {identical}/{len(prompts)} | {cut_off} |")
    if lm_eval_versions is None:
        print(f"(c) not run: lm-eval not installed: run {LM_EVAL_SETUP} (creates {LM_EVAL_PYTHON.parents[1].name})")
    all_agree = sum(len({row[2][i] for row in rows}) == 1 for i in range(len(prompts)))
    print(f"identical in all {len(rows)} runs: {all_agree}/{len(prompts)}")
    # what the outputs are worth: a trained model's translate, random weights' do not
    bleu = sacrebleu.corpus_bleu([text.strip() for text in reference], [[p.nl for p in test]]).score
    print(f"BLEU of (a) against the demo references: {bleu:.1f}")
    print(
        f"versions: natcomp {version('natcomp')} (commit {commit}), torch {torch.__version__},"
        f" transformers {version('transformers')}, tokenizers {version('tokenizers')}"
    )
    if lm_eval_versions is not None:
        print("lm-eval venv: " + ", ".join(f"{name} {number}" for name, number in lm_eval_versions.items()))


if __name__ == "__main__":
    main()
