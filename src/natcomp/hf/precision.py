"""One precision policy for every Hugging Face model natcomp runs (docs/design/hf.md, "Precision").

Released LLMs say ``bfloat16`` (or ``float16``) in their config, and transformers loads a
checkpoint in that dtype unless told otherwise. natcomp always tells it, by one rule,
:func:`natcomp.model_description.weights_dtype`, which the job sizes read too:

* **inference** (generation, log-likelihood scoring, embeddings, classifying) runs in the
  dtype the config's top-level ``dtype`` (or ``natcomp evaluate --dtype``) names:
  :func:`inference_dtype`. ``auto``, the default, is the checkpoint's own dtype on a GPU
  and fp32 on a CPU (half precision on a CPU is slow where it runs at all, and CPU runs
  are the demo's and the tests'). fp16 or bf16 asked for explicitly on a job without a
  GPU is a one-line :class:`~natcomp.errors.ConfigError`, never a silent fp32 run;
* **full fine-tuning** loads every weight in fp32 (master weights; AdamW's state follows
  them), whatever the checkpoint's dtype: pure-bf16 AdamW loses every update smaller than
  bf16 can represent next to its weight. On a GPU with bf16 the forward pass runs under bf16
  autocast (:func:`training_autocast`); on a CPU in fp32;
* **LoRA** on a GPU keeps the frozen base in the checkpoint's half dtype and autocasts the
  forward pass to that same dtype (:func:`training_dtype`, :func:`training_autocast_dtype`):
  bf16 for a bf16 checkpoint, fp16 with a gradient scaler for an fp16 one (Pythia, OPT), so
  training computes as the inference that follows does and no matmul re-rounds the weights;
  the adapters and the head are fp32 (peft's advice for mixed precision). An fp32 checkpoint,
  or a bf16 one on a GPU without bf16, trains in fp32 weights; on a CPU everything is fp32;
* **heads** natcomp puts on a model (NonCompSST's, PSS's) are fp32, and read the pooled
  states cast to fp32 (:func:`natcomp.hf.pool_states` callers do ``.float()``).

A GPU *has bf16* when it computes it natively (compute capability 8.0 and up: A100, H100;
ROCm GPUs): V100 and T4 emulate it, slowly, so they take the fp32 (inference: the
checkpoint's fp16) route. The job's own device is asked, not the current one.

The names used in configs, signatures and the profile are :data:`DTYPES`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from natcomp.configcheck import DTYPES
from natcomp.errors import ConfigError
from natcomp.model_description import autocast_dtype, checkpoint_dtype, precision_note, weights_dtype

__all__ = [
    "DTYPES",
    "TORCH_DTYPES",
    "checkpoint_dtype",
    "check_dtype_name",
    "gradient_scaler",
    "has_bf16",
    "inference_dtype",
    "precision_note",
    "training_autocast",
    "training_autocast_dtype",
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


def has_bf16(device: torch.device) -> bool:
    """Whether ``device`` is a GPU that computes bf16 natively (compute capability 8.0 and up,
    or a ROCm GPU): ``torch.cuda.is_bf16_supported()`` also says yes where bf16 is emulated
    (V100, T4) and asks the current device, not this one."""
    if device.type != "cuda":
        return False
    if torch.version.hip:
        return True
    return torch.cuda.get_device_properties(device).major >= 8


def inference_dtype(requested: str, device: torch.device, checkpoint: str, key: str = "dtype") -> str:
    """The dtype a model runs inference in on ``device``.

    ``auto``: the checkpoint's dtype on a GPU (a bf16 checkpoint on a GPU without bf16:
    fp32, since bf16 weights can overflow fp16's range), fp32 on a CPU. An explicit dtype is used as asked; fp16 or bf16 on a CPU, or bf16
    on a GPU without it, is a :class:`ConfigError` naming ``key``."""
    check_dtype_name(requested, key)
    on_gpu = device.type == "cuda"
    if requested != "auto" and requested != "fp32" and not on_gpu:
        raise ConfigError(
            key, f"{requested} was asked for but this job runs on the CPU (no GPU); expected auto or fp32 on a CPU"
        )
    if requested == "bf16" and not has_bf16(device):
        raise ConfigError(key, f"bf16 was asked for but the GPU {device} cannot run it; expected auto, fp16 or fp32")
    return weights_dtype("inference", checkpoint, requested, on_gpu=on_gpu, bf16=on_gpu and has_bf16(device))


def training_dtype(fine_tuning, device: torch.device, checkpoint: str) -> str:
    """The dtype a model is loaded in for training with ``fine_tuning`` (a resolved
    :class:`natcomp.finetuning.FineTuning`) on ``device``, its checkpoint saved in
    ``checkpoint``: :func:`natcomp.model_description.weights_dtype` (full: fp32; LoRA on a GPU:
    the checkpoint's half dtype; on a CPU: fp32). The adapters and the head are trained in
    fp32 either way (:func:`natcomp.hf.lora.place_for_training`)."""
    if fine_tuning.method not in ("full", "lora"):
        raise ValueError(f"resolve the fine-tuning method first, not {fine_tuning.method!r}")
    on_gpu = device.type == "cuda"
    return weights_dtype(fine_tuning.method, checkpoint, on_gpu=on_gpu, bf16=on_gpu and has_bf16(device))


def training_autocast_dtype(device: torch.device, base: str = "fp32") -> str | None:
    """The dtype a training step on ``device`` autocasts to, its frozen weights in ``base``
    (fp32: full fine-tuning or every weight trained): :func:`natcomp.model_description.autocast_dtype`."""
    on_gpu = device.type == "cuda"
    method = "lora" if base != "fp32" else "full"
    return autocast_dtype(method, base, on_gpu=on_gpu, bf16=on_gpu and has_bf16(device))


def training_precision(device: torch.device, base: str = "fp32") -> str:
    """How a training job on ``device`` computes, in words for logs and tables: fp32
    weights (or a frozen base in ``base``, LoRA's, beside fp32 adapters and head), and the
    autocast of its forward pass (:func:`training_autocast_dtype`)."""
    autocast = training_autocast_dtype(device, base)
    under = f", {autocast} autocast" if autocast else ""
    if base != "fp32":
        return f"frozen {base} base, fp32 adapters and head{under}"
    return f"fp32 weights{under}" if autocast else "fp32"


@contextlib.contextmanager
def training_autocast(device: torch.device, base: str = "fp32") -> Iterator[None]:
    """The autocast of a training step's forward pass (:func:`training_autocast_dtype`:
    bf16 on a GPU with bf16, fp16 over an fp16 LoRA base); nothing on a CPU (the weights and
    the optimiser's state stay as they are either way)."""
    autocast = training_autocast_dtype(device, base)
    if autocast is None:
        yield
        return
    with torch.autocast(device_type="cuda", dtype=TORCH_DTYPES[autocast]):
        yield


def gradient_scaler(device: torch.device, base: str = "fp32"):
    """A gradient scaler where the forward pass autocasts to fp16 (an fp16 LoRA base): fp16
    gradients underflow without one (torch's automatic mixed precision recipe); None elsewhere."""
    if training_autocast_dtype(device, base) != "fp16":
        return None
    return torch.amp.GradScaler(device.type)
