"""Time `snakemake -n` on a config (default: the paper scale) and print its job count.

Usage: .venv/bin/python benchmarks/dag_build_time.py [--configfile config/paper.yaml] [--repeat 3] [--profile slurm]
"""

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default="config/paper.yaml")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", help="also load this profile, e.g. slurm (the cluster profile)")
    args = parser.parse_args()
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--forceall",
        "--quiet",
        "rules",
        "--configfile",
        args.configfile,
    ]
    if args.profile:
        command += ["--profile", args.profile]
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - start)
    total = re.search(r"^total\s+(\d+)", result.stdout, re.MULTILINE)
    profile = f" --profile {args.profile}" if args.profile else ""
    print(
        f"{args.configfile}{profile}: {total.group(1) if total else '?'} jobs; "
        f"snakemake -n took {min(times):.1f} s (best of {args.repeat}), {sum(times) / len(times):.1f} s on average"
    )


if __name__ == "__main__":
    main()
