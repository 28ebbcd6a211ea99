"""How many tokens of each sentence a mode reads, and how many sentences that cuts.

A length limit (``max_length``) counts a tokenised sentence with its special tokens
(``[CLS]`` and ``[SEP]`` for BERT), as :func:`natcomp.hf.tokenize` truncates it. FB reads
as configured (the paper's BERT: bert-as-service's 25 tokens); FT, unless an encoder sets
its own length, reads every sentence whole: :func:`sentence_lengths` with ``max_length``
None gives the longest tokenised sentence of the PSS sets (train, test, pairs), capped at
the model's own maximum positions (:func:`model_max_positions`). Either way the sentences
the limit cuts are counted (the score rows' ``cut_sentences``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SentenceLengths", "model_max_positions", "read_sentence_lengths", "sentence_lengths", "token_counts"]

#: a tokenizer's ``model_max_length`` at or above this is transformers' "no limit known" sentinel
_NO_LIMIT = 1_000_000
#: model types whose position ids count from the pad id + 1 (``max_position_embeddings`` - 2
#: positions are usable)
_OFFSET_POSITIONS = {
    "camembert",
    "data2vec-text",
    "ibert",
    "longformer",
    "mpnet",
    "roberta",
    "roberta-prelayernorm",
    "xlm-roberta",
    "xlm-roberta-xl",
    "xmod",
}
#: the fewest tokens a limit may keep (natcomp.hf.FineTuneSettings refuses fewer)
_SHORTEST_LIMIT = 2


@dataclass(frozen=True)
class SentenceLengths:
    """A length limit and what it does to a list of sentences (tokens with special tokens)."""

    max_length: int  #: tokens kept per sentence
    longest: int  #: tokens of the longest sentence, uncut
    cut: int  #: sentences longer than ``max_length``
    sentences: int  #: sentences counted


def token_counts(tokenizer, texts: Sequence[str], batch_size: int = 4096) -> list[int]:
    """Tokens of each text, special tokens included, uncut (what :func:`natcomp.hf.tokenize`
    would keep without a limit)."""
    counts: list[int] = []
    for start in range(0, len(texts), batch_size):
        encoded = tokenizer(list(texts[start : start + batch_size]), truncation=False, verbose=False)
        counts.extend(len(ids) for ids in encoded["input_ids"])
    return counts


def model_max_positions(tokenizer, config=None) -> int | None:
    """The most tokens the model reads: the smaller of the tokenizer's ``model_max_length``
    (unless it is transformers' no-limit sentinel) and the config's position embeddings
    (``max_position_embeddings`` or ``n_positions``, less RoBERTa-style models' pad offset);
    None where neither says."""
    limits = []
    own = getattr(tokenizer, "model_max_length", None)
    if isinstance(own, int) and 0 < own < _NO_LIMIT:
        limits.append(own)
    for name in ("max_position_embeddings", "n_positions"):
        positions = getattr(config, name, None) if config is not None else None
        if isinstance(positions, int) and positions > 0:
            if getattr(config, "model_type", None) in _OFFSET_POSITIONS:
                pad = getattr(config, "pad_token_id", None)
                positions -= (1 if pad is None else int(pad)) + 1
            limits.append(positions)
            break
    return min(limits) if limits else None


def sentence_lengths(
    tokenizer, texts: Sequence[str], max_length: int | None = None, *, limit: int | None = None
) -> SentenceLengths:
    """The limit ``max_length`` and the sentences of ``texts`` it cuts; with ``max_length``
    None, the limit that cuts none: the longest sentence's tokens, capped at ``limit`` (the
    model's positions, :func:`model_max_positions`; None: no cap)."""
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
    limit = model_max_positions(tokenizer, hf.load_config(model, key)) if max_length is None else None
    return sentence_lengths(tokenizer, texts, max_length, limit=limit)
