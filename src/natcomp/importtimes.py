"""What the jobs of a workflow run spend importing, per package and per rule.

Python prints every import's time when ``PYTHONPROFILEIMPORTTIME=1`` is set
(``import time: self [us] | cumulative | imported package``, one line per module, a header
line first in each process), and Snakemake passes the variable to every job it starts.
Run with one core, the run's standard error is then one process after another: Snakemake's
own (the first header), then each job's, after the ``rule NAME:`` line Snakemake printed
when it started the job. :func:`parse_importtime` splits that text into processes, each
with the rule it ran; :func:`package_totals` sums the time per top-level package and counts
the processes that import it; :func:`rule_packages` lists what one job of each rule
imports. The times are wall times of the imports, taken while being measured, so each is
somewhat larger than in a run without the profile: compare them with each other.

Torch-free and pandas-free: ``benchmarks/job_imports.py`` prints the tables.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Sequence

_HEADER = "import time: self [us] | cumulative | imported package"
_ROW = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")
_RULE = re.compile(r"^(?:local)?rule (\w+):$")


@dataclasses.dataclass
class ImportProcess:
    """The imports of one Python process: the rule whose job it ran (None for Snakemake's
    own process, or text before any rule) and each module's own import time in
    microseconds (its cumulative time less that of the modules it imported)."""

    rule: str | None
    self_us: Counter = dataclasses.field(default_factory=Counter)

    def package_us(self) -> Counter:
        """Import time per top-level package (``torch._dynamo`` counts to ``torch``)."""
        packages: Counter = Counter()
        for module, micros in self.self_us.items():
            packages[module.split(".")[0]] += micros
        return packages

    @property
    def seconds(self) -> float:
        return sum(self.self_us.values()) / 1e6


def parse_importtime(text: str) -> list[ImportProcess]:
    """The processes in a one-core run's standard error, in the order they started; the
    first is Snakemake's own (rule None)."""
    processes: list[ImportProcess] = []
    rule: str | None = None
    current: ImportProcess | None = None
    for line in text.splitlines():
        if found := _RULE.match(line):
            rule = found.group(1)
        elif line.startswith(_HEADER):
            current = ImportProcess(rule if processes else None)
            processes.append(current)
        elif current is not None and (found := _ROW.match(line)):
            current.self_us[found.group(4)] += int(found.group(1))
    return processes


@dataclasses.dataclass(frozen=True)
class PackageTotal:
    package: str
    seconds: float
    processes: int


def package_totals(processes: Iterable[ImportProcess]) -> list[PackageTotal]:
    """Per top-level package, the import seconds summed over ``processes`` and the number
    of processes that import it, most seconds first (ties by name)."""
    seconds: Counter = Counter()
    count: Counter = Counter()
    for process in processes:
        for package, micros in process.package_us().items():
            seconds[package] += micros / 1e6
            count[package] += 1
    return sorted(
        (PackageTotal(package, seconds[package], count[package]) for package in seconds),
        key=lambda total: (-total.seconds, total.package),
    )


def rule_packages(processes: Sequence[ImportProcess], packages: Sequence[str]) -> dict[str, dict[str, float]]:
    """Rule -> the seconds that the first job of the rule spent importing each of
    ``packages`` it imports, and ``"all"``: its whole import time. Snakemake's own process
    (rule None) is left out."""
    table: dict[str, dict[str, float]] = {}
    for process in processes:
        if process.rule is None or process.rule in table:
            continue
        by_package = process.package_us()
        row = {package: by_package[package] / 1e6 for package in packages if by_package[package]}
        table[process.rule] = {"all": process.seconds, **row}
    return table
