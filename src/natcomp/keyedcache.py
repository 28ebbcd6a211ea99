"""An append-only, one-line-per-entry cache of ``key -> value`` under one signature.

The design of the MT family's translation cache, shared by every cache of model answers
(:class:`natcomp.mt.translation_cache.TranslationCache`, a served model's answers in
:mod:`natcomp.served`): a TSV (``key<TAB>value``) named after the signature's sha256, whose
first line records the signature. Each :meth:`KeyedCache.add` appends under an exclusive
lock and is flushed to disk before it returns, so a killed job keeps every entry it
wrote; a line cut off by the kill is ignored when the cache is read again.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from natcomp.errors import InputError

__all__ = ["KeyedCache", "check_field"]

log = logging.getLogger(__name__)

_SIGNATURE_LINE = "#decode-signature\t"


def check_field(text: str, what: str) -> str:
    """``text``, refused when a one-line TSV field cannot hold it (a tab or a line break)."""
    if "\t" in text or "\n" in text or "\r" in text:
        raise InputError(what, f"contains a tab or line break, which a one-line TSV cannot hold: {text!r}")
    return text


class KeyedCache:
    """Persistent ``key -> value`` map of one signature, in ``cache_dir``."""

    #: what a key and a value are, in error messages
    key_name, value_name = "key", "value"

    def __init__(self, cache_dir: str | Path, signature: str):
        self.signature = check_field(signature, "decode signature")
        digest = hashlib.sha256(signature.encode("utf-8")).hexdigest()
        self.path = Path(cache_dir) / f"{digest}.tsv"
        self.entries: dict[str, str] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        with open(self.path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    log.warning("ignoring a cut-off last line in %s", self.path)
                    break
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith(_SIGNATURE_LINE):
                    recorded = line.removeprefix(_SIGNATURE_LINE)
                    if recorded != self.signature:
                        raise InputError(self.path, f"cache of {recorded!r}, expected {self.signature!r}", 1)
                    continue
                key, _, value = line.partition("\t")
                self.entries[key] = value

    def missing(self, keys: Iterable[str]) -> list[str]:
        """Keys not yet in the cache, distinct, in first-seen order."""
        return [key for key in dict.fromkeys(keys) if key not in self.entries]

    def add(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Append entries; each call's lines are flushed to disk before it returns."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"{check_field(key, self.key_name)}\t{check_field(value, self.value_name)}\n" for key, value in pairs]
        # Two jobs may share a cache (a best checkpoint is a byte copy of an epoch one).
        with open(self.path, "a", encoding="utf-8", newline="\n") as out:
            fcntl.flock(out, fcntl.LOCK_EX)
            if out.tell() == 0:
                out.write(f"{_SIGNATURE_LINE}{self.signature}\n")
            out.write("".join(lines))
            out.flush()
            os.fsync(out.fileno())
            fcntl.flock(out, fcntl.LOCK_UN)
        for line in lines:
            key, _, value = line.rstrip("\n").partition("\t")
            self.entries[key] = value
