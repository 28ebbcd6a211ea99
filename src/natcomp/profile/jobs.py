"""The jobs of a profile that run the model, as ``natcomp evaluate`` plans them: each
family's rules that load the model, with the GPUs, GPU memory, host memory and time of
their jobs and, for fine-tuning, the method (:mod:`natcomp.jobsize`; docs/design/hf.md, "Large
models"). Decided from the model's description (:mod:`natcomp.model_description`) before
any job: a model too large for ``gpus.max_per_job`` stops the plan with one line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from natcomp import jobsize
from natcomp.model_description import ModelDescription

__all__ = ["PlannedJob", "format_jobs", "job_plan", "planned_rules"]


@dataclass(frozen=True)
class PlannedJob:
    """The jobs of ``rules`` (of one family, of equal size) and their :class:`~natcomp.jobsize.JobSize`."""

    family: str
    rules: tuple[str, ...]
    size: jobsize.JobSize


def planned_rules(kinds, families: Sequence[str], config: Mapping | None = None) -> list[str]:
    """The rules of ``families`` whose jobs load a model of ``kinds`` (a
    :class:`natcomp.profile.fit.ModelKinds`) in a profile (the tables of
    :func:`natcomp.profile.runconfig.profile_targets`) under the base ``config``, in the
    order of :data:`natcomp.jobsize.RULES`: PLANE prompts a language model and transfers an
    NLI classifier; the released splits' fine-tuning runs where ``plane.finetune.train_sets``
    has them; a profile runs no length sweep. (MT's synonym probes, where they are decoded,
    are part of the system's translation job.)"""
    config = config or {}
    plane = config.get("plane") or {}
    finetune = plane.get("finetune") or {}
    runs = {
        "plane_prompting": kinds.language_model,
        "plane_zero_shot": kinds.language_model,
        "plane_nli": kinds.nli,
        "plane_finetune_released": "released" in finetune.get("train_sets", ["own"])
        and bool((plane.get("released") or {}).get("enabled", False)),
        "plane_finetune_length": False,
    }
    return [rule for rule, figures in jobsize.RULES.items() if figures.family in set(families) and runs.get(rule, True)]


def job_plan(
    description: ModelDescription,
    families: Sequence[str],
    settings: jobsize.JobSettings,
    *,
    base: Mapping | None = None,
) -> list[PlannedJob]:
    """The sized jobs of the model of ``description`` (its kinds, and each family's fine-tuning
    as :meth:`~natcomp.model_description.ModelDescription.for_run` decided it) in ``families``
    (:func:`planned_rules` under the ``base`` config), under the run's ``settings``. Rules of
    a family whose jobs are of equal size share an entry. A
    :class:`~natcomp.errors.ConfigError` for a model too large."""
    planned: list[PlannedJob] = []
    for rule in planned_rules(description.kinds, families, base):
        family = jobsize.RULES[rule].family
        size = jobsize.size_job(rule, description, settings)
        last = planned[-1] if planned else None
        if last and last.family == family and _same(last.size, size):
            planned[-1] = PlannedJob(family, (*last.rules, rule), last.size)
        else:
            planned.append(PlannedJob(family, (rule,), size))
    return planned


def _same(one: jobsize.JobSize, other: jobsize.JobSize) -> bool:
    return (one.method, one.gpus, one.gpu_bytes, one.mem_mb, one.runtime_min, one.fine_tuning) == (
        other.method,
        other.gpus,
        other.gpu_bytes,
        other.mem_mb,
        other.runtime_min,
        other.fine_tuning,
    )


def format_jobs(
    jobs: Sequence[PlannedJob], settings: jobsize.JobSettings, model_type: str | None = None, model_size: str = ""
) -> str:
    """The jobs as an aligned text table: family, the rules, how they run the model, and
    their GPUs ('1 GPU', '3 GPUs'), GPU memory, host memory and time; after a line naming
    the model's size (``model_size``, :meth:`~natcomp.model_description.ModelDescription.size_text`: its
    parameters, or why they are not known) and the GPUs the jobs were sized for."""
    table = [("family", "jobs", "how", "GPUs", "GPU memory", "host memory", "time")]
    for job in jobs:
        size = job.size
        table.append(
            (
                job.family,
                ", ".join(job.rules),
                size.role(model_type),
                jobsize.format_gpus(size.gpus),
                f"{-(-size.gpu_bytes // 1e9):.0f} GB",
                f"{-(-size.mem_mb // 1000)} GB",
                jobsize.format_minutes(size.runtime_min),
            )
        )
    widths = [max(len(line[column]) for line in table) for column in range(len(table[0]) - 1)]
    lines = ["  ".join(f"{cell:<{width}}" for cell, width in zip(line, widths)) + "  " + line[-1] for line in table]
    head = (
        f"the jobs that run the model{f' ({model_size})' if model_size else ''}, sized for GPUs of {settings.gpu_memory_gb:g} GB "
        "(gpus.memory_gb), "
        f"at most {jobsize.format_gpus(settings.max_gpus)} per job (gpus.max_per_job):"
    )
    return "\n".join([head, *lines])
