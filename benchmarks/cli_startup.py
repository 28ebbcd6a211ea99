"""Start-up time of the ``natcomp`` command line: ``natcomp --help`` and ``natcomp pss clean`` on 500 pairs.

Each figure is the median wall time of a few runs, each in a fresh ``python -m natcomp``
subprocess (so nothing is cached in the interpreter). The pairs default to the real
SST-like Yelp file ``../shared/data/yelp/reference.0`` (500 pairs); pass ``--pairs`` for
another. ``--importtime`` also prints the ten slowest imports of ``natcomp --help``
(``python -X importtime``). A benchmark, not a test: the figures depend on the machine
and its load.

Usage: .venv/bin/python benchmarks/cli_startup.py [--repeat 5] [--pairs FILE] [--importtime]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO.parent / "shared" / "data" / "yelp" / "reference.0"


def _seconds(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _slowest_imports(command: list[str], count: int = 10) -> list[tuple[int, str]]:
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is printed")
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="pairs for 'pss clean' (original<TAB>rewrite)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports of --help")
    args = parser.parse_args()
    natcomp = [sys.executable, "-m", "natcomp"]
    n_pairs = sum(1 for _ in args.pairs.open(encoding="utf-8"))
    print(f"natcomp --help: {_seconds([*natcomp, '--help'], args.repeat):.2f} s (median of {args.repeat})")
    with tempfile.TemporaryDirectory() as tmp:
        clean = [*natcomp, "pss", "clean", "--pairs", str(args.pairs), "--out", str(Path(tmp) / "kept.txt")]
        seconds = _seconds(clean, args.repeat)
    print(f"natcomp pss clean ({n_pairs} pairs): {seconds:.2f} s (median of {args.repeat})")
    if args.importtime:
        print("slowest imports of natcomp --help (cumulative microseconds):")
        for micros, name in _slowest_imports([sys.executable, "-X", "importtime", "-m", "natcomp", "--help"]):
            print(f"  {micros:>9}  {name}")


if __name__ == "__main__":
    main()
