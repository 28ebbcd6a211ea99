"""fairseq integration: training with resumption and epoch-checkpoint selection, safe
checkpoint loading, and batched beam-search translation.

fairseq is imported lazily, so the rest of natcomp works where it is not installed, and
through :func:`import_fairseq`, which leaves out the metrics libraries fairseq imports for
tasks natcomp never runs.

Checkpoint safety: since torch 2.6 ``torch.load`` refuses pickled objects that are not
allow-listed, and fairseq 0.12 checkpoints contain a handful of them (its meters,
``argparse.Namespace``, and with ``--eval-bleu`` the numpy arrays of its BLEU meters). Instead of switching safe loading off for everything
(``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``, which lets any checkpoint file run code), every
fairseq entry point in natcomp first calls :func:`allow_fairseq_checkpoint_classes`,
which adds exactly those classes to torch's allow-list with
``torch.serialization.add_safe_globals``.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import logging
import math
import os
import re
import shutil
import sys
import types
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from natcomp.errors import ConfigError, InputError
from natcomp.files import atomic_open, atomic_path, read_lines
from natcomp.mt.preprocess import detokenise, load_bpe, remove_bpe, tokenise

if TYPE_CHECKING:  # the cache's module is imported where it is used
    from natcomp.mt.translation_cache import DecodeStats

log = logging.getLogger(__name__)

ARGS_FINGERPRINT = "natcomp_train_args.json"
# Written once a training has exported its outputs: a later job for the same model is a
# forced rerun (or its outputs were deleted), which must train afresh, not resume.
FINISHED_STAMP = "natcomp_train_finished"
#: The best checkpoint at the epoch where patience first ran out (appendix E.2: "take the
#: best checkpoint at that point"), kept when training goes on for the kept epochs.
BEST_AT_PATIENCE = "checkpoint_best_at_patience.pt"


#: Modules fairseq imports only for tasks natcomp never runs: scikit-learn's metrics
#: (audio classification, sentence prediction) and scipy.stats (sentence prediction's
#: correlations). Loading them cost every fairseq job about 0.85 s of its 2.1 s import.
FAIRSEQ_UNUSED_IMPORTS = ("sklearn", "sklearn.metrics", "scipy.stats")


class _ImportedOnCall(types.ModuleType):
    """Stands in for one of :data:`FAIRSEQ_UNUSED_IMPORTS` while fairseq is imported. A
    function taken from it imports the real module when it is first called, then calls the
    real function; a submodule taken from it is another stand-in."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        qualified = f"{self.__name__}.{name}"
        if qualified in FAIRSEQ_UNUSED_IMPORTS:
            return _ImportedOnCall(qualified)
        module_name = self.__name__

        def call_real(*args, **kwargs):
            return getattr(importlib.import_module(module_name), name)(*args, **kwargs)

        call_real.__name__ = call_real.__qualname__ = name
        return call_real


def import_fairseq() -> None:
    """Import fairseq, without :data:`FAIRSEQ_UNUSED_IMPORTS` (which load on first use).

    Every natcomp entry point into fairseq calls this first; once fairseq is imported it
    does nothing. The stand-ins are in ``sys.modules`` only during fairseq's own import, so
    any later ``import sklearn`` gets the real package."""
    if "fairseq" in sys.modules:
        return
    import torch  # noqa: F401  (before the stand-ins: they are for fairseq's imports alone)

    placed = [name for name in FAIRSEQ_UNUSED_IMPORTS if name not in sys.modules]
    for name in placed:
        sys.modules[name] = _ImportedOnCall(name)
    try:
        import fairseq  # noqa: F401
    finally:
        for name in placed:
            if isinstance(sys.modules.get(name), _ImportedOnCall):
                del sys.modules[name]


def allow_fairseq_checkpoint_classes() -> None:
    """Allow-list the non-tensor classes stored in fairseq 0.12 checkpoints.

    numpy's array reconstruction is among them: with ``--eval-bleu`` (``mt.train.select_by:
    bleu``) fairseq keeps its BLEU n-gram counts as numpy arrays in the checkpoint's meters.
    An array's elements are unpickled by the same restricted unpickler, so this lets in
    numbers, not code."""
    import_fairseq()
    import numpy
    import torch
    from fairseq.logging import meters
    from numpy._core.multiarray import _reconstruct

    torch.serialization.add_safe_globals(
        [
            argparse.Namespace,
            numpy.ndarray,
            numpy.dtype,
            _reconstruct,
            # the dtypes of Python's ints and floats, which fairseq's BLEU sums are
            numpy.dtypes.Int64DType,
            numpy.dtypes.Float64DType,
            meters.AverageMeter,
            meters.SumMeter,
            meters.ConcatTensorMeter,
            meters.TimeMeter,
            meters.StopwatchMeter,
            meters.MetersDict,
        ]
    )


def check_architecture(name: object) -> None:
    """Stop before any work if fairseq has no model architecture ``name`` (a typo would
    otherwise surface as an argparse error deep in fairseq-train's output)."""
    import_fairseq()
    from fairseq.models import ARCH_MODEL_REGISTRY

    if name in ARCH_MODEL_REGISTRY:
        return
    close = difflib.get_close_matches(str(name), list(ARCH_MODEL_REGISTRY), n=3)
    hint = f"did you mean {' or '.join(map(repr, close))}?" if close else "fairseq-train --help lists them under --arch"
    raise ConfigError("mt.train.fairseq.arch", f"fairseq has no model architecture {name!r}; {hint}")


#: fairseq-train options the workflow sets itself (per model, from the rule's wildcards,
#: from the hardware of the job, and from mt.train.select_by), each with what to set instead
WORKFLOW_FAIRSEQ_OPTION_HINTS = {
    "save-dir": "is set by the workflow for each model; remove it here",
    "seed": "is set by the workflow for each model; remove it here",
    "source-lang": "is set by the workflow for each model; remove it here",
    "target-lang": "is set by the workflow for each model; remove it here",
    "max-tokens": "is derived from the job's GPUs: set mt.train.tokens_per_update (and mt.train.max_tokens) instead",
    "update-freq": "is derived from the job's GPUs: set mt.train.tokens_per_update (and mt.train.max_tokens) instead",
    "fp16": "set mt.train.precision: fp16 instead",
    "bf16": "set mt.train.precision instead (bf16 is refused: fairseq 0.12 turns --bf16 into TPU mode)",
    "memory-efficient-fp16": "set mt.train.precision: fp16 instead",
    "cpu": "is set by the workflow when the job has no GPU; remove it here",
    "distributed-world-size": "is the number of GPUs the job was given (the rule's resources.gpu); remove it here",
    "num-workers": "is set from mt.train.loading_workers (the job's threads beyond the first); remove it here",
    **dict.fromkeys(
        (
            "eval-bleu",
            "eval-bleu-args",
            "eval-bleu-detok",
            "eval-bleu-detok-args",
            "eval-bleu-remove-bpe",
            "eval-tokenized-bleu",
            "best-checkpoint-metric",
            "maximize-best-checkpoint-metric",
        ),
        "is set from mt.train.select_by (validation BLEU decoded with mt.translate's settings); remove it here",
    ),
}
WORKFLOW_FAIRSEQ_OPTIONS = tuple(WORKFLOW_FAIRSEQ_OPTION_HINTS)

