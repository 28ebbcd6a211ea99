"""Sentiment models fine-tuned on SST-7 (section 5, appendix D) and their stimulus predictions.

Any Hugging Face model, by hub name or local path, is loaded as its bare encoder and gets
a fresh MLP head (Linear(h, 100), dropout 0.1, ReLU, Linear(100, 7)) on the CLS state, as
the released code builds it for every model (:mod:`natcomp.noncompsst.head`): a
checkpoint's own classification head, trained for sentiment or not, is not used. A
decoder-only model (GPT-2, Llama ...) is loaded and trained the same way, its head on the
state of the last real token (the decoder's counterpart of the first token). The
model is fine-tuned on SST-7 train with appendix D's settings (batch 32, learning rate
5e-6, AdamW, cosine schedule with 20 % warm-up, 5 epochs, the epoch with the best
validation accuracy kept; gradient clipping only where ``gradient_clip`` is set), once
per seed, on the GPU where there is one (``natcomp.hf``). Reported:
SST-7 test macro-F1 and the predicted class of every stimulus. The stimuli come as the
model's text: tokenised like SST and lower-cased
(:class:`natcomp.noncompsst.stimuli.StimulusTokenizer`, as the released code does with
stanza); SST-7 sentences are fed as they are.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import f1_score

from natcomp import hf

__all__ = ["SeedResult", "check_models", "macro_f1", "train_and_predict"]

log = logging.getLogger("natcomp.noncompsst.models")


def macro_f1(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Macro-F1 over the classes that occur in gold or predictions (sklearn)."""
    return float(f1_score(list(y_true), list(y_pred), average="macro", zero_division=0))


def check_models(models: Mapping[str, str], key: str = "noncompsst.models") -> None:
    """Fail before any training when a model is neither a local directory, a shipped model nor cached."""
    for name, location in models.items():
        hf.check_model_available(location, f"{key}.{name}")


@dataclass
class SeedResult:
    seed: int
    test_f1: float
    best_epoch: int
    history: list[dict]
    stimulus_predictions: list[int]
    seconds: float
    #: how the model was fine-tuned, in words (``full``, ``LoRA r=16, alpha=32 on q,k,v,o``)
    fine_tuning: str = "full"


def train_and_predict(
    model: str,
    sst7: Mapping[str, Sequence[tuple[str, int]]],
    stimuli: Sequence[str],
    settings: hf.FineTuneSettings,
    *,
    logger: logging.Logger = log,
) -> SeedResult:
    """Fine-tune ``model`` on ``sst7["train"]`` (best epoch on ``sst7["validation"]``), score the
    test set, predict the ``stimuli`` (texts as the model sees them: see the module documentation).
    ``settings.fine_tuning`` ``auto`` is decided by the model's size (:meth:`natcomp.hf.FineTuneSettings.for_model`)."""
    from natcomp.finetuning import family_key
    from natcomp.noncompsst.head import load_sentiment_head_classifier

    started = time.perf_counter()
    settings = settings.for_model(model, key=family_key("noncompsst"))
    tokenizer = hf.load_tokenizer(model)
    dtype = hf.training_load_dtype(model, settings.fine_tuning, hf.device(settings.device))
    classifier = load_sentiment_head_classifier(model, 7, seed=settings.seed, dtype=dtype)
    train_texts, train_labels = zip(*sst7["train"])
    valid_texts, valid_labels = zip(*sst7["validation"])
    result = hf.fine_tune_classifier(
        classifier,
        tokenizer,
        list(train_texts),
        list(train_labels),
        settings=settings,
        valid_texts=list(valid_texts),
        valid_labels=list(valid_labels),
        log=logger,
        fine_tuning_key=family_key("noncompsst"),
    )
    test_texts, test_labels = zip(*sst7["test"])
    options = {
        "batch_size": max(settings.batch_size, 64),
        "max_length": settings.max_length,
        "device": hf.device(settings.device),
    }
    test_pred = np.argmax(hf.predict_logits(result.model, tokenizer, list(test_texts), **options), axis=1)
    texts = list(stimuli)
    stimulus_pred = (
        np.argmax(hf.predict_logits(result.model, tokenizer, texts, **options), axis=1)
        if texts
        else np.array([], dtype=int)
    )
    test_f1 = macro_f1(test_labels, test_pred)
    logger.info("%s seed %d: best epoch %d, SST-7 test macro-F1 %.3f", model, settings.seed, result.best_epoch, test_f1)
    return SeedResult(
        settings.seed,
        test_f1,
        result.best_epoch,
        result.history,
        [int(p) for p in stimulus_pred],
        time.perf_counter() - started,
        fine_tuning=result.fine_tuning,
    )
