"""Print what the demo's jobs spend importing: per package over every job, and per rule.

Usage: .venv/bin/python benchmarks/job_imports.py [--top 30]
       .venv/bin/python benchmarks/job_imports.py --stderr FILE
The first runs the demo in a fresh copy of the workflow on one core with
PYTHONPROFILEIMPORTTIME=1 (about twice the demo's usual wall time: one core, and the
profile itself) and keeps its standard error beside the working directory; the second reads
such a file. One core, so that each job's import lines are not interleaved with another's
(natcomp.importtimes). The seconds are import wall times measured under the profile, which
adds to them: compare them with each other, not with the demo's other figures.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from natcomp.importtimes import package_totals, parse_importtime, rule_packages  # noqa: E402
from natcomp.machine_speed import measure  # noqa: E402
from workflow_copy import copy_workflow, snakemake_command  # noqa: E402

#: the packages that make a job's start slow, one column each in the per-rule table
HEAVY = ("torch", "transformers", "fairseq", "sympy", "scipy", "sklearn", "peft", "nltk", "sacremoses", "pandas")


def report(stderr: str, top: int) -> str:
    processes = parse_importtime(stderr)
    jobs = [process for process in processes if process.rule is not None]
    if not jobs:
        sys.exit("no job's import profile found: run with PYTHONPROFILEIMPORTTIME=1 on one core")
    lines = [
        f"{len(jobs)} job processes imported for {sum(p.seconds for p in jobs):.1f} s in all "
        f"(Snakemake's own process {processes[0].seconds:.1f} s)",
        "",
        f"{'package':28s}{'seconds':>9s}{'processes':>11s}{'ms each':>9s}",
    ]
    for total in package_totals(jobs)[:top]:
        lines.append(
            f"{total.package:28s}{total.seconds:9.2f}{total.processes:11d}{1000 * total.seconds / total.processes:9.0f}"
        )
    lines += ["", "the first job of each rule (seconds):", f"{'rule':36s}{'all':>6s}  " + " ".join(HEAVY)]
    table = rule_packages(processes, HEAVY)
    for rule, row in sorted(table.items(), key=lambda item: -item[1]["all"]):
        cells = " ".join(f"{row[p]:.2f}".rjust(len(p)) if p in row else "-".rjust(len(p)) for p in HEAVY)
        lines.append(f"{rule:36s}{row['all']:6.2f}  {cells}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stderr", type=Path, help="a finished one-core run's standard error, profiled")
    parser.add_argument("--top", type=int, default=30, help="packages listed (default 30)")
    args = parser.parse_args()
    if args.stderr:
        print(report(args.stderr.read_text(), args.top))
        return
    print(measure().describe())
    folder = Path(tempfile.mkdtemp(prefix="natcomp-job-imports-"))
    workdir = copy_workflow(folder / "demo")
    command, env = snakemake_command("--cores", "1")
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}
    )
    (folder / "stderr.txt").write_text(result.stderr)
    print(f"demo on one core, profiled: {time.perf_counter() - start:.0f} s, exit status {result.returncode}")
    print(f"standard error kept in {folder / 'stderr.txt'} (read it again with --stderr)\n")
    print(report(result.stderr, args.top))
    if result.returncode:
        sys.exit(result.returncode)


if __name__ == "__main__":
    main()
