"""How fast this machine runs natcomp's kind of work: a fixed CPU workload of a few seconds.

A timing means little without the machine it was measured on: the same demo took 450 s on
one 2-core machine and over twice that on another of the same kind. The reference is a
fixed, small workload of the three things the demo's jobs spend their time on, each on one
thread (the demo runs one single-threaded job per core):

- ``matmul``: fp32 matrix products in torch (the arithmetic of every model);
- ``python``: a plain Python loop over strings and dicts (tokenising, scoring, Snakemake's
  own bookkeeping);
- ``train_step``: forward, backward and Adam steps of a tiny two-layer Transformer encoder
  built by ``transformers`` from a config (what the demo's fairseq, BERT and Llama training
  jobs do, at their size).

Each part runs ``rounds`` times and is timed in CPU seconds of this process
(``time.process_time``), not wall seconds: other work on the machine (a second test worker,
another user's job) delays a round but does not add to its CPU time, so the reference says
how fast the machine is, not how busy it was. Its time is the median round. The reference
is the sum of the three medians: a timing divided by it is in *reference units*, which
compare across machines. CPU times (a Snakemake benchmark's ``cpu_time``, a process tree's
``getrusage``) in these units hold on a busy machine too; wall times in them hold on an idle
one (``tests/test_demo_budget.py`` holds the demo's CPU time to budgets in these units;
``benchmarks/machine_speed.py`` prints it; ``.ci/run`` prints it at its start).
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import time
from collections.abc import Callable

#: the parts of the workload, in the order they run and print
PARTS = ("matmul", "python", "train_step")


@dataclasses.dataclass(frozen=True)
class MachineSpeed:
    """The reference measured once: CPU seconds per part (the median round) and the load
    average of the machine when it was measured."""

    parts: dict[str, float]
    load_average: float | None = None

    @property
    def seconds(self) -> float:
        """The reference: the workload's CPU seconds on this machine (the sum of its parts)."""
        return sum(self.parts.values())

    def units(self, seconds: float) -> float:
        """``seconds`` measured on this machine (CPU time, or wall time of single-threaded
        work on an idle machine) in reference units."""
        return seconds / self.seconds

    def describe(self) -> str:
        """One line for a log: the reference and its parts."""
        parts = ", ".join(f"{name} {self.parts[name]:.2f} s" for name in PARTS if name in self.parts)
        load = "" if self.load_average is None else f"; load average {self.load_average:.2f}"
        return f"machine reference {self.seconds:.2f} CPU s ({parts}; one thread{load})"


def _matmul() -> Callable[[], None]:
    import torch

    generator = torch.Generator().manual_seed(0)
    left = torch.randn(256, 256, generator=generator)
    right = torch.randn(256, 256, generator=generator)

    def run() -> None:
        product = left
        for _ in range(400):
            product = torch.tanh(product @ right)

    return run


def _python() -> Callable[[], None]:
    words = [f"word{index % 997}" for index in range(20_000)]

    def run() -> None:
        for _ in range(40):
            counts: dict[str, int] = {}
            for word in words:
                key = word.lower().rstrip("0123456789")[:6] + str(len(word))
                counts[key] = counts.get(key, 0) + 1
            sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    return run


def _train_step() -> Callable[[], None]:
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=1000,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=256,
        max_position_embeddings=64,
    )
    model = BertForMaskedLM(config)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    generator = torch.Generator().manual_seed(0)
    inputs = torch.randint(5, 1000, (32, 24), generator=generator)

    def run() -> None:
        for _ in range(16):
            optimizer.zero_grad()
            loss = model(input_ids=inputs, labels=inputs).loss
            loss.backward()
            optimizer.step()

    return run


_BUILDERS: dict[str, Callable[[], Callable[[], None]]] = {
    "matmul": _matmul,
    "python": _python,
    "train_step": _train_step,
}


def children_cpu_seconds() -> float:
    """CPU seconds (user and system) of every child process this one has waited for, and
    theirs: read before and after running a workflow, the difference is the CPU time of
    Snakemake and every job it ran."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(rounds: int = 5) -> MachineSpeed:
    """Run the workload on one thread (torch's thread count is restored after) and return
    the reference. Each part is built and run once untimed first (allocations, lazy
    initialisation), then timed ``rounds`` times."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        parts = {}
        for name in PARTS:
            run = _BUILDERS[name]()
            run()
            times = []
            for _ in range(rounds):
                start = time.process_time()
                run()
                times.append(time.process_time() - start)
            parts[name] = statistics.median(times)
    finally:
        torch.set_num_threads(threads)
    try:
        load = os.getloadavg()[0]
    except OSError:  # not every platform has a load average
        load = None
    return MachineSpeed(parts, load)
