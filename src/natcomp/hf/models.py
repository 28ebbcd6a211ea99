"""Finding, loading, saving and building Hugging Face models without surprises.

Every loader resolves the model first (:func:`resolve_model`) and checks that it can be
loaded without a network call that is bound to fail (:func:`check_model_available`), so a
missing model stops a job with one line naming the config key, before any work is done.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from natcomp.adapters import Adapter, read_adapter
from natcomp.errors import ConfigError
from natcomp.hf.kinds import is_decoder_only
from natcomp.hf.placement import load_placement
from natcomp.hf.precision import TORCH_DTYPES
from natcomp.shipped import SHIPPED_MODELS, shipped_model_ids, shipped_model_path

logger = logging.getLogger(__name__)

#: The special tokens of the tiny BERT vocabularies, in BERT's order ([PAD] is id 0).
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

#: ``kind`` values of :func:`build_tiny_model`.
TINY_MODEL_KINDS = ("base", "masked_lm", "sequence_classification")

_TRUE = {"1", "on", "yes", "true"}
# A Hub repository id: "name" or "owner/name" (letters, digits, "-", "_", ".").
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


def device(prefer: str = "auto", key: str = "device") -> torch.device:
    """The torch device to run on.

    ``"auto"`` is CUDA when torch sees a GPU, else the CPU; ``"cpu"``, ``"cuda"`` and
    ``"cuda:N"`` are taken as they are, and asking for CUDA where torch sees none is a
    :class:`ConfigError` naming ``key``.
    """
    choice = prefer.strip().lower()
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cpu":
        return torch.device("cpu")
    if re.fullmatch(r"cuda(:\d+)?", choice):
        if not torch.cuda.is_available():
            raise ConfigError(key, f"'{prefer}' was asked for but torch sees no CUDA GPU; use 'auto' or 'cpu'")
        index = int(choice.split(":")[1]) if ":" in choice else 0
        if index >= torch.cuda.device_count():
            raise ConfigError(key, f"'{prefer}' was asked for but torch sees {torch.cuda.device_count()} GPU(s)")
        return torch.device(choice)
    raise ConfigError(key, f"'{prefer}' is not a device; expected 'auto', 'cpu', 'cuda' or 'cuda:N'")


def set_threads(threads: int) -> None:
    """Let torch use ``threads`` CPU threads (a rule's ``threads:``) for its operations.

    torch otherwise takes every core, and several jobs that each do so on a small machine
    spend most of their time waiting for one another; for the tiny demo models one
    thread is also the fastest choice.
    """
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    torch.set_num_threads(threads)


# ---------------------------------------------------------------- shipped models


def offline_model_routes(name: str) -> str:
    """How to make a model that is not found available offline (the end of a not-found error)."""
    return (
        f"natcomp ships {shipped_model_ids()}; for another model, either save it where there is network "
        "(`model.save_pretrained(DIR)` and `tokenizer.save_pretrained(DIR)`) and give that folder, or put it "
        f"in the Hugging Face cache (`hf download {name}`, HF_HOME) and give its Hub id"
    )


# ---------------------------------------------------------------- resolving and checking


def resolve_model(name_or_path: str | os.PathLike) -> str:
    """Where to load a model from: a local directory as it is, a shipped model's folder,
    else the name unchanged (a Hub id, loaded through the Hugging Face cache)."""
    text = str(name_or_path)
    if Path(text).expanduser().is_dir():
        return str(Path(text).expanduser())
    if text in SHIPPED_MODELS:
        return str(shipped_model_path(text))
    return text


def hub_offline() -> bool:
    """Whether Hub access is switched off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE``).

    Read from the environment at call time, and also from huggingface_hub's own setting
    (which it reads once at import).
    """
    from huggingface_hub import constants

    from_environment = any(
        os.environ.get(name, "").strip().lower() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )
    return from_environment or bool(constants.HF_HUB_OFFLINE)


def _looks_like_path(text: str) -> bool:
    return text.startswith(("/", ".", "~")) or not _HUB_ID.match(text)


def check_model_available(name_or_path: str | os.PathLike, key: str) -> str:
    """Check that a model can be loaded, before any work is done; return where it loads from.

    Accepted: a local directory with ``config.json``; an adapter folder (``adapter_config.json``)
    whose base is found (:func:`natcomp.adapters.read_adapter`); a shipped model (:data:`SHIPPED_MODELS`)
    whose package is installed; a Hub id whose ``config.json`` is in the local Hugging Face
    cache. A Hub id that is not cached is accepted only when Hub access is on and the Hub
    answers that the model exists (one metadata request; none when ``HF_HUB_OFFLINE=1``).
    Everything else raises :class:`ConfigError` naming ``key``, the model and what to do.
    """
    text = str(name_or_path)
    local = Path(text).expanduser()
    if read_adapter(text, key) is not None:  # an adapter folder whose base is found (natcomp.adapters)
        return str(local)
    if local.is_dir():
        if not (local / "config.json").is_file():
            raise ConfigError(key, f"model directory {text} has no config.json; expected a save_pretrained() folder")
        return str(local)
    if text in SHIPPED_MODELS:
        return str(shipped_model_path(text, key))
    if local.exists():
        raise ConfigError(key, f"model {text} is a file; expected a model directory or a Hugging Face Hub id")
    if _looks_like_path(text):
        raise ConfigError(
            key,
            f"model directory {text} does not exist (and '{text}' is not a Hugging Face Hub id); "
            + offline_model_routes("ID"),
        )

    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(text, "config.json")
    if isinstance(cached, str):
        return text
    hint = offline_model_routes(text)
    if hub_offline():
        raise ConfigError(
            key,
            f"model '{text}' is neither a local directory nor in the local Hugging Face cache, "
            f"and offline mode (HF_HUB_OFFLINE=1) forbids downloading it: {hint}; or, where the Hub can be "
            "reached, set HF_HUB_OFFLINE=0 to let transformers download it",
        )
    return _check_on_hub(text, key, hint)


def _check_on_hub(repo_id: str, key: str, hint: str) -> str:
    from huggingface_hub import file_exists
    from huggingface_hub.errors import GatedRepoError

    try:
        exists = file_exists(repo_id, "config.json")
    except GatedRepoError:
        raise ConfigError(
            key, f"model '{repo_id}' is gated on the Hub: accept its terms and log in (`hf auth login`)"
        ) from None
    except Exception as error:  # any transport failure means the Hub cannot be reached
        raise ConfigError(
            key, f"model '{repo_id}' is not cached and the Hugging Face Hub cannot be reached ({error}): {hint}"
        ) from None
    if not exists:
        raise ConfigError(
            key, f"model '{repo_id}' does not exist on the Hugging Face Hub (or has no config.json); {hint}"
        )
    return repo_id


# ---------------------------------------------------------------- loading


def _load(loader, what: str, name_or_path, key: str, *, dtype: str | None = None, adapter: bool = True, **kwargs):
    """``loader.from_pretrained`` offline-safely; a model loader gives ``dtype`` (a name of
    :data:`natcomp.hf.precision.TORCH_DTYPES`), so no checkpoint's own dtype is taken
    unasked (:mod:`natcomp.hf.precision`), and a model that does not fit one of the job's
    GPUs is spread over them (:func:`natcomp.hf.placement.load_placement`). An adapter folder
    loads its base with the adapter merged (:func:`_load_adapted`; ``adapter=False``: the
    folder's own files)."""
    if adapter and (found := read_adapter(name_or_path, key)) is not None:
        return _load_adapted(loader, what, found, key, dtype=dtype, **kwargs)
    source = check_model_available(name_or_path, key)
    local_only = Path(source).is_dir() or hub_offline()
    if dtype is not None:
        kwargs["dtype"] = TORCH_DTYPES[dtype]
        kwargs.update(load_placement(source, dtype, key))
    try:
        return loader.from_pretrained(source, local_files_only=local_only, **kwargs)
    except (OSError, ValueError, KeyError, RuntimeError, TypeError, ImportError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ConfigError(key, f"cannot load the {what} of '{name_or_path}' from {source}: {first_line}") from error


def load_tokenizer(name_or_path: str | os.PathLike, key: str = "model"):
    """The tokenizer of a model (``AutoTokenizer``; a fast one where the model has it); one
    without a pad token (GPT-2, Llama) pads with its EOS token (:func:`ensure_pad_token`)."""
    from transformers import AutoTokenizer

    return ensure_pad_token(_load(AutoTokenizer, "tokenizer", name_or_path, key), name_or_path, key)


def ensure_pad_token(tokenizer, name_or_path: str | os.PathLike, key: str = "model"):
    """``tokenizer`` with a pad token: its own, else its EOS token, else its UNK token (the
    attention mask keeps padding out of every computation, so which token pads does not
    matter). A tokenizer with none of them is a :class:`ConfigError` naming ``key``."""
    if tokenizer.pad_token is None:
        fallback = tokenizer.eos_token if tokenizer.eos_token is not None else tokenizer.unk_token
        if fallback is None:
            raise ConfigError(key, f"'{name_or_path}' has neither a pad, an EOS nor an unknown token to pad with")
        tokenizer.pad_token = fallback
    return tokenizer


def load_config(name_or_path: str | os.PathLike, key: str = "model"):
    """The config of a model (``AutoConfig``): no weights are read."""
    from transformers import AutoConfig

    return _load(AutoConfig, "config", name_or_path, key)


def run_dtype(
    name_or_path: str | os.PathLike,
    requested: str,
    run_device: torch.device,
    key: str = "model",
    dtype_key: str = "dtype",
) -> str:
    """The dtype the model runs inference in on ``run_device`` for the ``requested`` one
    (the config's top-level ``dtype``, ``dtype_key`` in errors:
    :func:`natcomp.hf.precision.inference_dtype`), its checkpoint's dtype read from its
    config (no weights are read)."""
    from natcomp.hf.precision import checkpoint_dtype, inference_dtype

    return inference_dtype(requested, run_device, checkpoint_dtype(load_config(name_or_path, key)), dtype_key)


def training_load_dtype(
    name_or_path: str | os.PathLike, fine_tuning, run_device: torch.device, key: str = "model"
) -> str:
    """The dtype the model at ``name_or_path`` is loaded in to be fine-tuned with
    ``fine_tuning`` (resolved) on ``run_device``: :func:`natcomp.hf.precision.training_dtype`
    of its checkpoint's dtype, read from its config (no weights are read)."""
    from natcomp.hf.precision import checkpoint_dtype, training_dtype

    return training_dtype(fine_tuning, run_device, checkpoint_dtype(load_config(name_or_path, key)))


def load_encoder(name_or_path: str | os.PathLike, key: str = "model", dtype: str = "fp32"):
    """The bare encoder of a model (``AutoModel``) with its weights in ``dtype`` (fp32 for
    training; :func:`natcomp.hf.precision.inference_dtype` for inference), in eval mode."""
    from transformers import AutoModel

    return _load(AutoModel, "encoder", name_or_path, key, dtype=dtype).eval()


def load_masked_lm(name_or_path: str | os.PathLike, key: str = "model", dtype: str = "fp32"):
    """A masked language model (``AutoModelForMaskedLM``) in ``dtype``, in eval mode."""
    from transformers import AutoModelForMaskedLM

    return _load(AutoModelForMaskedLM, "masked language model", name_or_path, key, dtype=dtype).eval()


def load_sequence_classifier(
    name_or_path: str | os.PathLike,
    num_labels: int | None = None,
    *,
    id2label: Mapping[int, str] | None = None,
    seed: int | None = None,
    key: str = "model",
    dtype: str = "fp32",
):
    """A sequence classifier (``AutoModelForSequenceClassification``) in ``dtype`` (fp32,
    the default, for training), in eval mode.

    With ``num_labels`` (or ``id2label``) of a size different from the checkpoint's, the
    head's weights whose shapes change are re-initialised at random
    (``ignore_mismatched_sizes``): a one-layer head (BERT's) is wholly new, but a two-layer
    head (RoBERTa's ``classifier.dense`` + ``out_proj``) keeps its trained first layer (a
    caller that needs a wholly fresh head builds its own, as the NonCompSST family
    does); a checkpoint without a head (a bare encoder) gets a new head. ``seed`` seeds
    that initialisation (``transformers.set_seed``), so the same seed gives the same new
    head. ``id2label`` names the labels of a new head; for a
    checkpoint whose head is kept it may only name labels the checkpoint left unnamed
    (``LABEL_0`` ...): renaming a trained head's labels would silently relabel its outputs.
    """
    from transformers import AutoModelForSequenceClassification, set_seed

    if id2label is not None:
        id2label = {int(index): str(label) for index, label in id2label.items()}
        if sorted(id2label) != list(range(len(id2label))):
            raise ConfigError(key, f"id2label keys must be 0..n-1, got {sorted(id2label)}")
        if num_labels is not None and num_labels != len(id2label):
            raise ConfigError(key, f"num_labels={num_labels} but id2label has {len(id2label)} labels")
        num_labels = len(id2label)
    if num_labels is not None and num_labels < 1:
        raise ConfigError(key, f"num_labels must be at least 1, got {num_labels}")
    config = load_config(name_or_path, key)
    kwargs = {}
    if num_labels is not None and num_labels != config.num_labels:
        kwargs["ignore_mismatched_sizes"] = True
        if id2label is None:
            kwargs["num_labels"] = num_labels
    elif id2label is not None:
        checkpoint_labels = {int(index): label for index, label in config.id2label.items()}
        unnamed = all(label == f"LABEL_{index}" for index, label in checkpoint_labels.items())
        if checkpoint_labels != id2label and not unnamed:
            raise ConfigError(
                key,
                f"the classifier '{name_or_path}' was trained with labels {checkpoint_labels}; "
                f"id2label {id2label} would rename them (give labels in the checkpoint's order)",
            )
    if id2label is not None:
        kwargs.update(id2label=id2label, label2id={label: index for index, label in id2label.items()})
    if seed is not None:
        set_seed(seed)
    model = _load(
        AutoModelForSequenceClassification, "sequence classifier", name_or_path, key, dtype=dtype, **kwargs
    ).eval()
    if is_decoder_only(model):
        # transformers' head of a decoder-only model classifies from the last token that is not
        # the config's pad token (of its text config): it must be the id the tokenizer pads
        # with, or a right-padded row is read at a padding position (none found: the last column)
        text = model.config.get_text_config()
        pad = load_tokenizer(name_or_path, key).pad_token_id
        if text.pad_token_id != pad:
            if text.pad_token_id is not None:
                logger.info(
                    "%s: the config's pad id %s is not its tokenizer's (%s): %s",
                    name_or_path,
                    text.pad_token_id,
                    pad,
                    pad,
                )
            text.pad_token_id = pad
    return model


# ---------------------------------------------------------------- adapters (issue 43.3)


def _load_adapted(loader, what: str, adapter: Adapter, key: str, *, dtype: str | None = None, **kwargs):
    """What ``loader`` loads of an adapter folder: a config is its base's; a tokenizer the
    adapter folder's where it has one (:attr:`Adapter.tokenizer_location`), else the base's;
    a model is the base loaded by the same loader in the same ``dtype`` with the adapter
    applied and merged (:func:`apply_adapter`), a plain transformers model."""
    from transformers import AutoConfig, AutoTokenizer, PretrainedConfig, PreTrainedTokenizerBase

    def is_a(kind) -> bool:
        return isinstance(loader, type) and issubclass(loader, kind)

    if loader is AutoConfig or is_a(PretrainedConfig):
        return _load(loader, what, adapter.base_location, key, **kwargs)
    if loader is AutoTokenizer or is_a(PreTrainedTokenizerBase):
        return _load(loader, what, adapter.tokenizer_location, key, adapter=False, **kwargs)
    return apply_adapter(_load(loader, what, adapter.base_location, key, dtype=dtype, **kwargs), adapter, key)


def _adapter_key_mappings(model) -> list[dict[str, str]]:
    """peft ``key_mapping`` s to try, in turn, on an adapter's weights (their keys without
    peft's ``base_model.model.``): as they are (the model's own checkpoint conversion), then
    without the base's prefix (an adapter trained on ``LlamaForCausalLM``, ``model.layers...``,
    applied to a bare ``LlamaModel``, ``layers...``: PSS and TRE load the bare model) or
    with it (the other way round)."""
    mappings = [dict(getattr(model, "_checkpoint_conversion_mapping", None) or {})]
    prefix = getattr(model, "base_model_prefix", "")
    if prefix:
        if isinstance(getattr(model, prefix, None), torch.nn.Module):  # a model with a head around its base
            mappings.append({rf"^(?!{re.escape(prefix)}\.)": f"{prefix}."})
        else:
            mappings.append({rf"^{re.escape(prefix)}\.": ""})
    return mappings


def apply_adapter(model, adapter: Adapter, key: str = "model"):
    """``model`` (the adapter's base, as a family loads it) with the peft adapter of
    ``adapter`` applied and merged into its weights (``merge_and_unload``): a plain
    transformers model of the same class, which inference and fine-tuning take as any model
    (a LoRA fine-tuning on top adds a fresh adapter of its own): its weights are trainable
    as the base's were before peft froze them. Every weight of the
    adapter that fits a module of ``model`` must be found in the adapter's file: one that is
    not (the keys fit none of :func:`_adapter_key_mappings`) is a :class:`ConfigError`
    naming ``key``, never a silently unapplied adapter."""
    from peft import PeftConfig, PeftModel

    trainable = {name: parameter.requires_grad for name, parameter in model.named_parameters()}

    def failed(doing: str, error: BaseException) -> ConfigError:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return ConfigError(
            key, f"cannot {doing} adapter {adapter.folder} to its base {adapter.base_location}: {first_line}"
        )

    try:
        settings = PeftConfig.from_pretrained(str(adapter.folder))
        settings.inference_mode = True
        adapted = PeftModel(model, settings)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RuntimeError) as error:
        raise failed("apply the", error) from error
    missing: list[str] = []
    for mapping in _adapter_key_mappings(model):
        try:
            result = adapted.load_adapter(
                str(adapter.folder), "default", torch_device="cpu", key_mapping=mapping or None
            )
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            raise failed("load the weights of the", error) from error
        missing = list(result.missing_keys)
        if not missing:
            merged = adapted.merge_and_unload()
            for name, parameter in merged.named_parameters():  # peft froze the base: as loaded again
                parameter.requires_grad_(trainable.get(name, True))
            return merged
    raise ConfigError(
        key,
        f"the weights of adapter {adapter.folder} do not fit the modules of its base {adapter.base_location} loaded as "
        f"{type(model).__name__}: {len(missing)} adapter weight(s) not in its file, e.g. {missing[0]}; "
        "expected an adapter trained on this base",
    )


# ---------------------------------------------------------------- saving and building


def save_model(model, tokenizer, directory: str | os.PathLike) -> Path:
    """``save_pretrained`` the model and its tokenizer (``None``: model only) atomically.

    Both are written to a temporary folder next to ``directory`` that is renamed to
    ``directory`` only when everything was written; an existing ``directory`` is replaced.
    A failure (or a killed job) leaves no ``directory`` and no temporary folder behind
    (a killed job may leave a hidden ``.NAME.*.part`` folder, never ``directory`` itself).
    """
    target = Path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent))
    try:
        model.save_pretrained(staging)
        if tokenizer is not None:
            tokenizer.save_pretrained(staging)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / target.name)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def words_for_vocabulary(texts: Sequence[str]) -> list[str]:
    """The words and punctuation marks BERT's basic (pre-WordPiece) tokenizer finds in
    ``texts``, lower-cased, sorted, deduplicated: a vocabulary for :func:`build_tiny_model`
    under which no word of ``texts`` becomes [UNK]."""
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    normalizer, pre_tokenizer = BertNormalizer(lowercase=True), BertPreTokenizer()
    words = set()
    for text in texts:
        words.update(piece for piece, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)))
    return sorted(words)


