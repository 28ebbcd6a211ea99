"""Causal (decoder-only) language models: loading, tiny models, generation and scoring.

* :func:`load_causal_lm` loads a tokenizer and an ``AutoModelForCausalLM`` offline-safely,
  with left padding and a pad token where the model has none.
* :func:`build_tiny_causal_lm` makes a tiny, randomly initialised GPT-2 or Llama with a
  byte-level BPE tokenizer trained on the given texts (optionally with a chat template),
  so tests and the demo go through the real ``from_pretrained`` path without the Hub.
* :class:`CausalGenerator` generates continuations (greedy or beam search through
  transformers' ``generate``, stop strings, per-item token limits) in length-sorted,
  left-padded batches, and scores given continuations (:meth:`CausalGenerator.loglikelihoods`).

See docs/design/hf.md, "Causal language models".
"""

from __future__ import annotations

import copy
import json
import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from natcomp.errors import ConfigError
from natcomp.hf.kinds import is_causal_lm_config
from natcomp.model_description import model_file
from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from transformers import LogitsProcessor, LogitsProcessorList  # noqa: E402

from natcomp.hf.inference import length_sorted_batches, model_device  # noqa: E402
from natcomp.hf.models import (  # noqa: E402
    _load,
    check_model_available,
    ensure_pad_token,
    load_config,
    run_dtype,
    save_model,
    set_threads,
)
from natcomp.hf.models import device as pick_device  # noqa: E402
from natcomp.hf.placement import is_placed  # noqa: E402
from natcomp.hf.precision import DTYPES  # noqa: E402

logger = logging.getLogger(__name__)

#: ``decoding`` values of :class:`GenerationSettings`.
CAUSAL_DECODINGS = ("greedy", "beam")
#: ``precision`` values of :class:`GenerationSettings`: :data:`natcomp.hf.precision.DTYPES`
#: (``auto``: the checkpoint's dtype on a GPU, fp32 on a CPU; fp16/bf16 only on a GPU).
CAUSAL_PRECISIONS = DTYPES
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


def train_byte_level_bpe(texts: Sequence[str], vocab_size: int, head: Sequence[str], split: str | None):
    """A byte-level BPE ``tokenizers.Tokenizer`` trained on ``texts``, ``head`` its first
    ids; ``split`` a pre-tokenizing regular expression applied before the bytes (else
    GPT-2's). Every byte is in the alphabet, so no text is ever unknown. Shared by the tiny
    GPT-2 and Llama here and by :mod:`natcomp.hf.tiny_architectures`."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    backend = Tokenizer(models.BPE())
    if split is None:
        backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        backend.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(split), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(head),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(list(texts), trainer=trainer)
    return backend


def _byte_level_tokenizer(texts: Sequence[str], vocab_size: int, kind: str):
    """A byte-level BPE tokenizer trained on ``texts`` (:func:`train_byte_level_bpe`),
    wrapped as a transformers fast tokenizer."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    specials = _GPT2_SPECIALS if kind == "gpt2" else _LLAMA_SPECIALS
    backend = train_byte_level_bpe(texts, vocab_size, specials, None)
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


def has_chat_template(name_or_path: str | os.PathLike) -> bool:
    """Whether a model's tokenizer has a chat template, read from its files
    (``chat_template.jinja``, ``chat_template.json`` or the ``chat_template`` of
    ``tokenizer_config.json``) without loading it; a Hub model is looked up in the cache only.
    A base model's may have one too (Qwen2.5's does): it does not make the model an instruct
    model, and natcomp applies one only when asked (``chat_template: on``)."""
    if model_file(name_or_path, "chat_template.jinja") is not None:
        return True
    for filename in ("chat_template.json", "tokenizer_config.json"):
        path = model_file(name_or_path, filename)
        if path is None:
            continue
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("chat_template"):
                return True
        except (OSError, ValueError, AttributeError):
            continue
    return False


def causal_lm_problem(config) -> str | None:
    """Why a model config is not a causal language model natcomp can load, or None (the
    decision is :func:`natcomp.hf.kinds.is_causal_lm_config`, the one ``natcomp
    evaluate`` makes: a BERT saved as ``BertForMaskedLM`` has a causal-LM class in
    transformers' mapping but is no causal LM)."""
    values = config.to_dict() if hasattr(config, "to_dict") else dict(config)
    if is_causal_lm_config(values):
        return None
    model_type = values.get("model_type")
    if values.get("is_encoder_decoder", False):
        return f"it is an encoder-decoder model ({model_type}), not a decoder-only causal LM"
    architectures = ", ".join(values.get("architectures") or []) or f"model type '{model_type}'"
    return f"it is a {architectures}, not a causal language model (...ForCausalLM, GPT2LMHeadModel)"


