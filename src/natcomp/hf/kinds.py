"""What kind of model a config describes, from the config alone (no weights, no torch).

Used by ``natcomp evaluate`` to choose the families a model fits and by the MT family to
tell a prompted causal LM from a translation model when a system's family is ``auto``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from natcomp.errors import ConfigError

__all__ = [
    "TRANSLATION_MODEL_TYPES",
    "is_causal_lm_config",
    "is_decoder_only",
    "masked_lm_model_types",
    "nli_label_answers",
    "unknown_architectures",
]

#: the ``model_type`` of the encoder-decoder translation models the MT family decodes with
#: (natcomp.mt.hf_translation: Marian; M2M100 and NLLB-200, both ``m2m_100``); T5, mT5 and
#: mBART-50 need prompts or language codes of their own that it does not write
TRANSLATION_MODEL_TYPES = ("marian", "m2m_100")


def _auto_mapping(name: str) -> dict[str, str]:
    # First the guard that keeps a mismatched torchaudio away: transformers remembers what
    # it found importable when it is first imported (natcomp.hf.torchaudio_guard).
    from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

    hide_mismatched_torchaudio()
    from transformers.models.auto import modeling_auto

    return dict(getattr(modeling_auto, name))


@functools.cache
def masked_lm_model_types() -> frozenset[str]:
    """Model types transformers knows with a masked-LM head (BERT, RoBERTa, ...)."""
    return frozenset(_auto_mapping("MODEL_FOR_MASKED_LM_MAPPING_NAMES"))


@functools.cache
def _causal_lm_classes() -> tuple[frozenset[str], frozenset[str]]:
    mapping = _auto_mapping("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES")
    return frozenset(mapping), frozenset(mapping.values())


@functools.cache
def _known_model_classes() -> frozenset[str]:
    """Every model class name transformers' auto classes can instantiate (all task mappings)."""
    from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

    hide_mismatched_torchaudio()
    from transformers.models.auto import modeling_auto

    names = set()
    for attribute in dir(modeling_auto):
        mapping = getattr(modeling_auto, attribute)
        if attribute.startswith("MODEL_") and attribute.endswith("_MAPPING_NAMES") and isinstance(mapping, dict):
            for value in mapping.values():
                names.update([value] if isinstance(value, str) else value)
    return frozenset(names)


def unknown_architectures(config: Mapping) -> list[str]:
    """The architectures a config names that this transformers cannot instantiate (a
    model with custom code, ``auto_map``: natcomp never runs remote code), in order."""
    known = _known_model_classes()
    return [str(name) for name in config.get("architectures") or [] if str(name) not in known]


def is_causal_lm_config(config: Mapping) -> bool:
    """Whether a config (``config.json`` as a mapping) is a decoder-only language model:
    not an encoder-decoder, and an architecture that is transformers' causal-LM class of
    some model type (``GPT2LMHeadModel``, ``LlamaForCausalLM``) or ends in ``ForCausalLM``.
    A config without architectures counts by its model type, when that type has a
    causal-LM class and no masked-LM one (BERT has both: a BERT config is an encoder)."""
    if config.get("is_encoder_decoder", False):
        return False
    types, classes = _causal_lm_classes()
    architectures = [str(name) for name in config.get("architectures") or []]
    if architectures:
        return any(name in classes or name.endswith("ForCausalLM") for name in architectures)
    return _decoder_only_type(str(config.get("model_type", "")))


def _decoder_only_type(model_type: str) -> bool:
    types, _ = _causal_lm_classes()
    return model_type in types and model_type not in masked_lm_model_types()


def is_decoder_only(model_or_config) -> bool:
    """Whether a model, its config or a config mapping is of a decoder-only type: a model
    type with a causal-LM class and no masked-LM one (GPT-2, Llama, Qwen2, Mistral; not
    BERT, which has both). Decided by the type, not the architectures, so a GPT-2 saved
    with a sequence-classification head still counts. Its states see only the left
    context: the last real token, not the first, sums up a text."""
    config = getattr(model_or_config, "config", model_or_config)
    read = config.get if isinstance(config, Mapping) else lambda name, default: getattr(config, name, default)
    return not read("is_encoder_decoder", False) and _decoder_only_type(str(read("model_type", "")))


#: what each NLI label other than entailment answers (names in lower case, "-" and " " read
#: as "_"): 0, the hypothesis does not follow; None, neither (neutral)
NON_ENTAILMENT_LABELS: Mapping[str, int | None] = {
    "contradiction": 0,
    "not_entailment": 0,
    "non_entailment": 0,
    "neutral": None,
}


def nli_label_answers(id2label, model_name: str, key: str) -> dict[int, int | None]:
    """What each label index of an NLI classifier's ``id2label`` answers: 1 (entailment,
    any name starting "entail"), 0 (contradiction, not-entailment) or None (neutral).
    Exactly one label must be entailment and every other one of
    :data:`NON_ENTAILMENT_LABELS`; else a :class:`ConfigError` naming ``key`` and the labels,
    the same one line whether PLANE's job or ``natcomp evaluate``'s plan finds it."""
    names = {int(i): str(name) for i, name in dict(id2label or {}).items()}
    normalised = {i: re.sub(r"[-\s]+", "_", name.strip().lower()) for i, name in names.items()}
    entailment = [i for i, name in normalised.items() if name.startswith("entail")]
    if len(entailment) != 1:
        raise ConfigError(
            key,
            f"cannot tell which label of {model_name} is entailment: its config has id2label {names}; "
            "expected exactly one label named 'entailment'",
        )
    unknown = {names[i] for i, name in normalised.items() if i not in entailment and name not in NON_ENTAILMENT_LABELS}
    if unknown:
        raise ConfigError(
            key,
            f"cannot tell what label {', '.join(sorted(unknown))} of {model_name} answers: its config has id2label "
            f"{names}; expected entailment, contradiction, not_entailment or neutral",
        )
    return {i: 1 if i in entailment else NON_ENTAILMENT_LABELS[name] for i, name in normalised.items()}
