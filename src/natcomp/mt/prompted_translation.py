"""A decoder-only language model as an MT system: translation by prompting.

An ``mt.systems`` entry of family ``causal`` names a causal LM (GPT-2, Llama, Qwen, ...).
Each source sentence becomes a prompt (:class:`natcomp.mt.prompting.PromptFormat`: the
template, the few-shot examples; through the tokenizer's chat template only when
``chat_template`` is on), :class:`natcomp.hf.causal.CausalGenerator` continues it (greedy by default, beam
as an option, until a newline or the token limit) and the answer's first line is the
translation. Like every system's, translations are stored as written (detokenised) and
Moses-tokenised by the scorers and the tokenised BLEU.

The decode signature names everything a translation depends on, so the translation cache
serves this system like any other and a changed prompt decodes anew::

    causal:3f2a9c0d1e2b4a5f|prompt:5d41402abc4b|shots:17,3|chat:off|dec:greedy|maxnew:128|lang:en-nl|prec:fp32

Answers that are empty, or were cut off by the token limit before the newline, are kept
(a translation is what the model wrote) and counted: each decoded sentence's status goes
into a second cache beside the translations' (:func:`translate_with_status`), so a rerun
that decodes nothing still reports them, and the rule writes them per translation set.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Mapping, Sequence

from natcomp.errors import ConfigError
from natcomp.hf.causal import CausalGenerator, GenerationSettings, has_chat_template
from natcomp.mt.hf_translation import model_fingerprint
from natcomp.mt.prompting import (
    DEFAULT_PROMPT,
    PromptFormat,
    chat_template_mode,
    check_template,
    extract_translation,
)
from natcomp.mt.translation_cache import DecodeStats, TranslationCache, translate_with_cache

__all__ = [
    "PromptedTranslator",
    "generation_fields",
    "generation_settings",
    "nbest_settings",
    "status_cache",
    "translate_with_status",
]


def generation_settings(system: Mapping, *, nbest: int = 1) -> GenerationSettings:
    """The generation settings of a ``causal`` system's config section. ``nbest`` above 1
    (the synonym probes' top-5) decodes with beam search of at least ``nbest`` beams, even
    where the tests decode greedily: the probes take a model's n-best translations."""
    names = ("decoding", "beam", "max_new_tokens", "max_len_a", "max_len_b", "batch_size", "precision", "device")
    return nbest_settings(
        GenerationSettings(**{name: system[name] for name in names if system.get(name) is not None}), nbest
    )


def nbest_settings(settings: GenerationSettings, nbest: int) -> GenerationSettings:
    """``settings`` for keeping ``nbest`` hypotheses: above 1, beam search with at least
    ``nbest`` beams (the configured beam, 5 where none is), whatever the decoding."""
    if nbest <= 1:
        return settings
    return dataclasses.replace(settings, decoding="beam", beam=max(settings.beam, nbest))


def generation_fields(settings: GenerationSettings, nbest: int = 1) -> list[str]:
    """The decode signature's fields of how a causal LM writes a translation: the decoding,
    the hypotheses kept (``nbest`` above 1: a cache entry is then a list of them, never to be
    read as one translation) and the token limits (a loaded and a served system name them
    alike)."""
    decoding = "greedy" if settings.decoding == "greedy" else f"beam{settings.beam}"
    fields = [f"dec:{decoding}", *([f"nbest:{nbest}"] if nbest > 1 else []), f"maxnew:{settings.max_new_tokens}"]
    if settings.max_len_a is not None:
        fields.append(f"maxlen:{settings.max_len_a:g}*src+{settings.max_len_b}")
    return fields


class PromptedTranslator:
    """Translation by prompting a causal LM: :meth:`translate`, :meth:`translate_nbest`
    and :meth:`translate_with_status`, in input order; ``signature`` names the decode."""

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        prompt: PromptFormat,
        settings: GenerationSettings,
        chat_template: str = "off",
        threads: int = 1,
        key: str = "system",
        nbest: int = 1,
    ):
        """``chat_template``: ``on`` prompts through the tokenizer's chat template (a
        :class:`ConfigError` when it has none), ``off`` as plain text, whether or not the
        tokenizer has one. ``key``: the system's config key (``mt.systems.NAME``), in error
        messages. ``nbest``: the hypotheses its cache entries keep (the decode signature
        names it above 1)."""
        self.prompt, self.settings, self.nbest = prompt, settings, nbest
        self.chat = chat_template_mode(chat_template, f"{key}.chat_template") == "on"
        if self.chat and not has_chat_template(model):
            raise ConfigError(f"{key}.chat_template", f"is on but {model} has no chat template")
        self.generator = CausalGenerator(model, settings, key=f"{key}.model", threads=threads)
        self._fingerprint = model_fingerprint(model, f"{key}.model")  # hashing a large model takes minutes: once
        self.signature = self._signature()

    def _signature(self) -> str:
        return "|".join(
            [
                f"causal:{self._fingerprint[:16]}",
                self.prompt.signature,
                f"chat:{'on' if self.chat else 'off'}",
                *generation_fields(self.settings, self.nbest),
                f"lang:{self.prompt.source_lang}-{self.prompt.target_lang}",
                f"prec:{self.generator.precision}",
            ]
        )

    def with_nbest(self, nbest: int) -> PromptedTranslator:
        """This translator keeping ``nbest`` hypotheses (:func:`nbest_settings`), with the
        decode signature that says so, on the same loaded model: a job that translates and
        decodes the synonym probes loads the model once."""
        other = copy.copy(self)
        other.settings, other.nbest = nbest_settings(self.settings, nbest), nbest
        other.generator = self.generator.with_settings(other.settings)
        other.signature = other._signature()
        return other

    @classmethod
    def for_system(
        cls,
        system: Mapping,
        *,
        source_lang: str,
        target_lang: str,
        key: str,
        examples=(),
        nbest: int = 1,
        threads: int = 1,
    ) -> PromptedTranslator:
        """The translator of a causal system's settings (:func:`natcomp.mt.systems.system_entry`:
        its entry with ``mt.prompting``'s settings where it has none)."""
        template = check_template(system.get("prompt") or DEFAULT_PROMPT, f"{key}.prompt")
        return cls(
            system["model"],
            prompt=PromptFormat(template, source_lang, target_lang, tuple(examples)),
            settings=generation_settings(system, nbest=nbest),
            chat_template="off" if system.get("chat_template") is None else system["chat_template"],
            threads=threads,
            key=key,
            nbest=nbest,
        )

    def prompts(self, sentences: Sequence[str]) -> list[str]:
        """The prompts the model continues: the template with its examples, through the
        chat template when it is on (the prompt as the user's turn)."""
        prompts = [self.prompt.render(sentence) for sentence in sentences]
        if self.chat:
            prompts = [self.generator.apply_chat_template(prompt) for prompt in prompts]
        return prompts

    def translate_with_status(self, sentences: Sequence[str], nbest: int = 1) -> tuple[list[list[str]], list[str]]:
        """Each sentence's ``nbest`` translations and the status (:data:`STATUSES`) of its best one."""
        limits = self.generator.token_limits(sentences)  # relative to each source, not its prompt
        generations = self.generator.generate(self.prompts(sentences), limits, nbest=nbest)
        translations, statuses = [], []
        for hypotheses in generations:
            texts = [extract_translation(h.text, self.prompt.target_lang) for h in hypotheses]
            translations.append(texts)
            best_finished = hypotheses[0].finished
            statuses.append("cut_off" if not best_finished else "empty" if not texts[0] else "ok")
        return translations, statuses

    def translate(self, sentences: Sequence[str]) -> list[str]:
        return [hypotheses[0] for hypotheses in self.translate_with_status(sentences)[0]]

    def translate_nbest(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        return self.translate_with_status(sentences, nbest)[0]


def status_cache(cache: TranslationCache) -> TranslationCache:
    """The cache of the statuses of ``cache``'s translations (same folder, own signature)."""
    return TranslationCache(cache.path.parent, f"{cache.signature}|status")


def translate_with_status(
    cache: TranslationCache, sources: Sequence[str], translator: PromptedTranslator
) -> tuple[DecodeStats, dict[str, str]]:
    """:func:`~natcomp.mt.translation_cache.translate_with_cache` that also keeps each
    decoded sentence's status; returns the statuses of all ``sources`` (a status is
    written before its translation, so a translation in the cache always has one)."""
    statuses = status_cache(cache)

    def translate(batch: Sequence[str]) -> list[str]:
        translations, found = translator.translate_with_status(batch)
        statuses.add(zip(batch, found))
        return [hypotheses[0] for hypotheses in translations]

    stats = translate_with_cache(cache, sources, translate)
    return stats, {source: statuses.entries.get(source, "") for source in sources}
