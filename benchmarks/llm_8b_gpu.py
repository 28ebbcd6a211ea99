"""An 8B-shaped Llama on one GPU (issue 43, point 5): peak GPU memory and time of one PLANE
fine-tuning step, one NonCompSST head step and prompted MT generation, each below 80 GB?

The model has Llama-3.1-8B's shape (natcomp.hf.tiny_architectures.REAL_SHAPES: hidden 4096,
32 layers, 32 heads, 8 key-value heads, feed-forward 14336, vocabulary 128,256, Llama 3.1's
RoPE) with random weights made on the GPU in bf16 (nothing is downloaded, nothing is built
in fp32 on the CPU); its tokenizer is a small byte-level BPE of Llama 3's kind trained on
generated demo sentences (real_shape_model, which also saves the config the steps read).
Each step frees the model of the one before (del, gc, torch.cuda.empty_cache), and the GPU's
peak memory counters are reset before its model is built, so a step's peak holds its weights.

1. PLANE fine-tuning step: LlamaForSequenceClassification (2 labels, the tokenizer's pad
   token) trained by natcomp.hf.fine_tune_classifier itself, 1 epoch on exactly one batch:
   config/paper.yaml's plane.finetune.training (batch 16, max_length 12, its fine_tuning
   ``auto``, decided by the 8B config as the workflow decides it: LoRA r=16 on q,k,v,o at
   2e-4, no gradient checkpointing), the frozen base in bf16 (hf.training_load_dtype),
   adapters and head in fp32, bf16 autocast: the path PLANE's fine-tuning takes
   (natcomp.plane.finetune.fine_tune_and_test). The texts are PLANE items, "A {adj} {noun}
   is a {hypernym}".
2. NonCompSST head step: the bare LlamaModel (AutoModel, as load_sentiment_head_classifier
   loads it) under the released MLP head on the last real token
   (natcomp.noncompsst.head.SentimentHeadClassifier, 7 classes), one step of
   fine_tune_classifier at noncompsst.training's settings (batch 32, max_length 128, LoRA as
   above; natcomp.noncompsst.pipeline.fine_tune_settings, with select_best off since one
   step has no validation epoch to choose). The texts are demo sentences joined until each is
   cut at 128 tokens: the batch is the longest the paper's settings allow.

Each training step is one update at the step's full learning rate: the warm-up is left out
(warmup_ratio 0; the paper's NonCompSST warm-up of 20% would make the only step's rate 0),
and the figures say that the adapters moved (LoRA's B starts at zero) and what natcomp's job
size estimated for the step (natcomp.jobsize, the activations natcomp.model_description
counts), beside the measured peak.
3. Prompted MT generation: natcomp.hf.CausalGenerator on 256 prompts "English: {source}
   \\nDutch:" (causal_generation.py's demo_pairs and PROMPT) at batch 64, greedy, at most 48
   new tokens, bf16 (precision auto: the checkpoint's). The LlamaForCausalLM is saved to a
   scratch folder and loaded from it, as a job loads a model; its output layer has the
   tokenizer's few hundred ids, not 128,256, so that every token written is text (as
   batch_invariance_gpu.py does): about 7.0B parameters instead of 8.0B. Random weights
   almost never write the end-of-text token or a newline, so nearly every output runs to the
   48-token bound: new tokens/s is the comparable figure. Timed after an untimed warm-up on
   the first 8 prompts (causal_generation.timed_generate). Beside it, where ``import lm_eval``
   works, lm-evaluation-harness's HF back end (HFLM.generate_until, until newline, greedy,
   the same token bound and batch size) on the same model object and prompts; where it does
   not, one line says it was skipped.

Prints a table (step, peak GB, seconds, throughput) and per step "below 80 GB: yes/no"; the
peak judged is torch.cuda.max_memory_reserved (what the allocator took from the card; the
allocated peak beside it), in GB of 1e9 bytes. --json OUT writes the figures. Exit code 0.

Device time (estimated, not measured: no GPU was lent when it was written): start-up and
imports 15 s; each 8B model made on the GPU in seconds (three); the two training steps a few
seconds each with their first-call CUDA costs; the generation model saved (14 GB) and loaded
about 1-2 minutes together; generation 4 batches x 48 steps, some 10-30 s; about 3-5 minutes
in all on an H100, under the 10 minutes the issue allows.

Without CUDA it stops with a message; --tiny runs all three steps on the CPU in fp32 with a
tiny config of the same architecture (hidden 64, 2 layers), few prompts and small batches,
in seconds; its "peak" is the process's peak resident host memory during the step.

Usage:
  .venv/bin/python benchmarks/llm_8b_gpu.py [--json OUT.json]         # on a GPU machine
  .venv/bin/python benchmarks/llm_8b_gpu.py --tiny [--json OUT.json]  # CPU dry run
It needs natcomp and its dependencies with peft (where natcomp is not installed:
PYTHONPATH=src); natcomp.noncompsst.pipeline brings krippendorff, natcomp.hf jsonschema.
"""

