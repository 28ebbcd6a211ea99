"""Causal (decoder-only) language models: loading, tiny models, generation and scoring.

* :func:`load_causal_lm` loads a tokenizer and an ``AutoModelForCausalLM`` offline-safely,
  with left padding and a pad token where the model has none.
* :func:`build_tiny_causal_lm` makes a tiny, randomly initialised GPT-2 or Llama with a
  byte-level BPE tokenizer trained on the given texts (optionally with a chat template),
  so tests and the demo go through the real ``from_pretrained`` path without the Hub.
* :class:`CausalGenerator` generates continuations (greedy or beam search through
  transformers' ``generate``, stop strings, per-item token limits) in length-sorted,
  left-padded batches, and scores given continuations (:meth:`CausalGenerator.loglikelihoods`).

See docs/hf.md, "Causal language models".
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from natcomp.hf.models import _load, check_model_available, resolve_model, save_model  # noqa: E402

logger = logging.getLogger(__name__)

#: ``decoding`` values of :class:`GenerationSettings`.
CAUSAL_DECODINGS = ("greedy", "beam")
#: ``precision`` values of :class:`GenerationSettings` (fp16/bf16 only on CUDA).
CAUSAL_PRECISIONS = ("fp32", "fp16", "bf16")
#: ``kind`` values of :func:`build_tiny_causal_lm`.
TINY_CAUSAL_KINDS = ("gpt2", "llama")

# The special tokens of the tiny tokenizers, as in the released models: GPT-2 has one token
# for beginning, end and unknown; Llama has three, and its tokenizer puts BOS first.
_GPT2_SPECIALS = ("<|endoftext|>",)
_LLAMA_SPECIALS = ("<unk>", "<s>", "</s>")

#: The chat template of the tiny instruct models: system/user/assistant turns, each ended by
#: the EOS token (so a trained assistant turn stops there), and the assistant's header for
#: ``add_generation_prompt``.
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + eos_token + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)


# ---------------------------------------------------------------- tiny models


def _byte_level_tokenizer(texts: Sequence[str], vocab_size: int, kind: str):
    """A byte-level BPE tokenizer trained on ``texts`` (every byte is in the alphabet, so no
    text is ever unknown), wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = _GPT2_SPECIALS if kind == "gpt2" else _LLAMA_SPECIALS
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(specials),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(list(texts), trainer=trainer)
    if kind == "gpt2":
        backend.post_processor = processors.ByteLevel(trim_offsets=False)
        return PreTrainedTokenizerFast(
            tokenizer_object=backend, bos_token=specials[0], eos_token=specials[0], unk_token=specials[0]
        )
    bos = backend.token_to_id("<s>")
    backend.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos)]
    )
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<s>", eos_token="</s>", unk_token="<unk>")


def build_tiny_causal_lm(
    directory: str | os.PathLike,
    texts: Sequence[str],
    *,
    kind: str = "gpt2",
    instruct: bool = False,
    vocab_size: int = 1000,
    d_model: int = 64,
    layers: int = 2,
    heads: int = 4,
    max_positions: int = 512,
    seed: int = 1,
) -> Path:
    """Save an untrained tiny ``GPT2LMHeadModel`` or ``LlamaForCausalLM`` with a tokenizer
    trained on ``texts`` to ``directory``; return ``directory``.

    The tokenizer is byte-level BPE with at most ``vocab_size`` tokens; the Llama one puts a
    BOS token before every text like the real Llama tokenizers, GPT-2's does not, and
    neither has a pad token (like the released models: :func:`load_causal_lm` gives one).
    ``instruct=True`` stores :data:`TINY_CHAT_TEMPLATE` as the tokenizer's chat template.
    The weights are initialised from ``seed``: equal arguments give equal models. Saved
    atomically (:func:`natcomp.hf.models.save_model`), loadable offline with
    ``AutoTokenizer`` / ``AutoModelForCausalLM``.
    """
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, set_seed

    if kind not in TINY_CAUSAL_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TINY_CAUSAL_KINDS)}, got {kind!r}")
    if not texts:
        raise ValueError("no texts to train the tokenizer on")
    if d_model % heads:
        raise ValueError(f"d_model ({d_model}) must be a multiple of heads ({heads})")
    tokenizer = _byte_level_tokenizer(texts, vocab_size, kind)
    tokenizer.model_max_length = max_positions
    if instruct:
        tokenizer.chat_template = TINY_CHAT_TEMPLATE
    ids = dict(bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    if kind == "gpt2":
        config = GPT2Config(
            vocab_size=len(tokenizer), n_positions=max_positions, n_embd=d_model, n_layer=layers, n_head=heads, **ids
        )
        model_class = GPT2LMHeadModel
    else:
        config = LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=d_model,
            intermediate_size=4 * d_model,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            max_position_embeddings=max_positions,
            **ids,
        )
        model_class = LlamaForCausalLM
    set_seed(seed)
    model = model_class(config).eval()
    return save_model(model, tokenizer, directory)


