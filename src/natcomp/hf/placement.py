"""Where a model's weights go when it loads: the job's one device, or spread over the job's
GPUs when they do not fit one (issue 43; docs/hf.md, "Large models").

:func:`placement` decides from the model's size, the dtype it loads in and the memory of
the GPUs the job sees: nothing (the model loads whole and the caller moves it to its
device, as before) on a CPU, for a model of unknown size, or when the model fits the first
GPU with :data:`natcomp.jobsize.OVERHEAD` to spare; otherwise ``device_map="auto"`` with a
``max_memory`` budget per GPU (:func:`natcomp.jobsize.weights_budget_bytes`: the weights a
GPU may hold so that its activations fit beside them), which accelerate fills in balance,
successive layers on successive GPUs. The GPUs' own memory is used (what the scheduler gave
the job), not ``gpus.memory_gb``, which sized the job's request (:mod:`natcomp.jobsize`).

Every model loader of :mod:`natcomp.hf` goes through :func:`load_placement`
(:func:`natcomp.hf.models._load`). A placed model (:func:`is_placed`) is never moved with
``.to``: the inference helpers send its inputs to the device of its input embeddings
(:func:`natcomp.hf.inference.model_device`), and accelerate's hooks carry each layer's
states to the next GPU. The layers run one after the other, so a placed model is no faster
than one GPU holding it all; it is what lets a 70B model run at all.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from natcomp import jobsize
from natcomp.errors import ConfigError

logger = logging.getLogger(__name__)

__all__ = ["is_placed", "load_placement", "placement", "visible_gpu_memory"]


def placement(
    parameters: int | None,
    dtype: str,
    gpu_memory: Sequence[int],
    *,
    key: str = "model",
    model: str = "the model",
) -> dict:
    """``from_pretrained`` keyword arguments that place a model of ``parameters`` loaded in
    ``dtype`` (a name of :data:`natcomp.jobsize.DTYPE_BYTES`) on GPUs of ``gpu_memory``
    bytes each (the job's visible GPUs, in order; empty: none): ``{}`` without a GPU, for an
    unknown size, or where one GPU holds it; else ``device_map="auto"`` and ``max_memory``
    ``{index: "<n>GiB"}`` per GPU. A model whose weights exceed the budgets of all the GPUs
    together is a one-line :class:`ConfigError` naming ``key``."""
    if not gpu_memory or parameters is None:
        return {}
    if jobsize.gpu_memory_bytes(parameters, "inference", dtype) <= gpu_memory[0]:
        return {}
    budgets = [jobsize.weights_budget_bytes(memory) for memory in gpu_memory]
    weights = parameters * jobsize.DTYPE_BYTES[dtype]
    if weights > sum(budgets):
        gpus = jobsize.format_gpus(len(gpu_memory))
        raise ConfigError(
            key,
            f"{model}'s {weights / 1e9:.0f} GB of {dtype} weights do not fit the {gpus} this job sees "
            f"({sum(budgets) / 1e9:.0f} GB for weights, leaving room for the activations); a job asks for the GPUs "
            "gpus.memory_gb and gpus.max_per_job give it",
        )
    return {
        "device_map": "auto",
        "max_memory": {index: f"{budget // 2**30}GiB" for index, budget in enumerate(budgets)},
    }


def visible_gpu_memory() -> list[int]:
    """The memory (bytes) of each GPU torch sees (the job's: ``CUDA_VISIBLE_DEVICES``); [] without one."""
    import torch

    if not torch.cuda.is_available():
        return []
    return [torch.cuda.get_device_properties(index).total_memory for index in range(torch.cuda.device_count())]


def load_placement(name_or_path: str | os.PathLike, dtype: str, key: str = "model") -> dict:
    """:func:`placement` of a model (a folder, shipped model or cached Hub id: its size read
    from its config) loaded in ``dtype`` on the GPUs this process sees."""
    gpus = visible_gpu_memory()
    if not gpus:
        return {}
    config = jobsize.model_config(name_or_path)
    parameters = jobsize.parameter_count(config) if config else None
    kwargs = placement(parameters, dtype, gpus, key=key, model=str(name_or_path))
    if kwargs:
        logger.info("%s spread over %s: at most %s of weights each", name_or_path, len(gpus), kwargs["max_memory"])
    return kwargs


def is_placed(model) -> bool:
    """Whether ``model`` was loaded with a ``device_map`` (accelerate placed its modules:
    it must not be moved with ``.to``)."""
    device_map = getattr(model, "hf_device_map", None)
    return isinstance(device_map, dict) and bool(device_map)
