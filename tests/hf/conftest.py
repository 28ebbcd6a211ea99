"""Tiny causal language models shared by the tests of natcomp.hf.causal (session-scoped:
building one takes a second or two)."""

from __future__ import annotations

import pytest
import torch

from natcomp.hf.causal import build_tiny_causal_lm

NOUNS = ["poet", "king", "baker", "mayor", "farmer"]
VERBS = ["sees", "admires", "forgets"]
#: English sentences and their Dutch "translations" the tiny tokenizers are trained on.
CAUSAL_TEXTS = [f"The {a} {verb} the {b}.\n" for a in NOUNS for verb in VERBS for b in NOUNS if a != b] + [
    "De dichter ziet de koning.\n",
    "English: The poet sees the king.\nDutch: De dichter ziet de koning.\n",
]
#: Small enough to build in about a second, big enough to have distinct outputs.
TINY_SIZES = dict(vocab_size=300, d_model=32, layers=2, heads=4, max_positions=128)


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test may reach the Hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session", autouse=True)
def one_thread():
    """Tiny models run fastest on one thread (see docs/hf.md)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def make_tiny_causal():
    """build_tiny_causal_lm(directory, **overrides) on the tests' texts and sizes."""

    def make(directory, **overrides):
        return build_tiny_causal_lm(directory, overrides.pop("texts", CAUSAL_TEXTS), **{**TINY_SIZES, **overrides})

    return make


@pytest.fixture(scope="session")
def tiny_causal(tmp_path_factory):
    """Untrained tiny causal LMs by kind ("gpt2", "llama"), without chat template."""
    root = tmp_path_factory.mktemp("causal")
    return {
        kind: build_tiny_causal_lm(root / kind, CAUSAL_TEXTS, kind=kind, **TINY_SIZES) for kind in ("gpt2", "llama")
    }


@pytest.fixture(scope="session")
def tiny_instruct(tmp_path_factory):
    """An untrained tiny Llama whose tokenizer has a chat template."""
    root = tmp_path_factory.mktemp("causal_instruct")
    return build_tiny_causal_lm(root / "llama-instruct", CAUSAL_TEXTS, kind="llama", instruct=True, **TINY_SIZES)
