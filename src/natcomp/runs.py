"""One run per folder: the ``results/`` of a working directory belongs to one named run.

A demo and a paper run in the same folder would share ``results/``: the paper's dry run
would plan to re-download and retrain over the demo's files, and the reverse. The first
real run of a folder writes its ``run_name`` to :data:`RUN_STAMP`; a run of another name
in that folder stops before any job starts and says how to give it a folder of its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.files import atomic_open

RUN_STAMP = Path("results") / "run_name.txt"


def workflow_built(location: str | os.PathLike) -> bool:
    """Whether a model location is a folder the workflow writes (a path under ``results/``,
    such as the demo's tiny models): then it is a job's input, not a download."""
    return str(location).startswith("results/")


def recorded_run(workdir: str | Path) -> str | None:
    """The run that owns ``workdir``'s results, or None when no run has claimed it."""
    stamp = Path(workdir) / RUN_STAMP
    return stamp.read_text(encoding="utf-8").strip() if stamp.exists() else None


def check_run_folder(workdir: str | Path, run_name: str, configfiles: list[str] | None = None) -> None:
    """Raise :class:`ConfigError` when ``workdir``'s results belong to another run."""
    owner = recorded_run(workdir)
    if owner is None or owner == run_name:
        return
    config_flag = " ".join(f"--configfile {os.path.abspath(path)}" for path in configfiles or []) or "--configfile ..."
    raise ConfigError(
        "run_name",
        f"{Path(workdir) / 'results'} holds the run '{owner}', this config is the run '{run_name}'; "
        f"give it a folder of its own: snakemake --directory runs/{run_name} {config_flag}",
    )


def claim_run_folder(workdir: str | Path, run_name: str) -> None:
    """Record ``run_name`` as the owner of ``workdir``'s results (once)."""
    if recorded_run(workdir) is None:
        with atomic_open(Path(workdir) / RUN_STAMP) as stamp:
            stamp.write(run_name + "\n")


def link_shared_resources(workdir: str | Path, basedir: str | Path) -> None:
    """Let a run folder other than the repository see its ``resources/`` (shipped word
    lists, stanza models) under the same relative path, so every rule and config path
    means the same in every folder."""
    link = Path(workdir) / "resources"
    target = Path(basedir).resolve() / "resources"
    if Path(workdir).resolve() == Path(basedir).resolve() or link.exists() or link.is_symlink():
        return
    link.symlink_to(target, target_is_directory=True)


def write_run_config(config: Mapping, configfiles: list[str], path: str | Path) -> None:
    """Record the configuration a run used, schema defaults filled in, next to its results."""
    import yaml

    names = ", ".join(str(name) for name in configfiles) or "none"
    with atomic_open(path) as handle:
        handle.write(f"# The configuration of the run '{config['run_name']}' with the schema's defaults filled in.\n")
        handle.write(f"# Config files: {names}\n")
        yaml.safe_dump(_plain(config), handle, sort_keys=False, allow_unicode=True)


def _plain(value: object) -> object:
    """Snakemake's config holds its own mapping types; YAML needs plain dicts and lists."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
