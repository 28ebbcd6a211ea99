"""How many GPUs, how much host memory and how much time a job that runs a model asks the
cluster for, from the model's ``config.json`` alone (no weights, no torch: Snakemake calls
this while it plans the DAG, and ``natcomp evaluate -n`` prints it).

Each rule that runs a model has its figures in :data:`RULES`: its role (inference or
fine-tuning), its host memory for everything but the weights and its minutes, both for a
base-size encoder (BERT-base, 110M parameters, the size the papers ran). :func:`size_job`
sizes one job for the model it runs; the rules read it through :class:`RuleResources`
(``gpu=``, ``mem_mb=``, ``runtime=``), the plan of ``natcomp evaluate`` through the same
function (issues 34 and 43; docs/hf.md, "Large models", and docs/running.md, "Memory and
time of a job that runs a model"). The constants and why:

- *the job's dtype*: the run's top-level ``dtype``; ``auto`` is the checkpoint's own, read
  from its config (``dtype``, older saves ``torch_dtype``, fp32 when it names none: what
  :func:`natcomp.hf.precision.inference_dtype` gives on a GPU with bf16, an A100 or H100).
  :data:`DTYPE_BYTES`: 4 bytes per parameter in fp32, 2 in fp16 and bf16;
- *GPU memory at inference*: the weights in the job's dtype x (1 + :data:`OVERHEAD`).
  :data:`OVERHEAD` = 0.25 covers the activations, the KV cache and one batch's logits at
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
  :data:`OVERHEAD`): with gradient checkpointing (on with LoRA) the activations kept are
  about inference's. The adapters (:func:`lora_parameters`) are rank x (inputs + outputs)
  per adapted projection per layer; the classification head (hidden size x labels) is
  left out, less than a megabyte;
- *GPUs*: the memory needed over ``gpus.memory_gb`` (default 80 GB), rounded up, at least
  1; a job needing more than ``gpus.max_per_job`` GPUs (default 8) is refused with one
  :class:`~natcomp.errors.ConfigError` before any job. A model on several GPUs is placed by
  ``device_map="auto"`` (:mod:`natcomp.hf.placement`), each GPU holding at most
  :func:`weights_budget_bytes` of weights, which leaves every GPU its share of
  :data:`OVERHEAD`;
- *host memory*: the rule's figure + :data:`LOAD_COPIES` (2) x the weights in the dtype
  the job loads them in (the job's dtype at inference and for LoRA, fp32 for full
  fine-tuning): ``from_pretrained`` may hold the checkpoint's tensors beside the model's
  for a moment;
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
  (a model the workflow builds, the demo's) is sized as a base-size fp32 model: 1 GPU;
- an adapter folder (:mod:`natcomp.adapters`) is sized as its base: the adapter's own
  weights are a fraction of a percent of the base's.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.finetuning import FULL_BYTES_PER_PARAMETER, FULL_SHARE_OF_GPU, GPU_MEMORY_GB, FineTuning

__all__ = [
    "BASE_PARAMETERS",
    "TIME_REFERENCE_PARAMETERS",
    "DTYPE_BYTES",
    "LOAD_COPIES",
    "MAX_GPUS_PER_JOB",
    "OVERHEAD",
    "ROLES",
    "RULES",
    "JobSettings",
    "JobSize",
    "RuleFigures",
    "RuleResources",
    "dtype_name",
    "format_gpus",
    "format_minutes",
    "gpu_memory_bytes",
    "gpus_needed",
    "job_dtype",
    "job_size",
    "lora_parameters",
    "model_config",
    "model_file",
    "parameter_count",
    "size_job",
    "size_table",
    "weights_budget_bytes",
]

#: the parameters of BERT-base, the size the rules' own figures are for
BASE_PARAMETERS = 110_000_000
#: the model size up to which a rule's minutes hold; above, the time grows with the parameters
TIME_REFERENCE_PARAMETERS = 10_000_000_000
#: bytes per parameter of each concrete dtype
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
#: GPU memory beyond the weights (inference) or beyond weights and adapters (LoRA), as a
#: share of them: activations, KV cache, a batch's logits, the CUDA context, the allocator's slack
OVERHEAD = 0.25
#: copies of the weights in host memory while ``from_pretrained`` loads them
LOAD_COPIES = 2
#: ``gpus.max_per_job`` when the config names none
MAX_GPUS_PER_JOB = 8
#: job roles: a rule runs the model (inference) or trains it (fine-tuning: full or LoRA)
ROLES = ("inference", "fine-tuning")
#: model types whose MLP is gated (three matrices: gate, up, down) rather than two
_GATED_MLP = ("llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3", "olmo2")
# how configs spell a dtype (transformers writes "bfloat16"; older configs "torch.bfloat16")
_CONFIG_DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16"}


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
    "mt_system_translate": RuleFigures("mt", "inference", 8000, 240),
    "mt_system_synonym_probes": RuleFigures("mt", "inference", 8000, 30),
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


# ---------------------------------------------------------------- the model's config


def model_file(name_or_path: str | os.PathLike, filename: str) -> Path | None:
    """The file ``filename`` of a model folder, a shipped model or a Hub model in the local
    cache; None where there is none (nothing is downloaded). An adapter folder's
    ``config.json`` is its base's, its tokenizer's files its own or its base's
    (:func:`natcomp.adapters.file_location`), so an adapter's job is sized as its base's."""
    from natcomp.adapters import file_location
    from natcomp.shipped import SHIPPED_MODELS, shipped_model_path

    text = file_location(name_or_path, filename)
    folder = Path(text).expanduser()
    if not folder.is_dir() and text in SHIPPED_MODELS:
        folder = shipped_model_path(text)
    if folder.is_dir():
        path = folder / filename
        return path if path.is_file() else None
    from huggingface_hub import try_to_load_from_cache

    try:
        cached = try_to_load_from_cache(text, filename)
    except ValueError:  # not a Hub id either (huggingface_hub's HFValidationError)
        return None
    return Path(cached) if isinstance(cached, str) else None


def model_config(name_or_path: str | os.PathLike) -> dict | None:
    """A model's ``config.json`` as a mapping, where it is local or cached; else None."""
    path = model_file(name_or_path, "config.json")
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _first(config: Mapping, *names: str) -> int | None:
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _attention_shape(config: Mapping) -> tuple[int, int, int, int, int] | None:
    """hidden size, layers, attention heads, key-value heads, head size; None without them."""
    hidden = _first(config, "hidden_size", "n_embd", "d_model")
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers")
    if hidden is None or layers is None:
        return None
    heads = _first(config, "num_attention_heads", "n_head") or 1
    key_value_heads = _first(config, "num_key_value_heads") or heads
    head_size = _first(config, "head_dim") or hidden // heads
    return hidden, layers, heads, key_value_heads, head_size


