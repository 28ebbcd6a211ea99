"""Print this machine's reference: how long a fixed, small CPU workload takes here
(natcomp.machine_speed). Timings measured on different machines compare once each is
divided by its machine's reference (reference units).

Usage: .venv/bin/python benchmarks/machine_speed.py [--rounds 5]
"""

import argparse

from natcomp.machine_speed import measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per part (the median counts)")
    args = parser.parse_args()
    print(measure(args.rounds).describe())


if __name__ == "__main__":
    main()
