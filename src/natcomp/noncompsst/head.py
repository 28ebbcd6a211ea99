"""The released code's sentiment classifier: a fresh MLP head on the CLS state of an encoder.

The NonCompSST repository (``sentiment_training/lib``) loads every model with
``AutoModel`` (the bare encoder: a checkpoint's own classification head is not loaded)
and puts on the first token's final hidden state ``Linear(hidden, 100)``, dropout 0.1,
ReLU and ``Linear(100, 7)``, trained with the negative log-likelihood of the
log-softmax. :class:`CLSHeadClassifier` is that model, so the four checkpoints that were
already fine-tuned for sentiment start from their encoder only, like the others.

It fulfils the contract of :func:`natcomp.hf.fine_tune_classifier` (``loss`` and
``logits``); predict with :func:`natcomp.hf.predict_logits`. Kept apart from
``models`` so that importing the family does not import torch.
"""

from __future__ import annotations

import torch

from natcomp import hf

__all__ = ["HEAD_HIDDEN", "CLSHeadClassifier", "load_cls_head_classifier"]

HEAD_HIDDEN = 100


class CLSHeadClassifier(torch.nn.Module):
    """Encoder -> CLS state -> Linear(h, 100) -> dropout 0.1 -> ReLU -> Linear(100, n)."""

    def __init__(self, encoder: torch.nn.Module, num_labels: int = 7, *, hidden: int = HEAD_HIDDEN, dropout=0.1):
        super().__init__()
        self.encoder = encoder
        self.num_labels = num_labels
        self.head = torch.nn.Sequential(
            torch.nn.Linear(encoder.config.hidden_size, hidden),
            torch.nn.Dropout(dropout),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, num_labels),
        )

    def forward(self, input_ids, attention_mask=None, labels=None):
        states = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        logits = self.head(states[:, 0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.nll_loss(torch.log_softmax(logits, dim=-1), labels)
        return out


def load_cls_head_classifier(name_or_path: str, num_labels: int = 7, *, seed: int, key: str = "model"):
    """The encoder of ``name_or_path`` (``AutoModel``: any checkpoint head left out) with a
    new head initialised from ``seed``."""
    from transformers import set_seed

    encoder = hf.load_encoder(name_or_path, key)
    set_seed(seed)
    return CLSHeadClassifier(encoder, num_labels)
