"""``natcomp evaluate`` and ``natcomp compare``: the top-level commands of the profile.

``natcomp evaluate --model NAME_OR_PATH [--name N] [--families F ...] [--chat-template] [--dtype D] [--fine-tuning M] [--configfile BASE] [-n] [-- SNAKEMAKE_OPTIONS]``
    Check every option, decide from the model's config which families it fits and print
    the plan (a causal LM's prompts go through its chat template only with
    ``--chat-template`` or ``chat_template: on`` in the base config); write the run's config into ``runs/<name>/`` and run the workflow there,
    its output in ``runs/<name>/natcomp_evaluate.log`` and a one-line progress display on
    stderr; then write ``runs/<name>/results/profile.tsv`` and ``profile.html``. A dry run
    (``-n``) creates no run folder and writes no file of the run in an existing one.
    With ``--target-lang CODE ...`` (a translation model or LLM): one run per target
    language in ``runs/<name>/<code>/``, then one table per measure with a column per
    language in ``runs/<name>/languages/`` (:func:`evaluate_languages`).
``natcomp compare RUN RUN [RUN ...] [--output FILE.tsv] [--figure FILE.png] [--board FILE.html]``
    The profiles of several runs side by side: one TSV and one figure; two runs also get,
    per row, the paired comparison on the row's items (natcomp.profile.compare), more than
    two the board (natcomp.profile.board).

``natcomp mt evaluate`` is the MT case of :func:`evaluate_model` (``families=["mt"]``).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from natcomp.cliargs import MAX_CORES, cores_int, int_range
from natcomp.errors import ConfigError, InputError, OptionError

if TYPE_CHECKING:
    from natcomp.profile.runconfig import TargetLanguages

__all__ = ["RunPlan", "add_run_arguments", "add_subcommands", "evaluate_model", "model_help", "plan_run", "run_name"]

PROG = "natcomp"


def add_subcommands(subparsers) -> None:
    """Register ``evaluate`` and ``compare`` on the ``natcomp`` sub-command parser."""
    _add_evaluate(subparsers)
    _add_compare(subparsers)


def _add_evaluate(subparsers) -> None:
    from natcomp.configcheck import DTYPES
    from natcomp.finetuning import FINE_TUNING_METHODS, full_fine_tuning_limit
    from natcomp.profile.fit import FAMILIES

    parser = subparsers.add_parser(
        "evaluate",
        help="a compositionality profile of one Hugging Face model: every family it fits",
        description=(
            "Decide from the model's config which families it fits (a translation model: MT; an encoder: "
            "NonCompSST, PLANE fine-tuning, PSS, TRE; a masked LM: also PLANE prompting; an NLI classifier: also "
            "PLANE NLI transfer; a causal LM: MT by prompting, NonCompSST, PLANE fine-tuning and prompting, PSS, "
            "TRE), print the plan, write the run's config (the base config with the model as the "
            "only model of each family it fits, the other families off) into the run folder, run the workflow "
            "there and write results/profile.tsv and profile.html. Arguments after '--' go to snakemake "
            "(e.g. -- --profile slurm)."
        ),
    )
    parser.add_argument("--model", required=True, metavar="NAME_OR_PATH", help=model_help("the model to profile"))
    parser.add_argument(
        "--name",
        type=run_name,
        help="the model's name in the tables and the run folder (default: the last path part)",
    )
    parser.add_argument(
        "--families",
        nargs="+",
        choices=FAMILIES,
        metavar="FAMILY",
        help=f"run only these of the families the model fits ({', '.join(FAMILIES)}; default: all it fits)",
    )
    parser.add_argument(
        "--dtype",
        choices=DTYPES,
        help="the dtype of inference (default: the base config's dtype, auto: the checkpoint's on a GPU, fp32 on a "
        "CPU; fp16 and bf16 only on a GPU); training always keeps fp32 weights",
    )
    parser.add_argument(
        "--fine-tuning",
        choices=FINE_TUNING_METHODS,
        help="how NonCompSST, PLANE and PSS fine-tune the model: full (every weight), lora (LoRA adapters on the "
        "attention projections, the head in full) or auto (full up to "
        f"{full_fine_tuning_limit() / 1e9:.1f}B parameters on an 80 GB GPU, LoRA above; gpus.memory_gb); default: "
        "the base config's fine_tuning settings",
    )
    parser.add_argument(
        "--chat-template",
        action="store_true",
        help="a causal LM: prompt it through its tokenizer's chat template in MT and PLANE prompting (default: "
        "plain text, even when the tokenizer has one, as a base model's may); a served model: through the "
        "server's chat completions",
    )
    add_served_arguments(parser)
    add_run_arguments(parser)
    parser.set_defaults(func=_cmd_evaluate)


def add_served_arguments(parser: argparse.ArgumentParser) -> None:
    """``--api-base`` and ``--api-key-env``: the model behind an OpenAI-compatible API (docs/llm.md)."""
    parser.add_argument(
        "--api-base",
        metavar="URL",
        help="the model is served: the base URL of an OpenAI-compatible API (http://host:8000/v1: vllm serve, "
        "transformers serve, a hosted API), --model its id there; runs MT and PLANE prompting (the families "
        "that need text out only)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="with --api-base: the environment variable that holds the server's key (read when the plan is made "
        "and when each job starts; never written anywhere)",
    )


def run_name(text: str) -> str:
    """An argparse ``type=`` for ``--name``: a name that can be a folder and a column (never replaced)."""
    from natcomp.profile.runconfig import check_name

    try:
        return check_name(text)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def model_help(what: str) -> str:
    """The help of a ``--model`` option: the three kinds of location it takes, the shipped ids by name."""
    from natcomp.shipped import shipped_model_ids

    return (
        f"{what}: a save_pretrained folder, a peft adapter folder (adapter_config.json: its base is loaded and the "
        f"adapter merged), a shipped model ({shipped_model_ids()}) or a Hub id (from the local Hugging Face cache; one not cached is "
        "downloaded while Hub access is on, refused under HF_HUB_OFFLINE=1)"
    )


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
    parser.add_argument(
        "--cores",
        type=cores_int,
        default=os.cpu_count() or 1,
        help=f"cores Snakemake may use, 1 to {MAX_CORES} (default: all)",
    )
    parser.add_argument(
        "--target-lang",
        nargs="+",
        metavar="CODE",
        help="run the MT tests once per target language (ISO 639-1 codes with a file in resources/mt/languages: "
        "de fr es nl), each in runs/<name>/<code>, then write one table per measure with a column per language "
        "into runs/<name>/languages (default: one run into the base config's mt.target_lang)",
    )
    parser.add_argument("--dry-run", "-n", action="store_true", help="print the plan and the jobs, run nothing")
    parser.add_argument("snakemake_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    return evaluate_model(
        args.model,
        name=args.name,
        families=args.families,
        dtype=args.dtype,
        fine_tuning=args.fine_tuning,
        configfile=args.configfile,
        directory=args.directory,
        cores=args.cores,
        dry_run=args.dry_run,
        snakemake_args=args.snakemake_args,
        chat_template=args.chat_template,
        command="evaluate",
        target_langs=args.target_lang,
        target_languages=_target_languages(args),
        api_base=args.api_base,
        api_key_env=args.api_key_env,
        request_estimates=getattr(args, "served_request_estimates", None),
    )


def _target_languages(args: argparse.Namespace):
    """The MT family's part of ``--target-lang`` (natcomp.cli sets ``target_language_hooks``
    on the ``evaluate`` commands: the core imports no family), where it is given."""
    hooks = getattr(args, "target_language_hooks", None)
    return hooks() if args.target_lang and hooks is not None else None


def check_base(base: dict, path: Path) -> None:
    """The base config against the workflow's schemas (what Snakemake's first check would
    find, after the plan and its banner), as one line naming the file and the key."""
    from natcomp.configcheck import check_sections
    from natcomp.profile import runconfig
    from natcomp.profile.fit import FAMILIES

    try:
        check_sections(copy.deepcopy(base), runconfig.workflow_root() / "config", FAMILIES)
    except ConfigError as error:
        raise InputError(path, f"{error.key}: {error.message}") from None


def read_base(path: Path) -> dict:
    from natcomp.files import read_yaml

    # An unreadable file (a folder, missing, not UTF-8, bad YAML) is one line naming it (cli.main).
    base = read_yaml(path)
    if not isinstance(base, dict):
        raise InputError(path, "the base config is not a mapping of sections")
    return base


@dataclass
class RunPlan:
    """One model's run, decided before anything is written: the plan's rows, the run's
    config and record (what the profile is of) and the final tables it asks Snakemake for."""

    name: str
    base_path: Path
    scale: str
    description: str
    rows: list
    config: dict
    record: dict
    targets: list[str]
    #: the jobs that run the model, sized (natcomp.profile.jobs.PlannedJob), and their table
    jobs: list = field(default_factory=list)
    jobs_table: str = ""


def plan_run(
    model: str,
    *,
    name: str | None = None,
    families: Sequence[str] | None = None,
    configfile: Path | None = None,
    mt_system: Mapping[str, object] | None = None,
    dtype: str | None = None,
    chat_template: bool = False,
    fine_tuning: str | None = None,
    target_lang: str | None = None,
    target_languages: TargetLanguages | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
    request_estimates: Mapping | None = None,
) -> RunPlan:
    """Everything :func:`evaluate_model` checks and decides before it writes a file or starts a job.
    ``dtype`` (None: the base config's) is the run's inference dtype, the MT system's too;
    ``chat_template`` (``--chat-template``): a causal LM's MT and PLANE prompts go through its chat template;
    ``fine_tuning`` (``--fine-tuning``; None: the base config's) the method of every fine-tuning family;
    ``target_lang`` (one of ``--target-lang``): the run's ``mt.target_lang``, its base config
    made by ``target_languages.configure`` (at demo scale, the English side of the demo data);
    ``api_base`` (``--api-base``): the model is served (:func:`_plan_served_run`), its key in
    the environment variable ``api_key_env``; ``request_estimates``: family -> its estimate of
    the requests (natcomp.cli wires the families' own)."""
    from natcomp.adapters import check_base_found_anywhere, read_adapter
    from natcomp.hf.precision import check_dtype_name
    from natcomp.jobsize import JobSettings
    from natcomp.model_description import ModelDescription
    from natcomp.profile import fit, runconfig
    from natcomp.profile.jobs import format_jobs, job_plan

    base_path = configfile or runconfig.workflow_root() / "config" / "config.yaml"
    base = read_base(base_path)
    check_base(base, base_path)
    left_out: list[str] = []
    language = None
    if target_lang is not None:
        if target_languages is None:
            raise OptionError("--target-lang", "needs the MT family's languages (natcomp.mt.languages_compare)")
        (language,) = target_languages.check([target_lang])
        base, left_out = target_languages.configure(base, target_lang)
    # an empty --name is refused, never replaced by the model's
    given = name is not None
    name = runconfig.check_name(runconfig.system_name(model) if name is None else name)
    if api_base is not None or api_key_env is not None:  # a model behind an API: no weights read
        return _plan_served_run(
            model,
            name=name,
            base=base,
            base_path=base_path,
            families=families,
            chat_template=chat_template,
            mt_system=mt_system,
            dtype=dtype,
            fine_tuning=fine_tuning,
            api_base=api_base,
            api_key_env=api_key_env,
            language=language,
            target_lang=target_lang,
            left_out=left_out,
            request_estimates=request_estimates,
        )
    # before any job: the model is local (or cached) and fits what is asked
    model_config = fit.read_model_config(model)
    location = model
    if Path(model).expanduser().is_dir():
        location = str(Path(model).expanduser().resolve())  # the run folder is elsewhere
    adapter = read_adapter(location, "--model")
    if adapter is not None:
        check_base_found_anywhere(adapter, "--model")
    kinds = fit.model_kinds(model_config, chat_template=fit.has_chat_template(model_config, location), model=model)
    chosen = fit.choose_families(model, kinds, families)
    name = runconfig.encoder_name(name, given, chosen)
    if kinds.causal or kinds.encoder:
        from natcomp import hf

        # a tokenizer that cannot pad fails every batched job: one line now (no weights are read)
        hf.load_tokenizer(location, "--model")
    if chat_template:
        if not kinds.causal:
            raise ConfigError("--chat-template", f"is for a causal LM; {model} is {kinds.describe()}")
        if not kinds.chat_template:
            raise ConfigError("--chat-template", f"{model} has no chat template (its tokenizer's files hold none)")
        if not {"mt", "plane"} & set(chosen):
            raise ConfigError("--chat-template", "is for MT and PLANE prompting, and --families runs neither")
        # the run's settings say on, so the plan, the config and the record all read it from them
        mt_system = {**(mt_system or {}), "chat_template": "on"}
        if isinstance(base.get("plane"), Mapping):
            plane = dict(base["plane"])
            plane["prompting"] = {**(plane.get("prompting") or {}), "chat_template": "on"}
            base = {**base, "plane": plane}
    if kinds.causal and "mt" in chosen:
        # a causal LM is an MT system of family causal: it translates by prompting
        given = (mt_system or {}).get("family") or "auto"
        if given not in ("auto", "causal"):
            raise ConfigError("--family", f"{given} is a translation model's family; {model} is {kinds.describe()}")
        mt_system = {**(mt_system or {}), "family": "causal"}
    if dtype is not None:
        base = {**base, "dtype": check_dtype_name(dtype, "--dtype")}
        mt_system = {**(mt_system or {}), "precision": dtype}
    if fine_tuning is not None:
        base = runconfig.with_fine_tuning(
            base, fine_tuning, chosen, "the model fits" if families is None else "--families runs"
        )
    requested = check_dtype_name(base.get("dtype", "auto"), f"{base_path}: dtype")
    # the model described once (natcomp.model_description): its size, dtypes and how each
    # fine-tuning family trains it, decided now as its jobs will; the plan, the jobs, the
    # record and the profile page read it
    described = ModelDescription(model, model_config, adapter, kinds, kinds.chat_template)
    described = described.for_run({**base, "dtype": requested}, chosen)
    tuned = described.fine_tuning_texts()
    # each job's GPUs, memory and time; a model too large for gpus.max_per_job stops here
    job_settings = JobSettings.from_config({**base, "dtype": requested})
    jobs = job_plan(described, chosen, job_settings, base=base)
    # whether MT and PLANE prompting apply the chat template: only when asked (fit.chat_templates)
    chat = fit.chat_templates(kinds, base, mt_system, chosen)
    scale = runconfig.scale_of(base, base_path)
    record = {
        "model": model,
        "name": name,
        "scale": scale,
        "base": str(base_path),
        "families": list(chosen),
        "plane": {"prompting": kinds.language_model, "nli": kinds.nli},
        **described.record(),  # dtypes, precision, parameters, fine_tuning
    }
    if language is not None:  # --target-lang: the language of this run, and what its scale leaves out
        record.update(target_lang=target_lang, target_language=language, left_out=left_out)
    if chat:
        record["chat_template"] = chat  # family -> applied, for the profile
    what = model
    if adapter is not None:  # the profile is of the base with the adapter merged
        record.update(adapter=location, adapter_method=adapter.describe(), base_model=adapter.base_location)
        what = f"adapter {model} ({adapter.describe()}) on base {adapter.base_location}"
    return RunPlan(
        name=name,
        base_path=Path(base_path),
        scale=scale,
        description=f"{what} is {kinds.describe(any(chat.values()))}"
        + (f"; target language {language}" if language is not None else ""),
        rows=[row for row in fit.plan(kinds, base, mt_system, chat, tuned) if row.family in chosen],
        config=runconfig.profile_config(base, name, location, chosen, kinds, mt_system),
        record=record,
        targets=runconfig.profile_targets(chosen, kinds),
        jobs=jobs,
        jobs_table=format_jobs(jobs, job_settings, described.model_type, described.size_text()),
    )


def _plan_served_run(
    model: str,
    *,
    name: str,
    base: dict,
    base_path: Path,
    families: Sequence[str] | None,
    chat_template: bool,
    mt_system: Mapping | None,
    dtype: str | None,
    fine_tuning: str | None,
    api_base: str | None,
    api_key_env: str | None,
    language: str | None,
    target_lang: str | None,
    left_out: list[str],
    request_estimates: Mapping | None,
) -> RunPlan:
    """:func:`plan_run` of a model behind an OpenAI-compatible API (:mod:`natcomp.profile.served`)."""
    from natcomp.profile import fit, runconfig, served

    if api_base is None:
        raise OptionError("--api-key-env", "names the key of a served model; expected --api-base URL with it")
    decided = served.plan_served(
        model,
        api_base=api_base,
        api_key_env=api_key_env,
        base=base,
        families=families,
        chat_template=chat_template,
        mt_system=mt_system,
        dtype=dtype,
        fine_tuning=fine_tuning,
        estimates=request_estimates,
        root=runconfig.workflow_root(),
    )
    chosen, run_base, system = decided["families"], decided["base"], decided["mt_system"]
    kinds = fit.ModelKinds(False, False, False, False, causal=True, chat_template=chat_template)
    scale = runconfig.scale_of(run_base, base_path)
    chat = {family: chat_template for family in chosen}
    record = {
        "model": model,
        "name": name,
        "scale": scale,
        "base": str(base_path),
        "families": list(chosen),
        "plane": {"prompting": True, "nli": False, "finetune": False},
        "dtype": "served",
        "precision": "the server's own (natcomp loads no weights)",
        "chat_template": chat,
        "served": decided["record"],
    }
    if language is not None:
        record.update(target_lang=target_lang, target_language=language, left_out=left_out)
    config = runconfig.profile_config(run_base, name, model, chosen, kinds, system)
    config = served.served_config(config, model, api_base, api_key_env)
    return RunPlan(
        name=name,
        base_path=Path(base_path),
        scale=scale,
        description=f"{model} at {api_base} is a served causal LM"
        + (f"; target language {language}" if language is not None else ""),
        rows=decided["rows"],
        config=config,
        record=record,
        targets=[
            target
            for target in runconfig.profile_targets(chosen, kinds)
            if not target.endswith(("table6_finetune.tsv", "table5_nli.tsv"))
        ],
        jobs_table="\n".join(decided["lines"]),
    )


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
    chat_template: bool = False,
    command: str = "evaluate",
    dtype: str | None = None,
    fine_tuning: str | None = None,
    target_langs: Sequence[str] | None = None,
    target_languages: TargetLanguages | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
    request_estimates: Mapping | None = None,
) -> int:
    """Plan, configure and run one model's evaluation; write its profile after a real run.

    A dry run writes nothing of the run: the config goes to a temporary folder, and
    Snakemake plans in the run folder when it exists (what remains to be done there; only
    its own cache in ``.snakemake/`` changes), else in a temporary one. A real run's Snakemake output goes to :data:`runconfig.LOG_FILE`
    in the run folder, its progress to stderr.

    ``target_langs`` (``--target-lang``): one run per target language instead
    (:func:`evaluate_languages`)."""
    from natcomp.profile import fit, runconfig

    prog = f"{PROG} {command}"
    if cores < 1:  # the command line's --cores is checked by argparse; this is the library call
        raise OptionError("--cores", f"expected an integer at least 1, not {cores}")
    if directory is not None:  # a run folder that is a file or cannot be written: one line, before the plan
        from natcomp.files import check_output_folder

        check_output_folder(directory)
    options = dict(
        name=name,
        families=families,
        configfile=configfile,
        mt_system=mt_system,
        chat_template=chat_template,
        dtype=dtype,
        fine_tuning=fine_tuning,
        api_base=api_base,
        api_key_env=api_key_env,
        request_estimates=request_estimates,
    )
    if target_langs:
        return evaluate_languages(
            model,
            target_langs,
            target_languages,
            directory=directory,
            cores=cores,
            dry_run=dry_run,
            snakemake_args=snakemake_args,
            command=command,
            **options,
        )
    root = runconfig.workflow_root()
    plan = plan_run(model, **options)
    check_local_gpu(plan.config, snakemake_args)
    _print_plan(plan, prog, fit)
    directory = Path(directory or Path("runs") / plan.name)
    extra = _snakemake_extra(plan, snakemake_args)
    if dry_run:
        return _dry_run(plan, directory, root, cores, extra, prog)
    return _real_run(plan, directory, root, cores, extra, prog)


def _snakemake_extra(plan: RunPlan, snakemake_args: Sequence[str]) -> list[str]:
    """The arguments after '--' for Snakemake; a served run's jobs share the server's limit
    of requests in flight (``--resources served_requests=N``)."""
    extra = [argument for argument in snakemake_args if argument != "--"]
    if plan.record.get("served"):
        from natcomp.profile.served import with_request_limit

        extra = with_request_limit(extra, plan.record["served"]["concurrency"])
    return extra


def _print_plan(plan: RunPlan, prog: str, fit) -> None:
    print(f"{prog}: {plan.description}; {plan.scale} scale; the plan:", file=sys.stderr)
    print(fit.format_plan(plan.rows), file=sys.stderr)
    print(f"{prog}: {plan.jobs_table}", file=sys.stderr)
    print(f"{prog}: precision: {plan.record['precision']}", file=sys.stderr)
    if plan.record.get("fine_tuning"):
        print(f"{prog}: fine-tuning: {fit.fine_tuning_text(plan.record['fine_tuning'])}", file=sys.stderr)
    for item in plan.record.get("left_out") or ():
        print(f"{prog}: left out at {plan.scale} scale in {plan.record['target_language']}: {item}", file=sys.stderr)


def _note(plan: RunPlan, prog: str) -> str:
    return f"{prog}: the base config {plan.base_path} with {plan.name} as the only model"


def _dry_run(plan: RunPlan, directory: Path, root: Path, cores: int, extra: Sequence[str], prog: str) -> int:
    """Snakemake's plan of ``plan`` in ``directory`` (nothing written there)."""
    from natcomp.profile import runconfig

    with tempfile.TemporaryDirectory(prefix="natcomp-dry-run-") as scratch:
        configpath = runconfig.write_config(plan.config, Path(scratch) / runconfig.CONFIG_FILE, _note(plan, prog))
        if directory.is_dir():
            workdir, where = directory, f"what remains to be done in {directory} (nothing written there)"
        else:
            workdir, where = Path(scratch) / "run", f"a new run folder {directory} (not created by a dry run)"
            workdir.mkdir()
        print(f"{prog}: dry run of {plan.name!r}: {where}", file=sys.stderr)
        snakemake = runconfig.snakemake_command(
            root / "Snakefile", workdir, configpath, cores, plan.targets, True, extra
        )
        return runconfig.run(snakemake)


def _real_run(plan: RunPlan, directory: Path, root: Path, cores: int, extra: Sequence[str], prog: str) -> int:
    """Run ``plan`` in ``directory`` and write its profile; Snakemake's exit status."""
    from natcomp.profile import runconfig

    directory.mkdir(parents=True, exist_ok=True)
    configpath = runconfig.write_config(plan.config, directory / runconfig.CONFIG_FILE, _note(plan, prog))
    runconfig.write_config(plan.record, directory / runconfig.RUN_FILE, f"{prog}: what the profile is of")
    snakemake = runconfig.snakemake_command(
        root / "Snakefile", directory, configpath.resolve(), cores, plan.targets, False, extra
    )
    log = directory / runconfig.LOG_FILE
    print(f"{prog}: {plan.name!r} in {directory}; Snakemake's output in {log}", file=sys.stderr)
    progress = runconfig.run_with_progress(snakemake, log, prog)
    if progress.returncode != 0:
        for rule, rule_log in progress.failed:
            where = f"; its log: {directory / rule_log}" if rule_log else ""
            print(f"{prog}: the rule {rule} failed{where}", file=sys.stderr)
        if not progress.failed:  # stopped before any job: its own words (a config check's one line)
            for line in progress.messages or list(progress.tail):
                print(line, file=sys.stderr)
        print(f"{prog}: Snakemake stopped (exit {progress.returncode}); its whole output: {log}", file=sys.stderr)
        return progress.returncode
    tsv, html = write_run_profile(directory)
    print(f"{prog}: profile in {tsv} and {html}, its item outcomes beside them", file=sys.stderr)
    return 0


#: the folder of the per-language tables in the run folder of ``--target-lang``
LANGUAGES_FOLDER = "languages"


def evaluate_languages(
    model: str,
    target_langs: Sequence[str],
    target_languages: TargetLanguages | None,
    *,
    directory: Path | None = None,
    cores: int = 1,
    dry_run: bool = False,
    snakemake_args: Sequence[str] = (),
    command: str = "evaluate",
    families: Sequence[str] | None = None,
    mt_system: Mapping[str, object] | None = None,
    fine_tuning: str | None = None,
    **options,
) -> int:
    """One run per target language (``--target-lang de fr``): each a normal run of the base
    config with ``mt.target_lang`` set, in ``<run folder>/<code>``; the families other than
    MT (where the model fits any) run once, in the first language's run. Every code is
    checked before anything else, every language's plan before any run. After the runs,
    one table per measure with a column per language in ``<run folder>/languages``
    (``target_languages.write_tables``); a dry run shows every language's plan and jobs."""
    from natcomp.profile import fit, runconfig

    prog = f"{PROG} {command}"
    if target_languages is None:
        raise OptionError("--target-lang", "needs the MT family's languages (natcomp.mt.languages_compare)")
    labels = target_languages.check(list(target_langs))
    if len(target_langs) > 1 and (mt_system or {}).get("target_code"):
        raise OptionError(
            "--target-code",
            "names one language's code as the model spells it; with several --target-lang each run's code comes "
            "from its language's file (resources/mt/languages/<code>.yaml)",
        )
    root = runconfig.workflow_root()
    plans = []
    for index, code in enumerate(target_langs):
        first = index == 0
        plan = plan_run(
            model,
            families=families if first else ["mt"],
            mt_system=mt_system,
            fine_tuning=fine_tuning if first else None,
            target_lang=code,
            target_languages=target_languages,
            **options,
        )
        if "mt" not in plan.record["families"]:
            raise OptionError(
                "--target-lang",
                f"is for the MT family, and {'--families runs' if families else 'the model fits'} no MT "
                f"({', '.join(plan.record['families'])})",
            )
        plans.append(plan)
    for plan in plans:
        check_local_gpu(plan.config, snakemake_args)
    directory = Path(directory or Path("runs") / plans[0].name)
    folders = {code: directory / code for code in target_langs}
    others = [family for family in plans[0].record["families"] if family != "mt"]
    print(
        f"{prog}: {len(plans)} target language{'s' if len(plans) > 1 else ''} ({', '.join(labels)}), one run each in {directory}/<code>"
        + (f"; {', '.join(others)} run once, in {folders[target_langs[0]]}" if others else ""),
        file=sys.stderr,
    )
    for plan, code in zip(plans, target_langs):
        print(f"{prog}: --- {plan.record['target_language']}: {folders[code]}", file=sys.stderr)
        _print_plan(plan, prog, fit)
    extra = _snakemake_extra(plans[0], snakemake_args)
    if dry_run:
        status = 0
        for plan, code in zip(plans, target_langs):
            status = _dry_run(plan, folders[code], root, cores, extra, prog) or status
        return status
    failed = []
    for plan, code in zip(plans, target_langs):
        if _real_run(plan, folders[code], root, cores, extra, prog) != 0:
            failed.append(code)
    done = {code: folders[code] for code in target_langs if code not in failed}
    if done:
        tables = target_languages.write_tables(done, plans[0].name, directory / LANGUAGES_FOLDER, scale=plans[0].scale)
        print(f"{prog}: per-language tables: {', '.join(str(path) for path in tables)}", file=sys.stderr)
    if failed:
        print(f"{prog}: the runs of {', '.join(failed)} failed; the tables have the others", file=sys.stderr)
        return 1
    return 0


#: snakemake options that send jobs to other machines (a cluster's GPU nodes)
_REMOTE_OPTIONS = ("--profile", "--executor", "-e", "--cluster", "--slurm")


def check_local_gpu(config: Mapping, snakemake_args: Sequence[str]) -> None:
    """What a plan asks of a GPU (a half-precision ``dtype``, an MT system's ``device:
    cuda``), for jobs that run on this machine (no ``--profile`` or ``--executor`` after '--')
    when torch sees no GPU here: one line before any job, not a failed job per family
    (natcomp.hf.precision refuses fp16/bf16 on a CPU, natcomp.hf.models a missing GPU)."""
    if any(str(arg).split("=")[0] in _REMOTE_OPTIONS for arg in snakemake_args):
        return
    dtype = config.get("dtype", "auto")
    devices = {
        name: str(system.get("device") or "auto")
        for name, system in ((config.get("mt") or {}).get("systems") or {}).items()
    }
    cuda = {name: device for name, device in devices.items() if device.startswith("cuda")}
    if dtype in ("auto", "fp32") and not cuda:
        return
    import torch

    if torch.cuda.is_available():
        return
    elsewhere = "(or run on GPU nodes: -- --profile slurm)"
    if dtype not in ("auto", "fp32"):
        raise OptionError(
            "--dtype",
            f"{dtype} was asked for but the jobs run on this machine, which has no GPU; expected auto or fp32 here "
            + elsewhere,
        )
    name, device = next(iter(cuda.items()))
    raise OptionError(
        "--device",
        f"{device} was asked for (mt.systems.{name}.device) but the jobs run on this machine, which has no GPU; "
        f"expected auto or cpu here {elsewhere}",
    )


def write_run_profile(directory: Path) -> tuple[Path, Path]:
    """The profile of a finished run folder (its record says what the profile is of)."""
    import yaml

    from natcomp.profile import fit, runconfig
    from natcomp.profile.outcomes import write_outcomes
    from natcomp.profile.render import write_profile
    from natcomp.profile.table import profile_rows

    record_path = Path(directory) / runconfig.RUN_FILE
    try:
        record = yaml.safe_load(record_path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(record_path, f"cannot read the run record: {error.strerror}") from None
    served_text = served_warnings = None
    if record.get("served"):  # the usage the served jobs reported, kept in the record
        from natcomp.profile.served import add_usage, served_page_text

        record = add_usage(directory, record)
        runconfig.write_config(record, record_path, f"{PROG} evaluate: what the profile is of")
        served_text, served_warnings = served_page_text(record["served"])
    profile = profile_rows(
        directory,
        model=record["model"],
        name=record["name"],
        scale=record["scale"],
        families=record["families"],
        plane_roles=record.get("plane") or {},
        chat_template=record.get("chat_template") or {},
    )
    chat = fit.chat_template_text(record.get("chat_template"))
    model = record["model"]
    if record.get("adapter"):
        model = f"adapter {model}: {record.get('adapter_method')}, on base {record.get('base_model')}"
    language = f", target language: {record['target_language']}" if record.get("target_language") else ""
    title = (
        f"Compositionality profile of {record['name']} ({model}, {record['scale']} scale{language}"
        f"{', ' + chat if chat else ''})"
    )
    written = write_profile(
        profile,
        Path(directory) / "results",
        title,
        precision=record.get("precision"),
        fine_tuning=fit.fine_tuning_text(record.get("fine_tuning")),
        served=served_text,
        warnings=served_warnings,
    )
    # what each row's value is a statistic of, per item (natcomp compare pairs two runs on it)
    write_outcomes(directory, profile)
    return written


def _add_compare(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="profiles of several runs side by side, tested item by item: a table, a figure, a board",
        description=(
            "Put the profiles (results/profile.tsv) of several 'natcomp evaluate' runs side by side: one row per "
            "family, measure and setting, one column per model (its scale in the header) and, for the papers' "
            "models, a column of the published values. A measure a model has no value for is blank, never 0. "
            "Two runs: per row, the second run minus the first on the row's items, with a 95%% interval, the "
            "p-value of a paired test that fits the row, Holm's correction over the rows and a verdict. More runs: "
            "also a board (HTML) that ranks the models per row and groups those a paired test cannot tell apart."
        ),
    )
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="two or more run folders (runs/<name>) or profile.tsv files"
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
    parser.add_argument(
        "--board",
        type=Path,
        metavar="FILE.html",
        help="the board of more than two runs (default: board.html beside the table)",
    )
    parser.add_argument(
        "--resamples",
        type=int_range(100, 100_000),
        default=2000,
        help="bootstrap resamples of a paired comparison (100 to 100,000; default 2,000; the board's pairs: half)",
    )
    parser.set_defaults(func=_cmd_compare, output_files=("output", "figure", "board"))


def _cmd_compare(args: argparse.Namespace) -> int:
    import pandas as pd

    from natcomp.profile.compare import header_labels, load_run, paired_rows, settings_note
    from natcomp.profile.render import compare_figure
    from natcomp.profile.table import COMPARE_COLUMNS, compare_profiles
    from natcomp.tsv import write_tsv

    if len(args.runs) < 2:
        raise OptionError("RUN", f"got one run ({args.runs[0]}); expected two or more to compare")
    figure = args.figure or args.output.with_suffix(".png")
    board = args.board or args.output.parent / "board.html"
    if figure.resolve() == args.output.resolve():
        # the PNG would overwrite the table just written (issue 45)
        raise OptionError("--figure", f"{figure} is the table's own file (--output); expected another file")
    if len(args.runs) > 2 and board.resolve() in (args.output.resolve(), figure.resolve()):
        raise OptionError("--board", f"{board} is the table's or the figure's file; expected another file")
    runs = [load_run(run) for run in args.runs]
    # what the runs differ in besides the model: in each model's header, the figure and a line here
    table = compare_profiles([run.profile for run in runs], header_labels(runs))
    note = settings_note(runs)
    for run in runs:
        if run.outcomes is None:
            print(f"{PROG} compare: {run.missing}: its rows are not tested", file=sys.stderr)
    if len(runs) == 2:
        keys = list(table[list(COMPARE_COLUMNS)].itertuples(index=False, name=None))
        paired = paired_rows(runs[0], runs[1], keys, list(table["direction"]), resamples=args.resamples)
        paired = paired.rename(columns={"difference": f"difference ({runs[1].name} - {runs[0].name})"})
        table = pd.concat([table, paired], axis=1)
    write_tsv(args.output, table, float_format="%.6g")
    # the figure is drawn from the long rows (sd, baseline, flag per row), not the wide table
    compare_figure(
        pd.concat([run.profile for run in runs], ignore_index=True),
        figure,
        f"Profiles compared: each model's value per family, measure and setting. {note}",
    )
    written = [str(args.output), str(figure)]
    if len(runs) > 2:
        from natcomp.profile.board import write_board

        written.append(str(write_board(runs, board, resamples=max(100, args.resamples // 2))))
    print(f"{PROG} compare: {len(runs)} profiles, {len(table)} rows -> {', '.join(written)}", file=sys.stderr)
    print(f"{PROG} compare: {note}", file=sys.stderr)
    if len(runs) == 2:
        for line in _verdict_lines(table, runs[0].name, runs[1].name):
            print(f"{PROG} compare: {line}", file=sys.stderr)
    return 0


def _verdict_lines(table, a: str, b: str) -> list[str]:
    """The rows with a verdict of a difference, one line each, and a count of the rest."""
    differ = table[table["verdict"].str.endswith(("more compositional", "better"))]
    lines = [
        f"{row.family} {row.measure} {row.setting}: {row.verdict} (p_holm {row.p_holm:.3g})"
        for row in differ.itertuples(index=False)
    ]
    tested = int(table["p_holm"].notna().sum())
    return [
        *lines,
        f"{len(differ)} of {tested} tested rows differ at {0.05} after Holm; {len(table) - tested} not tested",
    ]
