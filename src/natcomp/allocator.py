"""glibc's malloc settings for a job's process: freed memory stays in the process for reuse.

A training or decoding step allocates its activations and gradients (tensors of 0.1 to
10 MB in the demo's models) and frees them when the step ends; the next step allocates
the same sizes again. With glibc's defaults a block above the mmap threshold (128 KiB at
first, raised to the largest mapped block freed so far) is mapped from the kernel and
unmapped when freed, and free memory at the top of the heap beyond the trim threshold
(twice the mmap threshold) is handed back at every free. So each step asks the kernel for
the same memory again and pays a page fault for every 4 KiB page of it: a demo fairseq
training spent 2.2 of its 22 CPU seconds in the kernel and had a million page faults.

:func:`keep_freed_memory` fixes both thresholds: blocks up to 32 MiB come from the heap
(glibc's own ceiling for its adaptive threshold on 64-bit systems), and up to 128 MiB of
free heap top is kept. A process then holds at most that much freed memory beyond what it
uses. Settings the user gave glibc's malloc in the environment (:data:`USER_SETTINGS`, or
a ``glibc.malloc`` tunable in ``GLIBC_TUNABLES``) are left as they are, and on a C library
other than glibc nothing is changed. docs/performance.md has the measurements.
"""

from __future__ import annotations

import ctypes
import os

#: mallopt's parameter numbers (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: blocks up to this size come from the heap instead of a mapping of their own
MMAP_THRESHOLD = 32 * 2**20
#: free memory at the top of the heap kept instead of handed back to the kernel
TRIM_THRESHOLD = 128 * 2**20

#: the environment variables through which a user sets glibc's malloc parameters
USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")


def is_glibc() -> bool:
    """Whether this process runs on glibc (``mallopt`` and its parameters are glibc's)."""
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError):  # the name is unknown where the C library is not glibc
        return False


def user_set_malloc(environ=os.environ) -> bool:
    """Whether the environment already sets glibc's malloc parameters."""
    return any(name in environ for name in USER_SETTINGS) or "glibc.malloc." in environ.get("GLIBC_TUNABLES", "")


def keep_freed_memory() -> bool:
    """Set this process's mmap and trim thresholds (module docstring); True when both were
    set, False where the C library is not glibc or the environment sets malloc already."""
    if not is_glibc() or user_set_malloc():
        return False
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # mallopt returns 1 on success; setting either threshold also ends glibc's adaptation
    # of both, so the two are set together
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
