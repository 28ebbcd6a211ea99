"""How the fine-tuning families (NonCompSST SST-7, PLANE fine-tuning, PSS FT) update a
model: every weight (``full``) or LoRA adapters on the attention projections (``lora``),
and which of the two ``auto`` means for a model of a given size (issue 43).

Torch-free: Snakemake plans jobs and ``natcomp evaluate -n`` prints the plan with it, before
torch or peft is imported. :mod:`natcomp.hf.lora` applies the settings to a model;
:meth:`natcomp.model_description.ModelDescription.resolve` decides ``auto`` for a model from
its config (this module knows no model: it imports neither that module nor :mod:`natcomp.jobsize`).

*The memory arithmetic behind ``auto``* (docs/design/hf.md, "Large models"). Full fine-tuning with
AdamW keeps fp32 master weights (4 bytes per parameter), their gradients (4) and the two
AdamW moments (8): :data:`FULL_BYTES_PER_PARAMETER` = 16 bytes per parameter before any
activation. natcomp fine-tunes in full while that takes at most
:data:`FULL_SHARE_OF_GPU` (half) of one GPU's memory, leaving the rest for activations,
the CUDA context and the allocator's slack: 80 GB x 0.5 / 16 = 2.5 billion parameters on an
80 GB GPU. Above, ``auto`` is LoRA (the frozen base in the inference dtype, 2 bytes per
parameter in bf16, the adapters and the head trained in fp32). The papers' own models
(BERT-base, RoBERTa-large: 0.1-0.4 billion) stay far below, so their runs keep the papers'
full fine-tuning.

*LoRA's learning rate* (docs/design/hf.md, "LoRA fine-tuning"). The families' learning rates are
full fine-tuning's (NonCompSST 5e-6, PLANE 5e-5, PSS 2e-5); LoRA's B matrix starts at zero,
and at those rates the adapters barely move. ``learning_rate`` null takes QLoRA's rates
(Dettmers et al. 2023, appendix B, Table 9): 2e-4 for models up to 13B parameters, 1e-4 for
33B and 65B (:func:`lora_learning_rate`: 1e-4 above :data:`LORA_LARGE_PARAMETERS`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from natcomp.errors import ConfigError

__all__ = [
    "ATTENTION_MODULES",
    "FAMILY_SECTIONS",
    "FINE_TUNING_METHODS",
    "FULL_BYTES_PER_PARAMETER",
    "FULL_SHARE_OF_GPU",
    "GPU_MEMORY_GB",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_LENGTH",
    "LORA_LARGE_PARAMETERS",
    "LORA_LEARNING_RATES",
    "FamilyTraining",
    "FineTuning",
    "family_key",
    "family_setting",
    "family_training",
    "format_rate",
    "full_fine_tuning_limit",
    "gpu_memory_gb",
    "lora_learning_rate",
]

#: ``method`` values: ``auto`` (full up to :func:`full_fine_tuning_limit` parameters, LoRA above)
FINE_TUNING_METHODS = ("auto", "full", "lora")
#: fp32 weights (4 bytes) + gradients (4) + AdamW's two moments (8)
FULL_BYTES_PER_PARAMETER = 16
#: the share of one GPU's memory full fine-tuning's weights, gradients and optimiser state may take
FULL_SHARE_OF_GPU = 0.5
#: the memory of one GPU, in GB (1e9 bytes), when the config names none (an A100 or H100 80 GB)
GPU_MEMORY_GB = 80.0
#: LoRA's learning rate when ``learning_rate`` is null: QLoRA's (Dettmers et al. 2023,
#: appendix B, Table 9), 2e-4 for 7B and 13B models, 1e-4 for 33B and 65B
LORA_LEARNING_RATES = {"up to 20B": 2e-4, "above 20B": 1e-4}
#: the size above which LoRA takes QLoRA's rate of the larger models (between its 13B and 33B)
LORA_LARGE_PARAMETERS = 20_000_000_000
#: the batch and the tokens per text a family's training is sized for where its section names
#: none (PSS's ``max_length`` null, the longest sentence, is counted as this many tokens)
DEFAULT_BATCH_SIZE, DEFAULT_MAX_LENGTH = 32, 128

#: The attention projections LoRA adapts by default, by Hugging Face ``model_type``: the
#: abstract name (q, k, v, o, or qkv for a fused projection) -> the module-name suffix peft
#: matches (a suffix after a dot, so ``attn.c_proj`` is GPT-2's attention output and not its
#: MLP's ``mlp.c_proj``).
_SEPARATE = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj"}
_BERT = {"q": "query", "k": "key", "v": "value", "o": "attention.output.dense"}
ATTENTION_MODULES: dict[str, dict[str, str]] = {
    **dict.fromkeys(("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "olmo2"), _SEPARATE),
    "opt": {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "out_proj"},
    "phi3": {"qkv": "qkv_proj", "o": "o_proj"},
    "gpt2": {"qkv": "attn.c_attn", "o": "attn.c_proj"},
    "gpt_neox": {"qkv": "query_key_value", "o": "attention.dense"},
    "falcon": {"qkv": "query_key_value", "o": "self_attention.dense"},
    **dict.fromkeys(("bert", "roberta", "xlm-roberta", "electra"), _BERT),
    "deberta-v2": {"q": "query_proj", "k": "key_proj", "v": "value_proj", "o": "attention.output.dense"},
    "modernbert": {"qkv": "attn.Wqkv", "o": "attn.Wo"},
    "mpnet": {"q": "attn.q", "k": "attn.k", "v": "attn.v", "o": "attn.o"},
}


#: where each fine-tuning family keeps its ``fine_tuning`` setting: the path of the section
#: inside the family's config section (NonCompSST's SST-7 training, PLANE's fine-tuning
#: training, PSS's FT settings)
FAMILY_SECTIONS: dict[str, tuple[str, ...]] = {
    "noncompsst": ("training",),
    "plane": ("finetune", "training"),
    "pss": ("fine_tune",),
}


def full_fine_tuning_limit(gpu_memory_gb: float = GPU_MEMORY_GB) -> int:
    """The most parameters ``auto`` fine-tunes in full on a GPU of ``gpu_memory_gb`` GB."""
    return math.floor(gpu_memory_gb * 1e9 * FULL_SHARE_OF_GPU / FULL_BYTES_PER_PARAMETER)


def lora_learning_rate(parameters: int | None) -> float:
    """LoRA's learning rate for a model of ``parameters`` (None: unknown, the smaller
    models' rate): :data:`LORA_LEARNING_RATES`."""
    large = parameters is not None and parameters > LORA_LARGE_PARAMETERS
    return LORA_LEARNING_RATES["above 20B" if large else "up to 20B"]


