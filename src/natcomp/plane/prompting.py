"""Two-shot prompting of masked and causal language models (paper Section 4, Tables 2 and 3).

For a triplet <A, N, h(N)> of class c, each inference type in turn is the hypothesis and
the other two are labelled premises, in both orders (the recency check): with the
internal template

    A {c1} is a {v1} example of a {c2}. A {c1} is a {v2} example of a {c2}. A {c1} is a [MASK] example of a {c2}.

where c1 = "A N" and v = the verbaliser of the premise's gold label. The prediction is the
model's top token over its whole vocabulary at the mask (the paper's "first prediction",
``answer: vocabulary``): the positive verbaliser gives 1, the negative 0, anything else -1
(wrong); hence F1 (:mod:`natcomp.plane.scoring`). ``answer: verbalisers`` instead picks the
more probable of the two verbalisers (never -1); an untrained model is then at chance
rather than near 0, which the demo uses. A verbaliser's token is the one the tokenizer
gives it in the filled template (:func:`verbaliser_ids`: after ":" a byte-level BPE has no
space marker); a verbaliser that is not one token there is a ConfigError naming it.

A causal (decoder-only) LM cannot see past the mask, so each verbaliser is filled in
where the mask stands and the filled sentences are compared by log-likelihood
(:func:`causal_answers`, lm-evaluation-harness's multiple choice): the context is the
prompt up to the mask, the continuation the verbaliser and the rest of the template.
``answer: verbalisers`` takes the likeliest; ``answer: vocabulary`` takes the verbaliser
the model writes greedily at the mask (its first prediction there, as the masked path's
top token over the vocabulary), -1 where it writes none of them. Zero-shot always takes
the latter.
See docs/design/plane.md, "Causal LMs".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from natcomp import hf
from natcomp.configcheck import chat_template_mode
from natcomp.errors import ConfigError
from natcomp.hf.kinds import is_causal_lm_config
from natcomp.plane.adjectives import INFERENCE_TYPES, label
from natcomp.plane.items import sample_triplets  # noqa: F401  (re-exported: the evaluation set)
from natcomp.plane.scoring import NOT_A_LABEL
from natcomp.plane.tables import table4  # noqa: F401  (re-exported)

TEMPLATES = {
    "internal": ("A {c1} is a {v} example of a {c2}.", "A {c1} is a {mask} example of a {c2}."),
    "external": ("A {c1} is a type of {c2}:{v}.", "A {c1} is a type of {c2}:{mask}."),
}
ANSWERS = ("vocabulary", "verbalisers")
#: what stands for the answer in a causal LM's prompt: the prompt is cut there
CAUSAL_MASK = "[MASK]"
VERBALISERS = {"GP": ("good", "poor"), "TF": ("true", "false"), "PN": ("positive", "negative")}
PREDICTION_COLUMNS = [
    "model",
    "template",
    "verbaliser",
    "premises",
    "class",
    "it",
    "adj",
    "noun",
    "hyp",
    "gold",
    "predicted",
]


@dataclasses.dataclass(frozen=True)
class PromptSettings:
    templates: Sequence[str] = ("internal", "external")
    verbalisers: Mapping[str, Sequence[str]] = dataclasses.field(default_factory=lambda: dict(VERBALISERS))
    answer: str = "vocabulary"  # or "verbalisers"
    batch_size: int = 64
    max_length: int = 96
    device: str = "auto"
    dtype: str = "auto"  # the run's inference dtype (config's top-level dtype)
    chat_template: str = "off"  # causal LMs only: on or off (never on because the tokenizer has one)

    def __post_init__(self):
        # YAML reads a bare on/off as true/false; auto (removed) and any other value is a ConfigError
        object.__setattr__(
            self, "chat_template", chat_template_mode(self.chat_template, "plane.prompting.chat_template")
        )
        if self.answer not in ANSWERS:
            raise ValueError(f"answer must be one of {', '.join(ANSWERS)}, got {self.answer!r}")
        unknown = [t for t in self.templates if t not in TEMPLATES]
        if unknown:
            raise ValueError(f"unknown template(s) {unknown}; expected {', '.join(TEMPLATES)}")


def _c2(it: str, adj: str, noun: str, hyp: str) -> str:
    return {"IT1": noun, "IT2": hyp, "IT3": f"{adj} {hyp}"}[it]


def build_prompts(triplets: pd.DataFrame, template: str, verbaliser: tuple[str, str], mask_token: str) -> pd.DataFrame:
    """One prompt per triplet, hypothesis IT and premise order."""
    premise_form, hypothesis_form = TEMPLATES[template]
    rows = []
    for adj, noun, hyp, cls in triplets[["adj", "noun", "hyp", "class"]].itertuples(index=False, name=None):
        c1 = f"{adj} {noun}"
        for it in INFERENCE_TYPES:
            others = [o for o in INFERENCE_TYPES if o != it]
            for order in (others, others[::-1]):
                premises = [
                    premise_form.format(c1=c1, c2=_c2(o, adj, noun, hyp), v=verbaliser[1 - label(cls, o)])
                    for o in order
                ]
                hypothesis = hypothesis_form.format(c1=c1, c2=_c2(it, adj, noun, hyp), mask=mask_token)
                rows.append(_prompt_row(" ".join([*premises, hypothesis]), ",".join(order), cls, it, adj, noun, hyp))
    return pd.DataFrame(rows)


def _prompt_row(prompt: str, premises: str, cls: str, it: str, adj: str, noun: str, hyp: str) -> dict:
    """One prompt of a triplet and IT, with its demonstrations' ITs and the gold answer."""
    return {
        "prompt": prompt,
        "premises": premises,
        "class": cls,
        "it": it,
        "adj": adj,
        "noun": noun,
        "hyp": hyp,
        "gold": label(cls, it),
    }


