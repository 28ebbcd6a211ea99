"""The config and the Snakemake command of one model's run (``natcomp evaluate``, and
``natcomp mt evaluate`` as its MT case).

The run's config is the base config (the demo's, or ``--configfile config/paper.yaml``)
with the model as the ONLY model of every family it fits, the family's own demo or paper
models removed, and the families it does not fit switched off. Only the model lists are
overridden (and the switches that turn a family's model-less stage off), so the test
settings, data and scorers are exactly those of a full run of that base config.

A real run's Snakemake output goes to :data:`LOG_FILE` in the run folder; the terminal
gets a compact progress display read from that output line by line (:class:`Progress`,
:func:`run_with_progress`): jobs done of total, the stages running, the elapsed time.
"""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from natcomp.errors import ConfigError, OptionError
from natcomp.files import atomic_open
from natcomp.profile.fit import FAMILIES, ModelKinds

__all__ = [
    "CONFIG_FILE",
    "LOG_FILE",
    "RUN_FILE",
    "Progress",
    "TargetLanguages",
    "check_name",
    "profile_config",
    "profile_targets",
    "run",
    "run_with_progress",
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
#: Snakemake's whole output of a real run, in the run folder
LOG_FILE = "natcomp_evaluate.log"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class TargetLanguages:
    """What a run per target language (``--target-lang de fr``) needs of the MT family, which
    provides it (:func:`natcomp.mt.languages_compare.target_languages`; the core imports no
    family).

    ``check(codes)``: each code's label (``German (de)``), every code checked first (one
    line naming ``--target-lang``); ``configure(base, code)``: the base config of
    the language's run and what it leaves out, in words; ``write_tables(runs, system,
    folder, scale=...)``: the per-language tables of the finished runs (code -> run folder)."""

    check: Callable[[Sequence[str]], list[str]]
    configure: Callable[[Mapping, str], tuple[dict, list[str]]]
    write_tables: Callable[..., list[Path]]


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


#: families whose model names are parts of file names split at "." ({encoder}.{pooling}.npy)
_DOTLESS_FAMILIES = ("pss", "tre")


def encoder_name(name: str, given: bool, families: Sequence[str]) -> str:
    """``name`` as the run's model name where PSS or TRE run: their file names put the
    encoder's name before a ``.``, so a name derived from a folder (``Qwen2.5-0.5B``) gets
    ``_`` for each ``.``, and a ``--name`` with a ``.`` is a :class:`ConfigError`."""
    if "." not in name or not set(_DOTLESS_FAMILIES) & set(families):
        return name
    if given:
        raise ConfigError(
            "--name",
            f"{name!r} has a '.', which PSS and TRE cannot have in a model's name (their files are "
            "NAME.POOLING.npy); expected letters, digits, '_' or '-'",
        )
    return name.replace(".", "_")


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
            prompted = kinds.language_model if kinds else False
            nli = kinds.nli if kinds else False
            section["demo_models"] = {**(section.get("demo_models") or {}), "enabled": False}
            section["prompting"] = {
                **(section.get("prompting") or {}),
                "enabled": prompted,
                "models": {name: model} if prompted else {},
            }
            # zero-shot prompting runs the prompting models without demonstrations (appendix B.1)
            section["zero_shot"] = {**(section.get("zero_shot") or {}), "enabled": prompted}
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


def with_fine_tuning(base: Mapping, method: str, families: Sequence[str], why: str = "--families runs") -> dict:
    """``base`` with ``method`` (``natcomp evaluate --fine-tuning``) as the fine-tuning method
    of every fine-tuning family among ``families`` (their other LoRA settings kept); an
    :class:`OptionError` naming ``--fine-tuning`` when none of them fine-tunes (``why``: who
    chose the families, for the message)."""
    from natcomp.finetuning import FAMILY_SECTIONS, FINE_TUNING_METHODS

    if method not in FINE_TUNING_METHODS:
        raise OptionError("--fine-tuning", f"{method!r}; expected one of {', '.join(FINE_TUNING_METHODS)}")
    tuned = [family for family in families if family in FAMILY_SECTIONS]
    if not tuned:
        raise OptionError(
            "--fine-tuning",
            f"is for the families that fine-tune the model (noncompsst, plane, pss), and {why} none of them "
            f"({', '.join(families) or 'none'})",
        )
    config = dict(base)
    for family in tuned:
        if not isinstance(config.get(family), Mapping):
            continue  # profile_config names the missing section
        section = config[family] = dict(config[family])
        for part in FAMILY_SECTIONS[family]:
            section[part] = dict(section.get(part) or {})
            section = section[part]
        section["fine_tuning"] = {**(section.get("fine_tuning") or {}), "method": method}
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
        if kinds is None or kinds.language_model:
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
        # --nolock: a dry run in an existing run folder leaves no lock behind (nor waits on one)
        command += ["--dry-run", "--quiet", "rules", "--nolock"]
    # "--" ends the options: --quiet and --configfile take several values
    return [*command, *extra, "--", *targets]


def run(command: Sequence[str]) -> int:
    return subprocess.run(list(command), check=False).returncode


# --------------------------------------------------------------------------------------
# the progress of a real run, read from Snakemake's output

_STEPS = re.compile(r"^(\d+) of (\d+) steps \(\d+%\) done")
_TOTAL = re.compile(r"^total\s+(\d+)$")
_JOB_START = re.compile(r"^(?:local)?rule (\S+):$")
_JOB_ID = re.compile(r"^\s+jobid: (\d+)$")
_JOB_DONE = re.compile(r"^Finished jobid: (\d+)")
_ERROR = re.compile(r"^Error in rule (\S+):$")
_ERROR_LOG = re.compile(r"^\s+log: (.+?)(?: \(check log file\(s\) for error details\))?$")


@dataclass
class Progress:
    """What Snakemake's output says so far: jobs done of total, the jobs running (job id ->
    rule, in the order they started) and the rules that failed with their log files."""

    done: int = 0
    total: int | None = None
    running: dict[str, str] = field(default_factory=dict)
    failed: list[tuple[str, str | None]] = field(default_factory=list)
    nothing_to_do: bool = False
    returncode: int | None = None  # Snakemake's exit status, once it has ended
    latest: str | None = None  # the rule of the job started last: the stage the run is at
    #: natcomp's own one-line errors in the output (a config check stopping Snakemake before any job)
    messages: list[str] = field(default_factory=list)
    #: the last lines of the output, for a failure that names no rule
    tail: deque = field(default_factory=lambda: deque(maxlen=3))
    _started: str | None = None  # the rule of a job whose id comes on a later line
    _in_error: bool = False  # inside an "Error in rule" block, whose "log:" line names the rule's log

    def feed(self, line: str) -> None:
        """Read one line of Snakemake's output (no line ending)."""
        text = line.rstrip("\n")
        if text.strip():
            self.tail.append(text)
        if text.startswith("natcomp: "):
            self.messages.append(text)
        if found := _STEPS.match(text):
            self.done, self.total = int(found.group(1)), int(found.group(2))
        elif (found := _TOTAL.match(text)) and self.total is None:
            self.total = int(found.group(1))
        elif found := _JOB_START.match(text):
            self._started, self._in_error = found.group(1), False
        elif (found := _JOB_ID.match(text)) and self._in_error:  # the failed job runs no more
            self.running.pop(found.group(1), None)
        elif (found := _JOB_ID.match(text)) and self._started is not None:
            self.running[found.group(1)] = self.latest = self._started
            self._started = None
        elif found := _JOB_DONE.match(text):
            self.running.pop(found.group(1), None)
        elif found := _ERROR.match(text):
            self.failed.append((found.group(1), None))
            self._in_error = True
        elif self._in_error and (found := _ERROR_LOG.match(text)):
            self.failed[-1] = (self.failed[-1][0], found.group(1).split(",")[0].strip())
            self._in_error = False
        elif text.startswith("Nothing to be done"):
            self.nothing_to_do = True

    @property
    def stage(self) -> str:
        """The rules running, each once, in the order they started ('' when none)."""
        return ", ".join(dict.fromkeys(self.running.values()))

    def line(self, elapsed: float) -> str:
        """One line: jobs done of total, the stages running, the elapsed time."""
        if self.total is None:
            counted = "planning the jobs"
        else:
            percent = 100 * self.done // self.total if self.total else 100
            counted = f"{self.done} of {self.total} jobs done ({percent}%)"
        running = f", running {self.stage}" if self.stage else ""
        return f"{counted}{running}; {format_elapsed(elapsed)}"


def format_elapsed(seconds: float) -> str:
    """``0:07``, ``12:30``, ``1:02:03``: minutes and seconds, hours when there are any."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def show_progress(
    lines: Iterable[str | None],
    log: TextIO,
    out: TextIO,
    prefix: str,
    *,
    tty: bool,
    clock: Callable[[], float] = time.monotonic,
) -> Progress:
    """Copy Snakemake's output ``lines`` to ``log`` and show its progress on ``out``.

    On a terminal one line is rewritten in place (a ``None`` in ``lines`` is a tick with no
    output: the elapsed time moves on); elsewhere (a CI log, a file) one line is written
    when a job of another rule than the last one starts (the stage changes), and a last
    one at the end."""
    progress = Progress()
    start = clock()
    shown = written = None
    for line in lines:
        if line is not None:
            log.write(line)
            progress.feed(line)
        text = f"{prefix}: {progress.line(clock() - start)}"
        if tty:
            if text != written:  # rewritten only when it changes
                out.write(f"\r{text}\x1b[K")
                out.flush()
                written = text
        elif progress.latest is not None and progress.latest != shown:
            shown = progress.latest
            out.write(text + "\n")
            out.flush()
    log.flush()
    final = f"{prefix}: {progress.line(clock() - start)}"
    out.write(f"\r{final}\x1b[K\n" if tty else final + "\n")
    out.flush()
    return progress


def _lines_with_ticks(stream: TextIO, seconds: float) -> Iterable[str | None]:
    """The lines of ``stream``, with a ``None`` each ``seconds`` without one (to move a clock on)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=seconds)
        except queue.Empty:
            yield None
            continue
        if line is None:
            return
        yield line


def run_with_progress(command: Sequence[str], log_path: Path, prefix: str, out: TextIO | None = None) -> Progress:
    """Run Snakemake with its output (stdout and stderr) in ``log_path`` and its progress on
    ``out`` (stderr); returns the progress with ``returncode`` set."""
    out = out or sys.stderr
    tty = out.isatty()
    with open(log_path, "w", encoding="utf-8") as log:  # a log grows as the run goes: not atomic
        process = subprocess.Popen(
            list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, errors="replace"
        )
        try:
            lines = _lines_with_ticks(process.stdout, 1.0) if tty else iter(process.stdout)
            progress = show_progress(lines, log, out, prefix, tty=tty)
        except BaseException:  # Ctrl-C: Snakemake stops its jobs on SIGTERM
            process.terminate()
            process.wait()
            raise
        progress.returncode = process.wait()
    return progress
