"""The causal-LM generation benchmarks run end to end on CPU in seconds (their full runs need
minutes, lm-eval's venv or a GPU): benchmarks/causal_generation.py without lm-eval, and
the --tiny dry runs of benchmarks/causal_generation_gpu.py, batch_invariance_gpu.py and
llm_8b_gpu.py, and their refusal without CUDA."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]


def benchmark(script: str, *arguments: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(REPO / "benchmarks" / script), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)


def test_generation_benchmark_without_lm_eval_prints_natcomps_figures_and_how_to_install_it(tmp_path):
    result = benchmark(
        "causal_generation.py",
        *("--sentences", "12", "--train-pairs", "200", "--train-epochs", "0", "--max-new-tokens", "6"),
        *("--lm-eval-python", str(tmp_path / "absent" / "python")),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = re.findall(
        r"^\| \((a|b)\) natcomp CausalGenerator, batch (\d+) \| ([0-9.]+) \| .* \| (\d+)/12 \|", result.stdout, re.M
    )
    assert [(run, batch) for run, batch, _, _ in rows] == [("a", "16"), ("b", "1")], result.stdout
    assert all(float(rate) > 0 for _, _, rate, _ in rows)
    assert "(c) not run: lm-eval not installed: run bash tools/bench_lm_eval_venv.sh" in result.stdout


def test_gpu_benchmark_tiny_dry_run_measures_batched_and_one_at_a_time():
    result = benchmark("causal_generation_gpu.py", "--tiny", "--max-new-tokens", "8")
    assert result.returncode == 0, result.stderr[-3000:]
    rates = dict(re.findall(r"^batch (\d+): ([0-9.]+) sentences/s", result.stdout, re.M))
    assert set(rates) == {"16", "1"} and all(float(rate) > 0 for rate in rates.values()), result.stdout
    assert "8 cut off by the limit of 8" in result.stdout, "random weights run every prompt to the limit"


@pytest.mark.skipif(torch.cuda.is_available(), reason="the refusal is for machines without CUDA")
def test_gpu_benchmark_without_cuda_stops_with_a_message():
    result = benchmark("causal_generation_gpu.py")
    assert result.returncode == 1
    assert "no CUDA device here" in result.stderr and "--tiny" in result.stderr
    assert "Traceback" not in result.stderr


def test_batch_invariance_tiny_dry_run_finds_no_difference_in_fp32_on_the_cpu():
    """The batch-invariance GPU check, run as its CPU dry run: in fp32 batching changes nothing,
    as natcomp decodes and with one attention kernel for both batch sizes (the padding mask
    kept at batch 1), which separates batch shape from kernel choice."""
    result = benchmark("batch_invariance_gpu.py", "--tiny")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "fp32 on CPU" in result.stdout
    for what in ("as natcomp decodes (batch 1 unmasked)", "one kernel (padding mask kept)"):
        line = next(line for line in result.stdout.splitlines() if line.startswith(what))
        assert line.endswith("greedy outputs that differ between batch 1 and batch 8: 0 of 24 (0.0%)"), line
    assert "(the kernel alone): 0 of 24 differ" in result.stdout


def test_llm_8b_gpu_tiny_dry_run_measures_the_three_steps(tmp_path):
    """The 8B GPU check, run as its CPU dry run: a PLANE fine-tuning step and a NonCompSST
    head step with LoRA (what ``auto`` decides for the 8B config: QLoRA's rate, no
    checkpointing) at the paper's batch sizes, each one update at its full learning rate that
    moves the adapters (the paper's NonCompSST warm-up would make it rate 0), beside natcomp's
    estimate; and batched generation, each with its peak memory and time."""
    figures_path = tmp_path / "figures.json"
    result = benchmark("llm_8b_gpu.py", "--tiny", "--json", str(figures_path))
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(figures_path.read_text(encoding="utf-8"))
    steps = figures["steps"]
    assert figures["device"] == "CPU" and set(steps) == {"plane", "noncompsst", "generation"}
    for step in steps.values():
        assert step["peak_gb"] > 0 and step["seconds"] > 0, step
    lora = "LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4"
    plane, noncompsst, generation = steps["plane"], steps["noncompsst"], steps["generation"]
    assert plane["fine_tuning"] == noncompsst["fine_tuning"] == lora
    for step in (plane, noncompsst):
        assert step["warmup_ratio"] == 0 and step["adapters_moved"] is True, step
    # 8B: (16.06 GB of bf16 weights + 16 B x 13.6M adapters) x 1.25, and the activations kept
    assert noncompsst["estimated_activations_gb"] == pytest.approx(4096 * 32 * 212_992 / 1e9)
    assert noncompsst["estimated_gpu_gb"] == pytest.approx(20.3476 + 27.9173, abs=1e-3)
    assert (plane["batch_size"], plane["max_length"]) == (16, 12) and plane["items_per_second"] > 0
    assert (noncompsst["batch_size"], noncompsst["tokens"], noncompsst["pooling"]) == (32, 128, "last")
    assert 0 < plane["trainable"] < plane["parameters"] and 0 < noncompsst["trainable"] < noncompsst["parameters"]
    assert generation["prompts"] == 16 and generation["batch_size"] == 8
    assert generation["sentences_per_second"] > 0 and generation["new_tokens_per_second"] > 0
    assert result.stdout.count("below 80 GB: yes") == 3, result.stdout
    if importlib.util.find_spec("lm_eval") is None:
        assert "lm-evaluation-harness is not installed" in result.stdout and generation["lm_eval"] is None


@pytest.mark.skipif(torch.cuda.is_available(), reason="the refusal is for machines without CUDA")
def test_llm_8b_gpu_without_cuda_stops_with_a_message():
    result = benchmark("llm_8b_gpu.py")
    assert result.returncode == 1
    assert "no CUDA device here" in result.stderr and "--tiny" in result.stderr
    assert "Traceback" not in result.stderr