def format_rate(rate: float) -> str:
    """A learning rate as papers write it: ``2e-4``, ``1.5e-5``."""
    mantissa, exponent = f"{rate:.2e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def _positive_int(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(key, f"{value!r} is not a positive integer")
    return value


@dataclass(frozen=True)
class FineTuning:
    """One family's fine-tuning method and its LoRA settings.

    ``rank`` (r), ``alpha`` (the scale is alpha / r) and ``dropout`` are peft's LoRA
    settings; ``target_modules`` None adapts the attention projections of the model's
    architecture (:data:`ATTENTION_MODULES`), or names module-name suffixes as peft takes
    them. The classification head is always trained in full. ``learning_rate`` is LoRA's
    (None: :func:`lora_learning_rate` of the model's size); full fine-tuning trains at the
    family's own. ``gradient_checkpointing`` recomputes activations in the backward pass (less
    memory, about a third more time): ``auto`` is on where the job's memory needs it
    (:meth:`natcomp.model_description.ModelDescription.resolve`).
    """

    method: str = "auto"
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    target_modules: tuple[str, ...] | None = None
    gradient_checkpointing: bool | str = "auto"
    learning_rate: float | None = None

    @classmethod
    def from_config(cls, section: Mapping | None, key: str) -> FineTuning:
        """Settings from a config mapping (None: the defaults); a one-line :class:`ConfigError`
        naming ``key`` for an unknown setting or a bad value."""
        if section is not None and not isinstance(section, Mapping):
            raise ConfigError(key, f"{section!r}; expected a mapping of fine-tuning settings")
        section = dict(section or {})
        names = [item.name for item in dataclasses.fields(cls)]
        unknown = sorted(set(section) - set(names))
        if unknown:
            raise ConfigError(f"{key}.{unknown[0]}", f"unknown fine-tuning setting; known: {', '.join(names)}")
        if section.get("method", "auto") not in FINE_TUNING_METHODS:
            raise ConfigError(
                f"{key}.method", f"{section['method']!r}; expected one of {', '.join(FINE_TUNING_METHODS)}"
            )
        for name in ("rank", "alpha"):
            if name in section:
                _positive_int(section[name], f"{key}.{name}")
        dropout = section.get("dropout", cls.dropout)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ConfigError(f"{key}.dropout", f"{dropout!r}; expected a number in [0, 1)")
        targets = section.get("target_modules")
        if targets is not None:
            if isinstance(targets, str) or not isinstance(targets, Sequence) or not targets:
                raise ConfigError(f"{key}.target_modules", f"{targets!r}; expected a non-empty list of module names")
            if not all(isinstance(name, str) and name.strip() for name in targets):
                raise ConfigError(f"{key}.target_modules", f"{list(targets)!r}; expected module names")
            section["target_modules"] = tuple(targets)
        checkpointing = section.get("gradient_checkpointing", "auto")
        if checkpointing not in (True, False, "auto"):
            raise ConfigError(f"{key}.gradient_checkpointing", f"{checkpointing!r}; expected true, false or auto")
        rate = section.get("learning_rate")
        if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0):
            raise ConfigError(f"{key}.learning_rate", f"{rate!r}; expected a number above 0, or null")
        return cls(**section)

    def resolved(
        self, parameters: int | None, gpu_memory_gb: float = GPU_MEMORY_GB, *, needs_checkpointing: bool = False
    ) -> FineTuning:
        """``auto`` decided for a model of ``parameters`` (None: unknown, taken as small:
        full; :meth:`natcomp.model_description.ModelDescription.resolve` refuses that where a
        model's config is there but gives no size), LoRA's learning rate filled in
        (:func:`lora_learning_rate`), and ``gradient_checkpointing`` ``auto`` set to
        ``needs_checkpointing`` (whether the job's memory needs it)."""
        method = self.method
        if method == "auto":
            method = "lora" if parameters is not None and parameters > full_fine_tuning_limit(gpu_memory_gb) else "full"
        checkpointing = self.gradient_checkpointing
        if checkpointing == "auto":
            checkpointing = needs_checkpointing
        rate = self.learning_rate
        if method == "lora" and rate is None:
            rate = lora_learning_rate(parameters)
        return dataclasses.replace(self, method=method, gradient_checkpointing=checkpointing, learning_rate=rate)

    def as_config(self) -> dict:
        """The settings as a config mapping (what :meth:`from_config` reads back)."""
        settings = dataclasses.asdict(self)
        if self.target_modules is not None:
            settings["target_modules"] = list(self.target_modules)
        return settings

    def modules(self, model_type: str, key: str = "fine_tuning") -> dict[str, str]:
        """The adapted modules: abstract name -> the suffix peft matches (the names
        themselves when ``target_modules`` names them); a :class:`ConfigError` naming
        ``key`` for an architecture whose projections natcomp does not know."""
        if self.target_modules is not None:
            return {name: name for name in self.target_modules}
        if model_type not in ATTENTION_MODULES:
            raise ConfigError(
                f"{key}.target_modules",
                f"natcomp does not know the attention projections of model type {model_type!r}; "
                "name the modules LoRA adapts (module-name suffixes, as peft takes them)",
            )
        return ATTENTION_MODULES[model_type]

    def describe(self, model_type: str | None = None) -> str:
        """``full`` or, for example, ``LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4`` (with ``,
        gradient checkpointing`` when it is on); ``auto`` undecided reads ``auto``."""
        if self.method == "auto":
            return "auto (full up to {:.1f}B parameters, LoRA above)".format(full_fine_tuning_limit() / 1e9)
        checkpointing = ", gradient checkpointing" if self.gradient_checkpointing is True else ""
        if self.method == "full":
            return f"full{checkpointing}"
        if self.target_modules is not None:
            on = ",".join(self.target_modules)
        elif model_type in ATTENTION_MODULES:
            on = ",".join(ATTENTION_MODULES[model_type])
        else:
            on = "the attention projections"
        rate = f", lr {format_rate(self.learning_rate)}" if self.learning_rate is not None else ""
        return f"LoRA r={self.rank}, alpha={self.alpha} on {on}{rate}{checkpointing}"


