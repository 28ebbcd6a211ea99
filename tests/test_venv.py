"""The project's venv as a researcher meets it: the model libraries import in a fresh
interpreter, without natcomp's torchaudio guard (tools/install_fairseq.sh, docs/design/hf.md)."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import pytest


def _fresh_python(code: str) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter of this venv that has not imported natcomp (no PYTHONPATH, run from /)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True, check=False, timeout=600
    )


def test_transformers_and_fairseq_import_without_natcomp():
    result = _fresh_python(
        "import sys\n"
        "from transformers import BertForMaskedLM, AutoModelForSeq2SeqLM\n"
        "import fairseq, fairseq.models.transformer\n"
        "assert 'natcomp' not in sys.modules\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_no_torchaudio_built_for_another_torch():
    try:
        torchaudio = importlib.metadata.version("torchaudio")
    except importlib.metadata.PackageNotFoundError:
        return  # natcomp's venv has none: fairseq's wheel is built without that requirement
    torch = importlib.metadata.version("torch")
    assert torchaudio.split(".")[:2] == torch.split(".")[:2], f"torchaudio {torchaudio} beside torch {torch}"


def test_pip_check_is_clean():
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False, timeout=300
    )
    if "No module named pip" in pip.stderr:
        pytest.skip("this interpreter has no pip to check its requirements with")
    assert pip.returncode == 0, pip.stdout + pip.stderr
