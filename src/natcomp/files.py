"""Atomic output files and strict reading of line-based text files.

Every file natcomp writes goes through :func:`atomic_path` or :func:`atomic_open`: the data
is written under a temporary name in the same directory and renamed into place only when
the writer finished without an exception, so a killed or failing job never leaves a file
that looks complete.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from natcomp.errors import InputError, os_error_message

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it to ``path`` on success.

    On an exception the temporary file is removed and ``path`` is left untouched. A folder
    at ``path`` is refused before anything is written (:class:`InputError`).
    """
    target = Path(path)
    check_output_file(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as error:
        # named for the output, not for the hidden temporary file the OS error would name
        raise InputError(target, _unwritable(error)) from None
    os.close(fd)
    tmp = Path(tmp_name)
    # mkstemp creates 0600 files; give the result the permissions a plain open() would.
    os.chmod(tmp, 0o666 & ~_UMASK)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file for writing; it replaces ``path`` when the block succeeds.

    Text mode writes UTF-8 with ``\\n`` line ends; a ``.gz`` target is gzip-compressed
    (with a fixed mtime, so equal content gives equal bytes).
    """
    binary = "b" in mode
    with atomic_path(path) as tmp:
        if str(path).endswith(".gz"):
            raw = open(tmp, "wb")
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
            handle = gz if binary else _text_wrapper(gz, encoding)
            try:
                yield handle
            finally:
                handle.close()
                raw.close()
        else:
            kwargs = {} if binary else {"encoding": encoding, "newline": "\n"}
            with open(tmp, mode, **kwargs) as handle:
                yield handle


def _text_wrapper(binary: IO[bytes], encoding: str | None) -> IO[str]:
    import io

    return io.TextIOWrapper(binary, encoding=encoding or "utf-8", newline="\n")


def check_output_file(path: str | Path) -> None:
    """Refuse ``path`` as a file to write when it is a folder or cannot be written
    (:func:`check_writable`), with an :class:`InputError` naming it."""
    if Path(path).is_dir():
        raise InputError(path, "is a folder; expected a file to write")
    check_writable(Path(path).parent, path)


def check_output_folder(path: str | Path) -> None:
    """Refuse ``path`` as a folder to write into when it exists and is not a folder, or
    cannot be made or written (:func:`check_writable`)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InputError(path, "already exists as a file; expected a folder to write into (or a new name)")
    check_writable(target, path)


def _unwritable(error: OSError) -> str:
    return f"cannot be written ({error.strerror or error}); expected a path in a folder that can be written"


def check_writable(folder: str | Path, output: str | Path) -> None:
    """Refuse ``output`` when ``folder`` (its folder, made on writing when missing) cannot
    be made or written: the nearest existing folder above it is a file, or a probe file
    cannot be made in it (read-only, ``/proc``, no permission). Nothing is left behind."""
    existing = Path(folder).absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(output, f"{existing} is a file; expected a folder above the output")
    try:
        fd, probe = tempfile.mkstemp(prefix=".natcomp-write-check.", dir=existing)
    except OSError as error:
        raise InputError(output, _unwritable(error)) from None
    os.close(fd)
    os.unlink(probe)


def utf8_error(path: str | Path, data: bytes, error: UnicodeDecodeError, first_line: int = 1) -> InputError:
    """The :class:`InputError` for bytes of ``path`` that are not UTF-8: names the line
    (counted in ``data``, which starts at line ``first_line``) and the byte in that line."""
    line = data.count(b"\n", 0, error.start) + first_line
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    return InputError(path, f"not valid UTF-8 ({error.reason} at byte {column} of the line); expected UTF-8 text", line)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a file; ``.gz`` files are decompressed."""
    if str(path).endswith(".gz"):
        with gzip.open(path, "rb") as handle:
            return handle.read()
    return Path(path).read_bytes()


def read_text(path: str | Path) -> str:
    """The whole text of a UTF-8 file (``.gz`` decompressed), line ends kept as they are.

    Bytes that are not UTF-8 raise :class:`InputError` naming the file and the line. OS
    errors (a missing file, a folder) pass through with their path, for the command line's
    one-line report.
    """
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise utf8_error(path, data, error) from None


def load_yaml(stream):
    """A YAML document (text or an open file) as ``yaml.safe_load`` reads it, with libyaml's
    parser where PyYAML was built with it: the same values, several times faster (the
    workflow reads its schemas and config files every time it plans)."""
    import yaml

    return yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def read_yaml(path: str | Path):
    """The YAML document of a UTF-8 file (checked like :func:`read_text`); a syntax error is
    an :class:`InputError` naming the file, the line and the column of the problem."""
    import yaml

    text = read_text(path)
    try:
        return load_yaml(text)
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        mark = getattr(error, "problem_mark", None)
        if mark is None:
            raise InputError(path, f"not valid YAML: {problem}") from None
        context = getattr(error, "context", None)
        where = f" ({context})" if context else ""
        raise InputError(path, f"column {mark.column + 1}: not valid YAML: {problem}{where}", mark.line + 1) from None


def read_first_line(path: str | Path) -> str:
    """The first line of a UTF-8 text file without its line end (checked like :func:`read_text`)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as handle:
        raw = handle.readline()
    try:
        return raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as error:
        raise utf8_error(path, raw, error) from None


def write_lines(path: str | Path, lines: Iterable[str]) -> int:
    """Write one line per item atomically; return the number of lines written."""
    count = 0
    with atomic_open(path) as out:
        for line in lines:
            out.write(line)
            out.write("\n")
            count += 1
    return count


def open_text(path: str | Path) -> IO[str]:
    """Open a UTF-8 text file for reading; ``.gz`` files are decompressed on the fly."""
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def iter_lines(path: str | Path, allow_empty: bool = False) -> Iterator[str]:
    """Yield the lines of a UTF-8 text file without their line ends.

    Raises :class:`InputError` naming the file and line for bytes that are not UTF-8 and,
    unless ``allow_empty``, for empty or whitespace-only lines.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as error:
                    raise utf8_error(path, raw, error, number) from None
                if not allow_empty and not text.strip():
                    raise InputError(path, "empty line; expected one non-empty sentence per line", number)
                yield text
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except OSError as error:
        raise InputError(path, os_error_message(error)) from None
    except EOFError as error:
        raise InputError(path, f"cannot read: {error}") from None


def read_lines(path: str | Path, allow_empty: bool = False) -> list[str]:
    """All lines of a UTF-8 text file, checked like :func:`iter_lines`."""
    return list(iter_lines(path, allow_empty=allow_empty))


def count_lines(path: str | Path) -> int:
    """Number of lines of a (possibly gzipped) text file, counted on bytes."""
    opener = gzip.open if str(path).endswith(".gz") else open
    count = 0
    last = b"\n"
    with opener(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def check_parallel(source: str | Path, target: str | Path) -> int:
    """Check that two parallel files have the same number of lines; return it."""
    n_source, n_target = count_lines(source), count_lines(target)
    if n_source != n_target:
        raise InputError(
            source,
            f"has {n_source} lines but its parallel file {target} has {n_target}; "
            "expected the same number of lines in both",
        )
    return n_source
