"""Run the workflow in a fresh working copy (used by the demo test and the benchmarks).

A copy keeps the repository's own ``results/`` untouched and gives every run a clean start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKFLOW_PARTS = ("Snakefile", "workflow", "config", "resources", "profiles", "envs", "src")


def copy_workflow(destination: str | Path, repo: str | Path = REPO) -> Path:
    """Copy everything the workflow needs to run into ``destination``."""
    destination = Path(destination)
    destination.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in WORKFLOW_PARTS:
        source = Path(repo) / part
        if source.is_dir():
            shutil.copytree(source, destination / part, ignore=ignore, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination / part)
    return destination


def run_snakemake(workdir: str | Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``python -m snakemake ARGS`` in ``workdir`` with the current interpreter."""
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=workdir, capture_output=True, text=True, env=env
    )
    if check and result.returncode != 0:
        raise RuntimeError(f"snakemake {' '.join(args)} failed in {workdir}:\n{result.stdout[-5000:]}\n{result.stderr[-5000:]}")
    return result