import argparse
import copy
import dataclasses
import gc
import json
import logging
import resource
import sys
import tempfile
import time
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import torch
import transformers
import yaml
from causal_generation import PROMPT, STOP, WARM_UP, demo_pairs, timed_generate

from natcomp import hf, jobsize
from natcomp.finetuning import family_key, family_training
from natcomp.hf.precision import TORCH_DTYPES
from natcomp.model_description import ModelDescription, activation_bytes
from natcomp.hf.tiny_architectures import REAL_SHAPES, real_shape_model
from natcomp.noncompsst.head import SentimentHeadClassifier
from natcomp.noncompsst.pipeline import fine_tune_settings as noncompsst_settings
from natcomp.plane.items import sentence

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "config" / "paper.yaml"
SHAPE = "Llama-3.1-8B"
LIMIT_GB = 80.0
GB = 1e9
# --tiny: Llama 3's architecture (its RoPE, grouped key-value heads, untied output layer), small
TINY_SIZES = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
)
# PLANE-like items: adjective, noun, hypernym
PLANE_WORDS = [
    ("red", "car", "vehicle"),
    ("fake", "gun", "weapon"),
    ("former", "president", "person"),
    ("small", "dog", "animal"),
    ("alleged", "thief", "criminal"),
    ("wooden", "chair", "furniture"),
    ("counterfeit", "banknote", "currency"),
    ("old", "violin", "instrument"),
]


class Memory:
    """A step's peak memory: on a GPU the allocator's peaks (torch.cuda counters, reset per
    step); on the CPU the process's peak resident memory (VmHWM, reset through
    /proc/self/clear_refs where the kernel allows it, else the peak since the start)."""

    def __init__(self, on_gpu: bool):
        self.on_gpu = on_gpu
        self.since_start = False

    def reset(self) -> float:
        """Reset the peak; returns the memory in use now, GB."""
        gc.collect()
        if self.on_gpu:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            return torch.cuda.memory_allocated() / GB
        try:
            Path("/proc/self/clear_refs").write_text("5")  # resets the peak resident set (Linux)
        except OSError:
            self.since_start = True
        return self._status("VmRSS") or 0.0

    def peak(self) -> dict:
        if self.on_gpu:
            torch.cuda.synchronize()
            allocated, reserved = torch.cuda.max_memory_allocated() / GB, torch.cuda.max_memory_reserved() / GB
            return {"peak_gb": reserved, "peak_allocated_gb": allocated, "peak_reserved_gb": reserved}
        host = self._status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GB
        return {"peak_gb": host, "peak_host_gb": host, "peak_since_start": self.since_start}

    @staticmethod
    def _status(field: str) -> float | None:
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) * 1024 / GB
        except OSError:
            pass
        return None


def build(model_class, config, dtype: torch.dtype, device: str, seed: int):
    """A ``model_class`` of ``config`` with seeded random weights made on ``device`` in ``dtype``
    (an 8B model in bf16 on the GPU: seconds, and never 32 GB of fp32 on the CPU)."""
    transformers.set_seed(seed)
    with torch.device(device):
        return model_class._from_config(config, dtype=dtype)


