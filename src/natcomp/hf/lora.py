"""A fine-tuning method (:class:`natcomp.finetuning.FineTuning`) applied to a classifier
before :func:`natcomp.hf.fine_tune_classifier` trains it (issue 43).

``full`` trains every weight. ``lora`` injects LoRA adapters (peft) into the attention
projections of the classifier's pretrained model, its *backbone* (:func:`backbone`), and
freezes every other weight of it; the classification head, everything outside the
backbone, is trained in full. The model keeps its class, its ``config`` and its call
contract: the adapters replace the projections in place (``peft.inject_adapter_in_model``,
not a ``PeftModel`` wrapper), so natcomp's heads, pooling and prediction code run unchanged.
Gradient checkpointing, when on, is the backbone's (non-reentrant ``torch.utils.checkpoint``).

Precision (:mod:`natcomp.hf.precision`): full fine-tuning trains fp32 weights; LoRA keeps
the frozen base in the dtype it was loaded in (:func:`natcomp.hf.precision.training_dtype`:
the checkpoint's half dtype on a GPU, fp32 on a CPU) and the adapters and the head in fp32
(:func:`place_for_training`). A placed model (:func:`natcomp.hf.placement.is_placed`) is
never moved; its heads go to the device of the states they read. peft is imported only when
LoRA is applied.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import torch

from natcomp.errors import ConfigError
from natcomp.finetuning import FineTuning
from natcomp.hf.placement import is_placed, place_heads

__all__ = [
    "AppliedFineTuning",
    "apply_fine_tuning",
    "backbone",
    "finish_training",
    "place_for_training",
]

logger = logging.getLogger(__name__)


def backbone(model: torch.nn.Module):
    """The pretrained model LoRA adapts inside ``model``: a transformers model's
    ``base_model`` (a ``*ForSequenceClassification``'s encoder or decoder without its head;
    a bare model itself), or for a module of natcomp's (NonCompSST's and PSS's head on an
    encoder) the one transformers model it holds. A module holding none or several is a
    ``TypeError``."""
    from transformers import PreTrainedModel

    if isinstance(model, PreTrainedModel):
        return model.base_model
    found: list[tuple[str, torch.nn.Module]] = []
    for name, module in model.named_modules():
        inside = any(name.startswith(f"{outer}.") for outer, _ in found)
        if isinstance(module, PreTrainedModel) and not inside:
            found.append((name, module))
    if len(found) != 1:
        names = ", ".join(name for name, _ in found) or "none"
        raise TypeError(
            f"{type(model).__name__} holds {len(found)} transformers models ({names}); LoRA adapts the one "
            "pretrained model of a classifier"
        )
    return found[0][1].base_model


def _language_model(base: torch.nn.Module) -> torch.nn.Module:
    """The language model of a multimodal backbone (Gemma 3's ``language_model``), else the backbone."""
    from transformers import PreTrainedModel

    language = getattr(base, "language_model", None)
    return language if isinstance(language, PreTrainedModel) else base


@dataclass(frozen=True)
class AppliedFineTuning:
    """What :func:`apply_fine_tuning` did: the method in words (``full``, ``LoRA r=16,
    alpha=32 on q,k,v,o, gradient checkpointing``), and the trainable and all parameters."""

    fine_tuning: FineTuning
    description: str
    trainable: int
    total: int


def _inject_lora(base: torch.nn.Module, fine_tuning: FineTuning, targets: list[str], key: str) -> None:
    from peft import LoraConfig, inject_adapter_in_model
    from transformers.pytorch_utils import Conv1D

    config = LoraConfig(
        # GPT-2's projections are Conv1D, whose weight is stored transposed
        fan_in_fan_out=any(isinstance(module, Conv1D) for module in base.modules()),
        r=fine_tuning.rank,
        lora_alpha=fine_tuning.alpha,
        lora_dropout=fine_tuning.dropout,
        target_modules=targets,
        bias="none",
    )
    try:
        inject_adapter_in_model(config, base)
    except ValueError as error:  # peft: no module matched, or one it cannot adapt
        first = str(error).strip().splitlines()[0]
        raise ConfigError(f"{key}.target_modules", f"{targets}: {first}") from None


def apply_fine_tuning(
    model: torch.nn.Module,
    fine_tuning: FineTuning,
    key: str = "fine_tuning",
    log: logging.Logger | None = None,
) -> AppliedFineTuning:
    """Prepare ``model`` in place for training with ``fine_tuning`` (resolved: ``full`` or
    ``lora``; :meth:`FineTuning.resolved`).

    ``lora``: adapters of rank ``rank`` (scale ``alpha / rank``, dropout ``dropout``) on the
    backbone's attention projections (:meth:`FineTuning.modules` of its ``model_type``) or
    the ``target_modules`` named; every other backbone weight frozen, every weight outside
    the backbone (the head) trainable. ``gradient_checkpointing`` True turns the backbone's
    on. ``key`` names the setting in errors (an architecture whose projections natcomp
    does not know, a module that is not there, a model without checkpointing). Logs and
    returns the trainable and all parameters."""
    log = log or logger
    if fine_tuning.method not in ("full", "lora"):
        raise ValueError(f"resolve the fine-tuning method first (FineTuning.resolved), not {fine_tuning.method!r}")
    base = backbone(model)
    # a multimodal checkpoint (Gemma 3): LoRA adapts its language model, the vision tower stays frozen
    language = _language_model(base)
    model_type = getattr(language.config, "model_type", None)
    if fine_tuning.method == "lora":
        targets = list(dict.fromkeys(fine_tuning.modules(str(model_type), key).values()))
        _inject_lora(language, fine_tuning, targets, key)
        adapted = {name for name, _ in base.named_parameters() if "lora_" in name}
        for name, parameter in base.named_parameters():
            parameter.requires_grad_(name in adapted)
        inside = {id(parameter) for parameter in base.parameters()}
        for parameter in model.parameters():
            if id(parameter) not in inside:
                parameter.requires_grad_(True)  # the head: trained in full
    if fine_tuning.gradient_checkpointing is True:
        if not getattr(language, "supports_gradient_checkpointing", False):
            raise ConfigError(
                f"{key}.gradient_checkpointing",
                f"{type(language).__name__} cannot checkpoint its activations; expected false for this model",
            )
        language.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        if getattr(language.config, "use_cache", None):
            language.config.use_cache = False  # a key-value cache serves generation, not training
    trainable = sum(parameter.numel() for parameter in model.parameters() if parameter.requires_grad)
    total = sum(parameter.numel() for parameter in model.parameters())
    description = fine_tuning.describe(model_type)
    log.info(
        "fine-tuning: %s; %s of %s parameters trainable (%.2f%%)",
        description,
        f"{trainable:,}",
        f"{total:,}",
        100 * trainable / max(total, 1),
    )
    return AppliedFineTuning(fine_tuning, description, trainable, total)


def place_for_training(model: torch.nn.Module, method: str, device: torch.device) -> torch.device:
    """Put ``model`` on ``device`` in its training dtypes; returns the device its inputs go
    to. ``full``: every weight in fp32 (master weights). ``lora``: the frozen weights stay
    in the dtype they were loaded in (:func:`natcomp.hf.precision.training_dtype`), the
    trainable ones (adapters, head) in fp32. A placed model (:func:`natcomp.hf.placement.is_placed`)
    stays where accelerate put it, its weights cast in place, and its heads go to the device
    of the states they read (:func:`natcomp.hf.placement.place_heads`), where its inputs go too."""
    if is_placed(model):
        device = place_heads(model)
    elif method == "full":
        model.to(device, dtype=torch.float32)
    else:
        model.to(device)
    for parameter in model.parameters():
        trained = method == "full" or parameter.requires_grad
        if trained and parameter.dtype != torch.float32 and parameter.device.type != "meta":
            parameter.data = parameter.data.float()
    return device


def finish_training(model: torch.nn.Module, method: str) -> None:
    """After LoRA training, the head of a transformers classifier (everything outside its
    backbone) returns to the backbone's dtype: it reads the backbone's states in that dtype
    at inference, which runs without autocast. natcomp's own heads (NonCompSST, PSS) stay
    fp32: they cast the pooled states to fp32 themselves."""
    from transformers import PreTrainedModel

    if method != "lora" or not isinstance(model, PreTrainedModel):
        return
    base = backbone(model)
    dtype = next((p.dtype for n, p in base.named_parameters() if "lora_" not in n), torch.float32)
    inside = {id(parameter) for parameter in base.parameters()}
    for parameter in model.parameters():
        if id(parameter) not in inside and parameter.dtype != dtype:
            parameter.data = parameter.data.to(dtype)
