"""natcomp.allocator: a job's process keeps the memory its steps free, checked by the page
faults that a step repeated after the first one takes."""

import os
import subprocess
import sys
import textwrap

import pytest

from natcomp.allocator import is_glibc, user_set_malloc

needs_glibc = pytest.mark.skipif(not is_glibc(), reason="mallopt and its thresholds are glibc's")

#: blocks of 1 MiB, as many as a step allocates and frees (24 MiB: past glibc's adaptive
#: trim threshold, within natcomp's), in the steps after the first
BLOCKS, STEPS = 24, 5
PAGES_PER_BLOCK = 2**20 // 4096

#: what a process prints: the page faults of STEPS steps after the first
FAULT_PROBE = f"""
import resource
def step():
    blocks = [bytearray(2**20) for _ in range({BLOCKS})]  # written: every page is touched
    del blocks
step()  # the first step maps its memory in any case
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range({STEPS}):
    step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def page_faults(prelude: str = "", env: dict | None = None) -> int:
    """The probe's page faults in a fresh process, after ``prelude``."""
    code = textwrap.dedent(prelude) + FAULT_PROBE
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return int(done.stdout.split()[-1])


def without_malloc_settings() -> dict:
    """This process's environment without any glibc malloc setting (glibc's defaults)."""
    return {name: value for name, value in os.environ.items() if not name.startswith(("MALLOC_", "GLIBC_TUNABLES"))}


@needs_glibc
def test_freed_memory_is_reused_without_new_page_faults():
    env = without_malloc_settings()
    default = page_faults(env=env)
    kept = page_faults("from natcomp.allocator import keep_freed_memory\nassert keep_freed_memory()\n", env=env)
    # glibc's defaults hand the memory back after every step and fault it in again
    assert default > STEPS * BLOCKS * PAGES_PER_BLOCK // 2, default
    assert kept < default / 20, (kept, default)


@needs_glibc
def test_the_users_own_malloc_settings_are_left_alone():
    env = without_malloc_settings() | {"MALLOC_TRIM_THRESHOLD_": "131072"}
    prelude = "from natcomp.allocator import keep_freed_memory\nassert keep_freed_memory() is False\n"
    assert page_faults(prelude, env=env) > STEPS * BLOCKS * PAGES_PER_BLOCK // 2


@pytest.mark.parametrize(
    "environ, user_set",
    [
        ({}, False),
        ({"MALLOC_MMAP_THRESHOLD_": "65536"}, True),
        ({"MALLOC_TRIM_THRESHOLD_": "0"}, True),
        ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"}, True),
        ({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F"}, False),
        ({"MALLOC_ARENA_MAX": "2"}, False),
    ],
)
def test_which_environment_sets_malloc(environ, user_set):
    assert user_set_malloc(environ) is user_set