def gpu_memory_gb(config: Mapping) -> float:
    """The memory of one GPU in GB that a run of ``config`` (the whole config) names in
    ``gpus.memory_gb``; :data:`GPU_MEMORY_GB` where it names none."""
    return float((config.get("gpus") or {}).get("memory_gb", GPU_MEMORY_GB))


def family_key(family: str) -> str:
    """The dotted config key of ``family``'s ``fine_tuning`` setting (:data:`FAMILY_SECTIONS`)."""
    return ".".join((family, *FAMILY_SECTIONS[family], "fine_tuning"))


def family_setting(config: Mapping, family: str) -> FineTuning:
    """``family``'s ``fine_tuning`` setting in a run of ``config`` (the whole config), as
    written (``auto`` not decided); a bad setting is a one-line :class:`ConfigError`."""
    section: object = config.get(family) or {}
    for part in FAMILY_SECTIONS[family]:
        section = (section.get(part) if isinstance(section, Mapping) else None) or {}
    setting = section.get("fine_tuning") if isinstance(section, Mapping) else None
    return FineTuning.from_config(setting, family_key(family))


@dataclass(frozen=True)
class FamilyTraining:
    """What sizes a family's fine-tuning job: its ``fine_tuning`` setting (as written, ``auto``
    undecided), its ``batch_size`` and the tokens of its longest text (``max_length``)."""

    setting: FineTuning = FineTuning()
    batch_size: int = DEFAULT_BATCH_SIZE
    max_length: int = DEFAULT_MAX_LENGTH

    @property
    def tokens(self) -> int:
        """The most tokens of one training batch."""
        return self.batch_size * self.max_length


def family_training(config: Mapping, family: str) -> FamilyTraining:
    """``family``'s :class:`FamilyTraining` in a run of ``config`` (the whole config): its
    setting (:func:`family_setting`), and the batch size and ``max_length`` of the section
    that holds it (:data:`DEFAULT_BATCH_SIZE`, :data:`DEFAULT_MAX_LENGTH` where it names none)."""
    section: object = config.get(family) or {}
    for part in FAMILY_SECTIONS[family]:
        section = (section.get(part) if isinstance(section, Mapping) else None) or {}
    section = section if isinstance(section, Mapping) else {}

    def size(name: str, default: int) -> int:
        value = section.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default

    return FamilyTraining(
        family_setting(config, family), size("batch_size", DEFAULT_BATCH_SIZE), size("max_length", DEFAULT_MAX_LENGTH)
    )