def paper_section(*path: str) -> dict:
    section = yaml.safe_load(PAPER.read_text(encoding="utf-8"))
    for part in path:
        section = section[part]
    return dict(section)


def sync(on_gpu: bool) -> None:
    if on_gpu:
        torch.cuda.synchronize()


def trainable(model) -> int:
    return sum(parameter.numel() for parameter in model.parameters() if parameter.requires_grad)


def frozen_dtype(model) -> str:
    """The dtype the frozen weights were trained in, read from the model."""
    names = {dtype: name for name, dtype in TORCH_DTYPES.items()}
    return names[next(parameter.dtype for parameter in model.parameters() if not parameter.requires_grad)]


def estimated(folder: Path, rule: str, family: str, settings) -> dict:
    """What natcomp's job size (natcomp.jobsize) asks for the step's job on 80 GB GPUs, and the
    activations natcomp.model_description counts for its batch, in GB."""
    described = ModelDescription.read(folder)
    paper = yaml.safe_load(PAPER.read_text(encoding="utf-8"))
    size = jobsize.size_job(rule, described, fine_tuning=family_training(paper, family))
    tokens = settings.batch_size * settings.max_length
    checkpointing = bool(settings.fine_tuning.gradient_checkpointing)
    return {
        "estimated_gpu_gb": size.gpu_bytes / GB,
        "estimated_activations_gb": activation_bytes(described.config, tokens, checkpointing) / GB,
    }


def timed_step(step: str, family: str, model, tokenizer, texts, labels, settings, device: str, memory: Memory) -> dict:
    """One epoch of ``fine_tune_classifier`` on one batch (``settings`` of ``family``): its
    time, peak memory, method and loss, and whether the update moved the adapters."""
    start = time.perf_counter()
    result = hf.fine_tune_classifier(
        model, tokenizer, texts, labels, settings=settings, fine_tuning_key=family_key(family)
    )
    sync(device == "cuda")
    seconds = time.perf_counter() - start
    adapters = [parameter for name, parameter in model.named_parameters() if "lora_B" in name]
    return {
        "step": step,
        **memory.peak(),
        "seconds": seconds,
        "items_per_second": len(texts) / seconds,
        "batch_size": settings.batch_size,
        "max_length": settings.max_length,
        "fine_tuning": result.fine_tuning,
        "frozen_dtype": frozen_dtype(model),
        "parameters": sum(parameter.numel() for parameter in model.parameters()),
        "trainable": trainable(model),
        "train_loss": result.history[0]["train_loss"],
        "warmup_ratio": settings.warmup_ratio,
        # LoRA's B starts at zero: a nonzero B after the one step is an update that happened
        "adapters_moved": bool(adapters) and any(bool(parameter.detach().abs().sum() > 0) for parameter in adapters),
    }


def plane_step(folder: Path, config, tokenizer, device: str, memory: Memory) -> dict:
    """One PLANE fine-tuning step through fine_tune_classifier, as fine_tune_and_test runs it."""
    key = "plane.finetune.training"
    settings = hf.FineTuneSettings.from_config(paper_section("plane", "finetune", "training"), key)
    # one update at the full rate: no warm-up (plane's is 0 already)
    settings = dataclasses.replace(settings, epochs=1, device=device, warmup_ratio=0.0).for_model(folder)
    dtype = hf.training_load_dtype(folder, settings.fine_tuning, hf.device(device))
    before = memory.reset()
    start = time.perf_counter()
    classifier_config = copy.deepcopy(config)
    classifier_config.num_labels, classifier_config.pad_token_id = 2, tokenizer.pad_token_id
    model = build(transformers.LlamaForSequenceClassification, classifier_config, TORCH_DTYPES[dtype], device, 42)
    built = time.perf_counter() - start
    texts = [sentence(*PLANE_WORDS[i % len(PLANE_WORDS)]) for i in range(settings.batch_size)]
    labels = [i % 2 for i in range(settings.batch_size)]
    tokens = hf.tokenize(tokenizer, texts, settings.max_length)["input_ids"].shape[1]
    figures = timed_step("PLANE fine-tuning step", "plane", model, tokenizer, texts, labels, settings, device, memory)
    del model
    figures.update(estimated(folder, "plane_finetune", "plane", settings))
    return {**figures, "build_seconds": built, "tokens": tokens, "in_use_before_gb": before}


