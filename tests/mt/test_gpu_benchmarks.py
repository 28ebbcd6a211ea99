"""The GPU benchmarks' smoke runs on CPU: they run end to end through natcomp's training
and translation paths in seconds and print positive figures (the full runs need a GPU)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")

REPO = Path(__file__).resolve().parents[2]
NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?)"


def smoke(script: str) -> str:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--smoke"],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def figures(pattern: str, text: str) -> list[float]:
    found = re.findall(pattern, text)
    assert found, f"{pattern!r} not in:\n{text}"
    return [float(value.replace(",", "")) for value in found]


def test_training_benchmark_smoke_prints_rates_and_a_paper_scale_estimate():
    out = smoke("gpu_train_throughput.py")
    rates = figures(r"\): " + NUMBER + r" target tokens/s", out)
    assert len(rates) == 2 and all(rate > 0 for rate in rates), "auto and a fixed micro-batch"
    assert "peak GPU memory n/a on CPU" in out
    assert "fp16: skipped (fp16 training needs a GPU)" not in out, "the smoke run measures fp32 only"
    per_epoch = figures(r"pairs, " + NUMBER + r" hours per epoch", out)
    per_model = figures(r"epochs, " + NUMBER + r" hours per model", out)
    assert len(per_epoch) == len(per_model) == 3, "small, medium, full"
    assert all(value > 0 for value in per_epoch + per_model)
    assert per_epoch == sorted(per_epoch), "a larger corpus takes longer per epoch"


def test_translation_benchmark_smoke_prints_rates_against_the_loop():
    out = smoke("gpu_translate_throughput.py")
    (batched,) = figures(r"batched \(0 preparing worker\(s\)\): " + NUMBER + " sentences/s", out)
    (looped,) = figures(r"one sentence at a time: " + NUMBER + " sentences/s", out)
    assert batched > 0 and looped > 0
    assert batched > looped, "batching must beat the one-at-a-time loop even on CPU"
    assert "GPU busy n/a on CPU" in out
    (minutes,) = figures(r"estimate at \d+ sentences/s: " + NUMBER + " minutes for one model's", out)
    assert minutes > 0
