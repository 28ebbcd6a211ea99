"""Run the workflow in a fresh working copy (used by the demo test and the benchmarks).

A copy keeps the repository's own ``results/`` untouched and gives every run a clean start.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from natcomp.machine_speed import MachineSpeed

REPO = Path(__file__).resolve().parents[1]
WORKFLOW_PARTS = ("Snakefile", "workflow", "config", "resources", "profiles", "slurm", "envs", "src")


@dataclasses.dataclass
class DemoRun:
    """A finished run of the workflow: its working copy, what Snakemake printed and, where
    they were measured, the machine's reference just before the run (natcomp.machine_speed)
    and the CPU seconds (user and system) of the run's whole process tree."""

    workdir: Path
    output: str
    reference: MachineSpeed | None = None
    cpu: float | None = None


def copy_workflow(destination: str | Path, repo: str | Path = REPO) -> Path:
    """Copy everything the workflow needs to run into ``destination``."""
    destination = Path(destination)
    destination.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in WORKFLOW_PARTS:
        source = Path(repo) / part
        if source.is_symlink():
            (destination / part).unlink(missing_ok=True)
            (destination / part).symlink_to(source.readlink())
        elif source.is_dir():
            shutil.copytree(source, destination / part, ignore=ignore, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination / part)
    return destination


def snakemake_command(*args: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that run ``python -m snakemake ARGS`` with the
    current interpreter (its bin directory first on PATH, for the rules' shell commands)."""
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    return [sys.executable, "-m", "snakemake", *args], env


def run_snakemake(
    workdir: str | Path, *args: str, check: bool = True, timeout: float | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m snakemake ARGS`` in ``workdir`` and wait for it.

    With ``timeout`` (seconds), a run that takes longer is killed (SIGKILL: Snakemake
    ignores SIGTERM while it waits for cluster jobs) and ``subprocess.TimeoutExpired``
    raised, so a job stuck in a queue cannot hang the caller.
    """
    command, env = snakemake_command(*args)
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, env=env, timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(
            f"snakemake {' '.join(args)} failed in {workdir}:\n{result.stdout[-5000:]}\n{result.stderr[-5000:]}"
        )
    return result


def parsed_rules(configfile: str | Path, workdir: str | Path):
    """The workflow's rules as Snakemake parsed them with ``configfile`` (nothing planned or
    run), for tests that call a rule's params functions the way a job would."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        OutputSettings,
        ResourceSettings,
        StorageSettings,
        WorkflowSettings,
    )

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(configfiles=[Path(configfile)]),
            storage_settings=StorageSettings(),
            workflow_settings=WorkflowSettings(),
            snakefile=REPO / "Snakefile",
            workdir=Path(workdir),
        )
        return workflow._workflow.get_rule


def rule_blocks(workdir: str | Path = REPO) -> dict[str, str]:
    """Each rule's text in the workflow's rule files (``rule NAME:`` up to the next rule),
    by name: for tests of what rules declare (GPUs, local running)."""
    blocks = {}
    for path in sorted((Path(workdir) / "workflow" / "rules").rglob("*.smk")):
        for block in re.split(r"(?m)^(?=rule |localrule )", path.read_text()):
            name = re.match(r"rule (\w+):", block)
            if name:
                blocks[name.group(1)] = block
    return blocks
