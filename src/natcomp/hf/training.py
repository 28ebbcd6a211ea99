"""Fine-tuning a classifier (an HF sequence classifier or an encoder with a custom head).

The model contract: ``model(input_ids=..., attention_mask=..., labels=...)`` returns an
object or dict with ``loss`` (when labels are given) and ``logits`` ``[batch, classes]``;
with ``labels=None`` it returns ``logits``. Other tokenizer outputs (``token_type_ids``)
are passed only when forward accepts them. Hugging Face ``*ForSequenceClassification``
models fulfil the contract as they are.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from natcomp.errors import ConfigError
from natcomp.finetuning import GPU_MEMORY_GB, FamilyTraining, FineTuning
from natcomp.hf.inference import (
    TextInput,
    model_device,
    model_inputs,
    output_field,
    predict_logits,
    tokenize,
)
from natcomp.hf.models import device as pick_device
from natcomp.hf.precision import TORCH_DTYPES, gradient_scaler, training_autocast, training_precision

logger = logging.getLogger(__name__)

SCHEDULERS = ("cosine", "linear", "constant")
# Our names -> transformers.get_scheduler names. All three warm up linearly first;
# "constant" then stays at the peak learning rate.
_HF_SCHEDULER = {"cosine": "cosine", "linear": "linear", "constant": "constant_with_warmup"}


def optimizer_step(
    loss: torch.Tensor, model: torch.nn.Module, optimizer, scheduler, gradient_clip: float | None, scaler=None
) -> None:
    """One update: back-propagate ``loss``, clip the gradient norm (None: no clipping),
    step the optimiser and the learning-rate schedule, clear the gradients. ``scaler`` (fp16
    autocast: :func:`natcomp.hf.precision.gradient_scaler`) scales the loss and unscales the
    gradients before they are clipped, as torch's mixed-precision recipe does."""
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    if gradient_clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clip)
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)


def training_setting_problems(settings) -> list[str]:
    """What is wrong with the settings every natcomp training has (``epochs``,
    ``batch_size``, ``learning_rate``, ``weight_decay``, ``max_length``,
    ``gradient_clip``), one message each; the settings classes add their own."""
    problems = []
    if settings.epochs < 1:
        problems.append(f"epochs must be at least 1, got {settings.epochs}")
    if settings.batch_size < 1:
        problems.append(f"batch_size must be at least 1, got {settings.batch_size}")
    if not settings.learning_rate > 0:
        problems.append(f"learning_rate must be positive, got {settings.learning_rate}")
    if settings.weight_decay < 0:
        problems.append(f"weight_decay must not be negative, got {settings.weight_decay}")
    if settings.max_length < 2:
        problems.append(f"max_length must be at least 2, got {settings.max_length}")
    if settings.gradient_clip is not None and not settings.gradient_clip > 0:
        problems.append(f"gradient_clip must be positive or None, got {settings.gradient_clip}")
    return problems


def warmup_then_decay(warmup_steps: int, schedule: str, total_steps: int) -> Callable[[int], float]:
    """The learning-rate factor of each optimiser step (for ``LambdaLR``): a linear warm-up
    over ``warmup_steps`` updates, then the inverse square root of the update (``"inverse_sqrt"``,
    fairseq's schedule for Transformers) or a linear decay to 0 at ``total_steps`` (``"linear"``)."""

    def factor(step: int) -> float:  # step counts from 0; the factor of step s applies to update s + 1
        update = step + 1
        if warmup_steps and update <= warmup_steps:
            return update / warmup_steps
        if schedule == "inverse_sqrt":
            return math.sqrt(max(warmup_steps, 1) / update)
        return max(0.0, (total_steps - update) / max(1, total_steps - warmup_steps))

    return factor


