"""Logging for workflow scripts: everything a job says goes to its Snakemake log."""

from __future__ import annotations

import atexit
import contextlib
import gc
import logging
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from natcomp.allocator import keep_freed_memory
from natcomp.errors import one_line


@contextlib.contextmanager
def logged(log_path: str | Path) -> Iterator[logging.Logger]:
    """Send logging and stderr of the block to ``log_path``.

    An exception is written to the log (message first, so it is the line a user sees in
    ``--show-failed-logs``) and re-raised, so the job fails. A bad input (a
    :class:`natcomp.errors.NatcompError` or an OS error on a named path) is logged as the
    same one line the command line prints (``ERROR: <path>[, line N]: <what was expected>``,
    :func:`natcomp.errors.one_line`); any other exception with its type.

    A workflow script is this block and nothing after it (``tests/test_rulelog.py`` checks
    every script), so when the block finishes in a job's own process the job is done:
    :func:`end_job_process` ends it at once instead of tearing down its interpreter, and
    when it starts there, :func:`start_job_process` readies the process for the job's work.
    """
    if is_job_process():
        start_job_process()
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
    if is_job_process():
        end_job_process()


def is_job_process() -> bool:
    """Whether this process is a Snakemake job running a workflow script: Snakemake runs the
    script as the main program with its ``snakemake`` object among the script's globals. A
    script run inside another program (a test's ``runpy.run_path``) is not."""
    return getattr(sys.modules.get("__main__"), "snakemake", None) is not None


def start_job_process() -> None:
    """Ready a job's process for its work, once the script's imports are done: glibc's malloc
    keeps the memory the job's steps free (:func:`natcomp.allocator.keep_freed_memory`), and
    the objects the imports created leave the garbage collector's full collections.

    Importing torch and fairseq or transformers leaves 170,000 to 370,000 objects for the
    collector to track, and they live as long as the job; each full collection walked them
    all again (eight in three epochs of a demo fairseq training: 0.86 s). ``gc.freeze``
    moves them to the collector's permanent generation, so a collection walks only what the
    job itself made; a cycle among the frozen objects is left for the process's end, which
    comes with the job's."""
    keep_freed_memory()
    gc.freeze()


def end_job_process() -> None:
    """End a finished job's process with exit status 0 without the interpreter's teardown.

    Freeing every module of torch, transformers or fairseq at exit costs a job about a
    second (0.4 s after ``import torch``, 1 s after a transformers model class, 0.8 s after
    fairseq; docs/performance.md, "Jobs end without teardown"), and the demo runs some
    fifty such jobs. What exit must still do is done first: the atexit functions
    (multiprocessing stops its children, logging flushes) and the standard streams. Outputs
    are complete already: natcomp writes each through a context manager that renames it
    into place on success. Where a thread other than a daemon one still runs, the process
    ends the normal way, which waits for it."""
    if any(thread is not threading.main_thread() and not thread.daemon for thread in threading.enumerate()):
        return
    atexit._run_exitfuncs()  # what interpreter exit runs first; CPython's, not a public API
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)
