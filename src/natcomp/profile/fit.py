"""Which families a model fits, decided from its config alone (no weights are loaded).

The kinds of model (issue 26):

- a *translation model*: an encoder-decoder with a generation head (``is_encoder_decoder``
  and an architecture ``...ForConditionalGeneration`` or ``...MTModel``) -> MT;
- an *encoder*: not an encoder-decoder and a model type that transformers knows with a
  masked-LM head (BERT, RoBERTa, DistilBERT, MPNet, ELECTRA, DeBERTa, ...; a decoder-only
  GPT has none) -> PSS (FB and FT), TRE, NonCompSST, PLANE fine-tuning;
- a *masked LM*: an encoder whose architectures include ``...ForMaskedLM`` -> also PLANE
  prompting;
- an *NLI classifier*: an encoder whose ``label2id`` has an ``entailment`` label (any case)
  -> also PLANE NLI transfer;
- a *causal LM*: a decoder-only language model (``...ForCausalLM``, GPT-2's
  ``GPT2LMHeadModel``; :func:`natcomp.hf.kinds.is_causal_lm_config`) -> every family (issue
  34): MT as a prompted translation system; NonCompSST with the released head on the last
  real token; PLANE fine-tuning with transformers' sequence-classification head and PLANE
  prompting by the log-likelihood of each verbaliser's filled sentence; PSS and TRE on
  mean-pooled states (FT: the head on the pooled state). MT and PLANE prompting go through
  its tokenizer's chat template only when asked (``chat_template: on``, ``natcomp evaluate
  --chat-template``), never because the tokenizer has one: a base model's may have one too
  (:func:`chat_templates`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from natcomp.configcheck import chat_template_mode
from natcomp.errors import ConfigError

__all__ = [
    "FAMILIES",
    "ModelKinds",
    "PlanRow",
    "chat_template_text",
    "chat_templates",
    "fine_tuning_text",
    "fitting_families",
    "format_plan",
    "model_kinds",
    "plan",
    "read_model_config",
]

#: the families in the order the profile lists them
FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")

_GENERATION_HEADS = ("ForConditionalGeneration", "MTModel")


@dataclass(frozen=True)
class ModelKinds:
    translation: bool
    encoder: bool
    masked_lm: bool
    nli: bool
    causal: bool = False
    #: a causal LM whose tokenizer has a chat template (a base model's may have one too: it
    #: does not make the model an instruct model)
    chat_template: bool = False

    def describe(self, chat_applied: bool = False) -> str:
        """What the model is; a causal LM with whether its chat template is applied
        (``chat_applied``), or has one that is not."""
        causal = "causal LM"
        if self.causal and chat_applied:
            causal = "causal LM, chat template applied"
        elif self.chat_template:
            causal = "causal LM (has a chat template, not applied: --chat-template)"
        names = [
            name
            for name, flag in (
                ("translation model", self.translation),
                (causal, self.causal),
                ("encoder", self.encoder and not (self.masked_lm or self.nli)),
                ("masked LM", self.masked_lm),
                ("NLI classifier", self.nli),
            )
            if flag
        ]
        return ", ".join(names) or "none of the kinds natcomp tests"

    @property
    def language_model(self) -> bool:
        """A model PLANE prompts: a masked LM (the mask filled) or a causal LM (the filled
        sentences compared by log-likelihood)."""
        return self.masked_lm or self.causal


@dataclass(frozen=True)
class PlanRow:
    family: str
    role: str
    runs: str


def model_kinds(config: Mapping, chat_template: bool = False, model: str = "the model") -> ModelKinds:
    """The kinds of a model from its config (a ``config.json`` as a mapping);
    ``chat_template``: whether its tokenizer has one (kept for a causal LM only).
    An NLI classifier whose other labels PLANE cannot read is refused here, when the plan
    is made, with the one line PLANE's NLI job would give (``model``: its name there)."""
    from natcomp.hf.kinds import (
        TRANSLATION_MODEL_TYPES,
        is_causal_lm_config,
        masked_lm_model_types,
        nli_label_answers,
        unknown_architectures,
    )

    unknown = unknown_architectures(config)
    if unknown:
        raise ConfigError(
            "--model",
            f"{model}'s architecture {', '.join(unknown)} is not one transformers can instantiate (a model with "
            "custom code: natcomp does not run remote code); expected an architecture of transformers' own",
        )

    architectures = [str(name) for name in config.get("architectures") or []]
    encoder_decoder = bool(config.get("is_encoder_decoder", False))
    translation = encoder_decoder and any(name.endswith(_GENERATION_HEADS) for name in architectures)
    model_type = str(config.get("model_type", ""))
    if translation and model_type not in TRANSLATION_MODEL_TYPES:
        raise ConfigError(
            "--model",
            f"{model} is a {model_type} encoder-decoder: the MT family translates with Marian (marian), M2M100 and "
            "NLLB-200 (m2m_100) models, and no other family takes an encoder-decoder",
        )
    encoder = (
        not encoder_decoder
        and not config.get("is_decoder", False)
        and str(config.get("model_type", "")) in masked_lm_model_types()
    )
    causal = not translation and is_causal_lm_config(config)
    masked_lm = encoder and any(name.endswith("ForMaskedLM") for name in architectures)
    labels = {str(label).strip().lower() for label in (config.get("label2id") or {})}
    nli = encoder and "entailment" in labels
    if nli:
        nli_label_answers(config.get("id2label") or _inverted(config.get("label2id") or {}), model, "--model")
    return ModelKinds(
        translation=translation,
        encoder=encoder,
        masked_lm=masked_lm,
        nli=nli,
        causal=causal,
        chat_template=causal and chat_template,
    )


