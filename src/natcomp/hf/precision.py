"""One precision policy for every Hugging Face model natcomp runs (issue 41).

Released LLMs say ``bfloat16`` (or ``float16``) in their config, and transformers loads a
checkpoint in that dtype unless told otherwise. natcomp always tells it:

* **inference** (generation, log-likelihood scoring, embeddings, classifying) runs in the
  dtype the config's top-level ``dtype`` (or ``natcomp evaluate --dtype``) names:
  :func:`inference_dtype`. ``auto``, the default, is the checkpoint's own dtype on a GPU
  and fp32 on a CPU (half precision on a CPU is slow where it runs at all, and CPU runs
  are the demo's and the tests'). fp16 or bf16 asked for explicitly on a job without a
  GPU is a one-line :class:`~natcomp.errors.ConfigError`, never a silent fp32 run;
* **training** loads every weight in fp32 (master weights; AdamW's state follows them),
  whatever the checkpoint's dtype: pure-bf16 AdamW loses every update smaller than bf16
  can represent next to its weight. On a GPU that supports it the forward pass runs
  under bf16 autocast (:func:`training_autocast`); on a CPU in fp32. LoRA fine-tuning
  (:mod:`natcomp.finetuning`) on such a GPU keeps the frozen base in the checkpoint's
  dtype (2 bytes per parameter in bf16: what lets an 8B model train on one 80 GB GPU) and
  only the trained parameters, the adapters and the head, in fp32 (:func:`training_dtype`);
  on a CPU everything stays fp32;
* **heads** natcomp puts on a model (NonCompSST's, PSS's) are fp32, and read the pooled
  states cast to fp32 (:func:`natcomp.hf.pool_states` callers do ``.float()``).

The names used in configs, signatures and the profile are :data:`DTYPES`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from natcomp.configcheck import DTYPES
from natcomp.errors import ConfigError
from natcomp.jobsize import dtype_name

__all__ = [
    "DTYPES",
    "TORCH_DTYPES",
    "checkpoint_dtype",
    "check_dtype_name",
    "inference_dtype",
    "precision_note",
    "training_autocast",
    "training_dtype",
    "training_precision",
]


#: the torch dtype of each concrete name
TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def check_dtype_name(value: object, key: str = "dtype") -> str:
    """``value`` as one of :data:`DTYPES`, else a :class:`ConfigError` naming ``key``."""
    if value not in DTYPES:
        raise ConfigError(key, f"{value!r} is not a dtype; expected one of {', '.join(DTYPES)}")
    return str(value)


def checkpoint_dtype(config) -> str:
    """The dtype a checkpoint was saved in, from its config (an object or a mapping):
    ``dtype`` (transformers 5) or ``torch_dtype`` (older saves); fp32 when it names none
    (transformers' own default)."""
    read = config.get if isinstance(config, dict) else lambda name, default=None: getattr(config, name, default)
    return dtype_name(read("dtype", None) or read("torch_dtype", None))


def _bf16_on(device: torch.device) -> bool:
    return device.type == "cuda" and torch.cuda.is_bf16_supported()


def inference_dtype(requested: str, device: torch.device, checkpoint: str, key: str = "dtype") -> str:
    """The dtype a model runs inference in on ``device``.

    ``auto``: the checkpoint's dtype on a GPU (a bf16 checkpoint on a GPU without bf16:
    fp32, since bf16 weights can overflow fp16's range), fp32 on a CPU. An explicit dtype is used as asked; fp16 or bf16 on a CPU, or bf16
    on a GPU without it, is a :class:`ConfigError` naming ``key``."""
    check_dtype_name(requested, key)
    on_gpu = device.type == "cuda"
    if requested == "auto":
        if not on_gpu:
            return "fp32"
        return "fp32" if checkpoint == "bf16" and not _bf16_on(device) else checkpoint
    if requested != "fp32" and not on_gpu:
        raise ConfigError(
            key, f"{requested} was asked for but this job runs on the CPU (no GPU); expected auto or fp32 on a CPU"
        )
    if requested == "bf16" and not _bf16_on(device):
        raise ConfigError(key, f"bf16 was asked for but the GPU {device} cannot run it; expected auto, fp16 or fp32")
    return requested


def training_dtype(fine_tuning, device: torch.device, checkpoint: str) -> str:
    """The dtype a model is loaded in for training with ``fine_tuning`` (a resolved
    :class:`natcomp.finetuning.FineTuning`) on ``device``, its checkpoint saved in
    ``checkpoint``: fp32 for full fine-tuning (master weights) and on a CPU or a GPU without
    bf16 (no autocast there to run mixed dtypes); with LoRA on a GPU that has bf16, the
    frozen base in the checkpoint's dtype, as inference runs it (:func:`inference_dtype`
    ``auto``). The adapters and the head are trained in fp32 either way
    (:func:`natcomp.hf.lora.place_for_training`)."""
    if fine_tuning.method not in ("full", "lora"):
        raise ValueError(f"resolve the fine-tuning method first, not {fine_tuning.method!r}")
    if fine_tuning.method == "lora" and _bf16_on(device):
        return inference_dtype("auto", device, checkpoint)
    return "fp32"


def training_precision(device: torch.device, base: str = "fp32") -> str:
    """How a training job on ``device`` computes, in words for logs and tables: fp32
    weights (or a frozen base in ``base``, LoRA's, beside fp32 adapters and head), bf16
    autocast where the GPU supports it."""
    if base != "fp32":
        return f"frozen {base} base, fp32 adapters and head, bf16 autocast"
    return "fp32 weights, bf16 autocast" if _bf16_on(device) else "fp32"


@contextlib.contextmanager
def training_autocast(device: torch.device) -> Iterator[None]:
    """bf16 autocast for a training step's forward pass on a GPU that supports it; nothing
    elsewhere (the weights and the optimiser's state stay fp32 either way)."""
    if _bf16_on(device):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            yield
    else:
        yield


def precision_note(requested: str, checkpoint: str, lora: bool = False) -> str:
    """What a run's inference and training compute in, in one sentence for the plan and the
    profile (``requested``: the run's ``dtype``; ``checkpoint``: :func:`checkpoint_dtype`;
    ``lora``: a family fine-tunes with LoRA, :func:`training_dtype`). Which jobs get a GPU
    is the scheduler's choice, so both cases are named."""
    check_dtype_name(requested)
    if requested == "auto":
        gpu = "bf16 on a GPU (fp32 on one without bf16)" if checkpoint == "bf16" else f"{checkpoint} on a GPU"
        inference = f"inference in {gpu} and fp32 on a CPU (dtype auto: the {checkpoint} checkpoint's)"
    elif requested == "fp32":
        inference = f"inference in fp32 (dtype fp32; a {checkpoint} checkpoint)"
    else:
        inference = (
            f"inference in {requested} on a GPU (dtype {requested}; a CPU job refuses it; a {checkpoint} checkpoint)"
        )
    training = "training in fp32 weights, with bf16 autocast on a GPU that has it"
    if lora and checkpoint != "fp32":
        training += f" (LoRA: the frozen base in {checkpoint} there, the adapters and the head in fp32)"
    return f"{inference}; {training}"