def noncompsst_step(folder: Path, config, tokenizer, sentences: list[str], device: str, memory: Memory) -> dict:
    """One NonCompSST SST-7 step: the released head on the bare model's last real token."""
    settings = noncompsst_settings(paper_section("noncompsst", "training"), seed=1)
    # one update at the full rate: the paper's 20% warm-up of a one-step run is that step, at rate 0
    settings = dataclasses.replace(settings, epochs=1, device=device, select_best=False, warmup_ratio=0.0)
    settings = settings.for_model(folder)
    dtype = hf.training_load_dtype(folder, settings.fine_tuning, hf.device(device))
    # demo sentences joined until each text is cut at max_length: the longest batch there is
    texts, index = [], 0
    for _ in range(settings.batch_size):
        words = []
        while len(words) < 2 * settings.max_length:
            words += sentences[index % len(sentences)].split()
            index += 1
        texts.append(" ".join(words))
    labels = [i % 7 for i in range(settings.batch_size)]
    tokens = hf.tokenize(tokenizer, texts, settings.max_length)["input_ids"].shape[1]
    before = memory.reset()
    start = time.perf_counter()
    encoder = build(transformers.LlamaModel, config, TORCH_DTYPES[dtype], device, settings.seed).eval()
    transformers.set_seed(settings.seed)
    model = SentimentHeadClassifier(encoder, 7)  # the head in fp32, on the CPU until placed for training
    built = time.perf_counter() - start
    figures = timed_step(
        "NonCompSST head step", "noncompsst", model, tokenizer, texts, labels, settings, device, memory
    )
    figures.update(pooling=model.pooling, build_seconds=built, tokens=tokens, in_use_before_gb=before)
    figures.update(estimated(folder, "noncompsst_train", "noncompsst", settings))
    del model, encoder
    return figures


def lm_eval_generate(model, tokenizer, prompts: list[str], batch_size: int, max_new_tokens: int, on_gpu: bool):
    """(figures, None) of lm-evaluation-harness's HFLM.generate_until on the same model object
    and prompts, or (None, why it was not run)."""
    try:
        from lm_eval.api.instance import Instance
        from lm_eval.models.huggingface import HFLM
    except ImportError:
        return None, "lm-evaluation-harness is not installed (import lm_eval failed): its HF back end was skipped"
    try:
        lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size)
        options = {"until": [STOP], "do_sample": False, "max_gen_toks": max_new_tokens}

        def generate(subset: list[str]) -> list[str]:
            requests = [
                Instance(request_type="generate_until", doc={}, arguments=(prompt, options), idx=index)
                for index, prompt in enumerate(subset)
            ]
            return lm.generate_until(requests, disable_tqdm=True)

        generate(prompts[:WARM_UP])  # warm-up, as on natcomp's side
        sync(on_gpu)
        start = time.perf_counter()
        outputs = generate(prompts)
        sync(on_gpu)
        seconds = time.perf_counter() - start
    except Exception as error:  # report it beside natcomp's figures, which stand on their own
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, f"lm-evaluation-harness's HFLM failed: {type(error).__name__}: {first}"
    # lm-eval returns texts: their tokens counted again (a text re-tokenised may differ by a token or so)
    tokens = sum(len(ids) for ids in tokenizer(outputs, add_special_tokens=False)["input_ids"])
    return {
        "lm_eval": version("lm_eval"),
        "seconds": seconds,
        "sentences_per_second": len(prompts) / seconds,
        "new_tokens_per_second_retokenised": tokens / seconds,
    }, None