def mask_top_tokens(
    model, tokenizer, texts: Sequence[str], *, batch_size: int, max_length: int, device=None
) -> np.ndarray:
    """The id of the top-scoring vocabulary token at the (single) mask of each text, input order."""
    run_device = hf.device(device or "auto") if not isinstance(device, torch.device) else device
    if not hf.is_placed(model):  # a model spread over GPUs stays where it was placed
        model.to(run_device)
    model.eval()
    run_device = hf.model_device(model)
    top = np.empty(len(texts), dtype=np.int64)
    with torch.inference_mode():
        for indices in hf.length_sorted_batches(texts, batch_size):
            batch = hf.tokenize(tokenizer, [texts[i] for i in indices], max_length)
            is_mask = batch["input_ids"] == tokenizer.mask_token_id
            if bool((is_mask.sum(dim=1) != 1).any()):
                raise ValueError(f"a prompt has no single {tokenizer.mask_token} within {max_length} tokens")
            logits = model(**{k: v.to(run_device) for k, v in batch.items()}).logits
            top[indices] = logits[is_mask.to(run_device)].argmax(dim=-1).cpu().numpy()
    return top


PROBE = ("red car", "vehicle")  # c1 and c2 of the filled template a verbaliser is looked up in


def _word_tokens(tokenizer, text: str, start: int, end: int) -> list[int]:
    """Ids of the tokens of ``text`` that cover characters ``start:end`` (a fast tokenizer's
    offsets; a slow one: the tokens of the text minus those of what comes before and after)."""
    if getattr(tokenizer, "is_fast", False):
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        found = [
            (i, a, b) for i, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"]) if a < end and b > start
        ]
        # a token reaching beyond the word (other than over the space before it) merges it
        # with its neighbours (":good"): the mask cannot stand for it, so no single token
        # (the merged token twice: two ids, whether or not the tokenizer has an unknown token)
        if any(b > end or text[a:start].strip() for _, a, b in found):
            return [i for i, _, _ in found] * 2
        return [i for i, _, _ in found]
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    before = tokenizer(text[:start], add_special_tokens=False)["input_ids"]
    after = tokenizer(text[end:], add_special_tokens=False)["input_ids"]
    return ids[len(before) : len(ids) - len(after)] if len(before) + len(after) < len(ids) else []


