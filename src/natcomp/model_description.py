"""What natcomp knows of a model before it loads a weight: one description, built once from
its ``config.json`` and read by the plan of ``natcomp evaluate``, the job sizes
(:mod:`natcomp.jobsize`), the run record and the profile page (docs/design/hf.md, "The model
description").

Torch-free, like :mod:`natcomp.finetuning` and :mod:`natcomp.jobsize`: Snakemake sizes its
jobs with it while it plans the DAG. :class:`ModelDescription` holds

- the model's ``config`` (an adapter folder's: its base's, with the :class:`~natcomp.adapters.Adapter`)
  and its *text config*: the nested ``text_config`` of a multimodal checkpoint (Gemma 3 from
  4B, Mistral 3, Llama 4 keep their sizes there), else the config itself;
- what the plan adds: the model's kinds and whether its tokenizer has a chat template;
- its parameter count (:func:`parameter_count`: the text model, and a vision tower where the
  config has one) and its checkpoint's dtype (:func:`checkpoint_dtype`);
- for a run (:meth:`ModelDescription.for_run`): the run's inference ``dtype``, the GPUs' memory
  and each fine-tuning family's method, decided (:meth:`ModelDescription.resolve`: full or LoRA,
  LoRA's learning rate, gradient checkpointing where the memory needs it).

The one rule for the dtype of a model's weights, inference and training alike, is
:func:`weights_dtype` (with :func:`autocast_dtype` for the forward pass of training): the job
sizes call it for a GPU with bf16 and :mod:`natcomp.hf.precision` for the device the job has.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from natcomp.errors import ConfigError
from natcomp.finetuning import (
    ATTENTION_MODULES,
    FAMILY_SECTIONS,
    FULL_BYTES_PER_PARAMETER,
    FULL_SHARE_OF_GPU,
    GPU_MEMORY_GB,
    FamilyTraining,
    FineTuning,
    family_key,
    family_training,
    gpu_memory_gb,
)

__all__ = [
    "DTYPE_BYTES",
    "OVERHEAD",
    "ModelDescription",
    "activation_bytes",
    "autocast_dtype",
    "checkpoint_dtype",
    "dtype_name",
    "gpu_memory_bytes",
    "gpus_needed",
    "job_setting",
    "lora_parameters",
    "model_config",
    "model_file",
    "parameter_count",
    "precision_note",
    "text_config",
    "weights_budget_bytes",
    "weights_dtype",
]

#: bytes per parameter of each concrete dtype
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
#: GPU memory beyond the weights (inference) or beyond weights and adapters (LoRA), as a
#: share of them: activations, KV cache, a batch's logits, the CUDA context, the allocator's slack
OVERHEAD = 0.25
#: model types whose MLP is gated (three matrices: gate, up, down) rather than two
_GATED_MLP = (
    "llama",
    "llama4_text",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi3",
    "olmo2",
)
#: model types with learned position embeddings (hidden size x positions more)
_LEARNED_POSITIONS = ("bert", "roberta", "gpt2", "distilbert", "xlm-roberta", "electra")
# how configs spell a dtype (transformers writes "bfloat16"; older configs "torch.bfloat16")
_CONFIG_DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16"}
#: bytes autograd keeps per token and layer for the backward pass, in units of the hidden size
#: (h) and the MLP's inner size (i), in 16-bit: 2 x (12h + 4i). What a transformer layer keeps:
#: its two norms' inputs, q, k, v and the attention output, the MLP's gate and up outputs and
#: their product, and LoRA's adapter inputs and dropout masks (Korthikanti et al. 2022, section 4,
#: without the attention scores, which SDPA does not keep)
_KEPT_PER_HIDDEN, _KEPT_PER_INNER = 24, 8
#: with gradient checkpointing each layer keeps only its input (fp32 under autocast: 4h bytes)
_CHECKPOINTED_PER_HIDDEN = 4


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


def text_config(config: Mapping) -> Mapping:
    """The config of a checkpoint's language model: a multimodal checkpoint's nested
    ``text_config`` (Gemma 3, Mistral 3, Llama 4), else ``config`` itself."""
    nested = config.get("text_config")
    return nested if isinstance(nested, Mapping) and nested else config


def _first(config: Mapping, *names: str) -> int | None:
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _attention_shape(config: Mapping) -> tuple[int, int, int, int, int] | None:
    """hidden size, layers, attention heads, key-value heads, head size of the text model;
    None without them."""
    config = text_config(config)
    hidden = _first(config, "hidden_size", "n_embd", "d_model")
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers")
    if hidden is None or layers is None:
        return None
    heads = _first(config, "num_attention_heads", "n_head") or 1
    key_value_heads = _first(config, "num_key_value_heads") or heads
    head_size = _first(config, "head_dim") or hidden // heads
    return hidden, layers, heads, key_value_heads, head_size


def _inner_size(config: Mapping, hidden: int) -> int:
    return _first(config, "intermediate_size", "n_inner", "ffn_dim", "encoder_ffn_dim") or 4 * hidden


def _vision_parameters(config: Mapping) -> int:
    """A vision tower's parameters (a ViT: 4 h^2 of attention and 2 h i of MLP per layer,
    its patch and position embeddings) and the projector into the text model; 0 without one."""
    vision = config.get("vision_config")
    if not isinstance(vision, Mapping):
        return 0
    hidden, layers = _first(vision, "hidden_size"), _first(vision, "num_hidden_layers")
    if hidden is None or layers is None:
        return 0
    patch, image = _first(vision, "patch_size") or 14, _first(vision, "image_size") or 224
    embeddings = 3 * patch * patch * hidden + (image // patch) ** 2 * hidden
    text_hidden = (_attention_shape(config) or (hidden,))[0]
    return embeddings + layers * (4 * hidden * hidden + 2 * hidden * _inner_size(vision, hidden)) + hidden * text_hidden


def parameter_count(config: Mapping) -> int | None:
    """About how many parameters a transformer of ``config`` has (within a few percent for
    BERT, GPT-2, Llama, Qwen2 and Gemma 3): of its text model (:func:`text_config`)
    embeddings, attention (grouped key-value heads counted), the MLP (gated or not; each
    expert of a mixture), an untied output layer; and a vision tower where the config has
    one. None when the config lacks the text model's sizes."""
    shape = _attention_shape(config)
    text = text_config(config)
    vocabulary = _first(text, "vocab_size")
    if shape is None or vocabulary is None:
        return None
    hidden, layers, heads, key_value_heads, head_size = shape
    model_type = str(text.get("model_type", config.get("model_type", "")))
    attention = 2 * hidden * heads * head_size + 2 * hidden * key_value_heads * head_size
    experts = _first(text, "num_local_experts", "num_experts") or 1
    mlp = experts * (3 if model_type in _GATED_MLP else 2) * hidden * _inner_size(text, hidden)
    tied = text.get("tie_word_embeddings", config.get("tie_word_embeddings", True))
    embeddings = vocabulary * hidden * (1 if tied else 2)
    if model_type in _LEARNED_POSITIONS:
        embeddings += (_first(text, "max_position_embeddings", "n_positions") or 0) * hidden
    encoder_decoder = 2 if config.get("is_encoder_decoder") else 1
    return embeddings + encoder_decoder * layers * (attention + mlp) + _vision_parameters(config)


