"""``natcomp evaluate`` and ``natcomp compare``: the top-level commands of the profile.

``natcomp evaluate --model NAME_OR_PATH [--name N] [--families F ...] [--configfile BASE] [-n] [-- SNAKEMAKE_OPTIONS]``
    Decide from the model's config which families it fits and print the plan; write the
    run's config into ``runs/<name>/`` and run the workflow there; then write
    ``runs/<name>/results/profile.tsv`` and ``profile.html``.
``natcomp compare RUN [RUN ...] [--output FILE.tsv] [--figure FILE.png]``
    The profiles of several runs side by side: one TSV and one figure.

``natcomp mt evaluate`` is the MT case of :func:`evaluate_model` (``families=["mt"]``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from natcomp.errors import InputError

__all__ = ["add_run_arguments", "add_subcommands", "evaluate_model"]

PROG = "natcomp"


def add_subcommands(subparsers) -> None:
    """Register ``evaluate`` and ``compare`` on the ``natcomp`` sub-command parser."""
    _add_evaluate(subparsers)
    _add_compare(subparsers)


def _add_evaluate(subparsers) -> None:
    from natcomp.profile.fit import FAMILIES

    parser = subparsers.add_parser(
        "evaluate",
        help="a compositionality profile of one Hugging Face model: every family it fits",
        description=(
            "Decide from the model's config which families it fits (a translation model: MT; an encoder: "
            "NonCompSST, PLANE fine-tuning, PSS, TRE; a masked LM: also PLANE prompting; an NLI classifier: also "
            "PLANE NLI transfer), print the plan, write the run's config (the base config with the model as the "
            "only model of each family it fits, the other families off) into the run folder, run the workflow "
            "there and write results/profile.tsv and profile.html. Arguments after '--' go to snakemake "
            "(e.g. -- --profile slurm)."
        ),
    )
    parser.add_argument(
        "--model", required=True, metavar="NAME_OR_PATH", help="local model folder, shipped model or cached Hub id"
    )
    parser.add_argument(
        "--name", help="the model's name in the tables and the run folder (default: the last path part)"
    )
    parser.add_argument(
        "--families",
        nargs="+",
        choices=FAMILIES,
        metavar="FAMILY",
        help=f"run only these of the families the model fits ({', '.join(FAMILIES)}; default: all it fits)",
    )
    add_run_arguments(parser)
    parser.set_defaults(func=_cmd_evaluate)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a command that runs the workflow for one model in a run folder of its
    own (``natcomp evaluate``, ``natcomp mt evaluate``): base config, run folder, cores, dry
    run, and the arguments after '--' for snakemake (:func:`evaluate_model` takes them all)."""
    parser.add_argument(
        "--configfile",
        type=Path,
        metavar="BASE.yaml",
        help="base config whose test settings are used (default: the demo's config/config.yaml; the paper's: "
        "config/paper.yaml)",
    )
    parser.add_argument("--directory", type=Path, help="run folder (default: runs/<name>)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="cores Snakemake may use (default: all)")
    parser.add_argument("--dry-run", "-n", action="store_true", help="print the plan and the jobs, run nothing")
    parser.add_argument("snakemake_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    return evaluate_model(
        args.model,
        name=args.name,
        families=args.families,
        configfile=args.configfile,
        directory=args.directory,
        cores=args.cores,
        dry_run=args.dry_run,
        snakemake_args=args.snakemake_args,
        command="evaluate",
    )


def read_base(path: Path) -> dict:
    import yaml

    from natcomp.files import read_text

    try:
        # An unreadable file (a folder, missing, not UTF-8) is one line naming it (read_text, cli.main).
        base = yaml.safe_load(read_text(path))
    except yaml.YAMLError as error:
        raise InputError(path, f"not valid YAML: {str(error).splitlines()[0]}") from None
    if not isinstance(base, dict):
        raise InputError(path, "the base config is not a mapping of sections")
    return base


def evaluate_model(
    model: str,
    *,
    name: str | None = None,
    families: Sequence[str] | None = None,
    configfile: Path | None = None,
    directory: Path | None = None,
    cores: int = 1,
    dry_run: bool = False,
    snakemake_args: Sequence[str] = (),
    mt_system: Mapping[str, object] | None = None,
    command: str = "evaluate",
) -> int:
    """Plan, configure and run one model's evaluation; write its profile after a real run."""
    from natcomp.profile import fit, runconfig

    prog = f"{PROG} {command}"
    root = runconfig.workflow_root()
    base_path = configfile or root / "config" / "config.yaml"
    base = read_base(base_path)
    name = runconfig.check_name(name or runconfig.system_name(model))
    # before any job: the model is local (or cached) and fits what is asked
    model_config = fit.read_model_config(model)
    kinds = fit.model_kinds(model_config)
    chosen = fit.choose_families(model, kinds, families)
    rows = [row for row in fit.plan(kinds, base) if row.family in chosen]
    location = model
    if Path(model).expanduser().is_dir():
        location = str(Path(model).expanduser().resolve())  # the run folder is elsewhere
    scale = runconfig.scale_of(base, base_path)
    print(f"{prog}: {model} is {kinds.describe()}; {scale} scale; the plan:", file=sys.stderr)
    print(fit.format_plan(rows), file=sys.stderr)
    config = runconfig.profile_config(base, name, location, chosen, kinds, mt_system)
    directory = Path(directory or Path("runs") / name)
    directory.mkdir(parents=True, exist_ok=True)
    note = f"{prog}: the base config {base_path} with {name} as the only model"
    configpath = runconfig.write_config(config, directory / runconfig.CONFIG_FILE, note)
    run_record = {
        "model": model,
        "name": name,
        "scale": scale,
        "base": str(base_path),
        "families": list(chosen),
        "plane": {"prompting": kinds.masked_lm, "nli": kinds.nli},
    }
    runconfig.write_config(run_record, directory / runconfig.RUN_FILE, f"{prog}: what the profile is of")
    extra = [argument for argument in snakemake_args if argument != "--"]
    targets = runconfig.profile_targets(chosen, kinds)
    snakemake = runconfig.snakemake_command(
        root / "Snakefile", directory, configpath.resolve(), cores, targets, dry_run, extra
    )
    print(f"{prog}: {name!r} in {directory}", file=sys.stderr)
    status = runconfig.run(snakemake)
    if status != 0 or dry_run:
        return status
    tsv, html = write_run_profile(directory)
    print(f"{prog}: profile in {tsv} and {html}", file=sys.stderr)
    return 0


def write_run_profile(directory: Path) -> tuple[Path, Path]:
    """The profile of a finished run folder (its record says what the profile is of)."""
    import yaml

    from natcomp.profile import runconfig
    from natcomp.profile.render import write_profile
    from natcomp.profile.table import profile_rows

    record_path = Path(directory) / runconfig.RUN_FILE
    try:
        record = yaml.safe_load(record_path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(record_path, f"cannot read the run record: {error.strerror}") from None
    profile = profile_rows(
        directory,
        model=record["model"],
        name=record["name"],
        scale=record["scale"],
        families=record["families"],
        plane_roles=record.get("plane") or {},
    )
    title = f"Compositionality profile of {record['name']} ({record['model']}, {record['scale']} scale)"
    return write_profile(profile, Path(directory) / "results", title)


def _add_compare(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="profiles of several runs side by side: one table and one figure",
        description=(
            "Put the profiles (results/profile.tsv) of several 'natcomp evaluate' runs side by side: one row per "
            "family, measure and setting, one column per model (its scale in the header) and, for the papers' "
            "models, a column of the published values. A measure a model has no value for is blank, never 0."
        ),
    )
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="run folders (runs/<name>) or profile.tsv files"
    )
    parser.add_argument(
        "--output",
        "-o",
        type=Path,
        default=Path("compare.tsv"),
        metavar="FILE.tsv",
        help="the table (default: compare.tsv)",
    )
    parser.add_argument(
        "--figure", type=Path, metavar="FILE.png", help="the figure (default: the table's name with .png)"
    )
    parser.set_defaults(func=_cmd_compare)


def _cmd_compare(args: argparse.Namespace) -> int:
    import pandas as pd

    from natcomp.profile.render import compare_figure
    from natcomp.profile.table import compare_profiles, read_profile
    from natcomp.tsv import write_tsv

    profiles = [read_profile(run) for run in args.runs]
    table = compare_profiles(profiles)
    figure = args.figure or args.output.with_suffix(".png")
    write_tsv(args.output, table, float_format="%.6g")
    # the figure is drawn from the long rows (sd, baseline, flag per row), not the wide table
    compare_figure(pd.concat(profiles, ignore_index=True), figure)
    print(f"{PROG} compare: {len(args.runs)} profiles, {len(table)} rows -> {args.output}, {figure}", file=sys.stderr)
    return 0