def verbaliser_ids(
    tokenizer,
    verbalisers: Mapping[str, Sequence[str]],
    template: str,
    key: str = "plane.prompting.verbalisers",
) -> dict[str, tuple[int, int]]:
    """``{name: (positive id, negative id)}``: each verbaliser's token id as the tokenizer
    encodes it where ``template`` puts it, in the filled hypothesis (a byte-level BPE
    encodes ``good`` after ":" in the external template without the space marker, and
    ``Ġgood`` after the space of the internal one). A verbaliser that is not one known
    token there is a ConfigError naming it."""
    _, hypothesis_form = TEMPLATES[template]
    c1, c2 = PROBE
    prefix = hypothesis_form[: hypothesis_form.index("{mask}")].format(c1=c1, c2=c2)
    name_of = getattr(tokenizer, "name_or_path", "") or type(tokenizer).__name__
    ids = {}
    for name, words in verbalisers.items():
        pair = []
        for word in words:
            if not word or word != word.strip():
                raise ConfigError(f"{key}.{name}", f"{word!r} must be a non-empty word without surrounding spaces")
            text = hypothesis_form.format(c1=c1, c2=c2, mask=word)
            found = _word_tokens(tokenizer, text, len(prefix), len(prefix) + len(word))
            if len(found) != 1 or found[0] == tokenizer.unk_token_id:
                pieces = tokenizer.convert_ids_to_tokens(found)
                raise ConfigError(
                    f"{key}.{name}",
                    f"'{word}' is not one token of {name_of} where the {template} template puts it: "
                    f"{text!r} encodes it as {pieces}",
                )
            pair.append(int(found[0]))
        ids[name] = tuple(pair)
    return ids


def evaluate_prompting(
    model_name: str | Mapping,
    triplets: pd.DataFrame,
    settings: PromptSettings,
    log=None,
    name: str | None = None,
    served=None,
) -> pd.DataFrame:
    """Predictions of one masked LM for every template, verbaliser, triplet, IT and premise order.

    ``model_name`` is a Hugging Face id or local path; ``name`` (default: ``model_name``) is
    what the ``model`` column says. A causal LM goes through :func:`evaluate_prompting_causal`,
    a served one (an entry ``{model, api_base, api_key_env}``) through
    :func:`natcomp.plane.served_prompting.evaluate_prompting_served` (``served``: its cache
    and request settings)."""
    if isinstance(model_name, Mapping):
        from natcomp.plane.served_prompting import evaluate_prompting_served

        return evaluate_prompting_served(model_name, triplets, settings, served, log=log, name=name)
    key = "plane.prompting.models"
    if is_causal_lm(model_name, key):
        return evaluate_prompting_causal(model_name, triplets, settings, log=log, name=name)
    tokenizer = hf.load_tokenizer(model_name, key)
    # each verbaliser's id as the tokenizer encodes it in each template; fail before any work
    ids = {template: verbaliser_ids(tokenizer, settings.verbalisers, template) for template in settings.templates}
    model = hf.load_masked_lm(
        model_name, key, dtype=hf.run_dtype(model_name, settings.dtype, hf.device(settings.device), key)
    )
    frames = []
    for template in settings.templates:
        for verbaliser_name, words in settings.verbalisers.items():
            prompts = build_prompts(triplets, template, tuple(words), tokenizer.mask_token)
            texts = list(prompts["prompt"])
            positive, negative = ids[template][verbaliser_name]
            if settings.answer == "vocabulary":
                top = mask_top_tokens(
                    model,
                    tokenizer,
                    texts,
                    batch_size=settings.batch_size,
                    max_length=settings.max_length,
                    device=settings.device,
                )
                predicted = np.where(top == positive, 1, np.where(top == negative, 0, NOT_A_LABEL))
            else:
                scores = hf.masked_token_probabilities(
                    model,
                    tokenizer,
                    texts,
                    [positive, negative],
                    batch_size=settings.batch_size,
                    max_length=settings.max_length,
                    device=hf.device(settings.device),
                )
                predicted = (scores[:, 0] > scores[:, 1]).astype(int)
            frames.append(
                prompts.drop(columns="prompt").assign(
                    model=name or model_name, template=template, verbaliser=verbaliser_name, predicted=predicted
                )
            )
            if log:
                log.info(
                    "%s %s %s: %d prompts, %.1f%% verbaliser answers",
                    model_name,
                    template,
                    verbaliser_name,
                    len(prompts),
                    100 * float((predicted != NOT_A_LABEL).mean()),
                )
    return pd.concat(frames, ignore_index=True)[PREDICTION_COLUMNS]


# ----------------------------------------------------------------------------------------
# zero-shot prompting (appendix B.1, Tables 7 and 8)