def parameter_count(config: Mapping) -> int | None:
    """About how many parameters a transformer of ``config`` has (within a few percent for
    BERT, GPT-2, Llama and Qwen2): embeddings, attention (grouped key-value heads counted),
    the MLP (gated or not), an untied output layer; None when the config lacks its sizes."""
    shape = _attention_shape(config)
    vocabulary = _first(config, "vocab_size")
    if shape is None or vocabulary is None:
        return None
    hidden, layers, heads, key_value_heads, head_size = shape
    inner = _first(config, "intermediate_size", "n_inner", "ffn_dim", "encoder_ffn_dim") or 4 * hidden
    attention = 2 * hidden * heads * head_size + 2 * hidden * key_value_heads * head_size
    mlp = (3 if str(config.get("model_type", "")) in _GATED_MLP else 2) * hidden * inner
    embeddings = vocabulary * hidden * (1 if config.get("tie_word_embeddings", True) else 2)
    if str(config.get("model_type", "")) in ("bert", "roberta", "gpt2", "distilbert", "xlm-roberta", "electra"):
        embeddings += (_first(config, "max_position_embeddings", "n_positions") or 0) * hidden  # learned positions
    encoder_decoder = 2 if config.get("is_encoder_decoder") else 1
    return embeddings + encoder_decoder * layers * (attention + mlp)