def lora_parameters(config: Mapping, fine_tuning: FineTuning) -> int:
    """The trainable parameters of LoRA adapters of ``fine_tuning``'s rank on a model of
    ``config``: rank x (inputs + outputs) of each adapted projection, in every layer of the
    text model (both stacks of an encoder-decoder). The projections of
    :data:`natcomp.finetuning.ATTENTION_MODULES` have their shapes (queries and the output:
    heads x head size; keys and values: key-value heads x head size; a fused projection all
    three); modules named in ``target_modules``, or those of an architecture natcomp does not
    know, count as hidden x hidden each (q, k, v, o)."""
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
    model_type = str(text_config(config).get("model_type", ""))
    if fine_tuning.target_modules is None and model_type in ATTENTION_MODULES:
        modules = [shapes[name] for name in ATTENTION_MODULES[model_type]]
    else:
        modules = [(hidden, hidden)] * (len(fine_tuning.target_modules or ()) or 4)
    encoder_decoder = 2 if config.get("is_encoder_decoder") else 1
    return encoder_decoder * layers * sum(fine_tuning.rank * (inputs + outputs) for inputs, outputs in modules)


def activation_bytes(config: Mapping, tokens: int, checkpointing: bool) -> int:
    """The activations a training step of ``tokens`` tokens (batch x length) keeps for its
    backward pass, in bytes: without checkpointing 2 x (12h + 4i) per token and layer (see
    :data:`_KEPT_PER_HIDDEN`); with it each layer's input (4h) and one layer's activations,
    recomputed in the backward pass. 0 for a config without the text model's sizes."""
    shape = _attention_shape(config)
    if shape is None:
        return 0
    hidden, layers = shape[0], shape[1]
    layer = tokens * (_KEPT_PER_HIDDEN * hidden + _KEPT_PER_INNER * _inner_size(text_config(config), hidden))
    if checkpointing:
        return tokens * layers * _CHECKPOINTED_PER_HIDDEN * hidden + layer
    return layers * layer