# Table 7: the conversion table V, positive -> negative
ZERO_SHOT_VERBALISERS = (
    ("good", "poor"),
    ("true", "false"),
    ("positive", "negative"),
    ("great", "bad"),
    ("possible", "impossible"),
    ("plausible", "implausible"),
    ("acceptable", "unacceptable"),
    ("strong", "weak"),
)


def build_zero_shot_prompts(triplets: pd.DataFrame, template: str, mask_token: str) -> pd.DataFrame:
    """One prompt per triplet and IT: the hypothesis alone, no demonstration (appendix B.1)."""
    _, hypothesis_form = TEMPLATES[template]
    rows = []
    for adj, noun, hyp, cls in triplets[["adj", "noun", "hyp", "class"]].itertuples(index=False, name=None):
        for it in INFERENCE_TYPES:
            prompt = hypothesis_form.format(c1=f"{adj} {noun}", c2=_c2(it, adj, noun, hyp), mask=mask_token)
            rows.append(_prompt_row(prompt, "", cls, it, adj, noun, hyp))
    return pd.DataFrame(rows)


def conversion_ids(tokenizer, pairs: Sequence[Sequence[str]], template: str, log=None) -> tuple[set[int], set[int]]:
    """The token ids of the positive and of the negative words of the conversion table V, as
    the tokenizer encodes them where ``template`` puts the answer. A word that is not one
    token there can never be the top-1 answer: it is left out, with a warning naming it; a
    side left without any word is a ConfigError."""
    sides: tuple[set[int], set[int]] = (set(), set())
    for pair in pairs:
        for side, word in zip(sides, pair):
            try:
                side.add(
                    verbaliser_ids(tokenizer, {"V": [word, word]}, template, "plane.zero_shot.verbalisers")["V"][0]
                )
            except ConfigError as error:
                if log:
                    log.warning("zero-shot: %s; left out of V", error)
    for side, name in zip(sides, ("positive", "negative")):
        if not side:
            raise ConfigError(
                "plane.zero_shot.verbalisers", f"no {name} word of V is one token in the {template} template"
            )
    return sides


def evaluate_zero_shot(
    model_name: str | Mapping,
    triplets: pd.DataFrame,
    settings: PromptSettings,
    pairs=ZERO_SHOT_VERBALISERS,
    log=None,
    name=None,
    served=None,
) -> pd.DataFrame:
    """Zero-shot predictions of one masked LM (appendix B.1): per template, triplet and IT the
    model's top token at the mask, 1 if it is a positive word of V, 0 if a negative one,
    -1 (wrong) otherwise. Columns :data:`PREDICTION_COLUMNS` (``verbaliser`` = ``V``).
    A causal LM goes through :func:`evaluate_zero_shot_causal`, a served one through
    :func:`natcomp.plane.served_prompting.evaluate_zero_shot_served`."""
    if isinstance(model_name, Mapping):
        from natcomp.plane.served_prompting import evaluate_zero_shot_served

        return evaluate_zero_shot_served(model_name, triplets, settings, served, pairs, log=log, name=name)
    key = "plane.prompting.models"
    if is_causal_lm(model_name, key):
        return evaluate_zero_shot_causal(model_name, triplets, settings, pairs, log=log, name=name)
    tokenizer = hf.load_tokenizer(model_name, key)
    ids = {template: conversion_ids(tokenizer, pairs, template, log) for template in settings.templates}
    model = hf.load_masked_lm(
        model_name, key, dtype=hf.run_dtype(model_name, settings.dtype, hf.device(settings.device), key)
    )
    frames = []
    for template in settings.templates:
        prompts = build_zero_shot_prompts(triplets, template, tokenizer.mask_token)
        top = mask_top_tokens(
            model,
            tokenizer,
            list(prompts["prompt"]),
            batch_size=settings.batch_size,
            max_length=settings.max_length,
            device=settings.device,
        )
        positive, negative = ids[template]
        predicted = np.array([1 if t in positive else 0 if t in negative else NOT_A_LABEL for t in top.tolist()])
        frames.append(
            prompts.drop(columns="prompt").assign(
                model=name or model_name, template=template, verbaliser="V", predicted=predicted
            )
        )
        if log:
            log.info(
                "%s zero-shot %s: %d prompts, %.1f%% answers in V",
                model_name,
                template,
                len(prompts),
                100 * float((predicted != NOT_A_LABEL).mean()),
            )
    return pd.concat(frames, ignore_index=True)[PREDICTION_COLUMNS]


