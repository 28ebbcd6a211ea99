"""Translate each unique source sentence once per way of decoding, across tests and reruns.

A translation depends on more than the checkpoint: the beam, the length limits, the BPE
codes and tokenisation of the source, the precision. :func:`decode_signature` names all of
them, sacrebleu style (``ckpt:3f2a...|beam:5|maxlen:1.2*src+10|bpe:9c1e...|tok:moses-en|
prec:fp32``), and the cache is keyed on it: an append-only TSV (``source<TAB>translation``)
named after the signature's sha256, whose first line records the signature, in a folder
that is not a declared workflow output. Snakemake does not delete it when a translation
job reruns (after a change to scoring, to tables or a new test), so a rerun decodes only
sentences it has never seen; a retrained checkpoint or a changed decode setting has a new
signature and so a new cache. A line cut off by a killed job is ignored when read.

An n-best decode (the synonym probes keep the top 5 hypotheses of the beam) names
``nbest:N`` in its signature, so it has a cache of its own; its entries hold the
hypotheses as a JSON list (:func:`encode_nbest`, :func:`decode_nbest`). A one-best
decode's signature does not name n-best, so existing caches stay valid.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.keyedcache import KeyedCache
from natcomp.tsv import read_tsv, write_tsv

log = logging.getLogger(__name__)


def checkpoint_key(checkpoint: str | Path) -> str:
    """sha256 of a checkpoint file's content."""
    digest = hashlib.sha256()
    with open(checkpoint, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class DecodeSettings:
    """How a model decodes: beam size, output length limit ``max_len_a * source length +
    max_len_b`` (fairseq's generator), the numeric precision, and how many hypotheses of
    the beam are kept (``nbest``, at most ``beam``)."""

    beam: int
    max_len_a: float
    max_len_b: int
    precision: str = "fp32"
    nbest: int = 1

    def __post_init__(self):
        if not 1 <= self.nbest <= self.beam:
            raise ValueError(f"nbest must be between 1 and the beam ({self.beam}), not {self.nbest}")


def decode_signature(checkpoint: str | Path, bpe_codes: str | Path, source_lang: str, settings: DecodeSettings) -> str:
    """Everything a translation depends on, as one line (written into translation files,
    score files and tables, and the key of the cache)."""
    return "|".join(
        [
            f"ckpt:{checkpoint_key(checkpoint)[:16]}",
            f"beam:{settings.beam}",
            *([f"nbest:{settings.nbest}"] if settings.nbest > 1 else []),
            f"maxlen:{settings.max_len_a:g}*src+{settings.max_len_b}",
            f"bpe:{checkpoint_key(bpe_codes)[:12]}",
            f"tok:moses-{source_lang}",
            f"prec:{settings.precision}",
        ]
    )


class TranslationCache(KeyedCache):
    """Persistent ``source -> translation`` map of one decode signature."""

    key_name, value_name = "source sentence", "translation"


def encode_nbest(hypotheses: Sequence[str]) -> str:
    """One cache field holding the hypotheses of an n-best decode (a JSON list, one line)."""
    return json.dumps(list(hypotheses), ensure_ascii=False)


def decode_nbest(field: str) -> list[str]:
    """The hypotheses of a cache field written by :func:`encode_nbest`."""
    hypotheses = json.loads(field)
    if not isinstance(hypotheses, list) or not all(isinstance(h, str) for h in hypotheses):
        raise ValueError(f"not an n-best list of strings: {field!r}")
    return hypotheses


@dataclass(frozen=True)
class DecodeStats:
    unique: int
    cached: int
    decoded: int


def translate_with_cache(
    cache: TranslationCache,
    sources: Sequence[str],
    translate: Callable[[Sequence[str]], list[str]],
    batch_sentences: int = 2000,
) -> DecodeStats:
    """Make sure every source has a cached translation, decoding only the missing ones.

    ``translate`` is called lazily (not at all when everything is cached), on batches of
    ``batch_sentences`` so that a killed job keeps what it already decoded.
    """
    unique = len(set(sources))
    todo = cache.missing(sources)
    for start in range(0, len(todo), batch_sentences):
        batch = todo[start : start + batch_sentences]
        cache.add(zip(batch, translate(batch)))
        log.info("decoded %d of %d new sentences", min(start + batch_sentences, len(todo)), len(todo))
    return DecodeStats(unique=unique, cached=unique - len(todo), decoded=len(todo))


TRANSLATION_COLUMNS = ("set", "source", "translation", "decode_signature")


def write_translations(cache: TranslationCache, sets: Mapping[str, Sequence[str]], output: str | Path) -> int:
    """Write the translations of named sets of sources, one row per distinct source of each
    set in first-seen order, with the columns :data:`TRANSLATION_COLUMNS`. Returns the rows."""
    rows = (
        {"set": name, "source": source, "translation": cache.entries[source], "decode_signature": cache.signature}
        for name, sources in sets.items()
        for source in dict.fromkeys(sources)
    )
    return write_tsv(output, rows, TRANSLATION_COLUMNS)


SOURCE_COLUMNS = ("source", "source_a", "source_b")


def set_sources(path: str | Path) -> list[str]:
    """The source sentences of a translation set: a test-items TSV (its ``source``,
    ``source_a`` and ``source_b`` columns, row by row) or a plain text file (every line)."""
    if not str(path).endswith(".tsv"):
        return read_lines(path)
    items = read_tsv(path)
    columns = [c for c in SOURCE_COLUMNS if c in items.columns]
    if not columns:
        raise InputError(path, f"no source column; expected one of {', '.join(SOURCE_COLUMNS)}", 1)
    return [sentence for row in items[columns].itertuples(index=False) for sentence in row]


def translation_signature(path: str | Path) -> str:
    """The decode signature of a translation file written by :func:`write_translations`."""
    signatures = set(read_tsv(path, ("decode_signature",))["decode_signature"])
    if len(signatures) != 1:
        raise InputError(path, f"expected one decode signature, found {len(signatures)}")
    return signatures.pop()
