"""Keep a torchaudio built for another torch release from breaking transformers.

transformers imports torchaudio (in ``audio_utils``, which every model class pulls in)
whenever the package is installed. torchaudio's compiled extension only loads with the
torch release it was built for (torchaudio X.Y needs torch X.Y), and fairseq's requirement
``torchaudio>=0.8.0`` installs the newest torchaudio on PyPI (2.11) next to natcomp's
torch 2.13: importing it then fails with ``OSError: Could not load this library``, and so
would loading any BERT. natcomp needs no audio, so where the installed torchaudio does not
match torch, it is marked as absent (``sys.modules["torchaudio"] = None``, which makes
``importlib.util.find_spec`` report it missing). A matching torchaudio is left alone.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
import sys

logger = logging.getLogger(__name__)


def _major_minor(version: str) -> tuple[int, ...]:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else ()


def hide_mismatched_torchaudio() -> bool:
    """Mark torchaudio absent when its release does not match torch's; True if it did."""
    if "torchaudio" in sys.modules:
        return False  # already imported (or already hidden): nothing to decide
    try:
        torchaudio_version = importlib.metadata.version("torchaudio")
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return False
    if _major_minor(torchaudio_version) == _major_minor(torch_version):
        return False
    sys.modules["torchaudio"] = None
    logger.debug("torchaudio %s does not match torch %s: hidden from transformers", torchaudio_version, torch_version)
    return True