# ---------------------------------------------------------------- loading


def _local_or_cached(name_or_path, filename: str) -> Path | None:
    """The file ``filename`` of a model folder or of a Hub model in the local cache, or None."""
    folder = Path(str(name_or_path)).expanduser()
    if folder.is_dir():
        path = folder / filename
        return path if path.is_file() else None
    from huggingface_hub import try_to_load_from_cache

    source = resolve_model(name_or_path)
    if Path(source).is_dir():
        return _local_or_cached(source, filename)
    try:
        cached = try_to_load_from_cache(source, filename)
    except ValueError:  # not a Hub id either (huggingface_hub's HFValidationError)
        return None
    return Path(cached) if isinstance(cached, str) else None


def has_chat_template(name_or_path: str | os.PathLike) -> bool:
    """Whether a model's tokenizer has a chat template (an instruct model), read from its
    files (``chat_template.jinja``, ``chat_template.json`` or the ``chat_template`` of
    ``tokenizer_config.json``) without loading it; a Hub model is looked up in the cache only."""
    if _local_or_cached(name_or_path, "chat_template.jinja") is not None:
        return True
    for filename in ("chat_template.json", "tokenizer_config.json"):
        path = _local_or_cached(name_or_path, filename)
        if path is None:
            continue
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("chat_template"):
                return True
        except (OSError, ValueError, AttributeError):
            continue
    return False


def causal_lm_problem(config) -> str | None:
    """Why a model config is not a causal language model natcomp can load, or None.

    A causal LM has a model type in transformers' causal-LM mapping, is not an
    encoder-decoder, and its checkpoint's architecture (when it names one) is a causal-LM
    head (``...ForCausalLM``, or the mapping's class such as ``GPT2LMHeadModel``): a BERT
    saved as ``BertForMaskedLM`` has a causal-LM class in the mapping but is no causal LM.
    """
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    model_type = getattr(config, "model_type", None)
    if getattr(config, "is_encoder_decoder", False):
        return f"it is an encoder-decoder model ({model_type}), not a decoder-only causal LM"
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return f"its model type '{model_type}' has no causal language model in transformers"
    architectures = list(getattr(config, "architectures", None) or [])
    causal = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type]
    if architectures and not any(name == causal or name.endswith("ForCausalLM") for name in architectures):
        return f"its checkpoint is a {', '.join(architectures)}, not a causal LM (expected {causal})"
    return None


def load_causal_lm(name_or_path: str | os.PathLike, key: str = "model"):
    """``(tokenizer, model)`` of a causal language model (``AutoTokenizer``,
    ``AutoModelForCausalLM``), offline-safe like every loader of :mod:`natcomp.hf.models`.

    The tokenizer pads on the left (a batch's prompts end where generation starts); a model
    without a pad token gets its EOS token (else its UNK token) as pad token, in the
    tokenizer and the generation config (the attention mask keeps it out of every
    computation). The model is in eval mode. A model that is not a causal LM
    (:func:`causal_lm_problem`) is a :class:`ConfigError` naming ``key``.
    """
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    check_model_available(name_or_path, key)
    config = _load(AutoConfig, "config", name_or_path, key)
    problem = causal_lm_problem(config)
    if problem is not None:
        raise ConfigError(key, f"'{name_or_path}' is not a causal language model: {problem}")
    tokenizer = _load(AutoTokenizer, "tokenizer", name_or_path, key)
    model = _load(AutoModelForCausalLM, "causal language model", name_or_path, key).eval()
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        fallback = tokenizer.eos_token if tokenizer.eos_token is not None else tokenizer.unk_token
        if fallback is None:
            raise ConfigError(key, f"'{name_or_path}' has neither a pad, an EOS nor an unknown token to pad with")
        tokenizer.pad_token = fallback
    if model.generation_config.pad_token_id is None:
        model.generation_config.pad_token_id = tokenizer.pad_token_id
    if getattr(model.config, "pad_token_id", None) is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return tokenizer, model