#: Reference for sizing the training micro-batch: the issue measured 28,672 target tokens
#: per micro-batch of Transformer-base in fp16 on an 80 GB H100 (about 250,000 words/s),
#: which torch reports as about 78-79 GiB. fp32 activations take twice the memory: half
#: the micro-batch (not measured).
REFERENCE_GPU_MEMORY_GIB = 78
REFERENCE_MAX_TOKENS = {"fp16": 28672, "fp32": 14336}
#: The micro-batch granularity of ``max_tokens: auto``.
MAX_TOKENS_STEP = 512
#: ``max_tokens: auto`` on CPU: at most this many tokens per micro-batch. A CPU gains no
#: throughput from larger micro-batches (its matmuls are already large enough at a few
#: thousand tokens), and activations of a larger one cost memory a CPU job may not have.
CPU_MAX_TOKENS = 4096
#: ``mt.translate.max_tokens: auto``: source tokens per translation batch.
TRANSLATE_MAX_TOKENS = {"cpu": 4096, "gpu": 16384}


class BatchPlan(NamedTuple):
    """How one training job reaches its tokens per update on its hardware."""

    max_tokens: int  #: tokens per micro-batch per GPU (fairseq's --max-tokens)
    update_freq: int  #: micro-batches accumulated per update (fairseq's --update-freq)
    world_size: int  #: GPUs (data-parallel workers); 1 on CPU
    tokens_per_update: int  #: the configured target

    @property
    def effective_tokens_per_update(self) -> int:
        """The most tokens one update can see; above the target when it does not divide."""
        return self.max_tokens * self.update_freq * self.world_size


def auto_max_tokens(tokens_per_update: int, precision: str, gpu_memory_gib: float | None) -> int:
    """The micro-batch of ``mt.train.max_tokens: auto``.

    On a GPU: the reference micro-batch of the precision (:data:`REFERENCE_MAX_TOKENS`, for
    80 GB) scaled by the GPU's memory, rounded down to a multiple of 512; on CPU
    (``gpu_memory_gib`` None): :data:`CPU_MAX_TOKENS`. Never above ``tokens_per_update``
    (a larger micro-batch would only be padded by fairseq's batching, not used), never below 512.
    """
    if gpu_memory_gib is None:
        cap = CPU_MAX_TOKENS
    else:
        if precision not in REFERENCE_MAX_TOKENS:
            raise ValueError(f"no reference micro-batch for precision {precision!r}")
        scaled = REFERENCE_MAX_TOKENS[precision] * gpu_memory_gib / REFERENCE_GPU_MEMORY_GIB
        cap = int(scaled // MAX_TOKENS_STEP) * MAX_TOKENS_STEP
    return max(min(cap, tokens_per_update), min(MAX_TOKENS_STEP, tokens_per_update))


def plan_batches(
    tokens_per_update: int,
    max_tokens: int | str,
    precision: str,
    gpus: int,
    gpu_memory_gib: float | None = None,
) -> BatchPlan:
    """Micro-batch, update frequency and world size that give ``tokens_per_update`` target
    tokens per update on ``gpus`` GPUs (0: CPU) of ``gpu_memory_gib`` each:
    ``update_freq = ceil(tokens_per_update / (max_tokens * gpus))``. ``max_tokens`` is
    ``"auto"`` (:func:`auto_max_tokens` of each GPU's share of the update, then evened out
    over the micro-batches of an update) or a number of tokens, used as given."""
    if tokens_per_update < 1:
        raise ValueError(f"tokens_per_update must be positive, not {tokens_per_update}")
    if gpus < 0:
        raise ValueError(f"the number of GPUs cannot be negative ({gpus})")
    world_size = max(gpus, 1)
    auto = max_tokens == "auto"
    if auto:
        # Each GPU's share of the update: more GPUs must not make the update larger.
        share = math.ceil(tokens_per_update / world_size)
        max_tokens = auto_max_tokens(share, precision, gpu_memory_gib if gpus else None)
    max_tokens = int(max_tokens)
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be positive, not {max_tokens}")
    update_freq = max(1, math.ceil(tokens_per_update / (max_tokens * world_size)))
    if auto:
        # Even micro-batches: 28,672 in two of 14,336, not of 28,160 (which would give
        # 56,320 tokens per update); still a multiple of 512, still within memory.
        even = math.ceil(tokens_per_update / (update_freq * world_size))
        max_tokens = min(max_tokens, math.ceil(even / MAX_TOKENS_STEP) * MAX_TOKENS_STEP)
    return BatchPlan(max_tokens, update_freq, world_size, tokens_per_update)


def training_precision(precision: str, on_gpu: bool) -> str:
    """The precision a training job runs in, or :class:`ConfigError` when it cannot.

    fp16 needs a GPU. *Decision:* an error, not a silent fall-back to fp32 on CPU: an fp16
    training's checkpoints hold fairseq's FP16Optimizer state, which an fp32 run refuses
    to resume ("Optimizer does not match"), and a model trained in another precision than
    the config says would be reported as the config's."""
    if precision == "bf16":
        raise ConfigError("mt.train.precision", "bf16 is not supported: fairseq 0.12 turns --bf16 into TPU mode")
    if precision == "fp16" and not on_gpu:
        raise ConfigError(
            "mt.train.precision",
            "fp16 training needs a GPU and this job has none; train on a GPU node or set mt.train.precision: fp32",
        )
    if precision not in ("fp32", "fp16"):
        raise ConfigError("mt.train.precision", f"{precision!r} is not one of fp32, fp16")
    return precision


def decode_precision(precision: str, on_gpu: bool) -> str:
    """The precision a decode really runs in: fp16 only on a GPU; on CPU fp32 (the decode
    signature, and so the translation cache, records this one, not the requested one)."""
    if precision not in ("fp32", "fp16"):
        raise ConfigError("mt.translate.precision", f"{precision!r} is not one of fp32, fp16")
    return precision if on_gpu else "fp32"


def this_device_decode_precision(precision: str) -> str:
    """:func:`decode_precision` on this machine (a GPU if torch sees one): call it before
    the decode signature is made, so the signature names the precision really used."""
    import torch

    return decode_precision(precision, torch.cuda.is_available())


def cache_batch_sentences() -> int:
    """Sentences per :func:`natcomp.mt.translation_cache.translate_with_cache` call: on a
    GPU large enough that length sorting and the preparation pipeline have room (a few
    seconds of decoding between cache writes), on CPU the cache's default."""
    import torch

    return 20000 if torch.cuda.is_available() else 2000


def translate_max_tokens(max_tokens: int | str, on_gpu: bool) -> int:
    """Source tokens per translation batch: ``auto`` is :data:`TRANSLATE_MAX_TOKENS` of the device."""
    if max_tokens == "auto":
        return TRANSLATE_MAX_TOKENS["gpu" if on_gpu else "cpu"]
    return int(max_tokens)


def training_fingerprint(
    options: Mapping[str, object],
    seed: int,
    source_lang: str,
    target_lang: str,
    keep_epochs: Sequence[int],
    tokens_per_update: int | None = None,
    precision: str = "fp32",
) -> dict:
    """What decides whether an unfinished training may be resumed: the optimisation (the
    fairseq options, tokens per update, precision, seed, languages, kept epochs). The
    hardware's share of the command line (``--cpu``, the micro-batch and update frequency
    derived from the GPUs, the world size) is left out, so that a job resubmitted on
    another kind of node resumes."""
    return {
        "options": dict(sorted(options.items())),
        "seed": int(seed),
        "languages": [source_lang, target_lang],
        "keep_epochs": sorted(int(e) for e in keep_epochs),
        "tokens_per_update": tokens_per_update,
        "precision": precision,
    }


def hardware_argv(plan: BatchPlan | None, precision: str, world_size: int, loading_workers: int = 0) -> list[str]:
    """fairseq-train options that follow from the job's hardware (``world_size`` GPUs, 0:
    CPU), not from the config's optimisation (kept out of :func:`training_fingerprint`).

    ``loading_workers`` data-loading processes collate the next batches while the GPU
    trains (fairseq's ``--num-workers``; 0: in the training process). They change the
    speed, not the batches: fairseq's epoch iterator orders them from the seed alone. On
    an H100, Transformer-base at 28,672 tokens per update in fp16 trained at 135k target
    tokens/s with 0, 157k with 1 and 253k with 4 (benchmarks/gpu_train_throughput.py).
    """
    argv: list[str] = ["--num-workers", str(loading_workers)]
    if plan is not None:
        argv += ["--max-tokens", str(plan.max_tokens), "--update-freq", str(plan.update_freq)]
    if world_size == 0:
        return [*argv, "--cpu"]
    argv += ["--distributed-world-size", str(world_size)]
    if precision == "fp16":
        argv.append("--fp16")
    return argv


def configure_cuda(precision: str, allow_tf32: bool) -> None:
    """Numeric settings of torch on CUDA before training or decoding.

    cuDNN's attention kernel is switched off: under fp16 it made fairseq's first updates
    about 4x slower, still climbing after 125 updates (18,000 against 70,000-80,000 target
    words/s from the first update without it, issue 15). TF32 matmuls (fp32 inputs, 10-bit
    mantissa products) are allowed for fp32 when ``allow_tf32``: about 15% faster on an H100.
    """
    import torch

    if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):
        torch.backends.cuda.enable_cudnn_sdp(False)
    torch.backends.cuda.matmul.allow_tf32 = bool(allow_tf32)
    torch.backends.cudnn.allow_tf32 = bool(allow_tf32)