def load_causal_lm(name_or_path: str | os.PathLike, key: str = "model", dtype: str = "fp32"):
    """``(tokenizer, model)`` of a causal language model (``AutoTokenizer``,
    ``AutoModelForCausalLM``, its weights in ``dtype``: fp32 for training,
    :func:`natcomp.hf.precision.inference_dtype` for inference), offline-safe like every
    loader of :mod:`natcomp.hf.models`.

    The tokenizer pads on the left (a batch's prompts end where generation starts); a model
    without a pad token gets its EOS token (else its UNK token) as pad token, in the
    tokenizer and the generation config (the attention mask keeps it out of every
    computation). The model is in eval mode. A model that is not a causal LM
    (:func:`causal_lm_problem`) is a :class:`ConfigError` naming ``key``.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    check_model_available(name_or_path, key)
    config = load_config(name_or_path, key)
    problem = causal_lm_problem(config)
    if problem is not None:
        raise ConfigError(key, f"'{name_or_path}' is not a causal language model: {problem}")
    tokenizer = _load(AutoTokenizer, "tokenizer", name_or_path, key)
    model = _load(AutoModelForCausalLM, "causal language model", name_or_path, key, dtype=dtype).eval()
    tokenizer.padding_side = "left"
    ensure_pad_token(tokenizer, name_or_path, key)
    if model.generation_config.pad_token_id is None:
        model.generation_config.pad_token_id = tokenizer.pad_token_id
    if getattr(model.config, "pad_token_id", None) is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return tokenizer, model


# ---------------------------------------------------------------- generation


@dataclass(frozen=True)
class GenerationSettings:
    """How a causal LM generates: ``decoding`` (greedy, or beam search with ``beam`` beams),
    the most tokens it may write (``max_new_tokens``; with ``max_len_a``, also at most
    ``floor(max_len_a * source tokens + max_len_b)`` per item: :meth:`CausalGenerator.token_limits`),
    the stop strings that end an item, prompts per batch, precision (:data:`CAUSAL_PRECISIONS`:
    ``auto`` the checkpoint's dtype on a GPU and fp32 on a CPU; fp16/bf16 only on a GPU) and
    device (``auto``: the GPU where there is one)."""

    decoding: str = "greedy"
    beam: int = 5
    max_new_tokens: int = 256
    max_len_a: float | None = None
    max_len_b: int = 10
    stop: tuple[str, ...] = ("\n",)
    batch_size: int = 16
    precision: str = "auto"
    device: str = "auto"

    def __post_init__(self):
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(self.stop))
        problems = []
        if self.decoding not in CAUSAL_DECODINGS:
            problems.append(f"decoding must be one of {', '.join(CAUSAL_DECODINGS)}, got {self.decoding!r}")
        if self.beam < 1:
            problems.append(f"beam must be at least 1, got {self.beam}")
        if self.max_new_tokens < 1:
            problems.append(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if self.max_len_a is not None and self.max_len_a < 0:
            problems.append(f"max_len_a must not be negative, got {self.max_len_a}")
        if self.max_len_b < 1:
            problems.append(f"max_len_b must be at least 1, got {self.max_len_b}")
        if not all(isinstance(stop, str) and stop for stop in self.stop):
            problems.append(f"stop must hold non-empty strings, got {list(self.stop)!r}")
        if self.batch_size < 1:
            problems.append(f"batch_size must be at least 1, got {self.batch_size}")
        if self.precision not in CAUSAL_PRECISIONS:
            problems.append(f"precision must be one of {', '.join(CAUSAL_PRECISIONS)}, got {self.precision!r}")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            problems.append(f"device must be one of auto, cpu, cuda or cuda:N, got {self.device!r}")
        if problems:
            raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class Generation:
    """One continuation of a prompt.

    ``text`` is cut before the first stop string (not stripped); ``finished`` is False when
    a token limit cut the item off before a stop string or EOS ended it; ``new_tokens``
    counts the tokens written, up to and including the stop string's or EOS token.
    ``score`` is beam search's length-normalised log-probability of the hypothesis (None
    for greedy decoding); it is not compared by ``==``."""

    text: str
    finished: bool
    new_tokens: int
    score: float | None = field(default=None, compare=False)


class ItemTokenLimit(LogitsProcessor):
    """A logits processor that makes every hypothesis of item i end once it has written
    ``limits[i]`` tokens: only the end of sentence may follow. Per item, so the batch an
    item is in does not matter (fairseq's ``max_len_a * src + max_len_b``).

    ``prompt_length`` is the length of the batch's (padded) input: 1 for an
    encoder-decoder (its decoder start token), the prompt for a causal LM. Used by
    :class:`CausalGenerator` and the MT family's ``HFTranslator``."""

    def __init__(self, limits, beams: int, eos: int, prompt_length: int):
        self.row_limits = torch.as_tensor(limits).repeat_interleave(beams)  # generate keeps an item's beams together
        self.eos, self.prompt_length = eos, prompt_length

    def __call__(self, input_ids, scores):
        written = input_ids.shape[1] - self.prompt_length
        over = written >= self.row_limits.to(scores.device)
        if bool(over.any()):
            scores = scores.clone()
            scores[over] = -torch.inf
            scores[over, self.eos] = 0.0
        return scores


def _beside(key: str, name: str) -> str:
    """The config key of setting ``name`` beside the model's key: ``mt.systems.x.model`` ->
    ``mt.systems.x.device``, ``mt.systems.x`` -> ``mt.systems.x.device``, ``model`` -> ``device``."""
    parts = key.split(".") if key else ["model"]
    return ".".join(parts[:-1] + [name]) if parts[-1] == "model" else ".".join(parts + [name])


class CausalGenerator:
    """Generation and scoring with a causal LM (a model folder, shipped model or Hub id),
    in length-sorted, left-padded batches with position ids that ignore the padding.

    The model is loaded in the dtype :func:`natcomp.hf.precision.inference_dtype` gives for
    the settings' precision on the device, which ``precision`` names (fp16 or bf16 asked for
    on a CPU is a :class:`ConfigError`). See docs/design/hf.md, "Causal language models"."""

    def __init__(self, model, settings: GenerationSettings, *, key: str = "model", threads: int = 1):
        self.model_name, self.settings, self.key = str(model), settings, key
        self.device = pick_device(settings.device, key=_beside(key, "device"))
        if self.device.type == "cpu":
            set_threads(threads)
        self.precision = run_dtype(model, settings.precision, self.device, key, _beside(key, "precision"))
        self.tokenizer, self.model = load_causal_lm(model, key, dtype=self.precision)
        if is_placed(self.model):  # spread over the job's GPUs: inputs go to its first layer
            self.device = model_device(self.model)
        else:
            self.model.to(self.device)
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        # Instruct models may end a turn with one of several tokens (Llama 3: end of text, end of turn).
        self.eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
        if not self.eos_ids:
            raise ConfigError(key, f"'{model}' has no end-of-sequence token; a causal LM needs one to stop")
        self._ends = set(self.eos_ids) | {self.tokenizer.pad_token_id}
        config = self.model.config
        positions = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        self.max_positions = positions if isinstance(positions, int) and positions > 0 else None

    def with_settings(self, settings: GenerationSettings) -> CausalGenerator:
        """This generator with other decoding settings, on the same loaded model and
        tokenizer; the precision and device must be this one's (they decided how it loaded)."""
        if (settings.precision, settings.device) != (self.settings.precision, self.settings.device):
            raise ValueError(
                f"settings with precision {settings.precision} and device {settings.device} cannot share a model "
                f"loaded for precision {self.settings.precision} and device {self.settings.device}"
            )
        other = copy.copy(self)
        other.settings = settings
        return other

    # ------------------------------------------------------------ text and tokens

    def apply_chat_template(self, user_message: str, system: str | None = None) -> str:
        """The prompt a model answers as the assistant: the tokenizer's chat
        template applied to (``system`` and) ``user_message``, with the assistant's header
        (``add_generation_prompt``), as text. :class:`ConfigError` when the tokenizer has
        no chat template, or its template refuses the messages (some refuse a system turn)."""
        if not getattr(self.tokenizer, "chat_template", None):
            raise ConfigError(self.key, f"'{self.model_name}' has no chat template; turn it off")
        messages = ([{"role": "system", "content": system}] if system is not None else []) + [
            {"role": "user", "content": user_message}
        ]
        try:
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except Exception as error:  # jinja2's TemplateError and the template's own raise_exception
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ConfigError(self.key, f"the chat template of '{self.model_name}' fails: {first_line}") from error

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each text, without special tokens (BOS)."""
        return [len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]] if texts else []

    def token_limits(self, sources: Sequence[str]) -> list[int]:
        """Each item's token limit for :meth:`generate`: ``max_new_tokens``, and with
        ``max_len_a`` at most ``floor(max_len_a * source tokens + max_len_b)`` (source tokens
        by :meth:`count_tokens`), as fairseq limits a translation by its source's length."""
        settings = self.settings
        if settings.max_len_a is None:
            return [settings.max_new_tokens] * len(sources)
        return [
            min(settings.max_new_tokens, math.floor(settings.max_len_a * count + settings.max_len_b))
            for count in self.count_tokens(sources)
        ]

    def _ids(self, text: str) -> list[int]:
        """A text's token ids with the tokenizer's special tokens (Llama's BOS), except where
        the text already starts with the BOS token (chat templates write it): never twice."""
        bos = self.tokenizer.bos_token
        add_special = not (bos and text.startswith(bos))
        return self.tokenizer(text, add_special_tokens=add_special)["input_ids"]

    def _or_start(self, ids: list[int]) -> list[int]:
        """``ids``, or for an empty text the BOS (else EOS) token, as lm-evaluation-harness
        does, so that there is a token to predict the first one from."""
        if ids:
            return ids
        start = self.tokenizer.bos_token_id
        return [start if start is not None else self.eos_ids[0]]

    def _left_padded(self, sequences: Sequence[Sequence[int]]) -> dict[str, torch.Tensor]:
        """``input_ids``, ``attention_mask`` and ``position_ids`` of token sequences padded
        on the left; a sequence's positions count from 0 at its first real token, so its
        padding changes nothing (clipped at 0 on the padding, which attends to nothing)."""
        width = max(len(ids) for ids in sequences)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(ids)) + list(ids) for ids in sequences], dtype=torch.long)
        attention_mask = torch.tensor(
            [[0] * (width - len(ids)) + [1] * len(ids) for ids in sequences], dtype=torch.long
        )
        position_ids = (attention_mask.cumsum(dim=1) - 1).clamp(min=0)
        batch = dict(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids)
        return {name: tensor.to(self.device) for name, tensor in batch.items()}

    # ------------------------------------------------------------ generation

    def generate(
        self, prompts: Sequence[str], limits: Sequence[int] | None = None, nbest: int = 1
    ) -> list[list[Generation]]:
        """For each prompt (a finished string: any chat template already applied), its
        ``nbest`` continuations, best first (``nbest`` > 1 needs beam decoding and at most
        ``beam``), in input order.

        Length-sorted, left-padded batches through transformers' ``generate``
        (``do_sample=False``; greedy, or beam search with ``early_stopping=True``) under a
        generation config of only the settings here and the model's special tokens (a
        model's own sampling or repetition settings do not apply). The stop strings end an
        item inside ``generate`` for every decoding and cut its text; ``limits[i]`` caps
        item i's new tokens (else ``max_new_tokens``; never more). Greedy output does not
        depend on the batching (tested)."""
        settings = self.settings
        beams = settings.beam if settings.decoding == "beam" else 1
        if not 1 <= nbest <= beams:
            raise ValueError(
                f"nbest must be between 1 and the beam ({beams}; decoding {settings.decoding}), got {nbest}"
            )
        if limits is None:
            limits = [settings.max_new_tokens] * len(prompts)
        if len(limits) != len(prompts):
            raise ValueError(f"{len(prompts)} prompts but {len(limits)} token limits")
        if any(limit < 1 for limit in limits):
            raise ValueError(f"token limits must be at least 1, got {min(limits)}")
        limits = [min(int(limit), settings.max_new_tokens) for limit in limits]
        results: list[list[Generation]] = [[] for _ in prompts]
        with torch.inference_mode():
            for indices in length_sorted_batches(list(prompts), settings.batch_size):
                batch = self._left_padded([self._or_start(self._ids(prompts[index])) for index in indices])
                batch_limits = [limits[index] for index in indices]
                rows = self._generate_batch(batch, batch_limits, beams, nbest)
                for position, index in enumerate(indices):
                    results[index] = [
                        self._generation(ids, batch_limits[position], score)
                        for ids, score in rows[position * nbest : (position + 1) * nbest]
                    ]
        return results

    def _generate_batch(self, batch, limits: list[int], beams: int, nbest: int) -> list[tuple[list[int], float | None]]:
        """The new tokens (and beam scores) of each hypothesis of a batch, item by item."""
        from transformers import GenerationConfig

        prompt_length = batch["input_ids"].shape[1]
        longest = max(limits)
        processors = LogitsProcessorList()
        if min(limits) < longest:  # the longest limit is generate's own max_new_tokens
            processors.append(ItemTokenLimit(limits, beams, self.eos_ids[0], prompt_length))
        options = dict(
            max_new_tokens=longest,
            do_sample=False,
            num_beams=beams,
            num_return_sequences=nbest,
            bos_token_id=self.model.generation_config.bos_token_id,
            eos_token_id=self.eos_ids,
            pad_token_id=self.tokenizer.pad_token_id,
            stop_strings=list(self.settings.stop) or None,
            return_dict_in_generate=True,
            output_scores=beams > 1,
        )
        if beams > 1:
            # An item is done when the beam holds `beam` finished hypotheses, as in fairseq
            # and HFTranslator (transformers' default keeps extending unfinished ones).
            options["early_stopping"] = True
        output = self.model.generate(
            **batch,
            generation_config=GenerationConfig(**options),
            logits_processor=processors,
            tokenizer=self.tokenizer,
        )
        new = output.sequences[:, prompt_length:].tolist()
        scores = output.sequences_scores.tolist() if beams > 1 else [None] * len(new)
        return list(zip(new, scores))

    def _generation(self, ids: list[int], limit: int, score: float | None) -> Generation:
        """A hypothesis' tokens as a :class:`Generation`: cut at the first EOS or padding
        token, then before the first stop string."""
        end = next((position for position, token in enumerate(ids) if token in self._ends), None)
        content = ids if end is None else ids[:end]
        decode = self.tokenizer.decode
        text = decode(content, skip_special_tokens=True)
        stops = [text.find(stop) for stop in self.settings.stop if stop in text]
        if stops:
            # generate stopped at the token that completed the stop string: count up to it
            written = next(
                count
                for count in range(1, len(content) + 1)
                if any(stop in decode(content[:count], skip_special_tokens=True) for stop in self.settings.stop)
            )
            return Generation(text[: min(stops)], True, written, score)
        if end is not None and end < limit:  # ended by EOS (or a stop string that began in the prompt)
            return Generation(text, True, end + 1, score)
        return Generation(text, False, len(content), score)

    # ------------------------------------------------------------ scoring

    def loglikelihoods(self, contexts: Sequence[str], continuations: Sequence[str]) -> list[tuple[float, bool]]:
        """Per (context, continuation) pair: the sum of the log-probabilities of the
        continuation's tokens given the context, and whether greedy decoding would write
        exactly those tokens.

        lm-evaluation-harness's rule: white space at the end of the context moves to the
        start of the continuation; the context's tokens are those of ``context`` alone and
        the continuation's are those of ``context + continuation`` after as many tokens
        (so a word that a leading space joins is scored as the tokenizer writes it). An
        empty continuation scores (0.0, True). Batched with left padding and position ids
        that ignore it: equal to scoring pairs one by one (tested). A sequence longer than
        the model's positions loses tokens at the start of its context."""
        if len(contexts) != len(continuations):
            raise ValueError(f"{len(contexts)} contexts but {len(continuations)} continuations")
        pairs = [self._encode_pair(context, continuation) for context, continuation in zip(contexts, continuations)]
        results: list[tuple[float, bool]] = [(0.0, True)] * len(pairs)
        scored = [index for index, (_, continuation) in enumerate(pairs) if continuation]
        texts = [contexts[index] + continuations[index] for index in scored]
        with torch.inference_mode():
            for batch_positions in length_sorted_batches(texts, self.settings.batch_size):
                indices = [scored[position] for position in batch_positions]
                for index, result in zip(indices, self._score_batch([pairs[index] for index in indices])):
                    results[index] = result
        return results

    def _encode_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        spaces = len(context) - len(context.rstrip())
        if spaces:
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        context_ids = self._ids(context)
        whole = self._ids(context + continuation)
        return self._or_start(context_ids), whole[len(context_ids) :] if continuation else []

    def _score_batch(self, pairs: list[tuple[list[int], list[int]]]) -> list[tuple[float, bool]]:
        sequences = []
        for context, continuation in pairs:
            sequence = (context + continuation)[:-1]  # the last token is predicted, never read
            if self.max_positions is not None and len(sequence) > self.max_positions:
                if len(continuation) > self.max_positions:
                    raise ValueError(
                        f"a continuation of {len(continuation)} tokens exceeds the model's {self.max_positions} positions"
                    )
                sequence = sequence[-self.max_positions :]
            sequences.append(sequence)
        batch = self._left_padded(sequences)
        logits = self.model(**batch).logits
        width = batch["input_ids"].shape[1]
        results = []
        for row, ((_, continuation), sequence) in enumerate(zip(pairs, sequences)):
            # the logits at the last len(continuation) input positions predict the continuation
            predicting = logits[row, width - len(continuation) :].float().log_softmax(dim=-1)
            targets = torch.tensor(continuation, device=predicting.device)
            total = predicting.gather(1, targets[:, None]).sum().item()
            greedy = bool((predicting.argmax(dim=-1) == targets).all())
            results.append((total, greedy))
        return results
