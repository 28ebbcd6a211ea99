"""Translating with a Hugging Face model (Marian, M2M100, NLLB-200) as an MT system.

A pretrained model is named by a Hub id or a local ``save_pretrained`` folder. Its
translations depend on the model's files and on how it decodes; :func:`hf_decode_signature`
names both, sacrebleu style, like the fairseq path's
:func:`natcomp.mt.translation_cache.decode_signature`, so the same translation cache serves
both kinds of system::

    hf:3f2a9c0d1e2b4a5f|family:marian|beam:5|maxnew:256|lang:en-nl|prec:fp32

Batch size and device are not part of it: batching by length with padding gives the same
beam search results as one sentence at a time (tests/mt/test_hf_translation.py checks it
on tiny models; on a GPU, fp16 and batched kernels may differ in the last bits).

Decoding is deterministic beam search (``do_sample=False``) with the model's own generation
config otherwise (length penalty, ``bad_words_ids`` ...: its files are in the fingerprint),
except that a sentence stops when its beam holds ``beam`` finished hypotheses
(``early_stopping=True``, fairseq's and Marian-NMT's rule) and that ``max_new_tokens``
replaces the model's ``max_length``. Language tokens (M2M100's ``__nl__``, NLLB's
``nld_Latn``) are removed from the output.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.adapters import read_adapter
from natcomp.errors import ConfigError
from natcomp.hf.kinds import is_causal_lm_config
from natcomp.mt.languages import load_language

# torch and transformers are imported where a model is loaded or decodes, not here: the
# workflow's config checks (natcomp.mt.config.check_systems) read this module's language and
# family rules while Snakemake plans, where loading torch would cost seconds for nothing.

log = logging.getLogger(__name__)

HF_TRANSLATION_FAMILIES = ("marian", "m2m100", "nllb")
PRECISIONS = ("auto", "fp32", "fp16")
DEVICES = ("auto", "cpu", "cuda")

# Files of a model folder that do not change its translations: other frameworks' copies of
# the weights and documentation. Left out of the fingerprint, so that a cache built from a
# download with them matches one without.
_NOT_FINGERPRINTED = {"tf_model.h5", "flax_model.msgpack", "rust_model.ot", "README.md", ".gitattributes"}


def language_codes(
    family: str,
    source_lang: str,
    target_lang: str,
    source_code: str | None = None,
    target_code: str | None = None,
    key: str = "model",
) -> tuple[str | None, str | None]:
    """The ``(source, target)`` language codes a model family needs, given codes win.

    Marian: none (the model is the language pair), except a target token such as
    ``>>nld<<`` that multi-target Marian models read as the first source token (given as
    ``target_code``). M2M100 and NLLB-200: the language resource's ``m2m100`` (``nl``) and
    ``flores200`` (``nld_Latn``) fields (``resources/mt/languages/<code>.yaml``); a
    language without a resource file needs ``source_code``/``target_code`` (a
    :class:`ConfigError` naming ``key`` says so).
    """
    if family == "marian":
        return source_code, target_code
    if family in ("m2m100", "nllb"):
        field, example = ("m2m100", "nl") if family == "m2m100" else ("flores200", "nld_Latn")
        codes = []
        for lang, given, which in ((source_lang, source_code, "source"), (target_lang, target_code, "target")):
            if given is None:
                try:
                    given = getattr(load_language(lang, key), field)
                except ConfigError:
                    raise ConfigError(
                        key,
                        f"{family} needs a language code for the {which} language '{lang}', which has no language "
                        f"resource (resources/mt/languages/{lang}.yaml); give {which}_code (e.g. '{example}')",
                    ) from None
            codes.append(given)
        return codes[0], codes[1]
    raise ConfigError(key, f"unknown model family '{family}'; expected one of {', '.join(HF_TRANSLATION_FAMILIES)}")


def model_folder(name_or_path: str | os.PathLike, key: str = "model") -> Path:
    """The local folder a model's files are read from: a directory as it is, a Hub id's
    cached snapshot folder. A model that is neither is a :class:`ConfigError`."""
    from natcomp.hf.models import check_model_available

    source = check_model_available(name_or_path, key)
    if Path(source).is_dir():
        return Path(source)
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(source, "config.json")
    if not isinstance(cached, str):
        raise ConfigError(key, f"model '{source}' is not in the local Hugging Face cache; download it first")
    return Path(cached).parent


def detect_family(model_dir_or_config: str | os.PathLike, key: str = "model") -> str:
    """The family (:data:`HF_TRANSLATION_FAMILIES`, or ``causal``) of a model folder, Hub id
    or config.json: ``model_type`` ``marian`` is Marian; ``m2m_100`` is NLLB when the
    folder's tokenizer_config.json names an Nllb tokenizer class, else M2M100; a
    decoder-only LM (:func:`natcomp.hf.kinds.is_causal_lm_config`) is ``causal``, which
    :mod:`natcomp.mt.prompted_translation` translates with."""
    path = Path(model_dir_or_config)
    if path.name == "config.json" and path.is_file():
        folder = path.parent
    elif (adapter := read_adapter(model_dir_or_config, key)) is not None:
        return detect_family(adapter.base_location, key)  # an adapter is of its base's family
    else:
        folder = model_folder(model_dir_or_config, key)
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(key, f"cannot read {folder / 'config.json'}: {error}") from None
    model_type = config.get("model_type")
    if model_type == "marian":
        return "marian"
    if model_type == "m2m_100":
        tokenizer_config = folder / "tokenizer_config.json"
        tokenizer_class = ""
        if tokenizer_config.is_file():
            tokenizer_class = json.loads(tokenizer_config.read_text(encoding="utf-8")).get("tokenizer_class") or ""
        return "nllb" if tokenizer_class.startswith("Nllb") else "m2m100"
    if is_causal_lm_config(config):
        return "causal"
    raise ConfigError(
        key,
        f"model {model_dir_or_config} has model_type '{model_type}'; natcomp translates with Marian (marian), "
        "M2M100 and NLLB-200 (m2m_100) models, and prompts decoder-only language models (causal)",
    )


def model_fingerprint(name_or_path: str | os.PathLike, key: str = "model") -> str:
    """sha256 (hex) over the files of a model's folder (weights, configs, tokenizer files),
    in sorted order, each by its relative path and content; so a retrained or different
    model has a different fingerprint. Hidden files, README.md and other frameworks'
    weights (``tf_model.h5`` ...) are left out; so is ``pytorch_model.bin`` next to a
    ``model.safetensors`` (transformers loads the latter). An adapter folder's
    (:mod:`natcomp.adapters`) is over its own files (``adapter_model.safetensors``,
    ``adapter_config.json``, a tokenizer) and its base's fingerprint: two adapters on one
    base, and an adapter and its base, never share a translation cache."""
    adapter = read_adapter(name_or_path, key)
    if adapter is not None:
        own = _folder_digest(adapter.folder)
        base = model_fingerprint(adapter.base_location, key)
        return hashlib.sha256(f"adapter:{own}|base:{base}".encode("ascii")).hexdigest()
    return _folder_digest(model_folder(name_or_path, key))


def _folder_digest(folder: Path) -> str:
    """sha256 (hex) over a folder's files, each by relative path and content (see :func:`model_fingerprint`)."""
    files = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
        and path.name not in _NOT_FINGERPRINTED
    )
    if any(path.name == "model.safetensors" for path in files):
        files = [path for path in files if path.name != "pytorch_model.bin"]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class HFDecodeSettings:
    """How a Hugging Face model decodes: beam size, the most tokens it may write
    (``max_new_tokens``), the hypotheses kept (``nbest`` <= ``beam``), sentences per batch,
    precision (``auto``: the checkpoint's dtype on a GPU, fp32 on a CPU; ``fp16`` only on a
    GPU) and device (``auto``: the GPU where there is one).

    ``max_len_a`` (None: off) also limits each translation to ``max_len_a * source tokens +
    max_len_b`` tokens (source tokens of the model's tokenizer, end-of-sentence included;
    the written tokens include a forced language token), as fairseq's generator does: a
    hypothesis that reaches it must end. Without it, one sentence whose beam never
    finishes keeps its whole batch decoding up to ``max_new_tokens``."""

    beam: int = 5
    max_new_tokens: int = 256
    nbest: int = 1
    batch_size: int = 64
    precision: str = "fp32"
    device: str = "auto"
    max_len_a: float | None = None
    max_len_b: int = 10

    def __post_init__(self):
        problems = []
        if self.beam < 1:
            problems.append(f"beam must be at least 1, got {self.beam}")
        if self.max_new_tokens < 1:
            problems.append(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if not 1 <= self.nbest <= max(self.beam, 1):
            problems.append(f"nbest must be between 1 and the beam ({self.beam}), got {self.nbest}")
        if self.batch_size < 1:
            problems.append(f"batch_size must be at least 1, got {self.batch_size}")
        if self.precision not in PRECISIONS:
            problems.append(f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        if self.max_len_a is not None and self.max_len_a < 0:
            problems.append(f"max_len_a must not be negative, got {self.max_len_a}")
        if self.max_len_b < 1:
            problems.append(f"max_len_b must be at least 1, got {self.max_len_b}")
        if self.device not in DEVICES and not self.device.startswith("cuda:"):
            problems.append(f"device must be one of {', '.join(DEVICES)} or cuda:N, got {self.device!r}")
        if problems:
            raise ValueError("; ".join(problems))


def decode_settings(system: Mapping, nbest: int = 1) -> HFDecodeSettings:
    """The decode settings of a system's config section (``mt.systems.NAME``: ``beam``,
    ``max_new_tokens``, ``batch_size``, ``precision``, ``device``, ``max_len_a``,
    ``max_len_b``; missing keys take
    :class:`HFDecodeSettings`' defaults, which are the schema's), keeping ``nbest`` hypotheses."""
    names = ("beam", "max_new_tokens", "batch_size", "precision", "device", "max_len_a", "max_len_b")
    return HFDecodeSettings(**{name: system[name] for name in names if system.get(name) is not None}, nbest=nbest)


def hf_decode_signature(
    name_or_path: str | os.PathLike,
    family: str,
    source_code: str | None,
    target_code: str | None,
    settings: HFDecodeSettings,
    precision_used: str,
    *,
    source_lang: str | None = None,
    target_lang: str | None = None,
    fingerprint: str | None = None,
) -> str:
    """Everything a Hugging Face system's translations depend on, as one line (the key of
    its translation cache). The language field shows the codes the model is given, else
    the project's language names (``source_lang``/``target_lang``; ``-`` when neither):
    Marian ``lang:en-nl``, a multi-target Marian ``lang:en->>nld<<``, NLLB
    ``lang:eng_Latn-nld_Latn``. ``fingerprint`` saves hashing the model again."""
    source = source_code or source_lang or "-"
    target = target_code or target_lang or "-"
    fingerprint = fingerprint or model_fingerprint(name_or_path)
    return "|".join(
        [
            f"hf:{fingerprint[:16]}",
            f"family:{family}",
            f"beam:{settings.beam}",
            *([f"nbest:{settings.nbest}"] if settings.nbest > 1 else []),
            f"maxnew:{settings.max_new_tokens}",
            *([f"maxlen:{settings.max_len_a:g}*src+{settings.max_len_b}"] if settings.max_len_a is not None else []),
            f"lang:{source}-{target}",
            f"prec:{precision_used}",
        ]
    )


def check_hf_system(model: str | os.PathLike, key: str) -> str:
    """Check, before any job starts, that a Hugging Face system can be loaded; return where
    it loads from. A missing model is a :class:`ConfigError` naming ``key`` (with the hint
    for ``HF_HUB_OFFLINE``); a model present locally must be one of the supported families."""
    from natcomp.hf.models import check_model_available

    source = check_model_available(model, key)
    if Path(source).is_dir() or _cached(source):
        detect_family(source, key)
    return source


def _cached(repo_id: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(repo_id, "config.json"), str)


def _family(model: str | os.PathLike, family: str | None, key: str) -> str:
    """``family`` as given (``None`` or ``"auto"``: :func:`detect_family`), when the model's
    architecture fits it: NLLB-200 and M2M100 share one (``m2m_100``), Marian has its own."""
    detected = detect_family(model, key)
    if detected == "causal":
        raise ConfigError(key, f"{model} is a decoder-only language model: it translates by prompting (family causal)")
    if family in (None, "auto"):
        return detected
    if family not in HF_TRANSLATION_FAMILIES:
        raise ConfigError(
            key, f"unknown model family '{family}'; expected auto or one of {', '.join(HF_TRANSLATION_FAMILIES)}"
        )
    if (family == "marian") != (detected == "marian"):
        raise ConfigError(key, f"family is '{family}' but {model} is a {detected} model; set family: auto")
    return family


def decoder_max_length(limits: Sequence[int], max_new_tokens: int) -> int:
    """``generate``'s ``max_length`` for an encoder-decoder batch whose item i may write at
    most ``limits[i]`` tokens before its end of sentence (:class:`ItemTokenLimit`): the
    decoder start token, the longest item's tokens and its end of sentence, within the
    ``max_new_tokens`` written tokens every item is held to."""
    return min(max_new_tokens, max(limits) + 1) + 1


class HFTranslator:
    """Beam-search translation with a Hugging Face seq2seq model, in length-sorted batches.

    ``source_lang``/``target_lang`` are the project's language names (``en``, ``nl``);
    :func:`language_codes` turns them into what the model's family needs. ``family`` None
    or ``"auto"`` reads it from the model (:func:`detect_family`). fp16 is used
    only on CUDA: asked for on a CPU, the model decodes in fp32 (logged), and
    ``precision`` and ``signature`` say so.
    """

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        source_lang: str,
        target_lang: str,
        settings: HFDecodeSettings,
        source_code: str | None = None,
        target_code: str | None = None,
        threads: int = 1,
        key: str = "model",
        family: str | None = None,
    ):
        from natcomp.hf.inference import model_device
        from natcomp.hf.models import device, run_dtype, set_threads
        from natcomp.hf.placement import is_placed
        from natcomp.hf.seq2seq import load_seq2seq  # first: it keeps a mismatched torchaudio away

        self.model_name, self.settings, self.key = str(model), settings, key
        self.source_lang, self.target_lang = source_lang, target_lang
        self.family = _family(model, family, key)
        self.source_code, self.target_code = language_codes(
            self.family, source_lang, target_lang, source_code, target_code, key
        )
        self.device = device(settings.device, key=f"{key}.device" if key else "device")
        if self.device.type == "cpu":
            set_threads(threads)
        self.precision = settings.precision
        if settings.precision == "auto":
            # the checkpoint's dtype on a GPU (natcomp.hf.precision); bf16 is for causal LMs only
            resolved = run_dtype(model, "auto", self.device, key)
            self.precision = "fp32" if resolved == "bf16" else resolved
        elif settings.precision == "fp16" and self.device.type != "cuda":
            log.info("fp16 was asked for but the model runs on the CPU: decoding in fp32")
            self.precision = "fp32"
        self.tokenizer, self.model = load_seq2seq(model, key, dtype=self.precision)
        if is_placed(self.model):  # spread over the job's GPUs: inputs go to its first layer
            self.device = model_device(self.model)
        else:
            self.model.to(self.device)
        self._forced_bos = self._language_setup()
        # Language tokens are not special tokens to every tokenizer release (transformers
        # 5's M2M100Tokenizer), so skip_special_tokens may keep them: they are dropped here.
        self._language_ids = set(getattr(self.tokenizer, "lang_code_to_id", {}).values())
        if self._forced_bos is not None:
            self._language_ids.add(self._forced_bos)
        self.max_source_tokens = self._max_source_tokens()
        self._fingerprint = model_fingerprint(model)  # hashing a large model's files takes minutes: once
        self.signature = self._signature()

    def _signature(self) -> str:
        return hf_decode_signature(
            self.model_name,
            self.family,
            self.source_code,
            self.target_code,
            self.settings,
            self.precision,
            source_lang=self.source_lang,
            target_lang=self.target_lang,
            fingerprint=self._fingerprint,
        )

    def with_nbest(self, nbest: int) -> HFTranslator:
        """This translator keeping ``nbest`` hypotheses of its beam, with the decode
        signature that says so, on the same loaded model: a job that translates and decodes
        the synonym probes loads the model once."""
        other = copy.copy(self)
        other.settings = dataclasses.replace(self.settings, nbest=nbest)
        other.signature = other._signature()
        return other

    @classmethod
    def for_system(
        cls, system: Mapping, *, source_lang: str, target_lang: str, key: str, nbest: int = 1, threads: int = 1
    ) -> HFTranslator:
        """The translator of one ``mt.systems`` section (its model, family, language codes
        and :func:`decode_settings`), keeping ``nbest`` hypotheses of the beam."""
        return cls(
            system["model"],
            source_lang=source_lang,
            target_lang=target_lang,
            settings=decode_settings(system, nbest=nbest),
            family=system.get("family"),
            source_code=system.get("source_code"),
            target_code=system.get("target_code"),
            threads=threads,
            key=key,
        )

    def _language_setup(self) -> int | None:
        """Point the tokenizer at the source language; the target language token the
        decoder must start with (M2M100, NLLB), else None."""
        if self.family == "marian":
            if self.target_code is not None:
                known = getattr(self.tokenizer, "supported_language_codes", [])
                if self.target_code not in known:
                    raise ConfigError(
                        self.key,
                        f"target_code '{self.target_code}' is not a target token of {self.model_name} "
                        f"(it has {', '.join(known) or 'none: it translates into one language'})",
                    )
            return None
        tokens = [code if self.family == "nllb" else f"__{code}__" for code in (self.source_code, self.target_code)]
        unknown = self.tokenizer.unk_token_id
        for code, token in zip((self.source_code, self.target_code), tokens):
            ids = self.tokenizer.convert_tokens_to_ids(token)
            if ids is None or ids == unknown:
                raise ConfigError(self.key, f"{self.model_name} has no language token {token} for '{code}'")
        self.tokenizer.src_lang = self.source_code
        return self.tokenizer.convert_tokens_to_ids(tokens[1])

    def _max_source_tokens(self) -> int:
        limits = [self.tokenizer.model_max_length, getattr(self.model.config, "max_position_embeddings", None)]
        # Tokenizers without a limit report a huge model_max_length; a model without
        # position embeddings has no limit of its own.
        return min([limit for limit in limits if isinstance(limit, int) and limit > 0] or [1024])

    def translate(self, sentences: Sequence[str]) -> list[str]:
        """Translations of untokenised source sentences, detokenised, in input order."""
        return [hypotheses[0] for hypotheses in self._decode(sentences, 1)]

    def translate_nbest(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        """The ``nbest`` best hypotheses of the beam for each sentence, best first (the
        first is :meth:`translate`'s translation); ``nbest`` may not exceed the beam."""
        if not 1 <= nbest <= self.settings.beam:
            raise ValueError(f"nbest must be between 1 and the beam ({self.settings.beam}), not {nbest}")
        return self._decode(sentences, nbest)

    def _decode(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        import torch
        from transformers import LogitsProcessorList

        from natcomp.hf.causal import ItemTokenLimit
        from natcomp.hf.inference import length_sorted_batches

        results: list[list[str]] = [[] for _ in sentences]
        prefix = f"{self.target_code} " if self.family == "marian" and self.target_code else ""
        generate_options = dict(
            num_beams=self.settings.beam,
            num_return_sequences=nbest,
            # An encoder-decoder's max_length counts the decoder start token too: this is
            # max_new_tokens, said without clashing with the model's own max_length.
            max_length=self.settings.max_new_tokens + 1,
            max_new_tokens=None,
            do_sample=False,
            # A sentence is done when the beam holds `beam` finished hypotheses, as in fairseq
            # and Marian-NMT. transformers' default (False) keeps extending unfinished ones
            # while they might still win: on 320 demo sentences (tiny Marian) that changed 4
            # translations and decoded at 180 instead of 230 sentences/s.
            early_stopping=True,
        )
        if self._forced_bos is not None:
            generate_options["forced_bos_token_id"] = self._forced_bos
        eos = self.model.generation_config.eos_token_id
        eos = eos[0] if isinstance(eos, list) else eos
        with torch.inference_mode():
            for indices in length_sorted_batches(list(sentences), self.settings.batch_size):
                batch = self.tokenizer(
                    [prefix + sentences[index] for index in indices],
                    padding=True,
                    truncation=True,
                    max_length=self.max_source_tokens,
                    return_tensors="pt",
                ).to(self.device)
                processors, batch_options = LogitsProcessorList(), generate_options
                if self.settings.max_len_a is not None:
                    source_tokens = batch["attention_mask"].sum(dim=1)
                    limits = (self.settings.max_len_a * source_tokens + self.settings.max_len_b).floor().long()
                    # the decoder start token (1) is not written
                    processors.append(ItemTokenLimit(limits, self.settings.beam, eos, prompt_length=1))
                    # Beam search keeps every hypothesis in buffers max_length long: as long as
                    # the batch's longest allowed output, not max_new_tokens (the same hypotheses,
                    # 14% faster on the demo's tiny Marian).
                    max_length = decoder_max_length(limits.tolist(), self.settings.max_new_tokens)
                    batch_options = {**generate_options, "max_length": max_length}
                output = self.model.generate(**batch, **batch_options, logits_processor=processors)
                texts = self._detokenise(output)
                for position, index in enumerate(indices):
                    results[index] = texts[position * nbest : (position + 1) * nbest]
        return results

    def _detokenise(self, output) -> list[str]:
        rows = output.tolist()
        if self._language_ids:
            rows = [[token for token in row if token not in self._language_ids] for row in rows]
        return [text.strip() for text in self.tokenizer.batch_decode(rows, skip_special_tokens=True)]


#: a Helsinki-NLP opus-mt model id names its pair (``opus-mt-en-nl``, ``opus-mt-tc-big-en-nl``)
_OPUS_MT_PAIR = re.compile(r"opus-mt-(?:tc-big-)?([a-z]{2,3})-([a-z]{2,3})$")
#: a language token of an NLLB-200 (``nld_Latn``) or M2M100 (``__nl__``) tokenizer
_LANGUAGE_TOKEN = {"nllb": re.compile(r"[a-z]{3}_[A-Z][a-z]{3}"), "m2m100": re.compile(r"__[a-z]{2,3}__")}


def check_system_languages(
    model: str | os.PathLike,
    family: str,
    source_lang: str,
    target_lang: str,
    source_code: str | None = None,
    target_code: str | None = None,
    key: str = "model",
) -> None:
    """Whether a translation system translates the run's pair, from what is cheap to read
    before any job: an opus-mt model id's pair, a local (or cached) model's
    ``tokenizer_config.json`` (a Marian tokenizer's ``source_lang``/``target_lang``; an
    NLLB-200 or M2M100 tokenizer's language tokens). No model is loaded; what cannot be
    read here is checked when the model loads. A mismatch is a :class:`ConfigError` naming
    ``key``."""
    folder = _local_model_folder(model)
    if family == "auto":
        if folder is None:
            family = "marian" if _OPUS_MT_PAIR.search(str(model)) else "auto"
        else:
            try:
                family = detect_family(folder, key)
            except ConfigError:
                return
    if family == "marian":
        _check_marian_pair(model, folder, source_lang, target_lang, target_code, key)
    elif family in _LANGUAGE_TOKEN and folder is not None:
        codes = language_codes(family, source_lang, target_lang, source_code, target_code, key)
        tokens = _tokenizer_special_tokens(folder)
        known = {token for token in tokens if _LANGUAGE_TOKEN[family].fullmatch(token)}
        for code, which in zip(codes, ("source", "target")):
            token = code if family == "nllb" else f"__{code}__"
            if known and token not in known:
                raise ConfigError(
                    key,
                    f"{model}'s tokenizer has no language token {token} for the {which} language "
                    f"(mt.{which}_lang {source_lang if which == 'source' else target_lang})",
                )


def _local_model_folder(model: str | os.PathLike) -> Path | None:
    """A model's folder when it is here (a directory, or a Hub id in the local cache)."""
    if Path(model).is_dir():
        return Path(model)
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(str(model), "config.json")
    except Exception:  # not a Hub id (a folder yet to be written)
        return None
    return Path(cached).parent if isinstance(cached, str) else None


def _check_marian_pair(model, folder: Path | None, source_lang: str, target_lang: str, target_code, key: str) -> None:
    named: list[tuple[str, str, str]] = []  # (which, the model's code, where)
    match = _OPUS_MT_PAIR.search(str(model).rstrip("/"))
    if match and not Path(model).is_dir():
        named += [("source", match.group(1), "its model id"), ("target", match.group(2), "its model id")]
    if folder is not None:
        config = _read_json(folder / "tokenizer_config.json")
        for which in ("source", "target"):
            value = config.get(f"{which}_lang")
            if isinstance(value, str):
                named.append((which, value, "its tokenizer_config.json"))
    expected = {"source": source_lang, "target": target_lang}
    for which, code, where in named:
        if which == "target" and target_code is not None:
            continue  # a multi-target model: the target token chooses the language
        if not re.fullmatch(r"[a-z]{2,3}", code) or code == "mul":
            continue
        language = load_language(expected[which], f"mt.{which}_lang")
        if code not in {language.code, language.marian, language.iso639_3}:
            raise ConfigError(
                key,
                f"{model} translates {'from' if which == 'source' else 'into'} '{code}' ({where}), but the run's "
                f"mt.{which}_lang is {language.code} ({language.name}); choose a model of the pair",
            )


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _tokenizer_special_tokens(folder: Path) -> set[str]:
    """The special tokens a tokenizer_config.json lists (language codes among them)."""
    config = _read_json(folder / "tokenizer_config.json")
    tokens = set()
    for name in ("additional_special_tokens", "extra_special_tokens"):
        for token in config.get(name) or []:
            tokens.add(token.get("content") if isinstance(token, dict) else token)
    for token in (config.get("added_tokens_decoder") or {}).values():
        if isinstance(token, dict):
            tokens.add(token.get("content"))
    return {token for token in tokens if isinstance(token, str)}
