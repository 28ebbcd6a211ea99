"""Print the demo workflow's wall time on this machine (install excluded), where it goes
(per family, per rule, the slowest jobs) and its critical path, and the demo's BLEU.

Usage: .venv/bin/python benchmarks/demo_walltime.py [--cores 2] [--report]
       .venv/bin/python benchmarks/demo_walltime.py --workdir DIR --log FILE
The first runs the demo in a fresh copy of the workflow, so nothing is reused from earlier
runs (``--report`` times ``snakemake --report`` after it, as ``make demo`` does); the
second reads a finished run: its working directory and what Snakemake printed.
Wall time per job is the job's benchmark file where its rule has one, else the log's
start-to-finish (to the second); CPU time is known for benchmarked jobs only
(natcomp.jobtimes). Each figure is printed beside this machine's reference
(natcomp.machine_speed, measured just before the run) and in its units, the units
tests/test_demo_budget.py holds each rule to; the demo's CPU time is that of Snakemake and
every job it ran.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from natcomp.jobtimes import breakdown, load_run  # noqa: E402
from natcomp.machine_speed import children_cpu_seconds, measure  # noqa: E402
from workflow_copy import copy_workflow, run_snakemake  # noqa: E402


def print_bleu(workdir: Path) -> None:
    bleu = pd.read_csv(workdir / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
    bleu = bleu[bleu["kind"] == "model"]  # not the size_mean rows: the range is over models
    # a pretrained system has no size: keep its rows (dropna=False)
    per_model = bleu.groupby(["system", "size", "split"], dropna=False, sort=False)[
        ["bleu_sacrebleu", "bleu_tokenised"]
    ]
    print(per_model.agg(["mean", "min", "max"]).round(2).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", default="2")
    parser.add_argument("--report", action="store_true", help="time snakemake --report after the run")
    parser.add_argument("--workdir", type=Path, help="a finished run's working directory (with --log)")
    parser.add_argument("--log", type=Path, help="what Snakemake printed for that run")
    args = parser.parse_args()
    if args.workdir or args.log:
        if not (args.workdir and args.log):
            parser.error("--workdir and --log go together")
        print(breakdown(*load_run(args.workdir, args.log.read_text())))
        print_bleu(args.workdir)
        return
    with tempfile.TemporaryDirectory() as tmp:
        workdir = copy_workflow(Path(tmp) / "demo")
        reference = measure()
        print(reference.describe())
        start, cpu = time.perf_counter(), children_cpu_seconds()
        result = run_snakemake(workdir, "--cores", args.cores)
        seconds, cpu = time.perf_counter() - start, children_cpu_seconds() - cpu
        print(f"demo wall time: {seconds:.1f} s on {args.cores} cores, {reference.units(seconds):.0f} reference units")
        print(f"demo CPU time (Snakemake and every job): {cpu:.1f} s, {reference.units(cpu):.0f} reference units")
        if args.report:
            start = time.perf_counter()
            run_snakemake(workdir, "--cores", args.cores, "--report", "results/report.html")
            print(f"report: {time.perf_counter() - start:.1f} s")
        print(breakdown(*load_run(workdir, result.stdout + result.stderr)))
        print_bleu(workdir)


if __name__ == "__main__":
    main()