def _inverted(label2id: Mapping) -> dict[int, str]:
    return {int(index): str(label) for label, index in label2id.items()}


def has_chat_template(config: Mapping, location: str) -> bool:
    """Whether a causal LM's tokenizer has a chat template (a base model's may have one
    too); False for any other model (its tokenizer is not read)."""
    from natcomp.hf.kinds import is_causal_lm_config

    if not is_causal_lm_config(config):
        return False
    from natcomp.hf.causal import has_chat_template as tokenizer_has_chat_template

    return tokenizer_has_chat_template(location)


def read_model_config(model: str | os.PathLike, key: str = "--model") -> dict:
    """The config of a model, through transformers' AutoConfig, checked first as the MT
    systems are (:func:`natcomp.hf.check_model_available`): a folder, a shipped model or a
    cached Hub id; a Hub id that is not cached only while Hub access is on (its config.json
    is then fetched, nothing else); an adapter folder's base's (:mod:`natcomp.adapters`).
    :class:`ConfigError` when there is none."""
    from natcomp import hf
    from natcomp.adapters import read_adapter

    location = hf.check_model_available(model, key)
    adapter = read_adapter(location, key)
    if adapter is not None:  # an adapter fits the families its base fits
        location = adapter.base_location
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(hf.resolve_model(location), local_files_only=hf.hub_offline())
    except (OSError, ValueError, KeyError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ConfigError(key, f"cannot read the config of {model}: {first}") from None
    return config.to_dict()


def prompting_plan(system: Mapping | None, prompting: Mapping | None = None) -> str:
    """How a causal LM's ``mt.systems`` entry prompts, in one line: its own settings, else
    the base config's ``mt.prompting`` (the workflow merges them the same way)."""
    system, prompting = system or {}, prompting or {}

    def setting(key: str, default):
        value = system.get(key)
        return prompting.get(key, default) if value is None else value

    template = setting("prompt", None)
    shots = {
        **(prompting.get("few_shot") or {}),
        **{k: v for k, v in (system.get("few_shot") or {}).items() if v is not None},
    }
    key = "--chat-template" if system.get("chat_template") is not None else "mt.prompting.chat_template"
    chat = chat_template_mode(setting("chat_template", "off"), key)
    chat_text = {"on": "chat template", "off": "no chat template"}[chat]
    prompt_text = repr(template) if template else "mt.prompting's default prompt"
    return (
        f"prompt {prompt_text}, {int(shots.get('k', 0))}-shot, {chat_text}, "
        f"{setting('decoding', 'greedy')} decoding, answer = first line"
    )


#: the families that prompt a causal LM, and their names in the plan and the profile
PROMPTING_FAMILIES = {"mt": "MT", "plane": "PLANE prompting"}


def chat_templates(
    kinds: ModelKinds,
    config: Mapping | None = None,
    mt_system: Mapping | None = None,
    families: Sequence[str] = FAMILIES,
) -> dict[str, bool]:
    """Per family of ``families`` that prompts a causal LM (``mt``, ``plane``), whether its
    prompts go through the tokenizer's chat template: only where the settings say ``on``
    (MT: ``mt_system``'s ``chat_template``, else the base ``config``'s ``mt.prompting``; PLANE:
    ``plane.prompting``), off by default, never because the tokenizer has one; lm-evaluation-harness
    applies one only when asked (``--apply_chat_template``). Empty for a model that is no
    causal LM. :class:`ConfigError` naming the key for a value other than on or off (``auto``
    was removed) and for on when the tokenizer has no chat template."""
    if not kinds.causal:
        return {}
    config, system = config or {}, mt_system or {}
    settings = {}
    if "mt" in families:
        if system.get("chat_template") is not None:  # natcomp mt evaluate --chat-template
            settings["mt"] = (system["chat_template"], "--chat-template")
        else:
            prompting = (config.get("mt") or {}).get("prompting") or {}
            settings["mt"] = (prompting.get("chat_template", "off"), "mt.prompting.chat_template")
    if "plane" in families:
        prompting = (config.get("plane") or {}).get("prompting") or {}
        settings["plane"] = (prompting.get("chat_template", "off"), "plane.prompting.chat_template")
    applied = {}
    for family, (value, key) in settings.items():
        applied[family] = chat_template_mode(value, key) == "on"
        if applied[family] and not kinds.chat_template:
            raise ConfigError(key, "is on but the model's tokenizer has no chat template")
    return applied


def chat_template_text(applied: Mapping[str, bool] | None) -> str:
    """Whether the chat template was applied, in words ('' for a model that is no causal LM)."""
    if not applied:
        return ""
    on = [PROMPTING_FAMILIES.get(family, family) for family, flag in applied.items() if flag]
    off = [PROMPTING_FAMILIES.get(family, family) for family, flag in applied.items() if not flag]
    if not on:
        return "chat template not applied"
    if not off:
        return "chat template applied"
    return f"chat template applied in {', '.join(on)}, not in {', '.join(off)}"


#: the fine-tuning families in the plan and on the profile page
FINE_TUNING_NAMES = {"noncompsst": "NonCompSST", "plane": "PLANE", "pss": "PSS FT"}


def fine_tuning_text(described: Mapping[str, str] | None) -> str:
    """Each family's fine-tuning (family -> the method in words:
    :meth:`natcomp.model_description.ModelDescription.fine_tuning_texts`) in one phrase for the
    plan and the profile page: the method, and the
    families it applies to ('' for a run without a fine-tuning family)."""
    if not described:
        return ""
    names = [FINE_TUNING_NAMES.get(family, family) for family in described]
    methods = list(dict.fromkeys(described.values()))
    if len(methods) == 1:
        return f"{methods[0]} ({', '.join(names)})"
    return "; ".join(f"{FINE_TUNING_NAMES.get(family, family)} {method}" for family, method in described.items())


def plan(
    kinds: ModelKinds,
    config: Mapping | None = None,
    mt_system: Mapping | None = None,
    chat: Mapping[str, bool] | None = None,
    fine_tuning: Mapping[str, str] | None = None,
) -> list[PlanRow]:
    """What each family the model fits will run (``config``: the base config, for counts;
    ``mt_system``: the model's ``mt.systems`` entry, for a causal LM's prompt; ``chat``:
    :func:`chat_templates`, computed from them when not given; ``fine_tuning``: the method
    each fine-tuning family names, :meth:`natcomp.model_description.ModelDescription.fine_tuning_texts`)."""
    config = config or {}
    chat = chat_templates(kinds, config, mt_system) if chat is None else chat
    tuned = {family: f", {method}" for family, method in (fine_tuning or {}).items()}
    rows = []
    # which test items MT runs on: natcomp's generated ones, or the original study's
    released = ((config.get("mt") or {}).get("tests") or {}).get("items") == "released"
    items = "; on the original study's released test items" if released else ""
    if kinds.translation:
        rows.append(
            PlanRow(
                "mt",
                "translation model",
                f"systematicity, substitutivity, overgeneralisation, BLEU (as a system){items}",
            )
        )
    if kinds.causal:
        rows.append(
            PlanRow(
                "mt",
                kinds.describe(chat.get("mt", False)),
                "the MT tests and BLEU, translating by prompting: "
                + prompting_plan(mt_system, (config.get("mt") or {}).get("prompting"))
                + items,
            )
        )
    seeds = (config.get("noncompsst") or {}).get("training", {}).get("seeds")
    seed_note = f", {len(seeds)} seed(s)" if isinstance(seeds, list) else ""
    if kinds.encoder:
        rows.append(
            PlanRow(
                "noncompsst",
                "encoder",
                f"SST-7 fine-tuning{seed_note}{tuned.get('noncompsst', '')}; r with MAXABS, F1 on the top phrases",
            )
        )
        rows.append(
            PlanRow("plane", "encoder", f"fine-tuning on the GOoD and One-IT splits (accuracy){tuned.get('plane', '')}")
        )
        if kinds.masked_lm:
            rows.append(PlanRow("plane", "masked LM", "two-shot prompting (F1 per template x verbaliser)"))
        if kinds.nli:
            rows.append(PlanRow("plane", "NLI classifier", "NLI transfer (F1 per adjective class)"))
        rows.append(
            PlanRow(
                "pss",
                "encoder",
                f"PSS and relative PSS, linear and DNN heads, frozen (FB) and fine-tuned (FT{tuned.get('pss', '')})",
            )
        )
        rows.append(PlanRow("tre", "encoder", "TRE on SST trees: Spearman rho with WNS, and with TI as baseline"))
    if kinds.causal:
        role = "causal LM"  # these families never prompt it: no chat template
        rows += [
            PlanRow(
                "noncompsst",
                role,
                f"SST-7 fine-tuning{seed_note}{tuned.get('noncompsst', '')}, the released head on the last real token; "
                "r with MAXABS, F1 on the top phrases",
            ),
            PlanRow(
                "plane",
                role,
                "fine-tuning with transformers' sequence-classification head on the GOoD and One-IT splits "
                f"(accuracy){tuned.get('plane', '')}",
            ),
            PlanRow(
                "plane",
                kinds.describe(chat.get("plane", False)),
                "zero- and two-shot prompting, the verbalisers' filled sentences compared by log-likelihood "
                "(F1 per template x verbaliser)",
            ),
            PlanRow(
                "pss",
                role,
                f"PSS and relative PSS, linear and DNN heads, frozen (FB) and fine-tuned (FT{tuned.get('pss', '')}), "
                "mean of the real tokens",
            ),
            PlanRow("tre", role, "TRE on SST trees (mean of the real tokens): Spearman rho with WNS, TI as baseline"),
        ]
    return rows


def fitting_families(kinds: ModelKinds) -> list[str]:
    fitted = {row.family for row in plan(kinds)}
    return [family for family in FAMILIES if family in fitted]


def choose_families(model: str, kinds: ModelKinds, asked: Sequence[str] | None) -> list[str]:
    """The families to run: all the model fits, or those asked for; a one-line error for a
    model that fits none or a family asked for that it does not fit."""
    fitted = fitting_families(kinds)
    if not fitted:
        raise ConfigError(
            "--model",
            f"{model} fits no family: it is {kinds.describe()}; natcomp tests translation models "
            "(encoder-decoders with a generation head), causal LMs (decoder-only language models) and "
            "encoders (BERT-like models with a masked-LM type)",
        )
    if not asked:
        return fitted
    unknown = sorted(set(asked) - set(FAMILIES))
    if unknown:
        raise ConfigError("--families", f"unknown family {', '.join(unknown)}; known: {', '.join(FAMILIES)}")
    unfit = [family for family in asked if family not in fitted]
    if unfit:
        raise ConfigError(
            "--families",
            f"{model} does not fit {', '.join(unfit)}: it is {kinds.describe()}, which fits {', '.join(fitted)}",
        )
    return [family for family in FAMILIES if family in asked]


def format_plan(rows: Iterable[PlanRow]) -> str:
    """The plan as an aligned text table (family, role, what will run)."""
    table = [("family", "role", "what will run"), *((row.family, row.role, row.runs) for row in rows)]
    widths = [max(len(line[column]) for line in table) for column in range(2)]
    return "\n".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in table)
