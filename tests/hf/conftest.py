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
    """Tiny models run fastest on one thread (see docs/design/hf.md)."""
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


def _train_briefly(folder, steps: int = 40) -> None:
    """Fit a tiny causal LM to CAUSAL_TEXTS (each ended by EOS) so that it writes them back:
    its greedy continuations are real sentences ending in a newline, which the stop-string
    and scoring tests need. Only the weights are rewritten: the tokenizer stays as built."""
    from natcomp.hf.causal import load_causal_lm

    tokenizer, model = load_causal_lm(folder)
    tokenizer.padding_side = "right"
    batch = tokenizer([text + tokenizer.eos_token for text in CAUSAL_TEXTS], padding=True, return_tensors="pt")
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    torch.manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-2)
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        model(**batch, labels=labels).loss.backward()
        optimizer.step()
    model.eval().save_pretrained(folder)


@pytest.fixture(scope="session")
def trained_gpt2(tmp_path_factory):
    """A tiny GPT-2 briefly trained on CAUSAL_TEXTS (about 10 s): "The poet" -> " sees the mayor.\\n"."""
    folder = build_tiny_causal_lm(tmp_path_factory.mktemp("causal_trained") / "gpt2", CAUSAL_TEXTS, **TINY_SIZES)
    _train_briefly(folder)
    return folder


@pytest.fixture
def fake_gpus(monkeypatch):
    """Pretend torch sees GPUs of the given compute capabilities (major versions, by index):
    ``fake_gpus(8)`` one A100-class GPU, ``fake_gpus(7, 8)`` a V100 as cuda:0 beside an A100
    as cuda:1. torch's own ``is_bf16_supported()`` says yes for both, as it does for a V100
    (emulated bf16). Returns the first GPU's device."""
    import types

    def install(*majors: int):
        def properties(device=None):
            index = torch.device(device).index if device is not None and not isinstance(device, int) else device
            return types.SimpleNamespace(major=majors[index or 0], total_memory=80 * 10**9)

        monkeypatch.setattr(torch.cuda, "get_device_properties", properties)
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        monkeypatch.setattr(torch.version, "hip", None)
        return torch.device("cuda:0")

    return install
