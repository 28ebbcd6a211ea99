"""Sentiment classifiers on sentence embeddings: the paper's two heads, frozen (FB) or fine-tuned (FT).

Heads (Bhathena et al., 2020, section 3.1): ``linear`` (one linear projection from the
sentence embedding to the labels) and ``dnn`` (two hidden layers of 500 and 100 units; ReLU
between layers, which the paper does not name).

FB ("feature based"): the encoder is frozen; the head is trained on cached embeddings
(:func:`train_head`). FT: the encoder and the head are trained together
(:func:`fine_tune_encoder`, through :func:`natcomp.hf.fine_tune_classifier`), pooling the
same layer the same way as :func:`natcomp.hf.encode` (:func:`natcomp.hf.hidden_states`,
:func:`natcomp.hf.pool_states`).

A decoder-only model (GPT-2, Llama) is fine-tuned the same way: with pooling ``last`` and
the ``linear`` head this is transformers' sequence-classification head of a causal LM (a
linear map of the last real token's state), with pooling ``mean`` the head reads the mean
of the real tokens' states (docs/design/pss_tre.md, "Causal LMs").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch


__all__ = [
    "HEADS",
    "EncoderClassifier",
    "HeadSettings",
    "embed_sentences",
    "fine_tune_encoder",
    "make_head",
    "predict_head",
    "predict_texts",
    "train_head",
]

HEADS = ("linear", "dnn")
_DNN_UNITS = (500, 100)


def make_head(kind: str, dimension: int, classes: int = 2) -> torch.nn.Module:
    """A fresh ``linear`` or ``dnn`` head from ``dimension`` inputs to ``classes`` logits."""
    if kind == "linear":
        return torch.nn.Linear(dimension, classes)
    if kind == "dnn":
        first, second = _DNN_UNITS
        return torch.nn.Sequential(
            torch.nn.Linear(dimension, first),
            torch.nn.ReLU(),
            torch.nn.Linear(first, second),
            torch.nn.ReLU(),
            torch.nn.Linear(second, classes),
        )
    raise ValueError(f"head must be one of {', '.join(HEADS)}, not {kind!r}")


@dataclass(frozen=True)
class HeadSettings:
    """Training of a head on frozen embeddings (Adam, cross-entropy, seeded mini-batches)."""

    epochs: int = 10
    batch_size: int = 64
    learning_rate: float = 3e-3
    seed: int = 0
    device: str = "auto"


def _device(prefer: str) -> torch.device:
    from natcomp.hf import device

    return device(prefer)


def train_head(
    embeddings: np.ndarray,
    labels: Sequence[int],
    kind: str,
    settings: HeadSettings = HeadSettings(),
    *,
    log: logging.Logger | None = None,
) -> torch.nn.Module:
    """Train a ``kind`` head on ``embeddings`` ``[n, dim]`` with integer ``labels``; returns it in eval mode."""
    features = torch.as_tensor(np.asarray(embeddings, dtype=np.float32))
    targets = torch.as_tensor(np.asarray(labels, dtype=np.int64))
    if features.ndim != 2 or len(features) != len(targets) or not len(targets):
        raise ValueError(f"need [n, dim] embeddings and n labels, got {list(features.shape)} and {len(targets)}")
    classes = int(targets.max()) + 1
    run_device = _device(settings.device)
    torch.manual_seed(settings.seed)
    head = make_head(kind, features.shape[1], max(classes, 2)).to(run_device)
    optimiser = torch.optim.Adam(head.parameters(), lr=settings.learning_rate)
    order = torch.Generator().manual_seed(settings.seed)
    features, targets = features.to(run_device), targets.to(run_device)
    head.train()
    for epoch in range(1, settings.epochs + 1):
        total = 0.0
        for batch in torch.randperm(len(targets), generator=order).split(settings.batch_size):
            batch = batch.to(run_device)
            optimiser.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(head(features[batch]), targets[batch])
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        if log is not None:
            log.info("head %s epoch %d: training loss %.4f", kind, epoch, total / len(targets))
    return head.eval()


def predict_head(head: torch.nn.Module, embeddings: np.ndarray) -> np.ndarray:
    """Predicted labels (argmax) of a head for ``embeddings``."""
    parameter = next(head.parameters())
    with torch.inference_mode():
        logits = head(torch.as_tensor(np.asarray(embeddings, dtype=np.float32), device=parameter.device))
    return logits.argmax(dim=1).cpu().numpy()


class EncoderClassifier(torch.nn.Module):
    """An encoder, pooling of one of its layers (:data:`natcomp.hf.POOLINGS`; ``layer`` -1: the
    last) and a head: the FT model.

    Fulfils :mod:`natcomp.hf.training`'s contract: ``forward(input_ids, attention_mask,
    token_type_ids=None, labels=None)`` returns ``{"loss", "logits"}``. The states and the
    pooling are :func:`natcomp.hf.encode`'s, so FT reads a sentence as FB does (a decoder-only
    encoder gets position ids counted from each text's first real token).
    """

    def __init__(
        self,
        encoder: torch.nn.Module,
        head: torch.nn.Module,
        pooling: str,
        normalize: bool = False,
        layer: int = -1,
        special_ids: Sequence[int] = (),
    ):
        from natcomp import hf

        super().__init__()
        if pooling not in hf.POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(hf.POOLINGS)}, not {pooling!r}")
        self.encoder, self.head, self.pooling, self.normalize, self.layer = encoder, head, pooling, normalize, layer
        # the tokenizer's special tokens, which a decoder-only model's mean leaves out (as FB's)
        self.special_ids = list(special_ids)

    def forward(self, input_ids, attention_mask, token_type_ids=None, labels=None):
        from natcomp import hf

        extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
        hidden = hf.hidden_states(self.encoder, input_ids, attention_mask, layer=self.layer, **extra)
        mask = attention_mask
        if self.pooling == "mean":
            mask = hf.mean_pooling_mask(self.encoder, input_ids, attention_mask, self.special_ids)
        # the head is fp32 (natcomp.hf.precision): the states of a bf16 encoder are cast to it
        pooled = hf.pool_states(hidden, mask, self.pooling).float()
        if self.normalize:
            pooled = torch.nn.functional.normalize(pooled, dim=-1)
        logits = self.head(pooled)
        loss = None if labels is None else torch.nn.functional.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits}


def embed_sentences(
    model: str,
    sentences: Sequence[str],
    *,
    pooling: str,
    normalize: bool = False,
    layer: int = -1,
    batch_size: int = 64,
    max_length: int = 128,
    device: str = "auto",
    key: str = "model",
) -> np.ndarray:
    """Embeddings ``[n, hidden]`` of ``sentences`` by a Hugging Face encoder (:func:`natcomp.hf.embed_texts`)."""
    from natcomp import hf

    spec = hf.EncoderSpec(model, pooling, normalize, layer)
    return hf.embed_texts(spec, sentences, batch_size=batch_size, max_length=max_length, device=device, key=key)


def fine_tune_encoder(
    model: str,
    head_kind: str,
    texts: Sequence[str],
    labels: Sequence[int],
    settings,
    *,
    pooling: str,
    normalize: bool = False,
    layer: int = -1,
    key: str = "model",
    pooling_key: str = "pooling",
    log: logging.Logger | None = None,
):
    """Fine-tune an encoder with a fresh ``head_kind`` head (FT mode); returns ``(model, tokenizer)``.

    ``settings`` is a :class:`natcomp.hf.FineTuneSettings`; the head's initial weights are
    seeded with ``settings.seed``. ``key`` and ``pooling_key`` name the model and the pooling
    in errors: ``cls`` pooling of a decoder-only model is a :class:`ConfigError` before any
    training (its first token's state has seen only that token). ``settings.fine_tuning``
    ``auto`` is decided by the model's size; the method is logged.
    """
    from natcomp import hf
    from natcomp.finetuning import family_key

    hf.check_model_available(model, key)
    settings = settings.for_model(model, key=family_key("pss"))
    encoder = hf.load_encoder(
        model, key, dtype=hf.training_load_dtype(model, settings.fine_tuning, hf.device(settings.device), key)
    )
    hf.check_pooling(encoder, pooling, model, pooling_key)
    tokenizer = hf.load_tokenizer(model, key)
    torch.manual_seed(settings.seed)
    classes = max(int(max(labels)) + 1, 2)
    classifier = EncoderClassifier(
        encoder,
        make_head(head_kind, encoder.config.get_text_config().hidden_size, classes),
        pooling,
        normalize,
        layer,
        special_ids=tokenizer.all_special_ids,
    )
    result = hf.fine_tune_classifier(
        classifier,
        tokenizer,
        list(texts),
        list(labels),
        settings=settings,
        log=log,
        fine_tuning_key=family_key("pss"),
    )
    return result.model, tokenizer


def predict_texts(
    model: torch.nn.Module, tokenizer, texts: Sequence[str], *, batch_size: int = 64, max_length: int = 128
) -> np.ndarray:
    """Predicted labels (argmax of the logits) of a fine-tuned classifier for ``texts``."""
    from natcomp import hf

    logits = hf.predict_logits(model, tokenizer, list(texts), batch_size=batch_size, max_length=max_length)
    return logits.argmax(axis=1)
