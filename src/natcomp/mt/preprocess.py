"""Corpus preprocessing for the MT family: Moses tokenisation, seeded shuffling, size
prefixes and joint BPE, with chunked variants that the workflow runs as parallel jobs.

Tokenisation is sacremoses' port of Moses' ``tokenizer.perl`` with its defaults (escaping
on, no aggressive hyphen splitting), as in the paper; BPE is subword-nmt's.
"""

from __future__ import annotations

import functools
import itertools
import mmap
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from subword_nmt.apply_bpe import BPE
from subword_nmt.learn_bpe import learn_bpe

from natcomp.errors import InputError
from natcomp.files import atomic_open, count_lines, iter_lines

if TYPE_CHECKING:
    from sacremoses import MosesDetokenizer, MosesTokenizer

BPE_SEPARATOR = "@@"


@functools.cache
def moses_language(code: str) -> str:
    """The Moses tokeniser's language of a language code: the ``moses`` field of
    ``resources/mt/languages/<code>.yaml``; a code without a resource file as it is."""
    from natcomp.errors import ConfigError
    from natcomp.mt.languages import load_language

    try:
        return load_language(code).moses
    except ConfigError:
        return code


# sacremoses is imported where a sentence is first (de)tokenised: it takes 0.15 s, and most
# jobs that read this module (BPE, shuffling, size prefixes, training, BLEU tables) never do
@functools.cache
def _tokenizer(lang: str) -> MosesTokenizer:
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=moses_language(lang))


@functools.cache
def _detokenizer(lang: str) -> MosesDetokenizer:
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang=moses_language(lang))


def tokenise(sentence: str, lang: str) -> str:
    """Moses-tokenise one sentence (escaped, as ``tokenizer.perl -l LANG``)."""
    return _tokenizer(lang).tokenize(sentence, return_str=True, escape=True)


def detokenise(sentence: str, lang: str) -> str:
    """Undo :func:`tokenise` (Moses detokeniser, unescaping entities)."""
    return _detokenizer(lang).detokenize(sentence.split(), return_str=True, unescape=True)


def remove_bpe(sentence: str) -> str:
    """Join BPE pieces (``wo@@ rd`` -> ``word``), like fairseq's ``--remove-bpe``."""
    return (sentence + " ").replace(BPE_SEPARATOR + " ", "").rstrip()


def chunk_bounds(n_lines: int, n_chunks: int, index: int) -> tuple[int, int]:
    """Line range ``[start, stop)`` of chunk ``index`` when ``n_lines`` are cut in ``n_chunks``."""
    if not 0 <= index < n_chunks:
        raise ValueError(f"chunk index {index} outside 0..{n_chunks - 1}")
    return n_lines * index // n_chunks, n_lines * (index + 1) // n_chunks


def _chunk_lines(path: str | Path, n_chunks: int, index: int) -> Iterator[str]:
    start, stop = chunk_bounds(count_lines(path), n_chunks, index)
    return itertools.islice(iter_lines(path), start, stop)


def tokenise_chunk(source: str | Path, output: str | Path, lang: str, n_chunks: int = 1, index: int = 0) -> int:
    """Tokenise chunk ``index`` of ``n_chunks`` of a text file; return the lines written."""
    with atomic_open(output) as out:
        count = 0
        for line in _chunk_lines(source, n_chunks, index):
            out.write(tokenise(line, lang) + "\n")
            count += 1
    return count


def apply_bpe_chunk(
    codes: str | Path, source: str | Path, output: str | Path, n_chunks: int = 1, index: int = 0
) -> int:
    """Segment chunk ``index`` of ``n_chunks`` of a tokenised file with BPE codes."""
    bpe = load_bpe(codes)
    with atomic_open(output) as out:
        count = 0
        for line in _chunk_lines(source, n_chunks, index):
            out.write(bpe.process_line(line) + "\n")
            count += 1
    return count


def load_bpe(codes: str | Path) -> BPE:
    with open(codes, encoding="utf-8") as handle:
        return BPE(handle, separator=BPE_SEPARATOR)


def concatenate(sources: Sequence[str | Path], output: str | Path) -> int:
    """Concatenate text files in order (gathering chunks); return the number of lines."""
    count = 0
    with atomic_open(output, "wb") as out:
        for source in sources:
            with open(source, "rb") as handle:
                for line in handle:
                    out.write(line if line.endswith(b"\n") else line + b"\n")
                    count += 1
    return count


def _line_offsets(buffer: mmap.mmap | bytes) -> np.ndarray:
    """Start offsets of every line plus the end offset (``n + 1`` values)."""
    array = np.frombuffer(buffer, dtype=np.uint8)
    newlines = np.flatnonzero(array == ord("\n"))
    ends = newlines + 1
    if len(array) and array[-1] != ord("\n"):
        ends = np.append(ends, len(array))
    return np.concatenate(([0], ends)).astype(np.int64)


def shuffle_parallel(sources: Sequence[str | Path], outputs: Sequence[str | Path], seed: int) -> int:
    """Shuffle line-aligned files with one seeded permutation; return the number of lines.

    Works on memory maps and line offsets, so the corpus itself is never held as Python
    strings (the paper-scale corpus has 69M pairs).
    """
    if len(sources) != len(outputs):
        raise ValueError("one output per source expected")
    maps, offsets = [], []
    handles = [open(path, "rb") for path in sources]
    try:
        for path, handle in zip(sources, handles):
            if Path(path).stat().st_size == 0:
                maps.append(b"")
            else:
                maps.append(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))
            offsets.append(_line_offsets(maps[-1]))
        counts = {len(o) - 1 for o in offsets}
        if len(counts) != 1:
            detail = ", ".join(f"{p}: {len(o) - 1}" for p, o in zip(sources, offsets))
            raise InputError(sources[0], f"parallel files have different line counts ({detail})")
        n = counts.pop()
        order = np.random.default_rng(seed).permutation(n)
        for buffer, starts, output in zip(maps, offsets, outputs):
            with atomic_open(output, "wb") as out:
                for i in order:
                    line = buffer[starts[i] : starts[i + 1]]
                    out.write(line if line.endswith(b"\n") else line + b"\n")
        return n
    finally:
        for buffer in maps:
            if isinstance(buffer, mmap.mmap):
                buffer.close()
        for handle in handles:
            handle.close()


def take_prefix(source: str | Path, output: str | Path, n_lines: int | None) -> int:
    """Copy the first ``n_lines`` lines (all when ``None``); error if the file is shorter."""
    written = 0
    with open(source, "rb") as handle, atomic_open(output, "wb") as out:
        for line in itertools.islice(handle, n_lines):
            out.write(line)
            written += 1
        if n_lines is not None and written < n_lines:
            raise InputError(source, f"has {written} lines; expected at least {n_lines} for this corpus size")
    return written


def learn_joint_bpe(
    sources: Iterable[str | Path], codes_out: str | Path, merges: int, workers: int = 1, min_frequency: int = 2
) -> None:
    """Learn one set of BPE merges on the concatenation of all sources (joint BPE); pairs
    seen fewer than ``min_frequency`` times are not merged (subword-nmt's option)."""
    with tempfile.TemporaryDirectory() as tmp:
        joined = Path(tmp) / "joined.txt"
        concatenate(list(sources), joined)
        with open(joined, encoding="utf-8") as infile, atomic_open(codes_out) as out:
            learn_bpe(infile, out, merges, min_frequency=min_frequency, num_workers=workers)
