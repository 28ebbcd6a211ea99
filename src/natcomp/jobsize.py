"""How many GPUs, how much host memory and how much time a job that runs a model asks the
cluster for, from the model's ``config.json`` alone (no weights, no torch: Snakemake calls
this while it plans the DAG, and ``natcomp evaluate -n`` prints it).

Each rule that runs a model has its figures in :data:`RULES`: its role (inference or
fine-tuning), its host memory for everything but the weights and its minutes, both for a
base-size encoder (BERT-base, 110M parameters, the size the papers ran). :func:`size_job`
sizes one job for the model it runs; the rules read it through :class:`RuleResources`
(``gpu=``, ``mem_mb=``, ``runtime=``), the plan of ``natcomp evaluate`` through the same
function (issues 34 and 43; docs/design/hf.md, "Large models", and docs/running.md, "Memory and
time of a job that runs a model"). The constants and why:

- *the model*: its :class:`~natcomp.model_description.ModelDescription` (config, nested text
  config, parameters, checkpoint dtype, each family's fine-tuning decided), the one the plan,
  the run record and the profile page read;
- *the job's dtype*: :func:`natcomp.model_description.weights_dtype`, the rule loading uses
  too, for a GPU with bf16 (an A100 or H100): inference in the run's top-level ``dtype``
  (``auto``: the checkpoint's), full fine-tuning in fp32, LoRA's frozen base in the
  checkpoint's half dtype (an fp32 checkpoint: fp32, whatever the run's ``dtype``).
  :data:`~natcomp.model_description.DTYPE_BYTES`: 4 bytes per parameter in fp32, 2 in fp16 and bf16;
- *GPU memory at inference*: the weights in the job's dtype x (1 + :data:`~natcomp.model_description.OVERHEAD`).
  :data:`~natcomp.model_description.OVERHEAD` = 0.25 covers the activations, the KV cache and one batch's logits at
  the families' batch sizes (at most 64 sentences of at most a few hundred tokens), the
  CUDA context (about 0.5 GB per GPU) and the allocator's slack: Llama-3.1-8B's KV cache
  for 32 sequences of 512 tokens is 2 GB, its bf16 logits for them 4 GB, next to 16 GB of
  weights;
- *GPU memory of full fine-tuning*: :data:`natcomp.finetuning.FULL_BYTES_PER_PARAMETER`
  (fp32 weights, gradients and AdamW's two moments: 16 bytes per parameter) over
  :data:`natcomp.finetuning.FULL_SHARE_OF_GPU` (they may take half the GPU; the other half
  is for activations, the CUDA context and slack) = 32 bytes per parameter, the rule by
  which ``fine_tuning`` method ``auto`` chooses full or LoRA. Full fine-tuning runs on one
  GPU: natcomp shards neither weights nor optimiser state, so a model whose full
  fine-tuning needs more is fine-tuned with LoRA;
- *GPU memory of LoRA*: (the frozen weights in the job's dtype + 16 bytes per trainable
  parameter, the adapters' fp32 weights, gradients and AdamW moments) x (1 +
  :data:`~natcomp.model_description.OVERHEAD`); gradient checkpointing (``auto``) is on where a step's activations do
  not fit the memory left on those GPUs
  (:meth:`~natcomp.model_description.ModelDescription.resolve`). The adapters (:func:`~natcomp.model_description.lora_parameters`) are rank x (inputs + outputs)
  per adapted projection per layer; the classification head (hidden size x labels) is
  left out, less than a megabyte;
- *GPUs*: the memory needed over ``gpus.memory_gb`` (default 80 GB), rounded up, at least
  1; a job needing more than ``gpus.max_per_job`` GPUs (default 8) is refused with one
  :class:`~natcomp.errors.ConfigError` before any job. A model on several GPUs is placed by
  ``device_map="auto"`` (:mod:`natcomp.hf.placement`), each GPU holding at most
  :func:`~natcomp.model_description.weights_budget_bytes` of weights, which leaves every GPU its share of
  :data:`~natcomp.model_description.OVERHEAD`;
- *host memory*: the rule's figure + the weights in the dtype the job loads them in, at most
  :data:`LOAD_STAGING_BYTES` (5 GB): a job on a GPU loads its model straight onto its GPUs
  (``device_map``, :mod:`natcomp.hf.placement`), and transformers 5 reads the memory-mapped
  safetensors shards (at most 5 GB each in released checkpoints) tensor by tensor onto them,
  so the host never holds the whole model (it did hold two copies of a 70B's 141 GB:
  unschedulable on 256 GB nodes);
- *time*: the rule's minutes are a limit with ample headroom for a base-size encoder, whose
  batches leave a GPU mostly idle (kernel launches and memory traffic, not arithmetic, bound
  them). They hold up to :data:`TIME_REFERENCE_PARAMETERS` (10 billion parameters) on an
  A100 or H100: embedding PSS's 440,000 Yelp sentences (about 20 tokens each) with an 8B
  model is about 2 x 8e9 x 440,000 x 20 = 1.4e17 FLOPs, some 8 minutes at 300 TFLOP/s of
  bf16, inside ``pss_embed``'s 30; decoding is bound by reading the weights once per step
  (16 GB in bf16, about 6 ms at 2.5 TB/s). Above that size the arithmetic of every token
  grows with the parameters (2 FLOPs per parameter and token forward, 6 with the backward
  pass; Kaplan et al. 2020), so the time does too: the rule's minutes x parameters / 10B,
  never less than the rule's minutes. An estimate, not a measurement (no GPU was lent when
  it was written; ``benchmarks/llm_8b_gpu.py`` measures an 8B model's steps); a cluster's
  own figures go in with ``--set-resources``. (Until issue 43 the rule's minutes were
  scaled from 110M parameters, which asked SLURM for 2,566 hours to translate with a 70B
  model.) Spreading a model over GPUs does not shorten it: ``device_map`` places
  successive layers on successive GPUs and a batch passes through them one GPU after the
  other (no GPU computes while another does), so the time of a job is that of one GPU
  holding the whole model;
- a model whose config is neither a folder, a shipped model nor in the Hugging Face cache
  (a model the workflow builds, the demo's) is sized as a base-size fp32 model: 1 GPU; a
  config that is there but gives no size stops ``fine_tuning`` method ``auto`` in one line;
- an adapter folder (:mod:`natcomp.adapters`) is sized as its base: the adapter's own
  weights are a fraction of a percent of the base's.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from natcomp.errors import ConfigError
from natcomp.finetuning import GPU_MEMORY_GB, FamilyTraining, FineTuning, family_key
from natcomp.model_description import (
    DTYPE_BYTES,
    ModelDescription,
    gpu_memory_bytes,
    gpus_needed,
    lora_parameters,
)

__all__ = [
    "BASE_PARAMETERS",
    "LOAD_STAGING_BYTES",
    "MAX_GPUS_PER_JOB",
    "ROLES",
    "RULES",
    "TIME_REFERENCE_PARAMETERS",
    "JobSettings",
    "JobSize",
    "RuleFigures",
    "RuleResources",
    "format_gpus",
    "format_minutes",
    "job_size",
    "size_job",
    "size_table",
]

#: the parameters of BERT-base, the size the rules' own figures are for
BASE_PARAMETERS = 110_000_000
#: the model size up to which a rule's minutes hold; above, the time grows with the parameters
TIME_REFERENCE_PARAMETERS = 10_000_000_000
#: the most of a model's weights host memory holds while ``from_pretrained`` loads them onto
#: the job's GPUs: one safetensors shard of a released checkpoint
LOAD_STAGING_BYTES = 5_000_000_000
#: ``gpus.max_per_job`` when the config names none
MAX_GPUS_PER_JOB = 8
#: job roles: a rule runs the model (inference) or trains it (fine-tuning: full or LoRA)
ROLES = ("inference", "fine-tuning")


@dataclass(frozen=True)
class RuleFigures:
    """What a rule that runs a model needs for a base-size encoder: its family, its role
    (:data:`ROLES`), host memory (MB) beside the weights and minutes."""

    family: str
    role: str
    other_mb: int
    base_minutes: int


#: every rule that loads the model a family tests, by rule name
RULES: dict[str, RuleFigures] = {
    # every test's items and FLORES (240 minutes), and the synonym probes' n-best lists (30)
    "mt_system_translate": RuleFigures("mt", "inference", 8000, 270),
    "noncompsst_train": RuleFigures("noncompsst", "fine-tuning", 16000, 120),
    "plane_prompting": RuleFigures("plane", "inference", 4000, 30),
    "plane_zero_shot": RuleFigures("plane", "inference", 4000, 30),
    "plane_nli": RuleFigures("plane", "inference", 4000, 30),
    "plane_finetune": RuleFigures("plane", "fine-tuning", 8000, 60),
    "plane_finetune_released": RuleFigures("plane", "fine-tuning", 8000, 60),
    "plane_finetune_length": RuleFigures("plane", "fine-tuning", 8000, 60),
    "pss_embed": RuleFigures("pss", "inference", 4000, 30),
    "pss_fine_tune": RuleFigures("pss", "fine-tuning", 8000, 60),
    "tre_embed": RuleFigures("tre", "inference", 4000, 30),
}


# ---------------------------------------------------------------- sizing a job


def format_gpus(count: int) -> str:
    """``1 GPU``, ``3 GPUs``."""
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def format_minutes(minutes: int) -> str:
    """``30 min``, ``4.5 h``."""
    return f"{minutes} min" if minutes < 60 else f"{minutes / 60:.1f} h"


@dataclass(frozen=True)
class JobSettings:
    """The run's settings that size its jobs: ``dtype`` (the run's top-level ``dtype``),
    ``gpu_memory_gb`` and ``max_gpus`` (``gpus.memory_gb``, ``gpus.max_per_job``)."""

    dtype: str = "auto"
    gpu_memory_gb: float = GPU_MEMORY_GB
    max_gpus: int = MAX_GPUS_PER_JOB

    @classmethod
    def from_config(cls, config: Mapping) -> JobSettings:
        """From a run's config (absent keys: the defaults); a value of the wrong kind (a
        base config ``natcomp evaluate`` reads before the schema does) is a one-line
        :class:`ConfigError` naming its key."""
        gpus = config.get("gpus") or {}
        if not isinstance(gpus, Mapping):
            raise ConfigError("gpus", f"{gpus!r}; expected a mapping of memory_gb and max_per_job")
        memory = gpus.get("memory_gb", GPU_MEMORY_GB)
        if isinstance(memory, bool) or not isinstance(memory, (int, float)) or memory <= 0:
            raise ConfigError("gpus.memory_gb", f"{memory!r}; expected a number of GB above 0")
        most = gpus.get("max_per_job", MAX_GPUS_PER_JOB)
        if isinstance(most, bool) or not isinstance(most, int) or most < 1:
            raise ConfigError("gpus.max_per_job", f"{most!r}; expected an integer at least 1")
        return cls(dtype=config.get("dtype", "auto"), gpu_memory_gb=memory, max_gpus=most)


@dataclass(frozen=True)
class JobSize:
    """One job's size: ``rule`` (a key of :data:`RULES`), ``method`` (``inference``, ``full``
    or ``lora``), the ``dtype`` the GPUs hold the weights in, the model's ``parameters``
    (None: unknown, sized as a base-size model), the GPU memory it needs (bytes, all its
    GPUs together), its ``gpus``, host memory ``mem_mb`` and ``runtime_min``, and for a
    fine-tuning job its resolved :class:`~natcomp.finetuning.FineTuning`."""

    rule: str
    method: str
    dtype: str
    parameters: int | None
    gpu_bytes: float
    gpus: int
    mem_mb: int
    runtime_min: int
    fine_tuning: FineTuning | None = None

    def describe(self) -> str:
        """``1 GPU, 20 GB of GPU memory, 36 GB host memory, 36.5 h``."""
        return (
            f"{format_gpus(self.gpus)}, {math.ceil(self.gpu_bytes / 1e9)} GB of GPU memory, "
            f"{math.ceil(self.mem_mb / 1000)} GB host memory, {format_minutes(self.runtime_min)}"
        )

    def role(self, model_type: str | None = None) -> str:
        """``inference in bf16``, ``fine-tuning: full``, ``fine-tuning: LoRA r=16, ...``."""
        if self.fine_tuning is None:
            return f"inference in {self.dtype}"
        return f"fine-tuning: {self.fine_tuning.describe(model_type)}"


def _name(model: str, parameters: int | None) -> str:
    return f"{model} ({parameters / 1e9:.1f}B parameters)" if parameters else str(model)


def size_job(
    rule: str,
    description: ModelDescription | Mapping | None,
    settings: JobSettings = JobSettings(),
    *,
    fine_tuning: FineTuning | FamilyTraining | None = None,
    model: str | None = None,
) -> JobSize:
    """The size of a job of ``rule`` (a key of :data:`RULES`) running the model of ``description`` (its
    :class:`~natcomp.model_description.ModelDescription`, or its ``config.json`` as a mapping;
    None: unknown, a base-size fp32 model) under ``settings``. A fine-tuning rule takes its
    family's fine-tuning from the description where :meth:`ModelDescription.for_run` decided it,
    else decides ``fine_tuning`` (a setting or a :class:`~natcomp.finetuning.FamilyTraining`;
    None: the defaults, method ``auto``) for the model. A job needing more GPUs than
    ``settings.max_gpus``, or full fine-tuning needing more than one GPU, is a one-line
    :class:`ConfigError` naming ``gpus.max_per_job`` (``model``: the model's name there)."""
    if not isinstance(description, ModelDescription):
        description = ModelDescription(model or "the model", description)
    name = model or description.model
    model = dataclasses.replace(description, dtype=settings.dtype)
    figures = RULES[rule]
    counted = model.parameters
    parameters = counted or BASE_PARAMETERS
    memory = settings.gpu_memory_gb
    resolved = None
    if figures.role == "inference":
        method = "inference"
    elif figures.family in model.fine_tuning:
        resolved, tokens = model.fine_tuning[figures.family], model.tokens[figures.family]
    else:
        training = (
            fine_tuning if isinstance(fine_tuning, FamilyTraining) else FamilyTraining(fine_tuning or FineTuning())
        )
        resolved, tokens = model.resolve(training, memory, family_key(figures.family)), training.tokens
    if resolved is not None:
        method = resolved.method
    dtype = model.weights_dtype(method)
    config = model.config or {}
    if method != "inference" and counted is not None:
        need = model.training_bytes(resolved, tokens)  # with the activations LoRA keeps without checkpointing
    else:
        need = gpu_memory_bytes(parameters, method, dtype, lora_parameters(config, resolved) if resolved else 0)
    gpus = gpus_needed(need, memory)
    on = f"{settings.max_gpus} GPUs of {memory:g} GB per job"
    if method == "full" and gpus > 1:
        lora = dataclasses.replace(resolved, method="lora")
        with_lora = gpu_memory_bytes(parameters, "lora", model.weights_dtype("lora"), lora_parameters(config, lora))
        raise ConfigError(
            "gpus.max_per_job",
            f"{_name(name, counted)} needs {need / 1e9:.0f} GB of GPU memory to fine-tune in full ({rule}): more "
            f"than one GPU of {memory:g} GB, and natcomp fine-tunes in full on one GPU; fine-tuning method auto or "
            f"lora fine-tunes it with LoRA ({with_lora / 1e9:.0f} GB)",
        )
    if gpus > settings.max_gpus:
        if method == "inference":
            problem = (
                f"{_name(name, counted)} needs {need / 1e9:.0f} GB of GPU memory to run in {dtype} ({rule}): "
                f"more than {on}"
            )
        else:
            problem = (
                f"{_name(name, counted)} fits neither {on} nor LoRA: fine-tuning it with LoRA on its {dtype} weights "
                f"({rule}) needs {need / 1e9:.0f} GB of GPU memory"
            )
        raise ConfigError("gpus.max_per_job", problem)
    staging = min(parameters * DTYPE_BYTES[dtype], LOAD_STAGING_BYTES)
    mem_mb = figures.other_mb + math.ceil(staging / 1e6)
    runtime = max(figures.base_minutes, math.ceil(figures.base_minutes * parameters / TIME_REFERENCE_PARAMETERS))
    return JobSize(rule, method, dtype, counted, need, gpus, mem_mb, runtime, resolved)


def job_size(
    rule: str,
    name_or_path: str | os.PathLike | None,
    settings: JobSettings = JobSettings(),
    fine_tuning: FineTuning | FamilyTraining | None = None,
) -> JobSize:
    """:func:`size_job` of the model a job names (a folder, a shipped model or a cached Hub
    id; None or one whose config is not here: a base-size model)."""
    model = _described(str(name_or_path)) if name_or_path else ModelDescription("the model")
    return size_job(rule, model, settings, fine_tuning=fine_tuning)


def size_table(
    configs: Mapping[str, Mapping], settings: JobSettings = JobSettings(), run_config: Mapping | None = None
) -> str:
    """A Markdown table of the size of every rule's jobs (rules of equal figures on one row)
    for each model of ``configs`` (name -> its ``config.json`` as a mapping) in a run of
    ``run_config`` (its families' fine-tuning settings, batch sizes and lengths; None: the
    defaults): the method of fine-tuning, the GPUs (the GPU memory needed), the host memory
    and the time; docs/design/hf.md holds the one of :data:`natcomp.hf.tiny_architectures.REAL_SHAPES`
    at paper scale."""
    from natcomp.finetuning import FAMILY_SECTIONS

    groups: dict[RuleFigures, list[str]] = {}
    for rule, figures in RULES.items():
        groups.setdefault(figures, []).append(rule)
    lines = ["| family | jobs | " + " | ".join(configs) + " |", "|---|---|" + "---|" * len(configs)]
    described = {
        name: ModelDescription(name, config).for_run(run_config or {}, FAMILY_SECTIONS)
        for name, config in configs.items()
    }
    for figures, rules in groups.items():
        cells = []
        for name, model in described.items():
            size = size_job(rules[0], model, settings)
            method = {"inference": "", "full": "full: ", "lora": "LoRA: "}[size.method]
            checkpointing = ", checkpointing" if size.fine_tuning and size.fine_tuning.gradient_checkpointing else ""
            cells.append(
                f"{method}{format_gpus(size.gpus)} ({math.ceil(size.gpu_bytes / 1e9)} GB{checkpointing}), "
                f"{math.ceil(size.mem_mb / 1000)} GB host, {format_minutes(size.runtime_min)}"
            )
        jobs = ", ".join(f"`{rule}`" for rule in rules)
        lines.append(f"| {figures.family} | {jobs} ({figures.role}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: descriptions read so far, by the name a job gives (Snakemake asks for three resources of
#: every job: a model's config is read once); a model whose config was not found is read again
_DESCRIBED: dict[str, ModelDescription] = {}


def _described(name_or_path: str) -> ModelDescription:
    if name_or_path not in _DESCRIBED:
        described = ModelDescription.read(name_or_path)
        if described.config is None:
            return described
        _DESCRIBED[name_or_path] = described
    return _DESCRIBED[name_or_path]


# ---------------------------------------------------------------- the rules' resources


class RuleResources:
    """A rule's ``gpu``, ``mem_mb`` and ``runtime`` resources (callables of the job's
    wildcards), sized by :func:`job_size` under the run's ``settings``:
    ``gpu=MODEL_JOBS.gpus("pss_embed", pss_model)``, where ``pss_model(wildcards)`` names
    the job's model and ``fine_tuning_of(wildcards)`` (fine-tuning rules) its family's
    :class:`~natcomp.finetuning.FamilyTraining` (None: the defaults, method auto). ``stop`` calls the sizing, so the
    workflow can end a :class:`ConfigError` in one line (``stop_on_config_error``)."""

    def __init__(self, settings: JobSettings, stop: Callable | None = None):
        self.settings = settings
        self.stop = stop or (lambda function, *args: function(*args))

    def size(self, rule: str, model_of: Callable, fine_tuning_of: Callable | None = None) -> Callable:
        def size(wildcards) -> JobSize:
            fine_tuning = fine_tuning_of(wildcards) if fine_tuning_of else None
            return self.stop(job_size, rule, model_of(wildcards), self.settings, fine_tuning)

        return size

    def check(
        self,
        rule: str,
        model_of: Callable,
        values: Mapping[str, Iterable[str]] | None = None,
        fine_tuning_of: Callable | None = None,
    ) -> None:
        """Size the jobs of ``rule`` for every combination of the wildcards' ``values`` (name
        -> the values the config gives it): a :class:`ConfigError` for a model too large,
        raised before Snakemake builds the DAG (inside a resource function Snakemake would
        report it with the rule and wildcards around it, not in one line)."""
        names = list(values or {})
        for combination in itertools.product(*(list(values[name]) for name in names)):
            wildcards = types.SimpleNamespace(**dict(zip(names, combination)))
            fine_tuning = fine_tuning_of(wildcards) if fine_tuning_of else None
            job_size(rule, model_of(wildcards), self.settings, fine_tuning)

    def gpus(self, rule: str, model_of: Callable, fine_tuning_of: Callable | None = None) -> Callable:
        size = self.size(rule, model_of, fine_tuning_of)
        return lambda wildcards: size(wildcards).gpus

    def mem_mb(self, rule: str, model_of: Callable, fine_tuning_of: Callable | None = None) -> Callable:
        size = self.size(rule, model_of, fine_tuning_of)
        return lambda wildcards: size(wildcards).mem_mb

    def runtime(self, rule: str, model_of: Callable, fine_tuning_of: Callable | None = None) -> Callable:
        size = self.size(rule, model_of, fine_tuning_of)
        return lambda wildcards: size(wildcards).runtime_min
