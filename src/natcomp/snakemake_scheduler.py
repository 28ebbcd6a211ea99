"""One fix to Snakemake's job scheduler, installed by the workflow (workflow/rules/common.smk).

Snakemake 9 (seen in 9.27.1) limits how many jobs it starts per timespan
(``--max-jobs-per-timespan``, default 100 per second). To honour the limit, its
``JobScheduler`` arms a one-second ``threading.Timer`` at the end of every round of job
selection, and the timer starts the next round (``_schedule_reevalutation``). A finished job
also starts a round, which arms a timer of its own: every finished job adds a chain of rounds
that never ends, so after n jobs the scheduler selects jobs about n times a second, each
round starting a thread and looking up every ready job's input files. In the demo (221 jobs in
10 minutes on 2 cores) that was 53,000 rounds and about 60 s of the Snakemake process's CPU,
taken from the jobs it runs; a paper-scale run on a cluster has thousands of jobs.

The fix keeps the limit and what the timer is for: a round that wants a later re-evaluation
arms a timer only where none is pending (the pending one brings that round), and the timer is
a daemon thread, so a finished run exits at once instead of waiting out its last second.
"""

from __future__ import annotations

import threading

#: marks the installed replacement, so that installing twice changes nothing
_INSTALLED = "_natcomp_one_timer"


def _schedule_reevaluation(self, delay: float) -> None:
    """``JobScheduler._schedule_reevalutation`` with at most one timer pending."""
    lock = self.__dict__.setdefault("_natcomp_timer_lock", threading.Lock())
    with lock:
        if self.__dict__.get("_natcomp_timer_pending"):
            return
        self._natcomp_timer_pending = True

    def reevaluate() -> None:
        with lock:
            self._natcomp_timer_pending = False  # before the round it starts, which may arm the next
        self._open_jobs.release()

    timer = threading.Timer(delay, reevaluate)
    timer.daemon = True
    timer.start()


setattr(_schedule_reevaluation, _INSTALLED, True)


def install() -> bool:
    """Put the one-timer re-evaluation into Snakemake's ``JobScheduler``; True if it is in place
    (now or before). False where this Snakemake has no such method (another release: the
    workflow then runs with Snakemake's own, and tests/test_snakemake_scheduler.py says so)."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    current = getattr(JobScheduler, "_schedule_reevalutation", None)
    if current is None:
        return False
    if not getattr(current, _INSTALLED, False):
        JobScheduler._schedule_reevalutation = _schedule_reevaluation
    return True