def lora_parameters(config: Mapping, fine_tuning: FineTuning) -> int:
    """The trainable parameters of LoRA adapters of ``fine_tuning``'s rank on a model of
    ``config``: rank x (inputs + outputs) of each adapted projection, in every layer (both
    stacks of an encoder-decoder). The projections of :data:`natcomp.finetuning.ATTENTION_MODULES`
    have their shapes (queries and the output: heads x head size; keys and values: key-value
    heads x head size; a fused projection all three); modules named in ``target_modules``, or
    those of an architecture natcomp does not know, count as hidden x hidden each (q, k, v, o)."""
    from natcomp.finetuning import ATTENTION_MODULES

    shape = _attention_shape(config)
    if shape is None:
        return 0
    hidden, layers, heads, key_value_heads, head_size = shape
    queries, keys = heads * head_size, key_value_heads * head_size
    shapes = {
        "q": (hidden, queries),
        "k": (hidden, keys),
        "v": (hidden, keys),
        "o": (queries, hidden),
        "qkv": (hidden, queries + 2 * keys),
    }
    model_type = str(config.get("model_type", ""))
    if fine_tuning.target_modules is None and model_type in ATTENTION_MODULES:
        modules = [shapes[name] for name in ATTENTION_MODULES[model_type]]
    else:
        modules = [(hidden, hidden)] * (len(fine_tuning.target_modules or ()) or 4)
    encoder_decoder = 2 if config.get("is_encoder_decoder") else 1
    return encoder_decoder * layers * sum(fine_tuning.rank * (inputs + outputs) for inputs, outputs in modules)


def dtype_name(value: object) -> str:
    """A dtype as a config writes it (``bfloat16``, ``torch.float16``, a torch dtype, None)
    as one of :data:`DTYPE_BYTES`' names; fp32 for None or a name it does not know
    (transformers' own default)."""
    name = str(value or "float32").removeprefix("torch.")
    return _CONFIG_DTYPES.get(name, "fp32")


def job_dtype(config: Mapping | None, requested: str = "auto") -> str:
    """The dtype a GPU job holds the weights in: ``requested`` (the run's ``dtype``), and for
    ``auto`` the checkpoint's (``dtype``, else ``torch_dtype``, of ``config``; fp32 unknown)."""
    if requested != "auto":
        return requested
    config = config or {}
    return dtype_name(config.get("dtype") or config.get("torch_dtype"))


# ---------------------------------------------------------------- the arithmetic


def gpu_memory_bytes(parameters: int, method: str, dtype: str, trainable: int = 0) -> float:
    """The GPU memory (bytes) of a job of ``method`` (``inference``, ``full`` or ``lora``)
    on a model of ``parameters`` held in ``dtype``; ``trainable``: LoRA's adapter parameters.
    The module's doc says why each figure."""
    if method == "full":
        return parameters * FULL_BYTES_PER_PARAMETER / FULL_SHARE_OF_GPU
    weights = parameters * DTYPE_BYTES[dtype]
    if method == "lora":
        weights += trainable * FULL_BYTES_PER_PARAMETER
    elif method != "inference":
        raise ValueError(f"method must be inference, full or lora, not {method!r}")
    return weights * (1 + OVERHEAD)


def gpus_needed(need_bytes: float, memory_gb: float) -> int:
    """GPUs of ``memory_gb`` GB (1e9 bytes) that hold ``need_bytes``: at least one."""
    return max(1, math.ceil(need_bytes / (memory_gb * 1e9)))


def weights_budget_bytes(memory_bytes: float) -> int:
    """The weights one GPU of ``memory_bytes`` holds when a model is spread over several:
    what leaves it :data:`OVERHEAD` for the activations of its layers."""
    return math.floor(memory_bytes / (1 + OVERHEAD))


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
    config: Mapping | None,
    settings: JobSettings = JobSettings(),
    *,
    fine_tuning: FineTuning | None = None,
    model: str = "the model",
) -> JobSize:
    """The size of a job of ``rule`` (a key of :data:`RULES`) running the model of
    ``config`` (its ``config.json`` as a mapping; None: unknown, a base-size fp32 model)
    under ``settings``; a fine-tuning rule's ``fine_tuning`` (None: the defaults, method
    ``auto``) is resolved for the model's size. A job needing more GPUs than
    ``settings.max_gpus``, or full fine-tuning needing more than one GPU, is a one-line
    :class:`ConfigError` naming ``gpus.max_per_job`` (``model``: the model's name there)."""
    figures = RULES[rule]
    counted = parameter_count(config) if config else None
    parameters = counted or BASE_PARAMETERS
    dtype = job_dtype(config, settings.dtype)
    memory = settings.gpu_memory_gb
    resolved = None
    if figures.role == "inference":
        method = "inference"
    else:
        resolved = (fine_tuning or FineTuning()).resolved(counted, memory)
        method = resolved.method
    trainable = lora_parameters(config or {}, resolved) if method == "lora" else 0
    need = gpu_memory_bytes(parameters, method, dtype, trainable)
    gpus = gpus_needed(need, memory)
    on = f"{settings.max_gpus} GPUs of {memory:g} GB per job"
    if method == "full" and gpus > 1:
        lora = dataclasses.replace(resolved, method="lora")
        with_lora = gpu_memory_bytes(parameters, "lora", dtype, lora_parameters(config or {}, lora))
        raise ConfigError(
            "gpus.max_per_job",
            f"{_name(model, counted)} needs {need / 1e9:.0f} GB of GPU memory to fine-tune in full ({rule}): more "
            f"than one GPU of {memory:g} GB, and natcomp fine-tunes in full on one GPU; fine-tuning method auto or "
            f"lora fine-tunes it with LoRA ({with_lora / 1e9:.0f} GB)",
        )
    if gpus > settings.max_gpus:
        name = _name(model, counted)
        if method == "inference":
            problem = f"{name} needs {need / 1e9:.0f} GB of GPU memory to run in {dtype} ({rule}): more than {on}"
        else:
            problem = (
                f"{name} fits neither {on} nor LoRA: fine-tuning it with LoRA on its {dtype} weights ({rule}) needs "
                f"{need / 1e9:.0f} GB of GPU memory"
            )
        raise ConfigError("gpus.max_per_job", problem)
    load_dtype = "fp32" if method == "full" else dtype
    mem_mb = figures.other_mb + math.ceil(parameters * DTYPE_BYTES[load_dtype] * LOAD_COPIES / 1e6)
    runtime = max(figures.base_minutes, math.ceil(figures.base_minutes * parameters / TIME_REFERENCE_PARAMETERS))
    return JobSize(rule, method, dtype, counted, need, gpus, mem_mb, runtime, resolved)


