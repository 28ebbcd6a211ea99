"""``natcomp mt evaluate``: the three MT tests on one translation model, through the workflow.

The command does not reimplement the workflow: it writes a config that is the base config
(the demo's, or ``--configfile config/paper.yaml``) with the trained models switched off
(``mt.train.enabled: false``), the given model as the only system (``mt.systems``) and the
other families disabled, into a run folder of its own (``runs/<name>`` by default), and runs
Snakemake on the MT tables there. The test items, translation cache, scorers, tables and
figures are exactly those of a full run, so its rows can be compared with any other run's.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.files import atomic_open

#: the tables and figures a model's evaluation is for
EVALUATION_TARGETS = (
    "results/tables/mt/systematicity.tsv",
    "results/tables/mt/substitutivity.tsv",
    "results/tables/mt/overgeneralisation.tsv",
    "results/tables/mt/systematicity_summary.tsv",
    "results/tables/mt/substitutivity_summary.tsv",
    "results/tables/mt/overgeneralisation_peaks.tsv",
    "results/tables/mt/bleu.tsv",
    "results/figures/mt/systematicity.png",
)

_OTHER_FAMILIES = ("noncompsst", "plane", "pss", "tre")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def workflow_root() -> Path:
    """The natcomp checkout whose Snakefile runs the evaluation (an editable install)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "Snakefile").is_file():
        raise ConfigError(
            "--snakefile",
            f"no Snakefile next to the installed natcomp ({root}); install natcomp from its checkout "
            "(pip install -e .) or pass --snakefile PATH",
        )
    return root


def system_name(model: str) -> str:
    """A system name from a model: the Hub repo's or the folder's last part (``opus-mt-en-nl``)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(str(model).rstrip("/")).name).strip("-._")
    if not name:
        raise ConfigError("--name", f"cannot derive a system name from {model!r}; give one with --name")
    return name


def evaluation_config(base: Mapping, name: str, system: Mapping[str, object]) -> dict:
    """``base`` with ``system`` as the only MT system, no trained models and no other family."""
    if not _NAME.match(name):
        raise ConfigError(
            "--name", f"{name!r} must be letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if "mt" not in base:
        raise ConfigError("mt", "the base config has no mt section to take the test settings from")
    config = {key: value for key, value in base.items() if key not in _OTHER_FAMILIES}
    mt = dict(base["mt"])
    mt["enabled"] = True
    mt["train"] = {**mt["train"], "enabled": False}
    mt["systems"] = {name: {key: value for key, value in system.items() if value is not None}}
    config["mt"] = mt
    config["run_name"] = name
    for family in _OTHER_FAMILIES:
        config[family] = {"enabled": False}
    return config


def write_config(config: Mapping, path: str | Path) -> Path:
    import yaml

    with atomic_open(path) as handle:
        handle.write("# Written by natcomp mt evaluate: the base config with one system and no trained models.\n")
        yaml.safe_dump(dict(config), handle, sort_keys=False, allow_unicode=True)
    return Path(path)


def snakemake_command(
    snakefile: Path,
    directory: Path,
    configfile: Path,
    cores: int,
    dry_run: bool = False,
    extra: Sequence[str] = (),
) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(snakefile),
        "--directory",
        str(directory),
        "--configfile",
        str(configfile),
        "--cores",
        str(cores),
    ]
    if dry_run:
        command += ["--dry-run", "--quiet", "rules"]
    # "--" ends the options: --quiet and --configfile take several values
    return [*command, *extra, "--", *EVALUATION_TARGETS]


def run(command: Sequence[str]) -> int:
    return subprocess.run(list(command), check=False).returncode
