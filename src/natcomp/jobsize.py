"""How much memory and time a job that runs a model asks the cluster for, from the model's
``config.json`` alone (no weights, no torch: Snakemake calls this while it plans the DAG).

A rule declares what its job needs for a base-size encoder (BERT-base, 110M parameters),
the size its family's paper ran; :func:`job_mem_mb` and :func:`job_runtime_min` scale that
to the model the run names, so ``natcomp evaluate --model <an LLM> --configfile
config/paper.yaml -n`` (or ``snakemake -n``) shows each GPU job's memory and time before a
GPU hour is spent (issue 34). Decisions (docs/running.md, "Memory and time of a job that
runs a model"):

- *host memory*: the job loads the weights in float32 on the CPU before it moves them to
  the GPU, and ``from_pretrained`` holds a second copy for a moment: 2 x 4 bytes per
  parameter, plus the rule's own figure for everything else (Python, torch, the data);
- *run time*: a forward and backward pass costs about 6 FLOPs per parameter and token
  (Kaplan et al. 2020), so the time of the same data scales with the parameters: the rule's
  minutes x parameters / 110M, never below the rule's minutes;
- a model whose config is neither a folder, a shipped model nor in the Hugging Face cache
  is sized as a base-size model (``natcomp evaluate`` reads the config first, which caches it);
- an adapter folder (:mod:`natcomp.adapters`) is sized as its base: the adapter's own
  weights are a fraction of a percent of the base's.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = [
    "BASE_PARAMETERS",
    "job_mem_mb",
    "job_runtime_min",
    "scaled_mem_mb",
    "scaled_runtime",
    "model_config",
    "model_file",
    "parameter_count",
]

#: the parameters of BERT-base, the size the rules' own figures are for
BASE_PARAMETERS = 110_000_000
#: host bytes per parameter while a model loads: float32 weights, twice
LOAD_BYTES_PER_PARAMETER = 8
#: model types whose MLP is gated (three matrices: gate, up, down) rather than two
_GATED_MLP = ("llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3", "olmo2")


def model_file(name_or_path: str | os.PathLike, filename: str) -> Path | None:
    """The file ``filename`` of a model folder, a shipped model or a Hub model in the local
    cache; None where there is none (nothing is downloaded). An adapter folder's
    ``config.json`` is its base's, its tokenizer's files its own or its base's
    (:func:`natcomp.adapters.file_location`), so an adapter's job is sized as its base's."""
    from natcomp.adapters import file_location
    from natcomp.shipped import SHIPPED_MODELS, shipped_model_path

    text = file_location(name_or_path, filename)
    folder = Path(text).expanduser()
    if not folder.is_dir() and text in SHIPPED_MODELS:
        folder = shipped_model_path(text)
    if folder.is_dir():
        path = folder / filename
        return path if path.is_file() else None
    from huggingface_hub import try_to_load_from_cache

    try:
        cached = try_to_load_from_cache(text, filename)
    except ValueError:  # not a Hub id either (huggingface_hub's HFValidationError)
        return None
    return Path(cached) if isinstance(cached, str) else None


def model_config(name_or_path: str | os.PathLike) -> dict | None:
    """A model's ``config.json`` as a mapping, where it is local or cached; else None."""
    path = model_file(name_or_path, "config.json")
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _first(config: Mapping, *names: str) -> int | None:
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and value > 0:
            return value
    return None


def parameter_count(config: Mapping) -> int | None:
    """About how many parameters a transformer of ``config`` has (within a few percent for
    BERT, GPT-2, Llama and Qwen2): embeddings, attention (grouped key-value heads counted),
    the MLP (gated or not), an untied output layer; None when the config lacks its sizes."""
    hidden = _first(config, "hidden_size", "n_embd", "d_model")
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers")
    vocabulary = _first(config, "vocab_size")
    if hidden is None or layers is None or vocabulary is None:
        return None
    inner = _first(config, "intermediate_size", "n_inner", "ffn_dim", "encoder_ffn_dim") or 4 * hidden
    heads = _first(config, "num_attention_heads", "n_head") or 1
    key_value_heads = _first(config, "num_key_value_heads") or heads
    head_size = _first(config, "head_dim") or hidden // heads
    attention = 2 * hidden * heads * head_size + 2 * hidden * key_value_heads * head_size
    mlp = (3 if str(config.get("model_type", "")) in _GATED_MLP else 2) * hidden * inner
    embeddings = vocabulary * hidden * (1 if config.get("tie_word_embeddings", True) else 2)
    if str(config.get("model_type", "")) in ("bert", "roberta", "gpt2", "distilbert", "xlm-roberta", "electra"):
        embeddings += (_first(config, "max_position_embeddings", "n_positions") or 0) * hidden  # learned positions
    encoder_decoder = 2 if config.get("is_encoder_decoder") else 1
    return embeddings + encoder_decoder * layers * (attention + mlp)


def _parameters(name_or_path) -> int | None:
    config = model_config(name_or_path) if name_or_path else None
    return parameter_count(config) if config else None


def job_mem_mb(name_or_path: str | os.PathLike | None, other_mb: int) -> int:
    """Host memory (MB) of a job that loads the model: its float32 weights twice, plus
    ``other_mb`` (the rule's figure for everything else); ``other_mb`` + a base-size model's
    share when the model's size is unknown."""
    parameters = _parameters(name_or_path) or BASE_PARAMETERS
    return other_mb + math.ceil(parameters * LOAD_BYTES_PER_PARAMETER / 1e6)


def job_runtime_min(name_or_path: str | os.PathLike | None, base_minutes: int) -> int:
    """Minutes of a job that trains or runs the model: ``base_minutes`` (a base-size
    encoder's) x the model's parameters / 110M, never less than ``base_minutes``."""
    parameters = _parameters(name_or_path) or BASE_PARAMETERS
    return max(base_minutes, math.ceil(base_minutes * parameters / BASE_PARAMETERS))


def scaled_mem_mb(model_of: Callable[[object], str | None], other_mb: int) -> Callable[[object], int]:
    """A rule's ``mem_mb``: ``model_of(wildcards)`` names the job's model (None: unknown)."""
    return lambda wildcards: job_mem_mb(model_of(wildcards), other_mb)


def scaled_runtime(model_of: Callable[[object], str | None], base_minutes: int) -> Callable[[object], int]:
    """A rule's ``runtime`` (minutes): ``model_of(wildcards)`` names the job's model."""
    return lambda wildcards: job_runtime_min(model_of(wildcards), base_minutes)
