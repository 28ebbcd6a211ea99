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
  mean-pooled states (FT: the head on the pooled state). An *instruct* causal LM (its tokenizer has a
  chat template) is prompted through its chat template.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from natcomp.errors import ConfigError

__all__ = [
    "FAMILIES",
    "ModelKinds",
    "PlanRow",
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
    instruct: bool = False

    def describe(self) -> str:
        names = [
            name
            for name, flag in (
                ("translation model", self.translation),
                ("instruct causal LM" if self.instruct else "causal LM", self.causal),
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
    ``chat_template``: whether its tokenizer has one (a causal LM is then an instruct model).
    An NLI classifier whose other labels PLANE cannot read is refused here, when the plan
    is made, with the one line PLANE's NLI job would give (``model``: its name there)."""
    from natcomp.hf.kinds import is_causal_lm_config, masked_lm_model_types, nli_label_answers

    architectures = [str(name) for name in config.get("architectures") or []]
    encoder_decoder = bool(config.get("is_encoder_decoder", False))
    translation = encoder_decoder and any(name.endswith(_GENERATION_HEADS) for name in architectures)
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
        instruct=causal and chat_template,
    )


def _inverted(label2id: Mapping) -> dict[int, str]:
    return {int(index): str(label) for label, index in label2id.items()}


def has_chat_template(config: Mapping, location: str) -> bool:
    """Whether a causal LM's tokenizer has a chat template (an instruct model); False for
    any other model (its tokenizer is not read)."""
    from natcomp.hf.kinds import is_causal_lm_config

    if not is_causal_lm_config(config):
        return False
    from natcomp.hf.causal import has_chat_template as tokenizer_has_chat_template

    return tokenizer_has_chat_template(location)


def read_model_config(model: str | os.PathLike, key: str = "--model") -> dict:
    """The config of a model, through transformers' AutoConfig, checked first as the MT
    systems are (:func:`natcomp.hf.check_model_available`): a folder, a shipped model or a
    cached Hub id; a Hub id that is not cached only while Hub access is on (its config.json
    is then fetched, nothing else). :class:`ConfigError` when there is none."""
    from natcomp import hf

    location = hf.check_model_available(model, key)
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
    chat = {True: "on", False: "off"}.get(setting("chat_template", "auto"), setting("chat_template", "auto"))
    chat_text = {"auto": "chat template if it has one", "on": "chat template", "off": "no chat template"}[str(chat)]
    prompt_text = repr(template) if template else "mt.prompting's default prompt"
    return (
        f"prompt {prompt_text}, {int(shots.get('k', 0))}-shot, {chat_text}, "
        f"{setting('decoding', 'greedy')} decoding, answer = first line"
    )


def plan(kinds: ModelKinds, config: Mapping | None = None, mt_system: Mapping | None = None) -> list[PlanRow]:
    """What each family the model fits will run (``config``: the base config, for counts;
    ``mt_system``: the model's ``mt.systems`` entry, for a causal LM's prompt)."""
    config = config or {}
    rows = []
    if kinds.translation:
        rows.append(
            PlanRow("mt", "translation model", "systematicity, substitutivity, overgeneralisation, BLEU (as a system)")
        )
    if kinds.causal:
        rows.append(
            PlanRow(
                "mt",
                kinds.describe(),
                "the MT tests and BLEU, translating by prompting: "
                + prompting_plan(mt_system, (config.get("mt") or {}).get("prompting")),
            )
        )
    seeds = (config.get("noncompsst") or {}).get("training", {}).get("seeds")
    seed_note = f", {len(seeds)} seed(s)" if isinstance(seeds, list) else ""
    if kinds.encoder:
        rows.append(
            PlanRow("noncompsst", "encoder", f"SST-7 fine-tuning{seed_note}; r with MAXABS, F1 on the top phrases")
        )
        rows.append(PlanRow("plane", "encoder", "fine-tuning on the GOoD and One-IT splits (accuracy)"))
        if kinds.masked_lm:
            rows.append(PlanRow("plane", "masked LM", "two-shot prompting (F1 per template x verbaliser)"))
        if kinds.nli:
            rows.append(PlanRow("plane", "NLI classifier", "NLI transfer (F1 per adjective class)"))
        rows.append(
            PlanRow("pss", "encoder", "PSS and relative PSS, linear and DNN heads, frozen (FB) and fine-tuned (FT)")
        )
        rows.append(PlanRow("tre", "encoder", "TRE on SST trees: Spearman rho with WNS, and with TI as baseline"))
    if kinds.causal:
        role = kinds.describe()
        rows += [
            PlanRow(
                "noncompsst",
                role,
                f"SST-7 fine-tuning{seed_note}, the released head on the last real token; "
                "r with MAXABS, F1 on the top phrases",
            ),
            PlanRow(
                "plane",
                role,
                "fine-tuning with transformers' sequence-classification head on the GOoD and One-IT splits (accuracy)",
            ),
            PlanRow(
                "plane",
                role,
                "zero- and two-shot prompting, the verbalisers' filled sentences compared by log-likelihood "
                "(F1 per template x verbaliser)",
            ),
            PlanRow(
                "pss",
                role,
                "PSS and relative PSS, linear and DNN heads, frozen (FB) and fine-tuned (FT), mean of the real tokens",
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
