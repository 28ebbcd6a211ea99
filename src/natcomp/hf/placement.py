"""Where a model's weights go when it loads, and where its inputs and heads go after: the
job's one device, or spread over the job's GPUs when they do not fit one (docs/design/hf.md,
"Large models").

:func:`placement` decides from the model's size, the dtype it loads in and the memory of
the GPUs the job sees: nothing on a CPU; on a GPU, straight onto the first GPU
(``device_map={"": 0}``: no copy of the weights in host memory, as lm-evaluation-harness's
HFLM loads them) where it fits with :data:`natcomp.model_description.OVERHEAD` to spare or
its size is unknown; otherwise ``device_map="auto"`` with a ``max_memory`` budget per GPU
(:func:`natcomp.model_description.weights_budget_bytes`: the weights a GPU may hold so that
its activations fit beside them), which accelerate fills in balance, successive layers on
successive GPUs. The GPUs' own memory is used (what the scheduler gave the job), not
``gpus.memory_gb``, which sized the job's request (:mod:`natcomp.jobsize`).

*Placed* (:func:`is_placed`) means one thing everywhere: accelerate spread the model, or a
transformers model inside it (NonCompSST's and PSS's head modules hold one), over more than
one device (GPUs, or layers offloaded to the CPU or disk). A placed model is never moved with
``.to``: its inputs go to the device accelerate runs its first layers on (:func:`input_device`),
accelerate's hooks carry each layer's states to the next device and bring the outputs back
there, and the heads natcomp puts on it are moved there (:func:`place_heads`). The layers run
one after the other, so a placed model is no faster than one GPU holding it all; it is what
lets a 70B model run at all.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from natcomp import jobsize, model_description
from natcomp.errors import ConfigError

logger = logging.getLogger(__name__)

__all__ = ["input_device", "is_placed", "load_placement", "place_heads", "placement", "visible_gpu_memory"]


def placement(
    parameters: int | None,
    dtype: str,
    gpu_memory: Sequence[int],
    *,
    key: str = "model",
    model: str = "the model",
) -> dict:
    """``from_pretrained`` keyword arguments that place a model of ``parameters`` loaded in
    ``dtype`` (a name of :data:`natcomp.model_description.DTYPE_BYTES`) on GPUs of ``gpu_memory``
    bytes each (the job's visible GPUs, in order; empty: none): ``{}`` without a GPU;
    ``device_map={"": 0}`` (straight onto the first GPU) for an unknown size or where one GPU
    holds it; else ``device_map="auto"`` and ``max_memory`` ``{index: "<n>GiB"}`` per GPU. A
    model whose weights exceed the budgets of all the GPUs together is a one-line
    :class:`ConfigError` naming ``key``."""
    if not gpu_memory:
        return {}
    if parameters is None or model_description.gpu_memory_bytes(parameters, "inference", dtype) <= gpu_memory[0]:
        return {"device_map": {"": 0}}
    budgets = [model_description.weights_budget_bytes(memory) for memory in gpu_memory]
    weights = parameters * model_description.DTYPE_BYTES[dtype]
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
    config = model_description.model_config(name_or_path)
    parameters = model_description.parameter_count(config) if config else None
    kwargs = placement(parameters, dtype, gpus, key=key, model=str(name_or_path))
    if "max_memory" in kwargs:
        logger.info("%s spread over %s: at most %s of weights each", name_or_path, len(gpus), kwargs["max_memory"])
    return kwargs


def _spread(device_map: object) -> bool:
    """Whether an ``hf_device_map`` names more than one device (``{"": 0}`` names one)."""
    return isinstance(device_map, dict) and len({str(device) for device in device_map.values()}) > 1


def _placed_models(model) -> list:
    """The modules of ``model`` (itself included) that accelerate spread over devices, outermost first."""
    placed = []
    for module in model.modules():
        if _spread(getattr(module, "hf_device_map", None)) and not any(
            any(module is inner for inner in outer.modules()) for outer in placed
        ):
            placed.append(module)
    return placed


def is_placed(model) -> bool:
    """Whether accelerate spread ``model``, or a model inside it, over more than one device
    (GPUs, or layers offloaded to the CPU or disk): it must never be moved with ``.to``."""
    return bool(_placed_models(model))


def _as_device(device):
    import torch

    return torch.device(device) if not isinstance(device, torch.device) else device


def input_device(model):
    """The device ``model``'s inputs go to: for a placed model, the device accelerate runs it
    on (its dispatch hook's, where the outputs come back to; the first GPU); else that of its
    first parameter (the CPU for a model without parameters)."""
    import torch

    placed = _placed_models(model)
    if placed:
        device = getattr(getattr(placed[0], "_hf_hook", None), "execution_device", None)
        if device is not None:
            return _as_device(device)
        return placed[0].get_input_embeddings().weight.device
    return next((parameter.device for parameter in model.parameters()), torch.device("cpu"))


def place_heads(model):
    """Move what natcomp added around a placed model (NonCompSST's and PSS's heads: every
    module outside the placed transformers model) to the device of the states they read,
    :func:`input_device`; the placed model itself stays where accelerate put it. Returns that
    device (for a model that is not placed: where it is, nothing moved)."""
    device = input_device(model)
    placed = _placed_models(model)
    if not placed:
        return device
    inside = {id(module) for outer in placed for module in outer.modules()}

    def move(module) -> None:
        if id(module) in inside:
            return
        if not any(id(inner) in inside for inner in module.modules()):
            module.to(device)
            return
        for tensor in [*module.parameters(recurse=False), *module.buffers(recurse=False)]:
            tensor.data = tensor.data.to(device)
        for child in module.children():
            move(child)

    move(model)
    return device
