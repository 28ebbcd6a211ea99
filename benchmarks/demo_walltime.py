"""Print the wall time of the whole demo workflow on this machine (install excluded).

Usage: .venv/bin/python benchmarks/demo_walltime.py [--cores 2]
Runs the demo in a fresh copy of the workflow, so nothing is reused from earlier runs.
"""

import argparse
import tempfile
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from workflow_copy import copy_workflow, run_snakemake  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cores", default="2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = copy_workflow(Path(tmp) / "demo")
        start = time.perf_counter()
        run_snakemake(workdir, "--cores", args.cores)
        seconds = time.perf_counter() - start
        bleu = pd.read_csv(workdir / "results" / "tables" / "mt" / "bleu.tsv", sep="\t")
        print(f"demo wall time: {seconds:.1f} s on {args.cores} cores")
        # a pretrained system has no size: keep its rows (dropna=False)
        per_model = bleu.groupby(["system", "size", "split"], dropna=False, sort=False)[
            ["bleu_sacrebleu", "bleu_tokenised"]
        ]
        print(per_model.agg(["mean", "min", "max"]).round(2).to_string())


if __name__ == "__main__":
    main()