# ----------------------------------------------------------------------------------------
# causal (decoder-only) LMs: the filled sentences compared by log-likelihood


def is_causal_lm(model_name: str, key: str = "plane.prompting.models") -> bool:
    """Whether the model (checked available first) is a decoder-only causal LM, read from its
    config (:func:`natcomp.hf.kinds.is_causal_lm_config`); a masked LM is not."""
    return is_causal_lm_config(hf.load_config(model_name, key).to_dict())


def causal_generator(model_name: str, settings: PromptSettings, key: str = "plane.prompting.models"):
    """``(generator, chat)``: a :class:`natcomp.hf.CausalGenerator` of the model with the
    settings' batch size and device, and whether its prompts go through its chat template:
    only when ``chat_template`` is on (on without one is a ConfigError), never because the
    tokenizer has one (a base model's may have one too)."""
    chat = settings.chat_template == "on"
    if chat and not hf.has_chat_template(hf.resolve_model(model_name)):
        raise ConfigError("plane.prompting.chat_template", f"is on but '{model_name}' has no chat template")
    generator = hf.CausalGenerator(
        model_name,
        hf.GenerationSettings(batch_size=settings.batch_size, device=settings.device, precision=settings.dtype),
        key=key,
    )
    return generator, chat


def _context_and_rest(prompt: str, generator, chat: bool) -> tuple[str, str]:
    """The text before the (last) :data:`CAUSAL_MASK` of a prompt, and the template's text
    after it. With ``chat`` the text before is the user's turn of the chat template, and the
    answer starts the assistant's turn (white space around the cut dropped)."""
    context, found, rest = prompt.rpartition(CAUSAL_MASK)
    if not found:
        raise ValueError(f"the prompt {prompt!r} has no {CAUSAL_MASK}")
    if chat:
        return generator.apply_chat_template(context.rstrip()), rest
    return context, rest


def filled_loglikelihoods(generator, prompts: Sequence[str], words: Sequence[str], chat: bool = False) -> np.ndarray:
    """``[prompt, word]``: the log-likelihood of each word followed by the rest of the
    template, given the prompt up to its mask (one batched call for every pair)."""
    cut = [_context_and_rest(prompt, generator, chat) for prompt in prompts]
    contexts = [context for context, _ in cut for _ in words]
    continuations = [word + rest for _, rest in cut for word in words]
    scores = generator.loglikelihoods(contexts, continuations)
    return np.array([total for total, _ in scores], dtype=np.float64).reshape(len(prompts), len(words))


def causal_answers(
    generator,
    prompts: Sequence[str],
    words: Sequence[str],
    labels: Sequence[int],
    *,
    first_prediction: bool,
    chat: bool = False,
) -> np.ndarray:
    """Per prompt, the label of one of ``words``.

    Without ``first_prediction`` (``answer: verbalisers``): the word whose filled sentence
    is likeliest (the first such word on a tie). With it (``answer: vocabulary``, and
    zero-shot): the word greedy decoding writes at the mask, from the text before it (the
    model's own first prediction there, as the masked-LM path answers with its top token
    over the whole vocabulary), -1 (wrong) where it writes none of them. Two words can
    both be greedy only when one's tokens begin the other's; then the likelier one."""
    if not first_prediction:
        best = filled_loglikelihoods(generator, prompts, words, chat).argmax(axis=1)
        return np.asarray(labels, dtype=np.int64)[best]
    contexts = [_context_and_rest(prompt, generator, chat)[0] for prompt in prompts]
    scored = generator.loglikelihoods(
        [context for context in contexts for _ in words], [word for _ in contexts for word in words]
    )
    shape = (len(prompts), len(words))
    scores = np.array([score for score, _ in scored], dtype=np.float64).reshape(shape)
    greedy = np.array([is_greedy for _, is_greedy in scored], dtype=bool).reshape(shape)
    written = np.where(greedy, scores, -np.inf).argmax(axis=1)
    answers = np.asarray(labels, dtype=np.int64)[written]
    return np.where(greedy.any(axis=1), answers, NOT_A_LABEL)


def _log_chat(log, model_name: str, chat: bool) -> None:
    if log:
        how = "through its chat template (chat_template: on)" if chat else "as plain text (chat_template: off)"
        log.info("%s: prompts %s", model_name, how)


