"""Print the demo workflow's wall time on this machine (install excluded), where it goes
(per family, per rule, the slowest jobs) and its critical path, and the demo's BLEU.

Usage: .venv/bin/python benchmarks/demo_walltime.py [--cores 2] [--report]
       .venv/bin/python benchmarks/demo_walltime.py --workdir DIR --log FILE
The first runs the demo in a fresh copy of the workflow, so nothing is reused from earlier
runs (``--report`` times ``snakemake --report`` after it, as ``make demo`` does); the
second reads a finished run: its working directory and what Snakemake printed.
Wall time per job is the job's benchmark file where its rule has one, else the log's
start-to-finish (to the second); CPU time is known for benchmarked jobs only
(natcomp.jobtimes). tests/test_demo_budget.py holds each rule to a budget.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from natcomp.jobtimes import critical_path, load_run, totals  # noqa: E402
from workflow_copy import copy_workflow, run_snakemake  # noqa: E402


def print_breakdown(workdir: Path, log_text: str, top: int = 25) -> None:
    jobs, elapsed = load_run(workdir, log_text)
    print(f"{len(jobs)} jobs; first to last timestamp of the log: {elapsed:.0f} s")
    print(
        f"sum of job wall times {sum(j.wall or 0 for j in jobs):.0f} s, CPU of the benchmarked ones "
        f"{sum(j.cpu or 0 for j in jobs):.0f} s"
    )
    print("\nper family (wall: summed over jobs; cpu: benchmarked jobs only)")
    print(f"{'family':12} {'jobs':>5} {'wall s':>8} {'cpu s':>8} {'longest':>8}")
    for row in totals(jobs, key=lambda job: job.family):
        print(f"{row.name:12} {row.jobs:5d} {row.wall:8.1f} {row.cpu:8.1f} {row.longest:8.1f}")
    print(f"\nper rule, the {top} largest")
    print(f"{'rule':36} {'jobs':>5} {'wall s':>8} {'cpu s':>8} {'longest':>8}")
    for row in totals(jobs, key=lambda job: job.rule)[:top]:
        print(f"{row.name:36} {row.jobs:5d} {row.wall:8.1f} {row.cpu:8.1f} {row.longest:8.1f}")
    path = critical_path(jobs)
    print(f"\ncritical path: {sum(j.wall or 0 for j in path):.0f} s in {len(path)} jobs")
    for job in path:
        label = job.outputs[0] if job.outputs else ""
        print(f"  {job.start or 0:6.0f} s  {job.wall or 0:7.1f} s  {job.rule:32} {label}")


def print_bleu(workdir: Path) -> None:
    bleu = pd.read_csv(workdir / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
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
        print_breakdown(args.workdir, args.log.read_text())
        print_bleu(args.workdir)
        return
    with tempfile.TemporaryDirectory() as tmp:
        workdir = copy_workflow(Path(tmp) / "demo")
        start = time.perf_counter()
        result = run_snakemake(workdir, "--cores", args.cores)
        seconds = time.perf_counter() - start
        print(f"demo wall time: {seconds:.1f} s on {args.cores} cores")
        if args.report:
            start = time.perf_counter()
            run_snakemake(workdir, "--cores", args.cores, "--report", "results/report.html")
            print(f"report: {time.perf_counter() - start:.1f} s")
        print_breakdown(workdir, result.stdout + result.stderr)
        print_bleu(workdir)


if __name__ == "__main__":
    main()
