"""Where a finished workflow run spent its time: per job, per rule, per family, and the
critical path.

Two sources, both written by every Snakemake run: the run's log (what Snakemake prints:
each job's rule, id, inputs, outputs and benchmark file, with a timestamp when it starts
and one when it finishes, to the second) and the benchmark files of the rules that declare
``benchmark:`` (``results/benchmarks/...``: the job's own wall time to the hundredth of a
second, and its CPU time). A job's wall time is its benchmark's where it has one, else the
log's finish minus start.

The critical path is the longest chain of jobs, each waiting for an output of the one
before it (an input of one job that another job of the run wrote), by the sum of their
wall times: no number of cores makes the run shorter than that chain. The run's own wall
time is the log's last timestamp minus its first (``Elapsed time`` where Snakemake prints
it is the same figure).

Torch-free and pandas-free. :func:`breakdown` is the text ``benchmarks/demo_walltime.py``
prints and ``tests/test_demo_budget.py`` writes into the CI log, where it also holds every
demo rule to a wall-time budget.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import read_text
from natcomp.profile.fit import FAMILIES


_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_HEADER = re.compile(r"^(local)?rule (\w+):$")
_FIELD = re.compile(r"^\s+(input|output|jobid|benchmark): (.*)$")
_FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)$")


@dataclasses.dataclass
class Job:
    """One job of a run: its rule, whether Snakemake ran it locally, its files and times
    (seconds from the run's first timestamp); ``wall`` and ``cpu`` are the benchmark's
    where the rule has one (``cpu`` is None otherwise)."""

    jobid: int
    rule: str
    local: bool
    inputs: list[str]
    outputs: list[str]
    benchmark: str | None = None
    start: float | None = None
    finish: float | None = None
    wall: float | None = None
    cpu: float | None = None

    @property
    def family(self) -> str:
        return family_of(self.rule)


def family_of(rule: str) -> str:
    """The family a rule belongs to by its name's prefix (``mt_train``: mt;
    ``report_plane_...``: plane), or ``core`` (downloads, the run's config, the summary)."""
    name = rule.removeprefix("report_")
    for family in FAMILIES:
        if name == family or name.startswith(f"{family}_"):
            return family
    return "core"


def _stamp(text: str) -> datetime:
    return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")


def parse_log(text: str, source: str | Path = "snakemake log") -> tuple[list[Job], float]:
    """The jobs a Snakemake run printed (in the order they started), with start and finish
    times from its timestamps (their difference is each job's wall time), and the run's
    wall time (last timestamp minus first)."""
    jobs: dict[int, Job] = {}
    first = last = now = None
    current: Job | None = None
    for line in text.splitlines():
        if found := _STAMP.match(line):
            now = _stamp(found.group(1))
            first = first or now
            last = now
            continue
        if found := _HEADER.match(line):
            current = Job(-1, found.group(2), bool(found.group(1)), [], [])
            current.start = (now - first).total_seconds() if now else None
            continue
        if current is not None and (found := _FIELD.match(line)):
            kind, value = found.groups()
            if kind == "jobid":
                current.jobid = int(value)
                jobs[current.jobid] = current
            elif kind == "benchmark":
                current.benchmark = value.strip()
            else:
                getattr(current, kind + "s").extend(part for part in value.split(", ") if part)
            continue
        if found := _FINISHED.match(line):
            job = jobs.get(int(found.group(1)))
            if job is not None and now is not None:
                job.finish = (now - first).total_seconds()
                if job.start is not None:
                    job.wall = job.finish - job.start
            current = None
    if first is None:
        raise InputError(source, "no timestamp found; expected the output of a Snakemake run")
    return list(jobs.values()), (last - first).total_seconds()


def read_benchmark(path: str | Path) -> tuple[float, float | None]:
    """A Snakemake benchmark file's wall time ``s`` and CPU time ``cpu_time`` (seconds; the
    last row: a rerun appends)."""
    lines = read_text(path).splitlines()
    if len(lines) < 2:
        raise InputError(path, "no measurement row; expected Snakemake's benchmark header and a row")
    header, row = lines[0].split("\t"), lines[-1].split("\t")
    if "s" not in header or len(row) != len(header):
        raise InputError(path, f"expected Snakemake's benchmark columns (s, ..., cpu_time), found {lines[0]!r}")
    values = dict(zip(header, row))
    cpu = values.get("cpu_time", "NA")
    return float(values["s"]), (None if cpu in ("NA", "") else float(cpu))


def load_run(workdir: str | Path, log_text: str) -> tuple[list[Job], float]:
    """The jobs of a finished run in ``workdir`` (its log text as Snakemake printed it),
    each with its wall time (benchmark, else log) and CPU time (benchmark only)."""
    jobs, elapsed = parse_log(log_text)
    for job in jobs:
        if job.benchmark and (Path(workdir) / job.benchmark).exists():
            job.wall, job.cpu = read_benchmark(Path(workdir) / job.benchmark)
    return jobs, elapsed


@dataclasses.dataclass(frozen=True)
class Total:
    """Jobs, wall seconds (summed over jobs) and CPU seconds (of the benchmarked ones) of a
    group of jobs, and the longest single job's wall time."""

    name: str
    jobs: int
    wall: float
    cpu: float
    longest: float


def totals(jobs: Iterable[Job], key) -> list[Total]:
    """Totals per ``key(job)`` (a rule, a family), the largest summed wall time first."""
    groups: dict[str, list[Job]] = {}
    for job in jobs:
        groups.setdefault(key(job), []).append(job)
    rows = [
        Total(
            name,
            len(members),
            sum(job.wall or 0.0 for job in members),
            sum(job.cpu or 0.0 for job in members),
            max(job.wall or 0.0 for job in members),
        )
        for name, members in groups.items()
    ]
    return sorted(rows, key=lambda row: (-row.wall, row.name))


def critical_path(jobs: Iterable[Job]) -> list[Job]:
    """The chain of jobs, each needing an output of the one before, with the largest summed
    wall time (ties: the job that started first)."""
    jobs = sorted(jobs, key=lambda job: (job.start or 0.0, job.jobid))
    producer: Mapping[str, Job] = {path: job for job in jobs for path in job.outputs}
    waits_for = {
        job.jobid: [producer[path] for path in job.inputs if path in producer and producer[path] is not job]
        for job in jobs
    }
    # longest chain ending at each job, and the job before it there; jobs in dependency
    # order (an explicit stack: a paper run's chains are long)
    best: dict[int, tuple[float, Job | None]] = {}
    for root in jobs:
        stack = [(root, False)]
        while stack:
            job, ready = stack.pop()
            if job.jobid in best:
                continue
            if not ready:
                stack.append((job, True))
                stack.extend((before, False) for before in waits_for[job.jobid] if before.jobid not in best)
                continue
            longest, previous = 0.0, None
            for before in waits_for[job.jobid]:
                if best[before.jobid][0] > longest:
                    longest, previous = best[before.jobid][0], before
            best[job.jobid] = (longest + (job.wall or 0.0), previous)
    if not best:
        return []
    end: Job | None = max(jobs, key=lambda job: best[job.jobid][0])
    path = []
    while end is not None:
        path.append(end)
        end = best[end.jobid][1]
    return path[::-1]


def breakdown(jobs: Sequence[Job], elapsed: float, rules: int = 25) -> str:
    """A run's time as text: the jobs, the run's wall time, totals per family and for the
    ``rules`` largest rules (wall summed over jobs, CPU of the benchmarked ones, the longest
    job), and the critical path job by job."""
    lines = [
        f"{len(jobs)} jobs; first to last timestamp of the log: {elapsed:.0f} s",
        f"sum of job wall times {sum(job.wall or 0 for job in jobs):.0f} s, "
        f"CPU of the benchmarked ones {sum(job.cpu or 0 for job in jobs):.0f} s",
    ]
    for title, key, top in (("family", lambda job: job.family, None), ("rule", lambda job: job.rule, rules)):
        lines += ["", f"{title:36} {'jobs':>5} {'wall s':>8} {'cpu s':>8} {'longest':>8}"]
        for row in totals(jobs, key=key)[:top]:
            lines.append(f"{row.name:36} {row.jobs:5d} {row.wall:8.1f} {row.cpu:8.1f} {row.longest:8.1f}")
    path = critical_path(jobs)
    lines += ["", f"critical path: {sum(job.wall or 0 for job in path):.0f} s in {len(path)} jobs"]
    for job in path:
        lines.append(
            f"  {job.start or 0:6.0f} s  {job.wall or 0:7.1f} s  {job.rule:32} {job.outputs[0] if job.outputs else ''}"
        )
    return "\n".join(lines)
