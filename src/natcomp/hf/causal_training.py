"""Training a causal (decoder-only) language model on prompt/completion pairs.

:func:`train_causal_lm` trains a model folder (such as one from
:func:`natcomp.hf.causal.build_tiny_causal_lm`) so that, given a prompt, it writes the
completion and then its EOS token; the loss counts the completion's tokens only, so the
model learns to answer the prompt, not to write prompts. The loop is the one of
:func:`natcomp.hf.seq2seq.train_translation_model`
(:func:`natcomp.hf.training.train_in_length_sorted_batches`). The code assumes no prompt
format: the caller (``natcomp.mt.prompting`` for the demo) makes prompts and completions.
See docs/design/hf.md.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from natcomp.hf.models import save_model, set_threads  # noqa: E402
from natcomp.hf.models import device as pick_device  # noqa: E402
from natcomp.hf.training import (  # noqa: E402
    pad_rows,
    train_in_length_sorted_batches,
    training_setting_problems,
)

logger = logging.getLogger(__name__)

#: ``schedule`` values of :class:`CausalTrainingSettings` (after the warm-up).
CAUSAL_SCHEDULES = ("linear", "inverse_sqrt")

#: The label of a position that adds nothing to the loss (torch's ``ignore_index``).
IGNORED = -100


@dataclass(frozen=True)
class CausalTrainingSettings:
    """How :func:`train_causal_lm` trains.

    ``batch_size`` counts prompt/completion pairs. The learning rate warms up linearly over
    the first ``warmup`` fraction of all optimiser steps, then decays linearly to 0 at the
    last step (``schedule="linear"``) or as the inverse square root of the step
    (``"inverse_sqrt"``). ``max_length`` cuts prompt + completion to that many tokens
    (from the end); ``threads`` is torch's CPU thread count; ``gradient_clip`` the largest
    global gradient norm (None: no clipping); ``weight_decay`` applies to weight matrices.
    """

    epochs: int = 6
    batch_size: int = 32
    learning_rate: float = 3e-3
    warmup: float = 0.1
    seed: int = 1
    threads: int = 1
    device: str = "auto"
    schedule: str = "linear"
    max_length: int = 256
    weight_decay: float = 0.0
    gradient_clip: float | None = 1.0

    def __post_init__(self):
        problems = training_setting_problems(self)
        if not 0 <= self.warmup < 1:
            problems.append(f"warmup must lie in [0, 1), got {self.warmup}")
        if self.threads < 1:
            problems.append(f"threads must be at least 1, got {self.threads}")
        if self.schedule not in CAUSAL_SCHEDULES:
            problems.append(f"schedule must be one of {', '.join(CAUSAL_SCHEDULES)}, got {self.schedule!r}")
        if problems:
            raise ValueError("; ".join(problems))


def completion_rows(
    tokenizer, prompts: Sequence[str], completions: Sequence[str], max_length: int
) -> tuple[list[list[int]], list[list[int]]]:
    """``(input_ids, labels)`` per pair: the prompt's tokens (with the special tokens the
    tokenizer adds to a text, such as Llama's BOS), then the completion's tokens and the EOS
    token; the labels are :data:`IGNORED` on the prompt's tokens and the ids elsewhere.

    The prompt and the completion are tokenized apart, as generation sees them: the model
    reads the prompt's tokens and writes the completion's after them. Pairs longer than
    ``max_length`` tokens lose their last tokens.
    """
    eos = tokenizer.eos_token_id
    if eos is None:
        raise ValueError("the tokenizer has no EOS token to end the completions with")
    prompt_ids = tokenizer(list(prompts))["input_ids"]
    completion_ids = tokenizer(list(completions), add_special_tokens=False)["input_ids"]
    inputs, labels = [], []
    for prompt, completion in zip(prompt_ids, completion_ids):
        answer = [*completion, eos]
        inputs.append([*prompt, *answer][:max_length])
        labels.append([*[IGNORED] * len(prompt), *answer][:max_length])
    return inputs, labels


def completion_batch(
    inputs: Sequence[Sequence[int]], labels: Sequence[Sequence[int]], pad: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(input_ids, attention_mask, labels)`` tensors of rows from :func:`completion_rows`,
    padded on the right (a causal model's positions then need no correction). The mask
    comes from the row lengths, not from comparing ids with ``pad``: a model without a pad
    token pads with its EOS, which also ends every completion."""
    lengths = torch.tensor([len(row) for row in inputs])
    input_ids = pad_rows(inputs, pad)
    attention_mask = (torch.arange(input_ids.size(1))[None, :] < lengths[:, None]).long()
    return input_ids, attention_mask, pad_rows(labels, IGNORED)


def completion_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the labelled tokens: the logits at position i predict the
    token at i + 1; positions labelled :data:`IGNORED` (prompt, padding) count nothing."""
    return torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1), ignore_index=IGNORED
    )


def train_causal_lm(
    untrained: str | os.PathLike,
    prompts: Sequence[str],
    completions: Sequence[str],
    settings: CausalTrainingSettings,
    output: str | os.PathLike,
    *,
    key: str = "model",
    log: logging.Logger | None = None,
) -> dict:
    """Train the causal LM saved in ``untrained`` on ``prompts`` and their ``completions``
    and save it (model and tokenizer) to ``output`` atomically.

    Pairs are tokenized once (:func:`completion_rows`: the loss is on the completion's
    tokens and the EOS token after them only), cut into batches of similar length, and
    every epoch visits the batches in a fresh seeded random order; AdamW with the settings'
    warm-up and schedule. Seeded (``transformers.set_seed``), so equal inputs give equal
    weights on the same hardware and thread count.

    Returns ``{"train_loss": mean loss per completion token of the last epoch,
    "epoch_losses": [...], "seconds": wall time of training, "sentences": pairs trained
    on, "steps": optimiser steps, "device": where it ran}``.
    """
    from natcomp.hf.causal import load_causal_lm

    log = log or logger
    if len(prompts) != len(completions):
        raise ValueError(f"{len(prompts)} prompts but {len(completions)} completions")
    if not prompts:
        raise ValueError("no prompt/completion pairs to train on")
    run_device = pick_device(settings.device)
    if run_device.type == "cpu":
        set_threads(settings.threads)
    tokenizer, model = load_causal_lm(untrained, key)
    inputs, labels = completion_rows(tokenizer, prompts, completions, settings.max_length)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id

    def batch_loss(indices: list[int]) -> tuple[torch.Tensor, int]:
        input_ids, attention_mask, batch_labels = (
            tensor.to(run_device)
            for tensor in completion_batch([inputs[i] for i in indices], [labels[i] for i in indices], pad)
        )
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        return completion_loss(logits, batch_labels), int((batch_labels[:, 1:] != IGNORED).sum())

    model.to(run_device)
    total_steps = math.ceil(len(inputs) / settings.batch_size) * settings.epochs
    epoch_losses, steps, seconds = train_in_length_sorted_batches(
        model,
        [len(row) for row in inputs],
        settings,
        round(settings.warmup * total_steps),
        settings.schedule,
        batch_loss,
        log,
    )
    save_model(model, tokenizer, output)
    return {
        "train_loss": epoch_losses[-1],
        "epoch_losses": epoch_losses,
        "seconds": seconds,
        "sentences": len(prompts),
        "steps": steps,
        "device": str(run_device),
    }
