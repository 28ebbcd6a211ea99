"""The released code's sentiment classifier: a fresh MLP head on one token's final state.

The NonCompSST repository (``sentiment_training/lib``) loads every model with
``AutoModel`` (the bare encoder: a checkpoint's own classification head is not loaded)
and puts on the first token's final hidden state ``Linear(hidden, 100)``, dropout 0.1,
ReLU and ``Linear(100, 7)``, trained with the negative log-likelihood of the
log-softmax. :class:`SentimentHeadClassifier` is that model, so the four checkpoints that
were already fine-tuned for sentiment start from their encoder only, like the others.

An encoder's head reads the first (CLS) token's state, as released. A decoder-only
model's (GPT-2, Llama ...) reads the state of the last real token instead: a causal
model's state at a position has seen only the tokens to its left, so the first token's
state knows nothing of the sentence and the last one's has read all of it (the token
transformers' own sequence-classification heads of causal LMs read). The states come from
:func:`natcomp.hf.hidden_states` (position ids that skip left padding) and are pooled by
:func:`natcomp.hf.pool_states` from the attention mask, so the pooled state is the same
whichever side the tokenizer pads.

It fulfils the contract of :func:`natcomp.hf.fine_tune_classifier` (``loss`` and
``logits``); predict with :func:`natcomp.hf.predict_logits`. Kept apart from
``models`` so that importing the family does not import torch.
"""

from __future__ import annotations

import torch

from natcomp import hf

__all__ = ["HEAD_HIDDEN", "SentimentHeadClassifier", "head_pooling", "load_sentiment_head_classifier"]

HEAD_HIDDEN = 100


def head_pooling(encoder: torch.nn.Module) -> str:
    """The token the head reads: ``"last"`` (last real token) for a decoder-only model,
    ``"cls"`` (first token) for an encoder."""
    return "last" if hf.is_decoder_only(encoder) else "cls"


class SentimentHeadClassifier(torch.nn.Module):
    """Model -> one token's final state -> Linear(h, 100) -> dropout 0.1 -> ReLU -> Linear(100, n).

    The token is the first (CLS) of an encoder and the last real one of a decoder-only
    model (:func:`head_pooling`)."""

    def __init__(
        self,
        encoder: torch.nn.Module,
        num_labels: int = 7,
        *,
        hidden: int = HEAD_HIDDEN,
        dropout: float = 0.1,
    ):
        super().__init__()
        self.encoder = encoder
        self.num_labels = num_labels
        self.pooling = head_pooling(encoder)
        self.head = torch.nn.Sequential(
            # the language model's width: a multimodal checkpoint's (Gemma 3) is its text config's
            torch.nn.Linear(encoder.config.get_text_config().hidden_size, hidden),
            torch.nn.Dropout(dropout),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, num_labels),
        )

    def forward(self, input_ids, attention_mask=None, labels=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        states = hf.hidden_states(self.encoder, input_ids, attention_mask)
        # the head is fp32 (natcomp.hf.precision): the states of a bf16 encoder are cast to it
        logits = self.head(hf.pool_states(states, attention_mask, self.pooling).float())
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.nll_loss(torch.log_softmax(logits, dim=-1), labels)
        return out


def load_sentiment_head_classifier(
    name_or_path: str, num_labels: int = 7, *, seed: int, key: str = "model", dtype: str = "fp32"
):
    """The bare model of ``name_or_path`` (``AutoModel``: any checkpoint head, a causal LM's
    language-model head included, left out) in ``dtype`` (:func:`natcomp.hf.training_load_dtype`)
    with a new fp32 head initialised from ``seed``."""
    from transformers import set_seed

    encoder = hf.load_encoder(name_or_path, key, dtype=dtype)
    set_seed(seed)
    return SentimentHeadClassifier(encoder, num_labels)
