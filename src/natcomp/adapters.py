"""Adapters as models (issue 43.3): a peft adapter folder wherever natcomp takes a model.

A folder with ``adapter_config.json`` (what peft's ``save_pretrained`` writes: the adapter's
weights and settings, no model) is an *adapter*: natcomp loads the base model it names and
applies it (:mod:`natcomp.hf.models`, merged into the base's weights). This module reads
such a folder and finds its base without torch, transformers or peft, so ``natcomp
evaluate`` can refuse a bad adapter before any job and Snakemake can size a job from the
base's ``config.json`` (:mod:`natcomp.jobsize`). Decisions (docs/design/hf.md, "Adapters as models"):

- the base is ``base_model_name_or_path`` of ``adapter_config.json``, found as natcomp
  finds any model, and nothing is downloaded: a folder with ``config.json`` (a relative path
  as peft wrote it, relative to the folder its training ran in; else relative to the
  adapter folder, where a base kept beside its adapters stays found when both move), a
  shipped model (:data:`natcomp.shipped.SHIPPED_MODELS`) or a Hub id in the local Hugging
  Face cache. A base that cannot be found, or is itself an adapter, is a one-line
  :class:`~natcomp.errors.ConfigError` naming the key, the adapter, the base and what to do;
- the base's ``config.json`` (and ``generation_config.json``) is the adapter's; its
  tokenizer is the adapter folder's when that has tokenizer files (an adapter trained with
  added tokens saves them), else the base's (:func:`file_location`);
- adapters that add prompts or prefixes instead of weights (prompt, prefix and p-tuning,
  Llama-Adapter's adaption prompt) cannot be merged into the base and are refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import ConfigError

__all__ = ["ADAPTER_CONFIG", "Adapter", "check_base_found_anywhere", "file_location", "is_adapter", "read_adapter"]

#: the file that makes a folder an adapter (peft's ``save_pretrained``)
ADAPTER_CONFIG = "adapter_config.json"
#: files read from the base even where an adapter folder has a copy (the model, not its tokenizer)
BASE_FILES = ("config.json", "generation_config.json")
#: files that make an adapter folder its model's tokenizer folder too
TOKENIZER_FILES = ("tokenizer_config.json", "tokenizer.json")
#: peft types that add prompts or prefixes rather than weights: nothing to merge into the base
UNMERGEABLE = (
    "PROMPT_TUNING",
    "MULTITASK_PROMPT_TUNING",
    "P_TUNING",
    "PREFIX_TUNING",
    "ADAPTION_PROMPT",
    "CPT",
    "XLORA",
)
#: peft types by the name the plan and the profile give them
_METHODS = {"LORA": "LoRA", "LOHA": "LoHa", "LOKR": "LoKr", "ADALORA": "AdaLoRA", "IA3": "IA3", "VERA": "VeRA"}


@dataclass(frozen=True)
class Adapter:
    """A peft adapter folder and the base model it names."""

    folder: Path
    #: ``base_model_name_or_path`` as ``adapter_config.json`` has it
    base: str
    #: where the base is found: a folder (absolute), a shipped model's name or a cached Hub id
    base_location: str
    #: how it was found: ``folder`` (an absolute path), ``current folder`` (relative, as
    #: given), ``adapter folder`` (relative to the adapter folder), ``shipped`` or ``cache``
    found: str
    peft_type: str
    r: int | None = None
    alpha: float | None = None
    target_modules: tuple[str, ...] | str | None = None
    dora: bool = False

    @property
    def has_tokenizer(self) -> bool:
        return any((self.folder / name).is_file() for name in TOKENIZER_FILES)

    @property
    def tokenizer_location(self) -> str:
        """Where the tokenizer loads from: the adapter folder when it has one, else the base."""
        return str(self.folder) if self.has_tokenizer else self.base_location

    def describe(self) -> str:
        """The method in a few words: ``LoRA r=8 alpha=16 on q_proj,v_proj``."""
        method = "DoRA" if self.dora else _METHODS.get(self.peft_type, self.peft_type)
        if self.r is not None:
            method += f" r={self.r}"
        if self.alpha is not None:
            method += f" alpha={self.alpha:g}"
        if isinstance(self.target_modules, str):
            return f"{method} on modules matching {self.target_modules!r}"
        if self.target_modules:
            return f"{method} on {','.join(self.target_modules)}"
        return method


def is_adapter(name_or_path: str | os.PathLike) -> bool:
    """Whether ``name_or_path`` is a folder with ``adapter_config.json``."""
    return (Path(str(name_or_path)).expanduser() / ADAPTER_CONFIG).is_file()


def read_adapter(name_or_path: str | os.PathLike, key: str = "model") -> Adapter | None:
    """The adapter of an adapter folder with its base found (:class:`Adapter`); None for
    anything else (a model folder, a shipped model, a Hub id). A bad ``adapter_config.json``,
    a method that cannot be merged, and a base that cannot be found or is an adapter itself
    are a :class:`ConfigError` naming ``key``."""
    if not is_adapter(name_or_path):
        return None
    folder = Path(str(name_or_path)).expanduser()
    path = folder / ADAPTER_CONFIG
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(key, f"cannot read {path}: {error}; expected peft's adapter_config.json") from None
    if not isinstance(settings, dict):
        raise ConfigError(key, f"{path} is not a JSON object; expected peft's adapter_config.json")
    peft_type = str(settings.get("peft_type") or "").upper()
    if not peft_type:
        raise ConfigError(key, f"{path} has no peft_type; expected peft's adapter_config.json (LoRA: peft_type LORA)")
    if peft_type in UNMERGEABLE:
        raise ConfigError(
            key,
            f"adapter {folder} is {peft_type}, which adds prompts rather than weights and cannot be merged into its "
            "base; natcomp takes adapters that change weights (LoRA, DoRA, LoHa, LoKr, IA3, ...)",
        )
    base = settings.get("base_model_name_or_path")
    if not isinstance(base, str) or not base.strip():
        raise ConfigError(
            key,
            f"adapter {folder} names no base model (base_model_name_or_path in {ADAPTER_CONFIG}); write the base's "
            "folder, shipped model or Hub id there",
        )
    location, found = _find_base(base.strip(), folder, key)
    targets = settings.get("target_modules")
    if isinstance(targets, list):
        targets = tuple(sorted(str(name) for name in targets))
    elif not isinstance(targets, str):
        targets = None
    rank, alpha = settings.get("r"), settings.get("lora_alpha")
    return Adapter(
        folder=folder,
        base=base.strip(),
        base_location=location,
        found=found,
        peft_type=peft_type,
        r=rank if isinstance(rank, int) and not isinstance(rank, bool) else None,
        alpha=alpha if isinstance(alpha, (int, float)) and not isinstance(alpha, bool) else None,
        target_modules=targets,
        dora=bool(settings.get("use_dora")),
    )


def _find_base(base: str, folder: Path, key: str) -> tuple[str, str]:
    """``(location, how found)`` of an adapter's base (see :class:`Adapter`); a
    :class:`ConfigError` naming ``key``, the adapter and the base when there is none."""
    from natcomp.shipped import SHIPPED_MODELS, shipped_model_path

    path = Path(base).expanduser()
    candidates = (
        [(path, "folder")] if path.is_absolute() else [(path, "current folder"), (folder / path, "adapter folder")]
    )
    for candidate, found in candidates:
        if (candidate / ADAPTER_CONFIG).is_file():
            raise ConfigError(
                key,
                f"adapter {folder} names as its base {candidate}, which is itself an adapter; natcomp applies one "
                "adapter to a model: merge the first into its base (peft's merge_and_unload, then save_pretrained) "
                "and name that folder",
            )
        if (candidate / "config.json").is_file():
            return str(candidate.resolve()), found
    if base in SHIPPED_MODELS:
        try:
            shipped_model_path(base, key)
        except ConfigError as error:
            raise ConfigError(key, f"adapter {folder}'s base: {error.message}") from None
        return base, "shipped"
    if _cached(base):
        return base, "cache"
    from natcomp.shipped import shipped_model_ids

    remedy = "write the base's folder there"
    if not (path.is_absolute() or base.startswith((".", "~"))):  # it may be a Hub id
        remedy += f", or put the base in the cache (`hf download {base}`, HF_HOME)"
    raise ConfigError(
        key,
        f"adapter {folder} names the base model '{base}' (base_model_name_or_path in {ADAPTER_CONFIG}), which is "
        f"neither a model folder (as given, or relative to the adapter folder), a shipped model ({shipped_model_ids()}) "
        f"nor a Hub id in the local Hugging Face cache, and natcomp downloads no base; {remedy}",
    )


def check_base_found_anywhere(adapter: Adapter, key: str = "model") -> None:
    """A :class:`ConfigError` naming ``key`` for an adapter whose base was found only from
    the current folder (a relative path, as peft wrote it, that is not also relative to the
    adapter folder): the workflow's jobs run in the run folder, where it is not found."""
    if adapter.found != "current folder":
        return
    beside = adapter.folder / adapter.base
    if (beside / "config.json").is_file() and beside.resolve() == Path(adapter.base_location):
        return
    raise ConfigError(
        key,
        f"adapter {adapter.folder} names its base '{adapter.base}', a path relative to the current folder, and the "
        "workflow's jobs run in the run folder, where it is not found; write the base's absolute path (or one "
        f"relative to the adapter folder) as base_model_name_or_path in {adapter.folder / ADAPTER_CONFIG}",
    )


def _cached(repo_id: str) -> bool:
    """Whether a Hub id's ``config.json`` is in the local Hugging Face cache (no request)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(repo_id, "config.json"), str)
    except ValueError:  # not a Hub id (huggingface_hub's HFValidationError)
        return False


def file_location(name_or_path: str | os.PathLike, filename: str) -> str:
    """Where a model's file ``filename`` is read from: ``name_or_path`` itself, but for an
    adapter folder its base's location for the model's files (:data:`BASE_FILES`) and for
    the tokenizer's files where the adapter folder has no tokenizer. An adapter whose base
    cannot be found gives the adapter folder (its file is then missing, not an error)."""
    try:
        adapter = read_adapter(name_or_path)
    except ConfigError:
        return str(name_or_path)
    if adapter is None:
        return str(name_or_path)
    if filename in BASE_FILES:
        return adapter.base_location
    return adapter.tokenizer_location