def build_tiny_model(
    directory: str | os.PathLike,
    vocabulary: Sequence[str],
    *,
    kind: str = "base",
    num_labels: int = 2,
    hidden_size: int = 32,
    layers: int = 2,
    heads: int = 2,
    seed: int = 0,
    id2label: Mapping[int, str] | None = None,
    max_length: int = 128,
) -> Path:
    """Build, randomly initialise (seeded) and save a tiny BERT with a whole-word vocabulary.

    The WordPiece vocabulary is [PAD] [UNK] [CLS] [SEP] [MASK] followed by ``vocabulary``
    lower-cased, deduplicated and sorted (so the same words give the same ids); the
    tokenizer lower-cases, so every listed word is one token and anything else is [UNK].
    BERT's tokenizer splits punctuation off words: list punctuation marks too
    (:func:`words_for_vocabulary` does). ``kind`` is ``"base"`` (``BertModel``),
    ``"masked_lm"`` (``BertForMaskedLM``) or ``"sequence_classification"``
    (``BertForSequenceClassification`` with ``num_labels``, or ``id2label``'s labels).
    Saved with :func:`save_model`; returns ``directory``. Equal arguments give equal weights.
    """
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        BertForSequenceClassification,
        BertModel,
        BertTokenizer,
        set_seed,
    )

    classes = {
        "base": BertModel,
        "masked_lm": BertForMaskedLM,
        "sequence_classification": BertForSequenceClassification,
    }
    if kind not in classes:
        raise ValueError(f"kind must be one of {', '.join(TINY_MODEL_KINDS)}, got {kind!r}")
    words = sorted({word.lower() for word in vocabulary} - {token.lower() for token in SPECIAL_TOKENS})
    bad = [word for word in words if not word or any(ch.isspace() for ch in word)]
    if bad:
        raise ValueError(f"vocabulary entries must be single non-empty words, got {bad[:5]!r}")
    tokens = list(SPECIAL_TOKENS) + words
    tokenizer = BertTokenizer(vocab={token: index for index, token in enumerate(tokens)}, do_lower_case=True)
    tokenizer.model_max_length = max_length

    labels = {}
    if kind == "sequence_classification":
        if id2label is not None:
            id2label = {int(index): str(label) for index, label in id2label.items()}
            if sorted(id2label) != list(range(len(id2label))):
                raise ValueError(f"id2label keys must be 0..n-1, got {sorted(id2label)}")
            num_labels = len(id2label)
        else:
            id2label = {index: f"LABEL_{index}" for index in range(num_labels)}
        labels = {"id2label": id2label, "label2id": {label: index for index, label in id2label.items()}}
    config = BertConfig(
        vocab_size=len(tokens),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden_size,
        max_position_embeddings=max_length,
        pad_token_id=0,
        **labels,
    )
    set_seed(seed)
    model = classes[kind](config).eval()
    return save_model(model, tokenizer, directory)
