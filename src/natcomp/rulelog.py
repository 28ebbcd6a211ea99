"""Logging for workflow scripts: everything a job says goes to its Snakemake log."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

from natcomp.errors import one_line


@contextlib.contextmanager
def logged(log_path: str | Path) -> Iterator[logging.Logger]:
    """Send logging and stderr of the block to ``log_path``.

    An exception is written to the log (message first, so it is the line a user sees in
    ``--show-failed-logs``) and re-raised, so the job fails. A bad input (a
    :class:`natcomp.errors.NatcompError` or an OS error on a named path) is logged as the
    same one line the command line prints (``ERROR: <path>[, line N]: <what was expected>``,
    :func:`natcomp.errors.one_line`); any other exception with its type.
    """
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w", buffering=1, encoding="utf-8") as log_file:
        handler = logging.StreamHandler(log_file)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        previous_stderr = sys.stderr
        sys.stderr = log_file
        try:
            yield logging.getLogger("natcomp")
        except Exception as error:
            line = one_line(error)
            log_file.write(f"ERROR: {line if line is not None else f'{type(error).__name__}: {error}'}\n")
            raise
        finally:
            sys.stderr = previous_stderr
            root.removeHandler(handler)