def generation_step(scratch: Path, config, tokenizer, prompts, args, on_gpu: bool, memory: Memory) -> dict:
    """Save a LlamaForCausalLM of the tokenizer's vocabulary, then CausalGenerator loads and runs it."""
    device = "cuda" if on_gpu else "cpu"
    vocabulary = max(len(tokenizer), max(tokenizer.get_vocab().values()) + 1)
    generation_config = copy.deepcopy(config)
    generation_config.vocab_size = vocabulary
    memory.reset()
    start = time.perf_counter()
    dtype = torch.bfloat16 if on_gpu else torch.float32
    model = build(transformers.LlamaForCausalLM, generation_config, dtype, device, 1)
    parameters = sum(parameter.numel() for parameter in model.parameters())
    folder = hf.save_model(model, tokenizer, scratch / "generation")
    del model
    saved = time.perf_counter() - start
    settings = hf.GenerationSettings(
        decoding="greedy",
        max_new_tokens=args.max_new_tokens,
        stop=(STOP,),
        batch_size=args.batch_size,
        precision="auto",  # the checkpoint's bf16 on a GPU, fp32 on a CPU
        device=device,
    )
    before = memory.reset()
    start = time.perf_counter()
    generator = hf.CausalGenerator(folder, settings, threads=1)
    sync(on_gpu)
    loaded = time.perf_counter() - start
    run = timed_generate(generator, prompts)
    sync(on_gpu)
    figures = {
        "step": "MT generation",
        **memory.peak(),
        "seconds": run.seconds,
        "load_seconds": loaded,
        "build_and_save_seconds": saved,
        "sentences_per_second": len(prompts) / run.seconds,
        "new_tokens_per_second": run.new_tokens / run.seconds,
        "prompts": len(prompts),
        "batch_size": args.batch_size,
        "max_new_tokens": args.max_new_tokens,
        "new_tokens": run.new_tokens,
        "cut_off": run.cut_off,
        "precision": generator.precision,
        "parameters": parameters,
        "vocabulary": vocabulary,
        "in_use_before_gb": before,
    }
    figures["lm_eval"], figures["lm_eval_note"] = lm_eval_generate(
        generator.model, generator.tokenizer, prompts, args.batch_size, args.max_new_tokens, on_gpu
    )
    del generator
    return figures


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def report(figures: dict) -> None:
    on_gpu = figures["device"] != "CPU"
    plane, noncompsst, generation = (figures["steps"][name] for name in ("plane", "noncompsst", "generation"))
    print(f"model: {figures['model']}")
    print(f"| step | peak GB ({'reserved, allocated' if on_gpu else 'host, CPU dry run'}) | seconds | throughput |")
    print("|---|---|---|---|")

    def peak(step: dict) -> str:
        if on_gpu:
            return f"{step['peak_reserved_gb']:.1f}, {step['peak_allocated_gb']:.1f}"
        return f"{step['peak_host_gb']:.2f}" + (" (since start)" if step["peak_since_start"] else "")

    for step in (plane, noncompsst):
        what = (
            f"{step['step']} ({step['fine_tuning']}; {step['trainable']:,} of {step['parameters']:,} parameters"
            f" trainable, frozen base {step['frozen_dtype']}; batch {step['batch_size']} x {step['tokens']} tokens)"
        )
        rate = f"{step['items_per_second']:.1f} items/s"
        print(f"| {what} | {peak(step)} | {step['seconds']:.2f} | {rate} |")
        print(
            f"  {step['step']}: one update at the full learning rate (warm-up {step['warmup_ratio']:g}), adapters moved:"
            f" {'yes' if step['adapters_moved'] else 'no'}; natcomp's estimate for the 8B config:"
            f" {step['estimated_gpu_gb']:.1f} GB of GPU memory, {step['estimated_activations_gb']:.1f} GB of activations"
        )
    what = (
        f"MT generation (natcomp CausalGenerator, {generation['parameters']:,} parameters, {generation['precision']};"
        f" {generation['prompts']} prompts, batch {generation['batch_size']}, greedy, at most"
        f" {generation['max_new_tokens']} new tokens, {generation['cut_off']} cut off by it)"
    )
    rate = (
        f"{generation['sentences_per_second']:.1f} sentences/s, {generation['new_tokens_per_second']:.0f} new tokens/s"
    )
    print(f"| {what} | {peak(generation)} | {generation['seconds']:.2f} | {rate} |")
    lm_eval = generation["lm_eval"]
    if lm_eval is not None:
        print(
            f"| lm-eval {lm_eval['lm_eval']} HFLM generate_until (the same model object and prompts) | n/a |"
            f" {lm_eval['seconds']:.2f} | {lm_eval['sentences_per_second']:.1f} sentences/s,"
            f" {lm_eval['new_tokens_per_second_retokenised']:.0f} new tokens/s (outputs re-tokenised) |"
        )
    else:
        print(generation["lm_eval_note"])
    print(
        f"generation model built and saved in {generation['build_and_save_seconds']:.0f} s, loaded by"
        f" CausalGenerator in {generation['load_seconds']:.0f} s; training models built in"
        f" {plane['build_seconds']:.1f} s and {noncompsst['build_seconds']:.1f} s"
    )
    for step in (plane, noncompsst, generation):
        verdict = "yes" if step["peak_gb"] < LIMIT_GB else "no"
        memory = "GPU memory (reserved)" if on_gpu else "host memory (CPU dry run)"
        print(f"{step['step']}: peak {memory} {step['peak_gb']:.2f} GB, below {LIMIT_GB:.0f} GB: {verdict}")
    print("versions: " + ", ".join(f"{name} {number}" for name, number in figures["versions"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="CPU dry run: tiny config, few prompts, fp32")
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=64, help="generation batch size")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--scratch", type=Path, default=None, help="folder for the saved model (default: a temp dir)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures to this JSON file")
    args = parser.parse_args()
    on_gpu = torch.cuda.is_available() and not args.tiny
    if not on_gpu and not args.tiny:
        sys.exit("llm_8b_gpu: no CUDA device here; run it on a GPU machine, or with --tiny for the CPU dry run")
    if args.tiny:
        args.prompts, args.batch_size, args.max_new_tokens = 16, 8, 8
        torch.set_num_threads(1)
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    transformers.utils.logging.disable_progress_bar()
    device = "cuda" if on_gpu else "cpu"
    memory = Memory(on_gpu)

    train, test = demo_pairs(2000, args.prompts)
    prompts = [PROMPT.format(source=pair.en) for pair in test]
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        scratch = Path(scratch)
        # the 8B config (with its real sizes) and a tiny Llama 3 tokenizer: what the steps' settings read
        folder = real_shape_model(SHAPE, scratch / "shape", [pair.en for pair in train])
        tokenizer = hf.load_tokenizer(folder)
        config = transformers.AutoConfig.from_pretrained(folder)
        if args.tiny:
            for name, value in TINY_SIZES.items():
                setattr(config, name, value)
            config.vocab_size = max(len(tokenizer), max(tokenizer.get_vocab().values()) + 1)
        steps = {"plane": plane_step(folder, config, tokenizer, device, memory)}
        steps["noncompsst"] = noncompsst_step(folder, config, tokenizer, [pair.en for pair in train], device, memory)
        steps["generation"] = generation_step(scratch, config, tokenizer, prompts, args, on_gpu, memory)
    shape = ", ".join(
        f"{name} {getattr(config, field):,}"
        for name, field in (
            ("hidden", "hidden_size"),
            ("layers", "num_hidden_layers"),
            ("heads", "num_attention_heads"),
        )
    )
    vocabulary = f"vocabulary {steps['generation']['vocabulary']:,}, the tokenizer's"
    if not args.tiny:  # the real vocabulary for training, the tokenizer's for generation
        vocabulary = f"vocabulary {REAL_SHAPES[SHAPE][1]['vocab_size']:,} for training, {vocabulary} for generation"
    where = f"bf16 on {torch.cuda.get_device_name(0)}" if on_gpu else "fp32 on the CPU"
    figures = {
        "model": f"{'tiny ' if args.tiny else ''}{SHAPE}-shaped ({shape}; {vocabulary}), random weights, {where}",
        "device": torch.cuda.get_device_name(0) if on_gpu else "CPU",
        "tiny": args.tiny,
        "limit_gb": LIMIT_GB,
        "steps": steps,
        "versions": {name: package_version(name) for name in ("torch", "transformers", "peft", "accelerate")},
    }
    report(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
