"""The machine reference (natcomp.machine_speed): its arithmetic, and one real measurement."""

import pytest
import torch

from natcomp.machine_speed import PARTS, MachineSpeed, measure


def test_the_reference_is_the_sum_of_its_parts_and_units_divide_by_it():
    speed = MachineSpeed({"matmul": 0.5, "python": 0.25, "train_step": 1.25}, load_average=1.5)
    assert speed.seconds == pytest.approx(2.0)
    assert speed.units(300.0) == pytest.approx(150.0)  # 300 s here is 150 reference units
    # the same work on a machine twice as slow: twice the seconds, the same units
    slower = MachineSpeed({name: 2 * value for name, value in speed.parts.items()})
    assert slower.units(600.0) == pytest.approx(speed.units(300.0))


def test_describe_names_every_part_and_the_load():
    line = MachineSpeed({"matmul": 0.5, "python": 0.25, "train_step": 1.25}, load_average=1.5).describe()
    assert line == (
        "machine reference 2.00 CPU s (matmul 0.50 s, python 0.25 s, train_step 1.25 s; one thread; load average 1.50)"
    )


def test_a_measurement_times_every_part_on_one_thread_and_restores_torchs_threads():
    threads = torch.get_num_threads()
    speed = measure(rounds=1)
    assert tuple(speed.parts) == PARTS
    assert all(seconds > 0 for seconds in speed.parts.values())
    assert torch.get_num_threads() == threads


def test_rounds_must_be_positive():
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        measure(rounds=0)


def test_rounds_are_timed_in_cpu_seconds_so_a_busy_machine_measures_the_same(monkeypatch):
    """Other work on the machine delays a round's wall time, not its CPU time: the reference
    reads the process's CPU clock (here a fake one that ticks 0.25 s per reading)."""
    import itertools

    from natcomp import machine_speed

    ticks = itertools.count()
    monkeypatch.setattr(machine_speed.time, "process_time", lambda: 0.25 * next(ticks))
    monkeypatch.setattr(machine_speed.time, "perf_counter", lambda: 100.0 * next(ticks))
    monkeypatch.setattr(machine_speed, "_BUILDERS", {name: (lambda: lambda: None) for name in PARTS})
    speed = measure(rounds=3)
    assert speed.parts == {name: 0.25 for name in PARTS}


def test_the_cpu_of_a_child_process_is_counted_once_it_has_been_waited_for():
    import subprocess
    import sys

    from natcomp.machine_speed import children_cpu_seconds

    before = children_cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    assert children_cpu_seconds() - before > 0.05