def length_sorted_chunks(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices sorted by length (ties in input order), cut into batches of ``batch_size``:
    items of similar length share a batch, so little padding is computed."""
    order = sorted(range(len(lengths)), key=lambda index: (lengths[index], index))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def pad_rows(rows: Sequence[Sequence[int]], value: int) -> torch.Tensor:
    """``rows`` of token ids as one tensor, each padded on the right with ``value``."""
    width = max(len(row) for row in rows)
    return torch.tensor([list(row) + [value] * (width - len(row)) for row in rows], dtype=torch.long)


def train_in_length_sorted_batches(
    model,
    lengths: Sequence[int],
    settings,
    warmup_steps: int,
    schedule: str,
    batch_loss: Callable[[list[int]], tuple[torch.Tensor, int]],
    log: logging.Logger,
) -> tuple[list[float], int, float]:
    """The training loop of the generative models (:mod:`natcomp.hf.seq2seq`,
    :mod:`natcomp.hf.causal_training`): items cut into batches of similar ``lengths``
    (:func:`length_sorted_chunks`), every epoch visiting the batches in a fresh seeded random
    order; AdamW (betas 0.9/0.98, weight decay on weight matrices only) with
    :func:`warmup_then_decay`; the gradient clipped to ``settings.gradient_clip``.
    ``batch_loss(indices)`` returns the batch's mean loss per token and its token count.
    Seeded from ``settings.seed`` (``transformers.set_seed``). ``settings`` gives
    ``epochs``, ``batch_size``, ``learning_rate``, ``weight_decay``, ``gradient_clip``,
    ``seed``. Returns (mean loss per token of each epoch, optimiser steps, seconds); the
    model is left in eval mode.
    """
    from transformers import set_seed

    set_seed(settings.seed)
    model.to(dtype=torch.float32).train()  # fp32 master weights (natcomp.hf.precision)
    log.info("training in %s on %s", training_precision(model_device(model)), model_device(model))
    decay = [parameter for parameter in model.parameters() if parameter.ndim >= 2]
    no_decay = [parameter for parameter in model.parameters() if parameter.ndim < 2]
    optimizer = adamw(
        [{"params": decay, "weight_decay": settings.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=settings.learning_rate,
        betas=(0.9, 0.98),
    )
    batches = length_sorted_chunks(lengths, settings.batch_size)
    total_steps = len(batches) * settings.epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_then_decay(warmup_steps, schedule, total_steps))
    order_generator = torch.Generator().manual_seed(settings.seed)

    start = time.perf_counter()
    epoch_losses: list[float] = []
    for epoch in range(1, settings.epochs + 1):
        loss_sum, token_count = 0.0, 0
        for batch_index in torch.randperm(len(batches), generator=order_generator).tolist():
            with training_autocast(model_device(model)):
                loss, tokens = batch_loss(batches[batch_index])
            optimizer_step(loss, model, optimizer, scheduler, settings.gradient_clip)
            loss_sum += float(loss.detach()) * tokens
            token_count += tokens
        epoch_losses.append(loss_sum / token_count)
        log.info("epoch %d/%d: train loss %.4f per token", epoch, settings.epochs, epoch_losses[-1])
    seconds = time.perf_counter() - start
    model.eval()
    return epoch_losses, total_steps, seconds


@dataclass(frozen=True)
class FineTuneSettings:
    """How to fine-tune.

    ``warmup_ratio`` of all optimisation steps warm the learning rate up linearly from 0;
    then ``scheduler`` decays it (cosine or linear, to 0) or keeps it (constant).
    ``weight_decay`` applies to weight matrices only (not to biases and LayerNorm weights).
    ``gradient_clip`` is the max global gradient norm (None: no clipping). ``select_best``
    keeps the weights of the epoch with the best validation metric (needs validation data);
    otherwise the last epoch's weights are kept. ``fine_tuning`` is how the model is
    updated (:class:`natcomp.finetuning.FineTuning`): every weight (``full``, the default:
    the papers' fine-tuning), LoRA adapters and the head (``lora``), or ``auto`` (decided by
    the model's size: :meth:`for_model`, or the parameters of the model trained).
    """

    epochs: int
    batch_size: int
    learning_rate: float
    weight_decay: float = 0.0
    warmup_ratio: float = 0.1
    scheduler: str = "linear"
    max_length: int = 128
    seed: int = 0
    device: str = "auto"
    select_best: bool = False
    gradient_clip: float | None = 1.0
    fine_tuning: FineTuning = FineTuning(method="full")

    def __post_init__(self):
        problems = training_setting_problems(self)
        if not isinstance(self.fine_tuning, FineTuning):
            problems.append(f"fine_tuning must be a natcomp.finetuning.FineTuning, got {self.fine_tuning!r}")
        if not 0 <= self.warmup_ratio < 1:
            problems.append(f"warmup_ratio must lie in [0, 1), got {self.warmup_ratio}")
        if self.scheduler not in SCHEDULERS:
            problems.append(f"scheduler must be one of {', '.join(SCHEDULERS)}, got {self.scheduler!r}")
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def from_config(cls, section: Mapping, key: str) -> FineTuneSettings:
        """Settings from a config section (its keys are the field names; ``fine_tuning`` a
        mapping, :meth:`natcomp.finetuning.FineTuning.from_config`); unknown or missing keys
        and bad values raise :class:`ConfigError` naming ``key``."""
        names = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(set(section) - names)
        if unknown:
            raise ConfigError(
                key, f"unknown fine-tuning setting(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}"
            )
        section = dict(section)
        if "fine_tuning" in section and not isinstance(section["fine_tuning"], FineTuning):
            section["fine_tuning"] = FineTuning.from_config(section["fine_tuning"], f"{key}.fine_tuning")
        try:
            return cls(**section)
        except (TypeError, ValueError) as error:
            raise ConfigError(key, str(error)) from None

    def for_model(
        self, name_or_path, gpu_memory_gb: float = GPU_MEMORY_GB, key: str = "fine_tuning"
    ) -> FineTuneSettings:
        """These settings with ``fine_tuning`` decided for the model at ``name_or_path``
        (:meth:`natcomp.model_description.ModelDescription.resolve`: the method by its size,
        LoRA's learning rate, checkpointing by these settings' batch and length); unchanged
        when the workflow decided it already (what a job's params carry)."""
        setting = self.fine_tuning
        if setting.method != "auto" and setting.gradient_checkpointing != "auto":
            if setting.method == "full" or setting.learning_rate is not None:
                return self
        from natcomp.model_description import ModelDescription

        training = FamilyTraining(setting, self.batch_size, self.max_length)
        resolved = ModelDescription.read(name_or_path).resolve(training, gpu_memory_gb, key)
        return dataclasses.replace(self, fine_tuning=resolved)


@dataclass
class FineTuneResult:
    """The fine-tuned model (weights of ``best_epoch`` loaded, eval mode), per-epoch
    history (dicts with ``epoch`` (1-based), ``train_loss`` (mean over examples) and
    ``valid_metric`` (None without validation data)) and how it was fine-tuned, in words
    (``full``; ``LoRA r=16, alpha=32 on q,k,v,o``: :meth:`FineTuning.describe`)."""

    model: torch.nn.Module
    history: list[dict] = field(default_factory=list)
    best_epoch: int = 0
    fine_tuning: str = "full"


def accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Share of predictions equal to the gold labels."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.size == 0:
        raise ValueError(f"need equally many gold labels and predictions, got {y_true.shape} and {y_pred.shape}")
    return float((y_true == y_pred).mean())


def _check_data(texts: Sequence[TextInput], labels: Sequence[int], what: str) -> list[int]:
    if len(texts) != len(labels):
        raise ValueError(f"{what}: {len(texts)} texts but {len(labels)} labels")
    if len(texts) == 0:
        raise ValueError(f"{what}: no examples")
    labels = [int(label) for label in labels]
    if min(labels) < 0:
        raise ValueError(f"{what}: labels must be class indices 0..n-1, got {min(labels)}")
    return labels


#: devices with torch's fused AdamW kernel that natcomp trains on
FUSED_ADAMW_DEVICES = ("cpu", "cuda")


def adamw(parameter_groups: Sequence[dict], **options) -> torch.optim.Optimizer:
    """torch's AdamW over ``parameter_groups`` (``options``: lr, betas, ...), its update fused
    into one kernel where every parameter lies on a device in :data:`FUSED_ADAMW_DEVICES`.
    The fused kernel computes the same update as the loop over parameters (torch tests the
    two equal to float rounding) in a fraction of the time on a CPU, where the loop is a
    training step's largest part: a step of the shipped MiniLM (22.7M parameters, batch 16,
    12 tokens, one thread) took 107 ms in the loop and 16 ms fused, against 150 ms for the
    forward and backward pass (docs/design/hf.md, "Fused AdamW")."""
    devices = {parameter.device.type for group in parameter_groups for parameter in group["params"]}
    fused = bool(devices) and devices <= set(FUSED_ADAMW_DEVICES)
    return torch.optim.AdamW(parameter_groups, fused=fused, **options)


def _parameter_groups(model: torch.nn.Module, weight_decay: float) -> list[dict]:
    # As in BERT and the HF Trainer: no weight decay on biases and normalisation weights
    # (the 1-dimensional parameters).
    decay, no_decay = [], []
    for parameter in model.parameters():
        if parameter.requires_grad:
            (decay if parameter.ndim >= 2 else no_decay).append(parameter)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def _predict(model, tokenizer, texts, settings, run_device) -> np.ndarray:
    """argmax of the logits, input order: :func:`natcomp.hf.predict_logits`, the function the
    families' final predictions call, without autocast, so that the epoch validation keeps is
    chosen by the numerics its final predictions have (the model's training flag is restored)."""
    logits = predict_logits(model, tokenizer, texts, batch_size=settings.batch_size, max_length=settings.max_length)
    return logits.argmax(axis=1)


def trained_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of the weights training changes (those with ``requires_grad``): every
    weight in full fine-tuning, the adapters and the head with LoRA, so keeping the best
    epoch of an 8B model copies megabytes, not its 16 GB of frozen weights. Restored with
    ``load_state_dict(..., strict=False)``."""
    return {
        name: parameter.detach().to("cpu", copy=True)
        for name, parameter in model.named_parameters()
        if parameter.requires_grad
    }


def fine_tune_classifier(
    model: torch.nn.Module,
    tokenizer,
    train_texts: Sequence[TextInput],
    train_labels: Sequence[int],
    *,
    settings: FineTuneSettings,
    valid_texts: Sequence[TextInput] | None = None,
    valid_labels: Sequence[int] | None = None,
    metric: Callable[[Sequence[int], Sequence[int]], float] = accuracy,
    log: logging.Logger | None = None,
    fine_tuning_key: str = "fine_tuning",
) -> FineTuneResult:
    """Fine-tune ``model`` on texts (or ``(first, second)`` pairs) with integer labels.

    AdamW with warm-up and the settings' schedule, mini-batches of ``settings.batch_size``
    drawn in a fresh seeded random order each epoch, gradient clipping, on
    ``device(settings.device)``. Seeded (``transformers.set_seed``: Python, NumPy, torch),
    so the same model, data and settings give the same history on the same hardware.
    After each epoch the validation set (if any) is predicted (argmax of the logits) and
    scored with ``metric(y_true, y_pred)`` (higher is better; default accuracy). With
    ``settings.select_best`` the weights of the best epoch (the earliest among ties) are
    restored at the end. The model is trained in place and returned in eval mode.
    ``settings.fine_tuning`` decides which weights train (:func:`natcomp.hf.lora.apply_fine_tuning`;
    ``auto`` by the parameters of ``model``; ``fine_tuning_key`` names the setting in
    errors); the optimiser sees only those. A model accelerate placed across several GPUs
    (``hf_device_map``) is not moved. See the module docstring for the contract a custom
    model must fulfil.
    """
    from natcomp.hf.lora import apply_fine_tuning, finish_training, place_for_training

    from transformers import get_scheduler, set_seed

    log = log or logger
    train_labels = _check_data(train_texts, train_labels, "training data")
    has_valid = valid_texts is not None or valid_labels is not None
    if has_valid:
        if valid_texts is None or valid_labels is None:
            raise ValueError("give both valid_texts and valid_labels, or neither")
        valid_labels = _check_data(valid_texts, valid_labels, "validation data")
    if settings.select_best and not has_valid:
        raise ValueError("select_best needs validation data (valid_texts, valid_labels)")

    set_seed(settings.seed)
    fine_tuning = settings.fine_tuning
    undecided = fine_tuning.method == "auto" or fine_tuning.gradient_checkpointing == "auto"
    if undecided or (fine_tuning.method == "lora" and fine_tuning.learning_rate is None):
        # decided by the model's own size (checkpointing only where asked: a job's comes decided)
        fine_tuning = fine_tuning.resolved(sum(parameter.numel() for parameter in model.parameters()))
    applied = apply_fine_tuning(model, fine_tuning, fine_tuning_key, log)
    # full: fp32 master weights whatever the checkpoint's dtype; LoRA: the frozen base as
    # loaded, the adapters and the head in fp32 (natcomp.hf.precision)
    run_device = place_for_training(model, fine_tuning.method, pick_device(settings.device))
    base = _frozen_dtype(model)
    log.info("training in %s on %s", training_precision(run_device, base), run_device)
    # LoRA trains at its own rate: the family's is full fine-tuning's (natcomp.finetuning)
    learning_rate = fine_tuning.learning_rate if fine_tuning.method == "lora" else settings.learning_rate
    optimizer = adamw(_parameter_groups(model, settings.weight_decay), lr=learning_rate)
    scaler = gradient_scaler(run_device, base)
    steps_per_epoch = math.ceil(len(train_texts) / settings.batch_size)
    total_steps = steps_per_epoch * settings.epochs
    scheduler = get_scheduler(
        _HF_SCHEDULER[settings.scheduler],
        optimizer,
        num_warmup_steps=math.ceil(settings.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    order_generator = torch.Generator().manual_seed(settings.seed)
    labels_tensor = torch.tensor(train_labels, dtype=torch.long)

    history: list[dict] = []
    best_metric, best_epoch, best_state = -math.inf, settings.epochs, None
    for epoch in range(1, settings.epochs + 1):
        model.train()
        loss_sum = 0.0
        order = torch.randperm(len(train_texts), generator=order_generator).tolist()
        for start in range(0, len(order), settings.batch_size):
            indices = order[start : start + settings.batch_size]
            batch = tokenize(tokenizer, [train_texts[index] for index in indices], settings.max_length)
            with training_autocast(run_device, base):
                output = model(**model_inputs(model, batch, run_device), labels=labels_tensor[indices].to(run_device))
            loss = output_field(output, "loss")
            if loss is None:
                raise TypeError("the model returned no loss for labels; see natcomp.hf.training for the contract")
            optimizer_step(loss, model, optimizer, scheduler, settings.gradient_clip, scaler)
            loss_sum += float(loss.detach()) * len(indices)
        row = {"epoch": epoch, "train_loss": loss_sum / len(train_texts), "valid_metric": None}
        if has_valid:
            predictions = _predict(model, tokenizer, valid_texts, settings, run_device)
            row["valid_metric"] = float(metric(valid_labels, predictions))
            if settings.select_best and row["valid_metric"] > best_metric:
                best_metric, best_epoch = row["valid_metric"], epoch
                best_state = trained_state(model)
        history.append(row)
        log.info(
            "epoch %d/%d: train loss %.4f%s",
            epoch,
            settings.epochs,
            row["train_loss"],
            (
                ""
                if row["valid_metric"] is None
                else f", validation {getattr(metric, '__name__', 'metric')} {row['valid_metric']:.4f}"
            ),
        )
    if settings.select_best and best_state is not None:
        model.load_state_dict(best_state, strict=False)
        log.info("kept epoch %d (validation metric %.4f)", best_epoch, best_metric)
    finish_training(model, fine_tuning.method)
    model.eval()
    return FineTuneResult(
        model=model, history=copy.deepcopy(history), best_epoch=best_epoch, fine_tuning=applied.description
    )


def _frozen_dtype(model: torch.nn.Module) -> str:
    """The dtype of the weights that are not trained (fp32 when every weight is)."""
    names = {dtype: name for name, dtype in TORCH_DTYPES.items()}
    frozen = next((parameter.dtype for parameter in model.parameters() if not parameter.requires_grad), torch.float32)
    return names.get(frozen, "fp32")