# ---------------------------------------------------------------- dtypes


def dtype_name(value: object) -> str:
    """A dtype as a config writes it (``bfloat16``, ``torch.float16``, a torch dtype, None)
    as one of :data:`DTYPE_BYTES`' names; fp32 for None or a name it does not know
    (transformers' own default)."""
    name = str(value or "float32").removeprefix("torch.")
    return _CONFIG_DTYPES.get(name, "fp32")


def checkpoint_dtype(config) -> str:
    """The dtype a checkpoint was saved in, from its config (an object or a mapping):
    ``dtype`` (transformers 5) or ``torch_dtype`` (older saves), of the config or else of its
    text config; fp32 when neither names one (transformers' own default)."""
    if not isinstance(config, Mapping):
        config = config.to_dict() if hasattr(config, "to_dict") else vars(config)
    for mapping in (config, text_config(config)):
        value = mapping.get("dtype") or mapping.get("torch_dtype")
        if value:
            return dtype_name(value)
    return "fp32"


def weights_dtype(
    method: str, checkpoint: str, requested: str = "auto", *, on_gpu: bool = True, bf16: bool = True
) -> str:
    """The dtype a job holds a model's weights in: the one rule, for sizing (a GPU with bf16)
    and loading (:mod:`natcomp.hf.precision`, the job's device). ``method``: ``inference``,
    ``full`` or ``lora``; ``checkpoint``: :func:`checkpoint_dtype`; ``requested``: the run's
    ``dtype`` (inference only: training never follows it).

    - on a CPU: fp32;
    - inference: ``requested``; ``auto`` the checkpoint's (a bf16 checkpoint on a GPU without
      bf16: fp32, since bf16 weights can overflow fp16);
    - full fine-tuning: fp32 (master weights);
    - LoRA: the frozen base in the checkpoint's half dtype, which the forward pass computes in
      (:func:`autocast_dtype`): fp16 for an fp16 checkpoint, bf16 for a bf16 one on a GPU with
      bf16; fp32 otherwise (an fp32 checkpoint, a bf16 one without bf16)."""
    if not on_gpu:
        return "fp32"
    if method == "inference":
        if requested != "auto":
            return requested
        return "fp32" if checkpoint == "bf16" and not bf16 else checkpoint
    if method == "full":
        return "fp32"
    if method != "lora":
        raise ValueError(f"method must be inference, full or lora, not {method!r}")
    if checkpoint == "fp16" or (checkpoint == "bf16" and bf16):
        return checkpoint
    return "fp32"


