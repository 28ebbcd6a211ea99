"""``natcomp mt evaluate``: the three MT tests on one translation model, through the workflow.

The MT case of ``natcomp evaluate`` (:mod:`natcomp.profile`): the run's config is the base
config (the demo's, or ``--configfile config/paper.yaml``) with the trained models switched
off (``mt.train.enabled: false``), the given model as the only system (``mt.systems``) and
the other families disabled, in a run folder of its own (``runs/<name>`` by default), and
Snakemake runs the MT tables there. The test items, translation cache, scorers, tables and
figures are exactly those of a full run, so its rows can be compared with any other run's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from natcomp.profile import runconfig
from natcomp.profile.runconfig import run, system_name, workflow_root

__all__ = ["EVALUATION_TARGETS", "evaluation_config", "run", "snakemake_command", "system_name", "workflow_root"]

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


def evaluation_config(base: Mapping, name: str, system: Mapping[str, object]) -> dict:
    """``base`` with ``system`` as the only MT system, no trained models and no other family."""
    return runconfig.profile_config(base, name, str(system["model"]), ["mt"], mt_system=system)


def snakemake_command(
    snakefile: Path,
    directory: Path,
    configfile: Path,
    cores: int,
    dry_run: bool = False,
    extra: Sequence[str] = (),
) -> list[str]:
    return runconfig.snakemake_command(snakefile, directory, configfile, cores, EVALUATION_TARGETS, dry_run, extra)
