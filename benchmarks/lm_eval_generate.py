"""Greedy generation through lm-evaluation-harness's Hugging Face backend, timed: the lm-eval
side of benchmarks/causal_generation.py, run by it in the lm-eval venv
(tools/bench_lm_eval_venv.sh), since lm-eval is not a natcomp dependency. Imports lm_eval
and torch only, no natcomp.

Reads a JSON request ({"model", "prompts", "batch_size", "max_gen_toks", "until"}) from the
file given as the first argument, builds HFLM on CPU in fp32 with one thread, sends every
prompt as a "generate_until" Instance (greedy, the given stop strings and token limit) to
HFLM.generate_until, and writes a JSON answer ({"outputs", "seconds", "versions"}) to the
file given as the second argument. As natcomp's side, the first 8 prompts are generated
once untimed (first-call allocations), then all prompts are timed in one call.

Usage: .venv-lm-eval/bin/python benchmarks/lm_eval_generate.py REQUEST.json ANSWER.json
"""

import json
import os
import sys
import time
from importlib.metadata import version

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local model folder; never reach a hub
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import transformers  # noqa: E402
from lm_eval.api.instance import Instance  # noqa: E402
from lm_eval.models.huggingface import HFLM  # noqa: E402


def generate(model: HFLM, prompts: list[str], options: dict) -> list[str]:
    requests = [
        Instance(request_type="generate_until", doc={}, arguments=(prompt, options), idx=index)
        for index, prompt in enumerate(prompts)
    ]
    return model.generate_until(requests, disable_tqdm=True)


def main() -> None:
    request_path, answer_path = sys.argv[1:3]
    with open(request_path, encoding="utf-8") as stream:
        request = json.load(stream)
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    model = HFLM(
        pretrained=request["model"], backend="causal", device="cpu", dtype="float32", batch_size=request["batch_size"]
    )
    options = {"until": request["until"], "do_sample": False, "max_gen_toks": request["max_gen_toks"]}
    prompts = request["prompts"]
    generate(model, prompts[:8], options)  # warm-up, as on natcomp's side
    start = time.perf_counter()
    outputs = generate(model, prompts, options)
    seconds = time.perf_counter() - start
    versions = {name: version(name) for name in ("lm_eval", "torch", "transformers", "tokenizers")}
    with open(answer_path, "w", encoding="utf-8") as stream:
        json.dump({"outputs": outputs, "seconds": seconds, "versions": versions}, stream)


if __name__ == "__main__":
    main()
