"""GPU busy share for the GPU benchmarks: the mean of ``torch.cuda.utilization()`` (NVML)
sampled in a thread while the measured code runs."""

from __future__ import annotations

import threading


class BusySampler:
    """Mean GPU utilisation (NVML via torch) sampled in a thread; None where unavailable."""

    def __init__(self, interval: float = 0.1):
        import torch

        self.samples: list[int] = []
        self.interval, self.stopped = interval, threading.Event()
        self.available = torch.cuda.is_available()
        if self.available:
            try:
                torch.cuda.utilization()
            except Exception:  # no pynvml / NVML: report n/a rather than fail
                self.available = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import torch

        while not self.stopped.wait(self.interval):
            self.samples.append(torch.cuda.utilization())

    def start(self) -> BusySampler:
        if self.available:
            self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        if self.available:
            self.thread.join()

    def __enter__(self) -> BusySampler:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def share(self) -> str:
        if not self.available:
            return "n/a on CPU" if not __import__("torch").cuda.is_available() else "n/a (no NVML)"
        return f"{sum(self.samples) / len(self.samples):.0f}%" if self.samples else "n/a (run too short)"