def autocast_dtype(method: str, base: str, *, on_gpu: bool = True, bf16: bool = True) -> str | None:
    """The dtype a training step's forward pass autocasts to (None: none, fp32): on a GPU,
    the LoRA base's own half dtype (``base``: :func:`weights_dtype`; fp16 needs a gradient
    scaler), else bf16 where the GPU has it; nothing on a CPU or a GPU without bf16."""
    if not on_gpu:
        return None
    if method == "lora" and base == "fp16":
        return "fp16"
    return "bf16" if bf16 else None


def precision_note(requested: str, checkpoint: str, lora: bool = False) -> str:
    """What a run's inference and training compute in, in one sentence for the plan and the
    profile (``requested``: the run's ``dtype``; ``checkpoint``: :func:`checkpoint_dtype`;
    ``lora``: a family fine-tunes with LoRA). Which jobs get a GPU is the scheduler's choice,
    so both cases are named."""
    if requested == "auto":
        gpu = "bf16 on a GPU (fp32 on one without bf16)" if checkpoint == "bf16" else f"{checkpoint} on a GPU"
        inference = f"inference in {gpu} and fp32 on a CPU (dtype auto: the {checkpoint} checkpoint's)"
    elif requested == "fp32":
        inference = f"inference in fp32 (dtype fp32; a {checkpoint} checkpoint)"
    else:
        inference = (
            f"inference in {requested} on a GPU (dtype {requested}; a CPU job refuses it; a {checkpoint} checkpoint)"
        )
    training = "training in fp32 weights, with bf16 autocast on a GPU that has it"
    base = weights_dtype("lora", checkpoint)
    if lora and base != "fp32":
        training += (
            f" (LoRA: the frozen base in {base}, the forward pass autocast to {base}"
            + (" with a gradient scaler" if base == "fp16" else "")
            + ", the adapters and the head in fp32)"
        )
    return f"{inference}; {training}"


# ---------------------------------------------------------------- memory


def gpu_memory_bytes(parameters: int, method: str, dtype: str, trainable: int = 0) -> float:
    """The GPU memory (bytes) of a job of ``method`` (``inference``, ``full`` or ``lora``)
    on a model of ``parameters`` held in ``dtype``; ``trainable``: LoRA's adapter parameters.
    Inference: the weights x (1 + :data:`OVERHEAD`); full fine-tuning: 16 bytes a parameter
    (fp32 weights, gradients, AdamW's two moments) over the half of a GPU they may take; LoRA:
    (the weights + 16 bytes per adapter parameter) x (1 + :data:`OVERHEAD`)."""
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


# ---------------------------------------------------------------- the description


