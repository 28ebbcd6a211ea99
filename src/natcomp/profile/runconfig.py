"""The config and the Snakemake command of one model's run (``natcomp evaluate``, and
``natcomp mt evaluate`` as its MT case).

The run's config is the base config (the demo's, or ``--configfile config/paper.yaml``)
with the model as the ONLY model of every family it fits, the family's own demo or paper
models removed, and the families it does not fit switched off. Only the model lists are
overridden (and the switches that turn a family's model-less stage off), so the test
settings, data and scorers are exactly those of a full run of that base config.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.files import atomic_open
from natcomp.profile.fit import FAMILIES, ModelKinds

__all__ = [
    "CONFIG_FILE",
    "RUN_FILE",
    "check_name",
    "profile_config",
    "profile_targets",
    "run",
    "scale_of",
    "snakemake_command",
    "system_name",
    "workflow_root",
    "write_config",
]

#: the run's config, in the run folder (the name ``natcomp mt evaluate`` has always used)
CONFIG_FILE = "natcomp_evaluate.yaml"
#: what the profile is of: model, name, scale, families (read by the profile writer)
RUN_FILE = "natcomp_profile.yaml"

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
    """A name from a model: the Hub repo's or the folder's last part (``opus-mt-en-nl``)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(str(model).rstrip("/")).name).strip("-._")
    if not name:
        raise ConfigError("--name", f"cannot derive a system name from {model!r}; give one with --name")
    return name


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ConfigError(
            "--name", f"{name!r} must be letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return name


def scale_of(base: Mapping, base_path: str | Path | None = None) -> str:
    """The run's scale: the base config's ``run_name`` when it is ``demo`` or ``paper``
    (config/config.yaml and config/paper.yaml), else the base file's stem."""
    name = str(base.get("run_name", ""))
    if name in ("demo", "paper"):
        return name
    return Path(base_path).stem if base_path else (name or "custom")


def _section(base: Mapping, family: str) -> dict:
    section = base.get(family)
    if not isinstance(section, Mapping):
        raise ConfigError(family, f"the base config has no {family} section to take the test settings from")
    return dict(section)


def _same_model(entry: object, model: str) -> bool:
    return isinstance(entry, Mapping) and str(entry.get("model", "")) in {model, Path(model).name}


def _encoder_entry(section: Mapping, model: str, defaults: Mapping) -> dict:
    """An encoder entry for ``model``: the base's own settings when it lists the same model
    (the shipped MiniLM keeps its pooling and normalisation), else ``defaults``."""
    for entry in (section.get("encoders") or {}).values():
        if _same_model(entry, model):
            kept = {key: value for key, value in entry.items() if key != "tiny"}
            return {**defaults, **kept, "model": model}
    return {**defaults, "model": model}


def profile_config(
    base: Mapping,
    name: str,
    model: str,
    families: Sequence[str],
    kinds: ModelKinds | None = None,
    mt_system: Mapping[str, object] | None = None,
) -> dict:
    """``base`` with ``model`` (named ``name``) as the only model of each of ``families``
    and every other family switched off."""
    check_name(name)
    config = {key: value for key, value in base.items() if key not in FAMILIES}
    config["run_name"] = name
    for family in FAMILIES:
        if family not in families:
            config[family] = {"enabled": False}
            continue
        section = _section(base, family)
        section["enabled"] = True
        if family == "mt":
            system = {"model": model, **(mt_system or {})}
            section["train"] = {**(section.get("train") or {}), "enabled": False}
            section["systems"] = {name: {key: value for key, value in system.items() if value is not None}}
        elif family == "noncompsst":
            section["models"] = {name: model}
            # Tables 1 and 3 show the sentiment of one model by key: the only one there is.
            section["tables"] = {**(section.get("tables") or {}), "sentiment_model": name}
        elif family == "plane":
            masked_lm = kinds.masked_lm if kinds else False
            nli = kinds.nli if kinds else False
            section["demo_models"] = {**(section.get("demo_models") or {}), "enabled": False}
            section["prompting"] = {
                **(section.get("prompting") or {}),
                "enabled": masked_lm,
                "models": {name: model} if masked_lm else {},
            }
            # zero-shot prompting runs the prompting models without demonstrations (appendix B.1)
            section["zero_shot"] = {**(section.get("zero_shot") or {}), "enabled": masked_lm}
            section["nli"] = {**(section.get("nli") or {}), "enabled": nli, "models": {name: model} if nli else {}}
            section["finetune"] = {**(section.get("finetune") or {}), "enabled": True, "model": model}
        elif family == "pss":
            defaults = {"pooling": "mean", "normalize": False, "modes": ["fb", "ft"]}
            entry = _encoder_entry(section, model, defaults)
            entry["modes"] = ["fb", "ft"]  # the profile reports both heads' modes
            section["encoders"] = {name: entry}
        elif family == "tre":
            section["encoders"] = {name: _encoder_entry(section, model, {"pooling": "mean"})}
        config[family] = section
    return config


def profile_targets(families: Sequence[str], kinds: ModelKinds | None = None) -> list[str]:
    """The final tables the profile is read from, for the families that run."""
    targets = []
    if "mt" in families:
        targets += [
            f"results/tables/mt/{name}.tsv"
            for name in (
                "systematicity",
                "substitutivity",
                "overgeneralisation",
                "systematicity_summary",
                "substitutivity_summary",
                "overgeneralisation_peaks",
                "bleu",
            )
        ]
        targets.append("results/figures/mt/systematicity.png")
    if "noncompsst" in families:
        targets.append("results/tables/noncompsst/models.tsv")
    if "plane" in families:
        if kinds is None or kinds.masked_lm:
            targets += ["results/tables/plane/table4_prompting.tsv", "results/tables/plane/table8_zero_shot.tsv"]
        if kinds is None or kinds.nli:
            targets.append("results/tables/plane/table5_nli.tsv")
        targets.append("results/tables/plane/table6_finetune.tsv")
    if "pss" in families:
        targets.append("results/tables/pss/table1.tsv")
    if "tre" in families:
        targets.append("results/tables/tre/table2.tsv")
    return targets


def write_config(config: Mapping, path: str | Path, note: str) -> Path:
    import yaml

    with atomic_open(path) as handle:
        handle.write(f"# Written by {note}.\n")
        yaml.safe_dump(dict(config), handle, sort_keys=False, allow_unicode=True)
    return Path(path)


def snakemake_command(
    snakefile: Path,
    directory: Path,
    configfile: Path,
    cores: int,
    targets: Sequence[str],
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
    return [*command, *extra, "--", *targets]


def run(command: Sequence[str]) -> int:
    return subprocess.run(list(command), check=False).returncode