def check_fairseq_options(options: Mapping[str, object]) -> None:
    """Parse ``options`` with fairseq-train's own parser (architecture, task, optimizer,
    scheduler and criterion options included); raise :class:`ConfigError` naming the
    first bad option and the closest valid one. Costs the import of fairseq (about 1.3 s)."""
    import_fairseq()
    from fairseq import options as fairseq_options_module

    check_architecture(options.get("arch"))
    parser = fairseq_options_module.get_training_parser()

    def fail(message: str) -> None:
        match = re.search(r"argument (--[\w-]+)", message)
        key = "mt.train.fairseq" + (f".{match.group(1)[2:]}" if match else "")
        raise ConfigError(
            key, "fairseq-train refuses it: " + message.replace("invalid <lambda> value", "invalid value")
        )

    parser.error = fail  # argparse would print the whole usage and exit
    _, unknown = fairseq_options_module.parse_args_and_arch(parser, ["DATA", *fairseq_argv(options)], parse_known=True)
    flags = [token for token in unknown if token.startswith("--")]
    if flags:
        valid = {flag[2:] for action in parser._actions for flag in action.option_strings if flag.startswith("--")}
        name = flags[0][2:]
        close = difflib.get_close_matches(name, sorted(valid), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise ConfigError(f"mt.train.fairseq.{name}", f"fairseq-train has no option --{name}{hint}")


def fairseq_argv(options: Mapping[str, object]) -> list[str]:
    """Turn ``{"adam-betas": "(0.9, 0.98)", "share-all-embeddings": True}`` into CLI args.

    ``True`` becomes a bare flag, ``False``/``None`` drop the option, lists repeat values.
    """
    argv: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv


def prepare_workdir(workdir: Path, fingerprint: Mapping[str, object]) -> bool:
    """Keep ``workdir`` for resumption only if an unfinished training with the same
    settings left it.

    A training folder is never deleted before the new training has written a
    checkpoint: one that is not resumed is moved to ``<workdir>.previous``
    (:func:`discard_previous` removes it once the new run has saved its first epoch), and
    an unfinished ``.previous`` training with the wanted settings is resumed.
    Returns True when training resumes from an earlier ``checkpoint_last.pt``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    wanted = json.dumps(fingerprint, sort_keys=True, indent=1)
    previous = previous_workdir(workdir)
    if _fingerprint(previous) == wanted and not _has_checkpoints(workdir) and not (previous / FINISHED_STAMP).exists():
        log.warning("resuming the unfinished training set aside in %s", previous)
        shutil.rmtree(workdir)
        previous.rename(workdir)
    restart = None
    if (workdir / FINISHED_STAMP).exists():
        restart = "the previous training in %s finished; training again from scratch"
    elif _fingerprint(workdir) not in (None, wanted):
        restart = "training settings changed since %s was written: starting from scratch"
    if restart:
        log.warning(restart, workdir)
        if _has_checkpoints(workdir):
            # Not deleted yet: the new run may fail before it has anything to show.
            if previous.exists():
                shutil.rmtree(previous)
            workdir.rename(previous)
            log.warning("the earlier training is kept in %s until the new one saves its first epoch", previous)
        else:
            shutil.rmtree(workdir)
        workdir.mkdir(parents=True)
    last = workdir / "checkpoint_last.pt"
    if last.exists() and not is_whole_checkpoint(last):
        _replace_cut_off_last_checkpoint(workdir)
    resumes = last.exists()
    (workdir / ARGS_FINGERPRINT).write_text(wanted)
    return resumes


def previous_workdir(workdir: Path) -> Path:
    """Where :func:`prepare_workdir` keeps a training it does not resume."""
    return workdir.with_name(workdir.name + ".previous")


def discard_previous(workdir: Path) -> None:
    """Delete the training set aside for ``workdir``: the new one has saved a checkpoint."""
    previous = previous_workdir(Path(workdir))
    if previous.exists():
        log.info("the new training saved a checkpoint: deleting the earlier one in %s", previous)
        shutil.rmtree(previous)


def _fingerprint(workdir: Path) -> str | None:
    stamp = workdir / ARGS_FINGERPRINT
    return stamp.read_text() if stamp.exists() else None


def _has_checkpoints(workdir: Path) -> bool:
    return workdir.exists() and any(workdir.glob("checkpoint*.pt"))


def is_whole_checkpoint(path: str | Path) -> bool:
    """Whether a torch checkpoint file is complete. fairseq saves one checkpoint atomically
    and *copies* it to the others (``checkpoint_last.pt``), so a job killed during the copy
    leaves a cut-off file, which lacks the zip directory torch's format ends with."""
    try:
        with zipfile.ZipFile(path) as archive:
            return bool(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def _replace_cut_off_last_checkpoint(workdir: Path) -> None:
    """Resume from the newest whole epoch checkpoint instead, or start afresh."""
    last = workdir / "checkpoint_last.pt"
    numbered = (re.fullmatch(r"checkpoint(\d+)\.pt", p.name) for p in workdir.glob("checkpoint*.pt"))
    epochs = sorted((int(m.group(1)) for m in numbered if m), reverse=True)
    for epoch in epochs:
        candidate = workdir / f"checkpoint{epoch}.pt"
        if is_whole_checkpoint(candidate):
            log.warning(
                "%s is cut off (its job was killed while fairseq copied it); resuming from %s", last, candidate.name
            )
            with atomic_path(last) as tmp:
                shutil.copyfile(candidate, tmp)
            return
    log.warning("%s is cut off and no whole epoch checkpoint is left: training from scratch", last)
    last.unlink()


def job_gpus(requested: int | None, visible: int) -> int:
    """GPUs a training job uses: the ones it was given (``requested``, the rule's
    ``resources.gpu``), never more than are visible; None (a caller outside the workflow)
    means one if there is one. fairseq by itself would take every visible GPU."""
    if requested is None:
        return min(1, visible)
    if 0 < visible < requested:
        log.warning("the job was given %d GPU(s) but %d are visible: training on %d", requested, visible, visible)
    return max(0, min(int(requested), visible))


def gpu_memory_gib() -> float:
    """Memory of the first visible GPU, in GiB (the GPUs of a job are assumed alike)."""
    import torch

    return torch.cuda.get_device_properties(0).total_memory / 2**30


def train(
    databin: str | Path,
    workdir: str | Path,
    best_out: str | Path,
    manifest_out: str | Path,
    keep_epochs: Iterable[int],
    options: Mapping[str, object],
    seed: int,
    source_lang: str,
    target_lang: str,
    threads: int = 1,
    tokens_per_update: int | None = None,
    max_tokens: int | str = "auto",
    precision: str = "fp32",
    allow_tf32: bool = True,
    gpus: int | None = None,
    loading_workers: int = 0,
) -> BatchPlan | None:
    """Train one fairseq model; export the best checkpoint, list the kept epoch ones.

    fairseq writes into ``workdir``; a resubmitted job resumes from its
    ``checkpoint_last.pt`` when :func:`training_fingerprint` is unchanged (the hardware
    is not part of it). Epoch checkpoints not in ``keep_epochs`` are deleted as soon
    as they are written (a paper-scale run would otherwise keep 160 of them). Early
    stopping (``patience``) is not allowed before the last requested epoch, so that every
    requested checkpoint exists; when patience runs out before it, the best checkpoint
    of that moment is copied to :data:`BEST_AT_PATIENCE` and is the one exported, as the
    paper took "the best checkpoint at that point" (a later improvement is not the
    reported model). At the end the best checkpoint is hard-linked (or copied) to
    ``best_out`` and ``manifest_out`` lists ``epoch<TAB>path`` of the kept epoch
    checkpoints, which :func:`export_checkpoint` exports one by one.

    With ``tokens_per_update`` the batch follows from the hardware (:func:`plan_batches`:
    ``max_tokens`` per micro-batch, ``auto`` sized to the GPU's memory, and the update
    frequency that reaches ``tokens_per_update`` on the job's GPUs); without it
    ``options`` must carry fairseq's ``max-tokens``/``update-freq`` themselves. Training
    uses ``gpus`` GPUs (:func:`job_gpus`; 0 or none visible: CPU). ``precision`` is fp32
    or fp16 (GPU only, :func:`training_precision`); ``allow_tf32`` lets fp32 matmuls use
    TF32 on GPUs that have it. ``loading_workers`` of the job's ``threads`` collate
    batches in processes of their own (:func:`hardware_argv`); on CPU the rest are torch's
    threads. Returns the batch plan (None without ``tokens_per_update``).
    """
    import torch

    allow_fairseq_checkpoint_classes()
    # Before the model's folder is touched: a bad option must not cost a trained model.
    check_fairseq_options(options)
    world = job_gpus(gpus, torch.cuda.device_count() if torch.cuda.is_available() else 0)
    on_gpu = world > 0
    training_precision(precision, on_gpu)
    workdir = Path(workdir)
    keep = sorted(int(e) for e in keep_epochs)
    if keep and int(options.get("max-epoch") or 0) and int(options["max-epoch"]) < keep[-1]:
        raise ConfigError(
            "mt.train.fairseq.max-epoch",
            f"{options['max-epoch']} is below the last requested checkpoint epoch {keep[-1]}",
        )
    plan = None
    if tokens_per_update is not None:
        for name in ("max-tokens", "update-freq"):
            if name in options:
                raise ConfigError(f"mt.train.fairseq.{name}", WORKFLOW_FAIRSEQ_OPTION_HINTS[name])
        plan = plan_batches(tokens_per_update, max_tokens, precision, world, gpu_memory_gib() if on_gpu else None)
        log.info(
            "batch: %d tokens per update = %d tokens per micro-batch x update-freq %d x %d %s "
            "(at most %d tokens per update: the rounding up of update-freq adds %d)",
            plan.tokens_per_update,
            plan.max_tokens,
            plan.update_freq,
            plan.world_size,
            "GPU(s)" if on_gpu else "CPU process",
            plan.effective_tokens_per_update,
            plan.effective_tokens_per_update - plan.tokens_per_update,
        )
    if on_gpu:
        log.info("training on %d GPU(s) in %s%s", world, precision, ", TF32 allowed" if allow_tf32 else "")
    else:
        torch.set_num_threads(max(1, threads - loading_workers))
        log.info("training on CPU (%d thread(s)) in fp32", max(1, threads - loading_workers))
    if loading_workers:
        log.info("%d data-loading worker process(es)", loading_workers)
    fingerprint = training_fingerprint(options, seed, source_lang, target_lang, keep, tokens_per_update, precision)
    prepare_workdir(workdir, fingerprint)
    argv = [
        str(databin),
        "--source-lang",
        source_lang,
        "--target-lang",
        target_lang,
        "--seed",
        str(seed),
        *fairseq_argv(options),
        *hardware_argv(plan, precision, world, loading_workers),
        "--save-dir",
        str(workdir),
    ]

    _run_fairseq_train(
        argv,
        keep_epochs=set(keep),
        min_epoch=keep[-1] if keep else 0,
        cuda_settings=(precision, allow_tf32) if on_gpu else None,
    )

    best = workdir / "checkpoint_best.pt"
    if not best.exists():
        raise InputError(best, "fairseq finished without writing a best checkpoint")
    if (workdir / BEST_AT_PATIENCE).exists():
        best = workdir / BEST_AT_PATIENCE
        log.info("exporting %s: the best checkpoint when patience ran out", best)
    missing = [e for e in keep if not (workdir / f"checkpoint{e}.pt").exists()]
    if missing:
        raise InputError(workdir, f"epoch checkpoints {missing} were not written; expected every requested epoch")
    with atomic_open(manifest_out) as manifest:
        manifest.write("epoch\tpath\n")
        for epoch in keep:
            # As given: relative to the working directory when workdir is, so a moved
            # project still finds its checkpoints.
            manifest.write(f"{epoch}\t{workdir / f'checkpoint{epoch}.pt'}\n")
    _export(best, Path(best_out))
    (workdir / FINISHED_STAMP).touch()
    return plan


def epoch_checkpoint(manifest: str | Path, epoch: int) -> Path:
    """The checkpoint file of ``epoch`` listed in a training manifest (it must still exist)."""
    rows = dict(line.split("\t") for line in read_lines(manifest)[1:])
    if str(epoch) not in rows:
        raise InputError(manifest, f"no checkpoint for epoch {epoch}; it lists epochs {', '.join(rows)}")
    source = Path(rows[str(epoch)])
    if not source.exists():
        raise InputError(manifest, f"checkpoint {source} of epoch {epoch} no longer exists; retrain the model")
    return source


def export_checkpoint(manifest: str | Path, epoch: int, destination: str | Path) -> None:
    """Export the checkpoint of ``epoch`` listed in a training manifest."""
    _export(epoch_checkpoint(manifest, epoch), Path(destination))


def _export(source: Path, destination: Path) -> None:
    """Hard-link (same filesystem) or copy a checkpoint into place atomically."""
    with atomic_path(destination) as tmp:
        tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)


def _run_fairseq_train(
    argv: list[str], keep_epochs: set[int], min_epoch: int, cuda_settings: tuple[str, bool] | None = None
) -> None:
    import_fairseq()
    from fairseq import distributed_utils, options
    from fairseq.dataclass.utils import convert_namespace_to_omegaconf

    parser = options.get_training_parser()
    args = options.parse_args_and_arch(parser, argv)
    cfg = convert_namespace_to_omegaconf(args)
    # A module-level function, not a closure: with several GPUs fairseq spawns one process
    # per GPU and pickles ``main`` by name, so every worker patches its own fairseq.
    distributed_utils.call_main(
        cfg, _train_main, keep_epochs=sorted(keep_epochs), min_epoch=min_epoch, cuda_settings=cuda_settings
    )


def keep_best_at_patience(save_dir: Path, epoch: int) -> bool:
    """Copy ``checkpoint_best.pt`` to :data:`BEST_AT_PATIENCE` the first time patience runs
    out (a later call, or a resumed training that already has the copy, keeps the first).
    A copy, not a link: fairseq rewrites ``checkpoint_best.pt`` in place. Returns whether
    it copied."""
    target = save_dir / BEST_AT_PATIENCE
    best = save_dir / "checkpoint_best.pt"
    if target.exists() or not best.exists():
        return False
    with atomic_path(target) as tmp:
        shutil.copyfile(best, tmp)
    log.info("patience ran out at epoch %d: %s keeps the best checkpoint of that point", epoch, target.name)
    return True


def _train_main(cfg, keep_epochs: Sequence[int], min_epoch: int, cuda_settings: tuple[str, bool] | None) -> None:
    """fairseq-train's ``main`` with epoch-checkpoint pruning and no early stop before
    ``min_epoch``; runs in each training process (torch's CUDA settings are per process:
    ``cuda_settings`` are :func:`configure_cuda`'s arguments)."""
    import_fairseq()
    from fairseq import checkpoint_utils
    from fairseq_cli import train as fairseq_train

    keep = set(keep_epochs)
    original_save = checkpoint_utils.save_checkpoint
    original_validate_and_save = fairseq_train.validate_and_save

    def save_and_prune(ckpt_cfg, trainer, epoch_itr, val_loss):
        result = original_save(ckpt_cfg, trainer, epoch_itr, val_loss)
        discard_previous(Path(ckpt_cfg.save_dir))
        epoch = epoch_itr.epoch
        # fairseq has just set ``best`` to the better of this epoch and the earlier best
        # and copied this epoch to checkpoint_best.pt when it is at least as good (ties:
        # the later epoch); the training log names that epoch.
        if val_loss is not None and getattr(save_and_prune, "best", None) == val_loss:
            log.info(
                "checkpoint_best.pt is now epoch %d (validation %s %s)",
                epoch,
                ckpt_cfg.best_checkpoint_metric,
                val_loss,
            )
        path = Path(ckpt_cfg.save_dir) / f"checkpoint{epoch}.pt"
        if epoch not in keep and path.exists():
            path.unlink()
        return result

    def validate_save_not_too_early(cfg_, trainer, task, epoch_itr, valid_subsets, end_of_epoch):
        losses, should_stop = original_validate_and_save(cfg_, trainer, task, epoch_itr, valid_subsets, end_of_epoch)
        max_update = cfg_.optimization.max_update
        stopped_by_updates = max_update and trainer.get_num_updates() >= max_update
        if should_stop and epoch_itr.epoch < min_epoch and not stopped_by_updates:
            log.info("patience reached at epoch %d; continuing to epoch %d", epoch_itr.epoch, min_epoch)
            if getattr(trainer, "should_save_checkpoint_on_current_rank", True):
                keep_best_at_patience(Path(cfg_.checkpoint.save_dir), epoch_itr.epoch)
            should_stop = False
        return losses, should_stop

    # fairseq keeps the best score as attributes of these functions; a second training in
    # the same process must not inherit the first one's.
    for function in (original_save, fairseq_train.should_stop_early):
        for attribute in ("best", "num_runs"):
            function.__dict__.pop(attribute, None)
    save_and_prune.__dict__ = original_save.__dict__
    checkpoint_utils.save_checkpoint = save_and_prune
    fairseq_train.validate_and_save = validate_save_not_too_early
    if cuda_settings is not None:
        configure_cuda(*cuda_settings)
    try:
        fairseq_train.main(cfg)
    finally:
        checkpoint_utils.save_checkpoint = original_save
        fairseq_train.validate_and_save = original_validate_and_save


#: Sentences per source-preparation chunk of :class:`Translator`: large enough that the
#: batches fairseq cuts from a chunk are full (a chunk ends in one partial batch). The
#: first chunks are smaller (:func:`length_sorted_chunks`) so the model waits little for them.
PREPARE_CHUNK_SENTENCES = 4096
FIRST_CHUNK_SENTENCES = 256


def prepare_worker_count(workers: int | str, on_gpu: bool) -> int:
    """Processes that prepare sources (tokenise + BPE) while the model decodes.

    ``auto``: one on a GPU, where beam search leaves the CPU free and a prepared chunk
    ready keeps the GPU fed; none on CPU, where preparation is a few percent of the time
    (measured: about 13,000 sentences/s against about 230 decoded, docs/mt_gpu.md) and a
    worker would take a core from the decoder."""
    if workers == "auto":
        return 1 if on_gpu else 0
    if int(workers) < 0:
        raise ValueError(f"prepare_workers cannot be negative ({workers})")
    return int(workers)


def length_sorted_chunks(
    sentences: Sequence[str], chunk_sentences: int, first_chunk: int = FIRST_CHUNK_SENTENCES
) -> list[list[int]]:
    """Indices of ``sentences`` sorted by length in characters (stable), cut into chunks:
    ``first_chunk`` sentences, then twice as many each time up to ``chunk_sentences``.
    Each chunk's batches hold sentences of similar length (little padding; fairseq sorts
    by token length inside a chunk), and the model waits only for the small first chunk
    to be prepared."""
    order = sorted(range(len(sentences)), key=lambda index: len(sentences[index]))
    chunks, start, size = [], 0, max(1, min(first_chunk, chunk_sentences))
    while start < len(order):
        chunks.append(order[start : start + size])
        start, size = start + size, min(2 * size, chunk_sentences)
    return chunks


_worker_bpe = None
_worker_lang = ""


def _init_prepare_worker(bpe_codes: str, source_lang: str) -> None:
    global _worker_bpe, _worker_lang
    _worker_bpe, _worker_lang = load_bpe(bpe_codes), source_lang


def _prepare_in_worker(sentences: Sequence[str]) -> list[str]:
    return [_worker_bpe.process_line(tokenise(sentence, _worker_lang)) for sentence in sentences]


class Translator:
    """Beam-search translation with one fairseq checkpoint, in batches.

    Sentences go through the same Moses tokenisation and BPE as the training data; the
    output is the tokenised target (``tokenised``) and its detokenised form.

    For throughput: the sentences of a call are sorted by length and cut into chunks of
    ``chunk_sentences``; ``prepare_workers`` processes (:func:`prepare_worker_count`) tokenise
    and BPE-segment the next chunks while the model decodes the current one. On a GPU the
    model decodes in ``precision`` (fp16: ``model.half()``; on CPU always fp32, see
    :attr:`precision`). Neither sorting nor chunking changes a translation: fairseq
    decodes each sentence of a batch independently, and each ends at its own length limit
    (:func:`limit_each_sentence`).
    """

    @classmethod
    def for_settings(
        cls,
        checkpoint: str | Path,
        databin: str | Path,
        bpe_codes: str | Path,
        source_lang: str,
        target_lang: str,
        settings,
        max_tokens: int | str = 4096,
        threads: int = 1,
        **options,
    ) -> Translator:
        """A translator that decodes as ``settings`` say (a
        :class:`natcomp.mt.translation_cache.DecodeSettings`: beam, length limits, precision)."""
        return cls(
            checkpoint,
            databin,
            bpe_codes,
            source_lang,
            target_lang,
            beam=settings.beam,
            max_len_a=settings.max_len_a,
            max_len_b=settings.max_len_b,
            max_tokens=max_tokens,
            threads=threads,
            precision=settings.precision,
            **options,
        )

    def __init__(
        self,
        checkpoint: str | Path,
        databin: str | Path,
        bpe_codes: str | Path,
        source_lang: str,
        target_lang: str,
        beam: int = 5,
        max_tokens: int | str = 4096,
        threads: int = 1,
        max_len_a: float = 1.2,
        max_len_b: int = 10,
        precision: str = "fp32",
        prepare_workers: int | str = "auto",
        chunk_sentences: int = PREPARE_CHUNK_SENTENCES,
    ):
        import multiprocessing
        import weakref

        import_fairseq()
        import torch
        from fairseq import checkpoint_utils, utils

        allow_fairseq_checkpoint_classes()
        self.source_lang, self.target_lang = source_lang, target_lang
        self.bpe = load_bpe(bpe_codes)
        use_cuda = torch.cuda.is_available()
        #: the precision the model really decodes in (fp16 only on a GPU)
        self.precision = decode_precision(precision, use_cuda)
        if precision != self.precision:
            log.warning("decoding in %s: %s decoding needs a GPU", self.precision, precision)
        self.chunk_sentences = int(chunk_sentences)
        #: processes preparing sources while the model decodes (0: prepared in this one)
        self.prepare_workers = workers = prepare_worker_count(prepare_workers, use_cuda)
        self._pool = None
        if workers:
            # Forked before the model is loaded (no CUDA context, no decoder threads to
            # copy); fork, not spawn: spawn would re-run a Snakemake script's main module.
            self._pool = multiprocessing.get_context("fork").Pool(
                workers, initializer=_init_prepare_worker, initargs=(str(bpe_codes), source_lang)
            )
            weakref.finalize(self, self._pool.terminate)
        if use_cuda:
            configure_cuda(self.precision, allow_tf32=False)
        else:
            torch.set_num_threads(threads)
        models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(
            [str(checkpoint)], arg_overrides={"data": str(databin)}
        )
        for model in models:
            model.eval()
            if use_cuda:
                if self.precision == "fp16":
                    model.half()
                model.cuda()
        self.models, self.task, self.use_cuda = models, task, use_cuda
        self.max_tokens, self.beam = translate_max_tokens(max_tokens, use_cuda), beam
        gen_args = argparse.Namespace(beam=beam, max_len_a=max_len_a, max_len_b=max_len_b)
        self.generator = task.build_generator(models, gen_args)
        limit_each_sentence(self.generator, max_len_a, max_len_b)
        self.max_positions = utils.resolve_max_positions(task.max_positions(), *[m.max_positions() for m in models])

    def close(self) -> None:
        """Stop the source-preparation processes (also done when the translator is collected)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None

    def __enter__(self) -> Translator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def prepare(self, sentence: str) -> str:
        """Moses-tokenised, BPE-segmented source."""
        return self.bpe.process_line(tokenise(sentence, self.source_lang))

    def encode(self, sentence: str):
        return self._encode_prepared(self.prepare(sentence))

    def _encode_prepared(self, prepared: str):
        return self.task.source_dictionary.encode_line(prepared, add_if_not_exist=False, append_eos=True).long()

    def translate_tokenised(self, sentences: Sequence[str], progress: Callable[[int], None] | None = None) -> list[str]:
        """Translate untokenised source sentences; return tokenised, BPE-free targets."""
        return [hyps[0] if hyps else "" for hyps in self._decode(sentences, 1, progress)]

    def translate(self, sentences: Sequence[str]) -> list[str]:
        """Translate untokenised source sentences into detokenised target sentences."""
        return [detokenise(t, self.target_lang) for t in self.translate_tokenised(sentences)]

    def translate_nbest(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        """The ``nbest`` best hypotheses of the beam for each sentence, best first, detokenised
        (the first is :meth:`translate`'s translation). ``nbest`` may not exceed the beam;
        fairseq's beam search finishes ``beam`` hypotheses per sentence."""
        if not 1 <= nbest <= self.beam:
            raise ValueError(f"nbest must be between 1 and the beam ({self.beam}), not {nbest}")
        return [[detokenise(h, self.target_lang) for h in hyps] for hyps in self._decode(sentences, nbest)]

    def _prepared_chunks(self, sentences: Sequence[str]):
        """``(indices, prepared sources)`` per length-sorted chunk, in order; with workers
        the next chunks are prepared while the caller decodes this one."""
        chunks = length_sorted_chunks(sentences, self.chunk_sentences)
        if self._pool is None:
            for indices in chunks:
                yield indices, [self.prepare(sentences[i]) for i in indices]
            return
        prepared = self._pool.imap(_prepare_in_worker, ([sentences[i] for i in indices] for indices in chunks))
        yield from zip(chunks, prepared)

    def _decode(
        self, sentences: Sequence[str], nbest: int, progress: Callable[[int], None] | None = None
    ) -> list[list[str]]:
        """The ``nbest`` best tokenised, BPE-free hypotheses of each sentence, in batches."""
        import torch
        from fairseq import utils

        results: list[list[str]] = [[] for _ in sentences]
        target_dict = self.task.target_dictionary
        for indices, prepared in self._prepared_chunks(sentences):
            tokens = [self._encode_prepared(p) for p in prepared]
            lengths = torch.LongTensor([t.numel() for t in tokens])
            dataset = self.task.build_dataset_for_inference(tokens, lengths)
            iterator = self.task.get_batch_iterator(
                dataset=dataset,
                max_tokens=self.max_tokens,
                max_positions=self.max_positions,
                ignore_invalid_inputs=False,
            ).next_epoch_itr(shuffle=False)
            with torch.inference_mode():
                for batch in iterator:
                    if self.use_cuda:
                        batch = utils.move_to_cuda(batch)
                    hypotheses = self.task.inference_step(self.generator, self.models, batch)
                    for index, hyps in zip(batch["id"].tolist(), hypotheses):
                        # fairseq sorts each sentence's finished hypotheses by score, best first
                        results[indices[index]] = [
                            remove_bpe(target_dict.string(h["tokens"].int().cpu())) for h in hyps[:nbest]
                        ]
                    if progress:
                        progress(len(hypotheses))
        return results


def limit_each_sentence(generator, max_len_a: float, max_len_b: int) -> None:
    """Make a fairseq ``SequenceGenerator`` end each hypothesis at ``max_len_a`` x *its own*
    source's tokens (end of sentence included) + ``max_len_b`` target tokens.

    fairseq's generator takes the source length of the whole batch, that of its longest
    sentence, so a sentence that runs to the limit (an early checkpoint repeating itself)
    is translated according to the batch it falls into (with fairseq's limit, 21 of the
    demo's 1,247 items differ between 1,024 and 4,096 tokens a batch for one checkpoint),
    and a cached translation would depend on what was decoded with it. Here every decoding
    step sets the scores of a hypothesis whose sentence has reached its limit to the end of
    sentence only, as fairseq does for the whole batch at its own limit, so each sentence
    ends as it would in a batch of its own, and as the Hugging Face systems' limit ends it
    (``natcomp.mt.hf_translation.ItemTokenLimit``). The batch's limit stays fairseq's (it
    is the longest sentence's). With ``max_len_a`` 0 (fairseq's default, the paper config)
    every sentence has the batch's limit and the generator is left as it is. An encoder
    whose output does not carry the source lengths (fairseq's Transformers do; its older
    LSTM and convolutional ones do not) keeps fairseq's limit per batch, with a warning in
    the log.
    """
    if max_len_a == 0:
        return
    import torch

    score_step = generator.model.forward_decoder
    eos = generator.eos
    # fairseq caps the limit one below the model's longest output
    cap = generator.max_len - 1
    warned = False

    def forward_decoder(tokens, encoder_outs, incremental_states, temperature=1.0):
        nonlocal warned
        lprobs, attention = score_step(tokens, encoder_outs, incremental_states, temperature)
        encoder_out = encoder_outs[0] if encoder_outs else None
        # the encoder's source lengths follow the beams as fairseq reorders and drops rows
        lengths = encoder_out.get("src_lengths") if isinstance(encoder_out, dict) else None
        if not lengths:
            if not warned:
                log.warning("this model's encoder does not report source lengths: the length limit is the batch's")
                warned = True
            return lprobs, attention
        step = tokens.size(1) - 1
        source_tokens = lengths[0].view(-1)
        # float64, as fairseq's int(max_len_a * src_len + max_len_b) computes in Python
        limits = (max_len_a * source_tokens.to(torch.float64) + max_len_b).floor().clamp(max=cap)
        at_limit = limits <= step
        if at_limit.any():
            lprobs[at_limit, :eos] = -math.inf
            lprobs[at_limit, eos + 1 :] = -math.inf
        return lprobs, attention

    generator.model.forward_decoder = forward_decoder


def unique_in_order(items: Iterable[str]) -> list[str]:
    """Distinct items in first-seen order (translate each sentence once)."""
    return list(dict.fromkeys(items))


def translate_probes(
    checkpoint: str | Path,
    synonyms: str | Path,
    templates: Sequence[str],
    out: str | Path,
    *,
    model: Mapping[str, str],
    databin: str | Path,
    bpe_codes: str | Path,
    source_lang: str,
    target_lang: str,
    settings,
    cache_dir: str | Path,
    max_tokens: int | str = "auto",
    threads: int = 1,
) -> DecodeStats:
    """The synonym probe sentences (:func:`natcomp.mt.synonym_probes.probe_sentences` of the
    pairs in ``synonyms`` and ``templates``) decoded by ``checkpoint`` with its ``settings.nbest``
    best hypotheses, through the model's translation cache, written to ``out`` (one row per
    probe and hypothesis; ``model``: its system, size and seed). Run in the job that
    translates the best checkpoint's sets, so fairseq is imported once for both."""
    from natcomp.mt.lexicon import load_synonyms
    from natcomp.mt.synonym_probes import translate_probe_sentences
    from natcomp.mt.translation_cache import TranslationCache, decode_signature

    signature = decode_signature(checkpoint, bpe_codes, source_lang, settings)
    log.info("synonym probes: decode signature %s", signature)

    def translate_nbest(sentences):
        translator = Translator.for_settings(
            checkpoint,
            databin,
            bpe_codes,
            source_lang,
            target_lang,
            settings,
            max_tokens=max_tokens,
            threads=threads,
        )
        with translator:
            return translator.translate_nbest(sentences, settings.nbest)

    cache = TranslationCache(cache_dir, signature)
    stats = translate_probe_sentences(load_synonyms(synonyms), templates, cache, translate_nbest, out, model)
    log.info("%d probe sentences: %d from the cache, %d decoded", stats.unique, stats.cached, stats.decoded)
    return stats


def translate_checkpoints(
    checkpoints: Mapping[str, str | Path],
    sets: Mapping[str, str | Path],
    outputs: Mapping[str, str | Path],
    *,
    databin: str | Path,
    bpe_codes: str | Path,
    source_lang: str,
    target_lang: str,
    settings,
    cache_dir: str | Path,
    max_tokens: int | str = "auto",
    threads: int = 1,
) -> dict[str, DecodeStats]:
    """Translate the same named ``sets`` of sources (set name -> items TSV or text file) with
    each of several checkpoints of one model (name -> checkpoint file), one after another in
    this process (fairseq is imported once), and write each checkpoint's translations to its
    ``outputs`` file (:func:`natcomp.mt.translation_cache.write_translations`).

    Each checkpoint decodes through the model's translation cache under its own decode
    signature (``settings``: a :class:`~natcomp.mt.translation_cache.DecodeSettings`), so
    only sentences it never translated are decoded and a checkpoint with nothing new is
    not even loaded. Returns each checkpoint's :class:`DecodeStats`.
    """
    from natcomp.mt.translation_cache import (
        TranslationCache,
        decode_signature,
        set_sources,
        translate_with_cache,
        write_translations,
    )

    if set(checkpoints) != set(outputs):
        raise ValueError(f"checkpoints {sorted(checkpoints)} and outputs {sorted(outputs)} differ")
    sources = {name: set_sources(path) for name, path in sets.items()}
    every_source = [sentence for set_sources_ in sources.values() for sentence in set_sources_]
    stats = {}
    for name, checkpoint in checkpoints.items():
        signature = decode_signature(checkpoint, bpe_codes, source_lang, settings)
        log.info("%s: decode signature %s", name, signature)
        cache = TranslationCache(cache_dir, signature)
        translator = None

        def translate(sentences, checkpoint=checkpoint):
            nonlocal translator
            if translator is None:
                translator = Translator.for_settings(
                    checkpoint,
                    databin,
                    bpe_codes,
                    source_lang,
                    target_lang,
                    settings,
                    max_tokens=max_tokens,
                    threads=threads,
                )
                log.info("decoding in %s, %d source tokens per batch", translator.precision, translator.max_tokens)
            return translator.translate(sentences)

        stats[name] = translate_with_cache(cache, every_source, translate, batch_sentences=cache_batch_sentences())
        if translator is not None:
            translator.close()
        log.info(
            "%s: %d source lines, %d unique sentences: %d from the cache, %d decoded",
            name,
            len(every_source),
            stats[name].unique,
            stats[name].cached,
            stats[name].decoded,
        )
        write_translations(cache, sources, outputs[name])
    return stats
