"""benchmarks/sst7_finetune.py runs the workflow's SST-7 fine-tuning end to end: its smoke
run (tiny random encoder, one epoch, CPU) on the released SST-7 files prints its figures."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SST7 = REPO.parent / "shared" / "data" / "noncompsst" / "sst7"


@pytest.mark.skipif(not SST7.is_dir(), reason="../shared/data (the released SST-7 files) is not beside this clone")
def test_sst7_benchmark_smoke_times_one_fine_tuning_on_the_released_files():
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "sst7_finetune.py"), "--smoke"],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "sentences: train 200, validation 100, test 100" in out
    assert "gradient_clip=None" in out and "learning_rate=5e-06" in out, (
        "the paper's settings, as the workflow sets them"
    )
    (seconds,) = re.findall(r"one fine-tuning: ([0-9.]+) s for 1 epoch", out)
    assert float(seconds) > 0
    assert re.search(r"paper: 24 fine-tunings \(models x seeds\)", out), out
