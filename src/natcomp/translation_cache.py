"""Translate each unique source sentence once per checkpoint, across tests and reruns.

The cache of a checkpoint is an append-only TSV (``source<TAB>translation``) named after the
checkpoint's sha256, in a folder that is not a declared workflow output: Snakemake does not
delete it when a translation job reruns (after a change to scoring, to tables or a new
test), so a rerun decodes only sentences it has never seen. A retrained checkpoint has a
new hash and so a new cache. A line cut off by a killed job is ignored when read.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import InputError
import pandas as pd

from natcomp.files import atomic_open, read_lines

log = logging.getLogger(__name__)


def checkpoint_key(checkpoint: str | Path) -> str:
    """sha256 of a checkpoint file's content."""
    digest = hashlib.sha256()
    with open(checkpoint, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def _check_field(text: str, what: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise InputError(what, f"contains a tab or line break, which a one-line TSV cannot hold: {text!r}")
    return text


class TranslationCache:
    """Persistent ``source -> translation`` map of one checkpoint."""

    def __init__(self, cache_dir: str | Path, checkpoint: str | Path):
        self.path = Path(cache_dir) / f"{checkpoint_key(checkpoint)}.tsv"
        self.entries: dict[str, str] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        with open(self.path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    log.warning("ignoring a cut-off last line in %s", self.path)
                    break
                source, _, translation = raw.decode("utf-8").rstrip("\n").partition("\t")
                self.entries[source] = translation

    def missing(self, sources: Iterable[str]) -> list[str]:
        """Sources not yet translated, distinct, in first-seen order."""
        return [s for s in dict.fromkeys(sources) if s not in self.entries]

    def add(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Append translations; each line is flushed to disk before the next batch."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"{_check_field(s, 'source sentence')}\t{_check_field(t, 'translation')}\n" for s, t in pairs]
        # Two jobs may share a cache (a best checkpoint is a byte copy of an epoch one).
        with open(self.path, "a", encoding="utf-8", newline="\n") as out:
            fcntl.flock(out, fcntl.LOCK_EX)
            out.write("".join(lines))
            out.flush()
            os.fsync(out.fileno())
            fcntl.flock(out, fcntl.LOCK_UN)
        for line in lines:
            source, _, translation = line.rstrip("\n").partition("\t")
            self.entries[source] = translation


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


def write_translations(cache: TranslationCache, sources: Sequence[str], output: str | Path) -> None:
    """Write ``source<TAB>translation`` for the distinct sources, in first-seen order."""
    with atomic_open(output) as out:
        out.write("source\ttranslation\n")
        for source in dict.fromkeys(sources):
            out.write(f"{source}\t{cache.entries[source]}\n")


SOURCE_COLUMNS = ("source", "source_a", "source_b")


def set_sources(path: str | Path) -> list[str]:
    """The source sentences of a translation set: a test-items TSV (its ``source``,
    ``source_a`` and ``source_b`` columns, row by row) or a plain text file (every line)."""
    if not str(path).endswith(".tsv"):
        return read_lines(path)
    items = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    columns = [c for c in SOURCE_COLUMNS if c in items.columns]
    if not columns:
        raise InputError(path, f"no source column; expected one of {', '.join(SOURCE_COLUMNS)}", 1)
    return [sentence for row in items[columns].itertuples(index=False) for sentence in row]