@dataclass(frozen=True)
class ModelDescription:
    """One model, described once (the module's doc says what each part is and where it comes
    from). ``model``: the name or path given; ``config``: its ``config.json`` as a mapping (an
    adapter's: its base's; None where it is not here: a model the workflow builds, the demo's,
    or a Hub model not in the cache, sized as a base-size model); ``adapter``: the adapter
    folder it is, if any; ``kinds`` and ``chat_template``: what the plan adds
    (:class:`natcomp.profile.fit.ModelKinds`; whether its tokenizer has a chat template);
    ``dtype``, ``gpu_memory_gb``, ``fine_tuning`` (family -> resolved
    :class:`~natcomp.finetuning.FineTuning`) and ``tokens`` (family -> the tokens of one of its
    training batches): a run's, from :meth:`for_run`."""

    model: str
    config: Mapping | None = None
    adapter: Any = None
    kinds: Any = None
    chat_template: bool = False
    dtype: str = "auto"
    gpu_memory_gb: float = GPU_MEMORY_GB
    fine_tuning: Mapping[str, FineTuning] = field(default_factory=dict)
    tokens: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def read(cls, name_or_path: str | os.PathLike, key: str = "model") -> ModelDescription:
        """The description of a model folder, shipped model, cached Hub id or adapter folder
        (its base's config, where that is here), from its ``config.json``; nothing is downloaded."""
        from natcomp.adapters import is_adapter, read_adapter

        adapter = None
        if is_adapter(name_or_path):
            try:
                adapter = read_adapter(name_or_path, key)
            except ConfigError:  # its base is not found: sized as a base-size model, refused where it runs
                adapter = None
        return cls(str(name_or_path), model_config(name_or_path), adapter)

    @property
    def text_config(self) -> Mapping:
        """The text model's config (:func:`text_config`); empty where the config is not here."""
        return text_config(self.config or {})

    @property
    def model_type(self) -> str:
        """The text model's ``model_type``: the architecture LoRA adapts (``gemma3_text`` in a
        ``gemma3`` checkpoint)."""
        return str(self.text_config.get("model_type", (self.config or {}).get("model_type", "")))

    @property
    def parameters(self) -> int | None:
        """:func:`parameter_count`; None where the config is not here or gives no size."""
        return parameter_count(self.config) if self.config else None

    @property
    def checkpoint_dtype(self) -> str:
        """:func:`checkpoint_dtype` (fp32 where the config is not here)."""
        return checkpoint_dtype(self.config or {})

    def size_text(self) -> str:
        """``27.4B parameters``, ``124.4M parameters``, or why the size is not known."""
        if self.config is None:
            return "size unknown, its config.json is not here: sized as a base-size model"
        parameters = self.parameters
        if parameters is None:
            return "size unknown, its config names no hidden size, layers or vocabulary"
        if parameters >= 1e9:
            return f"{parameters / 1e9:.1f}B parameters"
        return f"{parameters / 1e6:.1f}M parameters" if parameters >= 1e6 else f"{parameters:,} parameters"

    def weights_dtype(self, method: str) -> str:
        """:func:`weights_dtype` of this model for a job of ``method`` on a GPU with bf16,
        under the run's ``dtype``."""
        return weights_dtype(method, self.checkpoint_dtype, self.dtype)

    def resolve(
        self, training: FamilyTraining, gpu_memory_gb: float | None = None, key: str = "fine_tuning"
    ) -> FineTuning:
        """A family's fine-tuning of this model, decided (``training``: its setting, batch size
        and length; ``key`` names the setting in errors): ``auto`` is LoRA above
        :func:`natcomp.finetuning.full_fine_tuning_limit` parameters, full up to it (a model
        whose config is not here: full); LoRA's learning rate, where the setting names none,
        :func:`natcomp.finetuning.lora_learning_rate`; ``gradient_checkpointing`` ``auto`` is on
        where the step's activations (:func:`activation_bytes`) do not fit the memory left on
        the job's GPUs, as many as its weights and optimiser state ask for (:func:`gpus_needed`).
        A model whose config gives no size is a one-line :class:`ConfigError` for ``auto``:
        its size is never guessed."""
        memory = self.gpu_memory_gb if gpu_memory_gb is None else gpu_memory_gb
        setting = training.setting
        if setting.method == "auto" and self.config is not None and self.parameters is None:
            raise ConfigError(
                f"{key}.method",
                f"auto cannot choose between full fine-tuning and LoRA for {self.model}: {self.size_text()}; "
                "expected full or lora (natcomp evaluate --fine-tuning)",
            )
        method = setting.resolved(self.parameters, memory).method
        needs = False
        if self.parameters is not None and setting.gradient_checkpointing == "auto":
            resident = self._resident_bytes(dataclasses.replace(setting, method=method))
            gpus = gpus_needed(resident * (1 + OVERHEAD), memory) if method == "lora" else 1
            left = gpus * memory * 1e9 - resident * (1 + OVERHEAD)
            needs = activation_bytes(self.config, training.tokens, checkpointing=False) > left
        resolved = setting.resolved(self.parameters, memory, needs_checkpointing=needs)
        if resolved.method == "lora" and self.config:
            resolved.modules(self.model_type, key)  # known projections, before any job
        return resolved

    def _resident_bytes(self, fine_tuning: FineTuning) -> float:
        """The bytes a training job keeps on its GPUs besides activations: full, 16 per
        parameter; LoRA, the frozen weights and 16 per adapter parameter."""
        parameters = self.parameters or 0
        if fine_tuning.method == "full":
            return parameters * FULL_BYTES_PER_PARAMETER
        adapters = lora_parameters(self.config or {}, fine_tuning)
        return parameters * DTYPE_BYTES[self.weights_dtype("lora")] + adapters * FULL_BYTES_PER_PARAMETER

    def for_run(self, config: Mapping, families: Iterable[str] = ()) -> ModelDescription:
        """This description in a run of ``config`` (the whole config): its inference ``dtype``,
        the GPUs' memory (``gpus.memory_gb``) and the fine-tuning of each of ``families`` that
        fine-tunes (:data:`natcomp.finetuning.FAMILY_SECTIONS`), decided (:meth:`resolve`)."""
        memory = gpu_memory_gb(config)
        described = dataclasses.replace(self, dtype=str(config.get("dtype", "auto")), gpu_memory_gb=memory)
        training = {family: family_training(config, family) for family in families if family in FAMILY_SECTIONS}
        tuned = {family: described.resolve(each, memory, family_key(family)) for family, each in training.items()}
        tokens = {family: each.tokens for family, each in training.items()}
        return dataclasses.replace(described, fine_tuning=tuned, tokens=tokens)

    def training_bytes(self, fine_tuning: FineTuning, tokens: int) -> float:
        """The GPU memory (bytes) of a training job of ``fine_tuning`` (resolved) on this model,
        a step of ``tokens`` tokens: :func:`gpu_memory_bytes`, and with LoRA without gradient
        checkpointing the activations beside it (:func:`activation_bytes`); full fine-tuning's
        half of a GPU holds them, LoRA's :data:`OVERHEAD` only checkpointed ones."""
        parameters = self.parameters or 0
        if fine_tuning.method == "full":
            return gpu_memory_bytes(parameters, "full", "fp32")
        adapters = lora_parameters(self.config or {}, fine_tuning)
        need = gpu_memory_bytes(parameters, "lora", self.weights_dtype("lora"), adapters)
        if not fine_tuning.gradient_checkpointing and self.config:
            need += activation_bytes(self.config, tokens, checkpointing=False)
        return need

    def fine_tuning_texts(self) -> dict[str, str]:
        """Each family's fine-tuning in words (``full``; ``LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4``)."""
        return {family: setting.describe(self.model_type) for family, setting in self.fine_tuning.items()}

    def precision_note(self) -> str:
        """:func:`precision_note` of the run's dtype and the checkpoint's, LoRA's where a family uses it."""
        lora = any(setting.method == "lora" for setting in self.fine_tuning.values())
        return precision_note(self.dtype, self.checkpoint_dtype, lora)

    def record(self) -> dict:
        """What the run record (``natcomp_profile.yaml``) keeps of the model and the profile
        page shows: the dtypes, the precision, the size and each family's fine-tuning."""
        record = {
            "dtype": self.dtype,
            "checkpoint_dtype": self.checkpoint_dtype,
            "precision": self.precision_note(),
            "parameters": self.parameters,
        }
        if self.fine_tuning:
            record["fine_tuning"] = self.fine_tuning_texts()  # family -> the method in words, for the profile
        return record


def job_setting(config: Mapping, family: str, model: str | None) -> dict:
    """The ``fine_tuning`` a job of ``family`` that fine-tunes ``model`` (a name or a path)
    gets, as a config mapping: the model's description (its ``config.json`` where it is local
    or cached; nothing is downloaded) resolving the family's setting in a run of ``config``.
    Snakemake reruns a job whose setting changes."""
    description = ModelDescription.read(model) if model else ModelDescription("the model")
    resolved = description.resolve(family_training(config, family), gpu_memory_gb(config), family_key(family))
    return resolved.as_config()
