"""How many tokens of each sentence a mode reads, and how many sentences that cuts.

A length limit (``max_length``) counts a tokenised sentence with its special tokens
(``[CLS]`` and ``[SEP]`` for BERT), as :func:`natcomp.hf.tokenize` truncates it. FB reads
as configured (the paper's BERT: bert-as-service's 25 tokens); FT, unless an encoder sets
its own length, reads every sentence whole: :func:`sentence_lengths` with ``max_length``
None gives the longest tokenised sentence of the PSS sets (train, test, pairs), capped at
the model's own maximum positions (:func:`natcomp.hf.model_max_positions`). Either way the sentences
the limit cuts are counted (the score rows' ``cut_sentences``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SentenceLengths", "read_sentence_lengths", "sentence_lengths"]

#: the fewest tokens a limit may keep (natcomp.hf.FineTuneSettings refuses fewer)
_SHORTEST_LIMIT = 2


@dataclass(frozen=True)
class SentenceLengths:
    """A length limit and what it does to a list of sentences (tokens with special tokens)."""

    max_length: int  #: tokens kept per sentence
    longest: int  #: tokens of the longest sentence, uncut
    cut: int  #: sentences longer than ``max_length``
    sentences: int  #: sentences counted


def sentence_lengths(
    tokenizer, texts: Sequence[str], max_length: int | None = None, *, limit: int | None = None
) -> SentenceLengths:
    """The limit ``max_length`` and the sentences of ``texts`` it cuts; with ``max_length``
    None, the limit that cuts none: the longest sentence's tokens, capped at ``limit`` (the
    model's positions, :func:`natcomp.hf.model_max_positions`; None: no cap)."""
    from natcomp.hf.inference import token_counts

    counts = token_counts(tokenizer, texts)
    longest = max(counts, default=0)
    if max_length is None:
        max_length = max(longest, _SHORTEST_LIMIT)
        if limit is not None:
            max_length = min(max_length, limit)
    return SentenceLengths(int(max_length), longest, sum(count > max_length for count in counts), len(counts))


def read_sentence_lengths(
    model: str, texts: Sequence[str], max_length: int | None = None, *, key: str = "model"
) -> SentenceLengths:
    """:func:`sentence_lengths` with the tokenizer of ``model`` (a Hub name or folder), capped
    at its positions; ``key`` names the model in errors. Loads no weights."""
    from natcomp import hf

    tokenizer = hf.load_tokenizer(model, key)
    limit = hf.model_max_positions(tokenizer, hf.load_config(model, key)) if max_length is None else None
    return sentence_lengths(tokenizer, texts, max_length, limit=limit)