def job_size(
    rule: str,
    name_or_path: str | os.PathLike | None,
    settings: JobSettings = JobSettings(),
    fine_tuning: FineTuning | None = None,
) -> JobSize:
    """:func:`size_job` of the model a job names (a folder, a shipped model or a cached Hub
    id; None or one whose config is not here: a base-size model)."""
    config = _cached_config(str(name_or_path)) if name_or_path else None
    return size_job(rule, config, settings, fine_tuning=fine_tuning, model=str(name_or_path))


def size_table(configs: Mapping[str, Mapping], settings: JobSettings = JobSettings()) -> str:
    """A Markdown table of the size of every rule's jobs (rules of equal figures on one row)
    for each model of ``configs`` (name -> its ``config.json`` as a mapping): the method of
    fine-tuning, the GPUs (the GPU memory needed), the host memory and the time; docs/hf.md
    holds the one of Qwen2.5-0.5B, Llama-3.1-8B and Llama-3.1-70B."""
    groups: dict[RuleFigures, list[str]] = {}
    for rule, figures in RULES.items():
        groups.setdefault(figures, []).append(rule)
    lines = ["| family | jobs | " + " | ".join(configs) + " |", "|---|---|" + "---|" * len(configs)]
    for figures, rules in groups.items():
        cells = []
        for name, config in configs.items():
            size = size_job(rules[0], config, settings, model=name)
            method = {"inference": "", "full": "full: ", "lora": "LoRA: "}[size.method]
            cells.append(
                f"{method}{format_gpus(size.gpus)} ({math.ceil(size.gpu_bytes / 1e9)} GB), "
                f"{math.ceil(size.mem_mb / 1000)} GB host, {format_minutes(size.runtime_min)}"
            )
        jobs = ", ".join(f"`{rule}`" for rule in rules)
        lines.append(f"| {figures.family} | {jobs} ({figures.role}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: configs read so far, by the name a job gives (Snakemake asks for three resources of every
#: job: a model's config is read once); a model not found yet is looked for again
_CONFIGS: dict[str, dict] = {}


def _cached_config(name_or_path: str) -> dict | None:
    if name_or_path not in _CONFIGS:
        config = model_config(name_or_path)
        if config is None:
            return None
        _CONFIGS[name_or_path] = config
    return _CONFIGS[name_or_path]


# ---------------------------------------------------------------- the rules' resources


class RuleResources:
    """A rule's ``gpu``, ``mem_mb`` and ``runtime`` resources (callables of the job's
    wildcards), sized by :func:`job_size` under the run's ``settings``:
    ``gpu=MODEL_JOBS.gpus("pss_embed", pss_model)``, where ``pss_model(wildcards)`` names
    the job's model and ``fine_tuning_of(wildcards)`` (fine-tuning rules) its family's
    :class:`~natcomp.finetuning.FineTuning` (None: the defaults, method auto). ``stop`` calls the sizing, so the
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
