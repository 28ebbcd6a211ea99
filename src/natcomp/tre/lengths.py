"""The length settings of TRE (issue 42): how many tokens of a sentence an embedding keeps, and
how many measured sentences a limit cuts.

bert-as-service, which the paper's BERT ran through, keeps 25 tokens ([CLS] and [SEP]
included): the target embeds the first 23 word pieces while the tree composes every word, so a
cut sentence's error grows with its length. Every encoder configured with a limit is therefore
run twice, at that limit (as the paper's tool ran) and with none (the model's own maximum), and
Table 2 names the limit (``max_length``) and counts the sentences it cut (``cut_sentences``).

Labels: a limit is written ``"25"``, no limit ``"none"`` (:data:`NO_LIMIT`): the value of the
``{max_length}`` wildcard in the TRE paths and of Table 2's ``max_length`` column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "LENGTH_COLUMNS",
    "NO_LIMIT",
    "cut_mask",
    "length_columns",
    "length_label",
    "length_limit",
    "length_settings",
    "parse_length",
]

#: the label of "no limit": the tokenizer's own maximum (``model_max_length``), as Hugging Face
#: truncates when it is given ``max_length=None``
NO_LIMIT = "none"
#: the columns the workflow's fit scripts add to a ``scores`` table (:func:`length_columns`)
LENGTH_COLUMNS = ("tokens", "cut")


def length_label(max_length: int | None) -> str:
    """The label of a limit: ``"25"`` for 25 tokens, :data:`NO_LIMIT` for None."""
    if max_length is None:
        return NO_LIMIT
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 2:
        raise ValueError(f"max_length must be an integer of at least 2 or None, got {max_length!r}")
    return str(max_length)


def parse_length(label: str) -> int | None:
    """The limit of a label (:func:`length_label`'s inverse): None for :data:`NO_LIMIT`."""
    if label == NO_LIMIT:
        return None
    if not label.isdigit() or int(label) < 2 or label != str(int(label)):
        raise ValueError(f"{label!r} is not a length setting; expected a number of tokens (at least 2) or {NO_LIMIT!r}")
    return int(label)


def length_settings(max_length: int | None) -> list[str]:
    """The length settings of an encoder configured with ``max_length`` (its own, else the
    family's ``embed.max_length``), the configured one first: that limit (as the paper's tool
    ran) and no limit, or only no limit where none is configured."""
    return [NO_LIMIT] if max_length is None else [length_label(max_length), NO_LIMIT]


def length_limit(tokenizer, max_length: int | None) -> int | None:
    """The tokens an embedding at ``max_length`` keeps: ``max_length``, or with None the
    tokenizer's own maximum (``model_max_length``), which Hugging Face truncates to when given
    no ``max_length``; None where the tokenizer has no maximum (nothing is cut)."""
    if max_length is not None:
        return max_length
    from natcomp.hf.inference import model_max_positions

    return model_max_positions(tokenizer)


def cut_mask(tokenizer, texts: Sequence[str], max_length: int | None) -> np.ndarray:
    """Whether the embedding at ``max_length`` (None: no limit, :func:`length_limit`) cuts each
    text: True where its tokens, special tokens included (:func:`natcomp.hf.token_counts`), exceed the
    limit. A text of exactly ``max_length`` tokens is kept whole."""
    return length_columns(tokenizer, texts, max_length)["cut"].astype(bool)


def length_columns(tokenizer, texts: Sequence[str], max_length: int | None) -> dict[str, np.ndarray]:
    """The :data:`LENGTH_COLUMNS` of ``texts``: ``tokens`` (:func:`natcomp.hf.token_counts`:
    special tokens included, uncut) and ``cut`` (1 where the embedding at ``max_length`` cut
    the text, else 0: :func:`cut_mask`)."""
    from natcomp.hf.inference import token_counts

    counts = np.asarray(token_counts(tokenizer, texts), dtype=int)
    limit = length_limit(tokenizer, max_length)
    cut = counts > limit if limit is not None else np.zeros(len(counts), dtype=bool)
    return {"tokens": counts, "cut": cut.astype(int)}
