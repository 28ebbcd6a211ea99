"""natcomp.snakemake_scheduler: Snakemake's re-evaluation timer, one at a time."""

import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from natcomp import snakemake_scheduler


def scheduler_stub():
    return SimpleNamespace(_open_jobs=threading.Semaphore(0))


def test_a_round_arms_a_timer_only_where_none_is_pending():
    scheduler = scheduler_stub()
    before = threading.active_count()
    for _ in range(50):  # fifty rounds within the timer's delay: Snakemake's own would arm fifty timers
        snakemake_scheduler._schedule_reevaluation(scheduler, 0.2)
    assert threading.active_count() - before == 1
    assert scheduler._open_jobs.acquire(timeout=5), "the pending timer starts the next round"
    assert not scheduler._open_jobs.acquire(timeout=0.5), "and only one"


def test_the_round_a_timer_starts_may_arm_the_next_and_the_timer_keeps_no_run_alive():
    scheduler = scheduler_stub()
    snakemake_scheduler._schedule_reevaluation(scheduler, 0.05)
    timers = [thread for thread in threading.enumerate() if isinstance(thread, threading.Timer)]
    assert timers and all(timer.daemon for timer in timers), "a finished run exits without waiting for it"
    assert scheduler._open_jobs.acquire(timeout=5)
    snakemake_scheduler._schedule_reevaluation(scheduler, 0.05)  # the round it started wants another
    assert scheduler._open_jobs.acquire(timeout=5), "the chain goes on while rounds ask for it"


def test_the_fix_is_in_snakemakes_scheduler_once_the_workflow_is_read(tmp_path):
    """The workflow installs it (workflow/rules/common.smk); a Snakemake release without the
    method it replaces fails here, so that the fix is looked at again, not silently lost."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert snakemake_scheduler.install()
    assert getattr(JobScheduler._schedule_reevalutation, snakemake_scheduler._INSTALLED)
    assert snakemake_scheduler.install(), "installing twice changes nothing"
    common = (snakemake_scheduler.__file__.rsplit("/src/", 1)[0]) + "/workflow/rules/common.smk"
    assert "snakemake_scheduler.install()" in open(common, encoding="utf-8").read()


SNAKEFILE = """
import sys
sys.path.insert(0, {src!r})
from natcomp import snakemake_scheduler
if {fixed}:
    snakemake_scheduler.install()
from snakemake.scheduling import job_scheduler
rounds = [0]
select = job_scheduler.JobScheduler.job_selector
def counted(self, jobs):
    rounds[0] += 1
    return select(self, jobs)
job_scheduler.JobScheduler.job_selector = counted
onsuccess:
    print("rounds", rounds[0], file=sys.stderr)
rule all:
    input: expand("out/{{i}}.txt", i=range(30))
rule one:
    output: "out/{{i}}.txt"
    shell: "sleep 0.4; echo {{wildcards.i}} > {{output}}"
"""


@pytest.mark.workflow
def test_snakemakes_own_timers_multiply_with_finished_jobs_and_the_fixed_ones_do_not(tmp_path):
    """30 jobs of 0.4 s on 2 cores (about 6 s): Snakemake's own scheduler selects jobs more
    than once per job and second of the run; with the fix about once per job."""
    from natcomp import __file__ as package

    src = package.rsplit("/natcomp/", 1)[0]
    rounds = {}
    for fixed in (False, True):
        folder = tmp_path / str(fixed)
        folder.mkdir()
        (folder / "Snakefile").write_text(SNAKEFILE.format(src=src, fixed=fixed), encoding="utf-8")
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "snakemake", "--cores", "2", "--quiet"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
        )
        seconds = time.perf_counter() - start
        assert done.returncode == 0, done.stderr[-3000:]
        rounds[fixed] = int(done.stderr.split("rounds ")[1].split()[0])
        assert (folder / "out" / "29.txt").is_file()
    assert rounds[True] <= 30 + 2 * seconds, rounds
    assert rounds[False] > 2 * rounds[True], rounds
