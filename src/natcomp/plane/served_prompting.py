"""PLANE prompting of a causal LM behind an OpenAI-compatible API (docs/llm.md).

The prompts are a loaded causal LM's (:func:`natcomp.plane.prompting.build_prompts`, cut at
the mask); only the way an answer is read differs, because a server gives text out and
only some give prompt log-probabilities in:

* by the word the model writes (``answer: vocabulary``, and zero-shot always), on every
  server: the text before the mask is sent, its white space at the end moved to the
  answer as lm-evaluation-harness moves it (``"... a"`` is sent and ``" good"`` is looked
  for), the model continues greedily for as many tokens as the longest word has
  characters, and the word its answer begins with is its answer (-1 where it begins with
  none; of two words that both begin it, the longer). A loaded model answers the same
  question with its logits (does greedy decoding write the word's tokens?); the two
  differ only where a model spells a word with other tokens than its tokenizer does.
  With the chat template on, the text before the mask is the user's turn and the
  assistant's answer, its leading white space dropped, is read the same way;
* by verbaliser log-likelihood (``answer: verbalisers``) only where the server returns
  prompt log-probabilities (``/v1/completions`` with ``echo`` and ``logprobs``: vLLM,
  llama-cpp-python): the filled sentence is sent and the log-probabilities of the tokens
  from the verbaliser on are summed (lm-evaluation-harness's ``local-completions``), and
  not through a chat template (the server renders it; its text is not echoed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from natcomp.errors import ConfigError
from natcomp.plane.prompting import (
    CAUSAL_MASK,
    ZERO_SHOT_VERBALISERS,
    PromptSettings,
    _log_chat,
    prompting_predictions,
    zero_shot_predictions,
)
from natcomp.plane.scoring import NOT_A_LABEL
from natcomp.served import RequestSettings, ServedModel, served_endpoint

__all__ = [
    "ServedJob",
    "evaluate_prompting_served",
    "evaluate_zero_shot_served",
    "served_loglikelihoods",
    "served_written_answers",
]


@dataclass(frozen=True)
class ServedJob:
    """What a served model's prompting job needs besides the model: where its answers are
    cached, the requests' settings (the config's ``served``), how many it has in flight
    (its Snakemake resource ``served_requests``) and where it writes its usage."""

    cache_dir: str | Path
    settings: RequestSettings = RequestSettings()
    concurrency: int | None = None
    usage: str | Path | None = None


def _served_model(entry: Mapping, settings: PromptSettings, job: ServedJob | None, *, logprobs: bool) -> ServedModel:
    if job is None:
        raise ValueError("a served model's prompting needs its ServedJob (cache, settings)")
    chat = settings.chat_template == "on"
    if logprobs and chat:
        raise ConfigError(
            "plane.prompting.answer",
            "verbalisers compares log-likelihoods of the filled prompt, which a server cannot give through its "
            "chat template; expected vocabulary (the word the model writes) for a served model with the chat template on",
        )
    endpoint = served_endpoint(entry, "plane.prompting.models")
    return ServedModel(endpoint, job.cache_dir, job.settings, chat=chat, logprobs=logprobs, concurrency=job.concurrency)


def served_written_answers(
    model: ServedModel, prompts: Sequence[str], words: Sequence[str], labels: Sequence[int]
) -> np.ndarray:
    """Per prompt, the label of the word among ``words`` the model writes at the mask
    (greedy), -1 (wrong) where it writes none of them (see the module's text)."""
    sent, leads = [], []
    for prompt in prompts:
        context, found, _ = prompt.rpartition(CAUSAL_MASK)
        if not found:
            raise ValueError(f"the prompt {prompt!r} has no {CAUSAL_MASK}")
        stripped = context.rstrip()
        sent.append(stripped)
        # the template's white space before the mask is part of the answer (chat: the turn's)
        leads.append("" if model.chat else context[len(stripped) :])
    # a token is at least one character of a word: the longest word fits in as many tokens
    limit = max(len(lead) for lead in leads) + max(len(word) for word in words)
    answers = model.generate(sent, max(1, limit))
    predicted = []
    for answer, lead in zip(answers, leads):
        text = answer.text.lstrip() if model.chat else answer.text
        written = [index for index, word in enumerate(words) if text.startswith(lead + word)]
        if not written:
            predicted.append(NOT_A_LABEL)
            continue
        predicted.append(int(labels[max(written, key=lambda index: len(words[index]))]))
    return np.asarray(predicted, dtype=np.int64)


def served_loglikelihoods(model: ServedModel, contexts: Sequence[str], continuations: Sequence[str]) -> np.ndarray:
    """The summed log-probability of each continuation's tokens after its context, from
    the server's prompt log-probabilities (the context's white space at the end moves to
    the continuation, as lm-evaluation-harness's rule)."""
    texts = [context + continuation for context, continuation in zip(contexts, continuations, strict=True)]
    starts = [len(context.rstrip()) for context in contexts]
    totals = []
    for text, start, scored in zip(texts, starts, model.prompt_logprobs(texts)):
        totals.append(
            sum(
                value
                for value, offset in zip(scored.logprobs, scored.offsets)
                if value is not None and start <= offset < len(text)
            )
        )
    return np.asarray(totals, dtype=np.float64)


def _served_answers(model: ServedModel):
    def answers(prompts, words, labels, first_prediction):
        if first_prediction:
            return served_written_answers(model, prompts, words, labels)
        cut = [prompt.rpartition(CAUSAL_MASK) for prompt in prompts]
        contexts = [context for context, _, _ in cut for _ in words]
        continuations = [word + rest for _, _, rest in cut for word in words]
        scores = served_loglikelihoods(model, contexts, continuations).reshape(len(prompts), len(words))
        return np.asarray(labels, dtype=np.int64)[scores.argmax(axis=1)]

    return answers


def _finish(model: ServedModel, job: ServedJob, frame: pd.DataFrame) -> pd.DataFrame:
    if job.usage is not None:
        model.write_usage(job.usage)
    return frame


def evaluate_prompting_served(
    entry: Mapping, triplets: pd.DataFrame, settings: PromptSettings, job: ServedJob | None, log=None, name=None
) -> pd.DataFrame:
    """Two-shot predictions (Table 4) of a served causal LM: the word it writes, or with
    ``answer: verbalisers`` the likelier filled sentence (prompt log-probabilities needed)."""
    model = _served_model(entry, settings, job, logprobs=settings.answer == "verbalisers")
    label = f"{entry['model']} at {entry['api_base']}"
    _log_chat(log, label, model.chat)
    frame = prompting_predictions(_served_answers(model), label, triplets, settings, log, name or entry["model"])
    return _finish(model, job, frame)


def evaluate_zero_shot_served(
    entry: Mapping,
    triplets: pd.DataFrame,
    settings: PromptSettings,
    job: ServedJob | None,
    pairs=ZERO_SHOT_VERBALISERS,
    log=None,
    name=None,
) -> pd.DataFrame:
    """Zero-shot predictions (Table 8) of a served causal LM: the word of V it writes."""
    model = _served_model(entry, settings, job, logprobs=False)
    label = f"{entry['model']} at {entry['api_base']}"
    _log_chat(log, label, model.chat)
    frame = zero_shot_predictions(_served_answers(model), label, triplets, settings, pairs, log, name or entry["model"])
    return _finish(model, job, frame)


def planned_requests(config: Mapping) -> list:
    """What PLANE prompting of a served model will ask in the run ``config``, before any
    job (:class:`natcomp.served.RequestEstimate`), for at most ``triplets_per_class``
    triplets of each class (the resource may hold fewer): by the word the model writes, one
    request per distinct text before the mask (two-shot: per template, verbaliser pair, IT
    and premise order; zero-shot: per template, its three ITs share it), an answer of as
    many tokens as the longest word has characters; by log-likelihood, one one-token
    request per filled sentence."""
    from natcomp.plane.adjectives import CLASSES
    from natcomp.plane.prompting import build_prompts, build_zero_shot_prompts
    from natcomp.served import RequestEstimate

    plane = config["plane"]
    prompting = plane.get("prompting") or {}
    triplets = int((plane.get("evaluation_set") or {}).get("triplets_per_class", 20)) * len(CLASSES)
    example = pd.DataFrame([{"adj": "red", "noun": "car", "hyp": "vehicle", "class": "I"}])
    templates = list(prompting.get("templates") or ["internal", "external"])
    verbalisers = dict(prompting.get("verbalisers") or {"GP": ["good", "poor"]})
    estimates = []
    if prompting.get("enabled", True):
        by_word = prompting.get("answer", "vocabulary") == "vocabulary"
        prompts = [
            prompt
            for template in templates
            for pair in verbalisers.values()
            for prompt in build_prompts(example, template, tuple(pair), CAUSAL_MASK)["prompt"]
        ]
        if by_word:  # one request per distinct text before the mask
            samples = list(dict.fromkeys(prompt.rpartition(CAUSAL_MASK)[0].rstrip() for prompt in prompts))
            longest = 1 + max(len(word) for pair in verbalisers.values() for word in pair)
        else:  # one request per filled sentence
            samples = [prompt.replace(CAUSAL_MASK, word) for prompt in prompts for word in verbalisers["GP"]]
            longest = 1
        estimates.append(
            RequestEstimate(
                "plane", "two-shot prompting", triplets * len(samples), tuple(samples), longest, exact=False
            )
        )
    if (plane.get("zero_shot") or {}).get("enabled", True):
        pairs = (plane.get("zero_shot") or {}).get("verbalisers") or ZERO_SHOT_VERBALISERS
        samples = list(
            dict.fromkeys(
                prompt.rpartition(CAUSAL_MASK)[0].rstrip()
                for template in templates
                for prompt in build_zero_shot_prompts(example, template, CAUSAL_MASK)["prompt"]
            )
        )
        longest = 1 + max(len(word) for pair in pairs for word in pair)
        estimates.append(
            RequestEstimate(
                "plane", "zero-shot prompting", triplets * len(samples), tuple(samples), longest, exact=False
            )
        )
    return estimates