def _log_answers(log, text: str, model_name: str, predictions: np.ndarray, count: int) -> None:
    if log:
        log.info(
            "%s %s: %d prompts, %.1f%% verbaliser answers",
            model_name,
            text,
            count,
            100 * float((predictions != NOT_A_LABEL).mean()),
        )


def prompting_predictions(
    answers, model_name: str, triplets: pd.DataFrame, settings: PromptSettings, log=None, name: str | None = None
) -> pd.DataFrame:
    """Two-shot predictions (Table 4) of a causal LM, loaded or served: per template and
    verbaliser pair, ``answers(prompts, words, labels, first_prediction)`` (the label of
    each prompt's answer: :func:`causal_answers` for a loaded model) over the two
    verbalisers, ``first_prediction`` with ``answer: vocabulary``. Columns :data:`PREDICTION_COLUMNS`."""
    frames = []
    for template in settings.templates:
        for verbaliser_name, words in settings.verbalisers.items():
            prompts = build_prompts(triplets, template, tuple(words), CAUSAL_MASK)
            predicted = answers(list(prompts["prompt"]), list(words), [1, 0], settings.answer == "vocabulary")
            frames.append(
                prompts.drop(columns="prompt").assign(
                    model=name or model_name, template=template, verbaliser=verbaliser_name, predicted=predicted
                )
            )
            _log_answers(log, f"{template} {verbaliser_name}", model_name, predicted, len(prompts))
    return pd.concat(frames, ignore_index=True)[PREDICTION_COLUMNS]


def zero_shot_predictions(
    answers, model_name: str, triplets: pd.DataFrame, settings: PromptSettings, pairs, log=None, name=None
) -> pd.DataFrame:
    """Zero-shot predictions (Table 8) of a causal LM, loaded or served: per template,
    triplet and IT the word of V the model writes at the mask (``answers(prompts, words,
    labels, True)``): 1 for a positive word, 0 for a negative one, -1 where it writes no
    word of V. ``answer`` does not apply."""
    words = [word for pair in pairs for word in pair]
    labels = [label for _ in pairs for label in (1, 0)]
    frames = []
    for template in settings.templates:
        prompts = build_zero_shot_prompts(triplets, template, CAUSAL_MASK)
        predicted = answers(list(prompts["prompt"]), words, labels, True)
        frames.append(
            prompts.drop(columns="prompt").assign(
                model=name or model_name, template=template, verbaliser="V", predicted=predicted
            )
        )
        _log_answers(log, f"zero-shot {template}", model_name, predicted, len(prompts))
    return pd.concat(frames, ignore_index=True)[PREDICTION_COLUMNS]


def _loaded_answers(generator, chat: bool):
    def answers(prompts, words, labels, first_prediction):
        return causal_answers(generator, prompts, words, labels, first_prediction=first_prediction, chat=chat)

    return answers


def evaluate_prompting_causal(
    model_name: str, triplets: pd.DataFrame, settings: PromptSettings, log=None, name: str | None = None
) -> pd.DataFrame:
    """Two-shot predictions of one causal LM (Table 4): per template and verbaliser pair,
    :func:`causal_answers` over the two verbalisers (``answer: vocabulary``: the one the
    model writes first at the mask, if any). Columns :data:`PREDICTION_COLUMNS`."""
    generator, chat = causal_generator(model_name, settings)
    _log_chat(log, model_name, chat)
    return prompting_predictions(_loaded_answers(generator, chat), model_name, triplets, settings, log, name)


def evaluate_zero_shot_causal(
    model_name: str, triplets: pd.DataFrame, settings: PromptSettings, pairs=ZERO_SHOT_VERBALISERS, log=None, name=None
) -> pd.DataFrame:
    """Zero-shot predictions of one causal LM (Table 8): per template, triplet and IT the
    word of V the model writes greedily at the mask (its first prediction there, as the
    masked path's top token): 1 for a positive word, 0 for a negative one, -1 where it
    writes no word of V. ``answer`` does not apply."""
    generator, chat = causal_generator(model_name, settings)
    _log_chat(log, model_name, chat)
    return zero_shot_predictions(_loaded_answers(generator, chat), model_name, triplets, settings, pairs, log, name)
