"""PLANE prompting of a causal LM behind an API (natcomp.plane.served_prompting): the word
the model writes (the white space before the mask moved to the answer, the longer of two
words, -1 for none), verbaliser log-likelihoods from prompt log-probabilities (the tokens
from the verbaliser on), the refusal of log-likelihoods through a chat template, and the
plan's counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.plane.prompting import PromptSettings, evaluate_prompting
from natcomp.plane.served_prompting import (
    ServedJob,
    planned_requests,
    served_loglikelihoods,
    served_written_answers,
)
from natcomp.served import Answer, RequestSettings, ServedEndpoint, ServedModel
from served_fixtures import FaultServer

REPO = Path(__file__).resolve().parents[2]


class Writes:
    """A served model stand-in that writes ``texts`` in turn and records what it was sent."""

    def __init__(self, texts, chat=False):
        self.texts, self.chat, self.sent = list(texts), chat, []

    def generate(self, prompts, max_tokens, stop=()):
        self.sent.append((list(prompts), max_tokens))
        return [Answer(text, True) for text in self.texts[: len(prompts)]]


def test_the_word_the_model_writes_is_read_after_the_white_space_the_template_puts_before_the_mask():
    prompts = ["A red car is a [MASK] example of a car.", "A red car is a type of car:[MASK]."]
    model = Writes([" goodness itself", "poor."])
    answers = served_written_answers(model, prompts, ["good", "poor"], [1, 0])
    assert list(answers) == [1, 0]
    sent, limit = model.sent[0]
    assert sent == ["A red car is a", "A red car is a type of car:"], "the text before the mask, stripped"
    assert limit == 1 + 4, "as many tokens as ' ' + the longest word has characters"
    # the space is part of the answer: 'good' right after 'a' is not ' good'
    assert list(served_written_answers(Writes(["good", " poor"]), prompts[:1] * 2, ["good", "poor"], [1, 0])) == [-1, 0]


def test_of_two_words_that_begin_the_answer_the_longer_one_counts_and_none_is_wrong():
    words, labels = ["true", "truest"], [1, 0]
    prompt = ["It is [MASK]."]
    assert list(served_written_answers(Writes([" truest."]), prompt, words, labels)) == [0]
    assert list(served_written_answers(Writes([" true."]), prompt, words, labels)) == [1]
    assert list(served_written_answers(Writes([" maybe"]), prompt, words, labels)) == [-1]


def test_through_the_chat_template_the_assistants_answer_is_read_without_its_leading_space():
    model = Writes(["\n  good example"], chat=True)
    assert list(served_written_answers(model, ["A red car is a [MASK] example."], ["good", "poor"], [1, 0])) == [1]
    assert model.sent[0] == (["A red car is a"], 4)


def test_verbaliser_log_likelihoods_sum_the_tokens_from_the_verbaliser_on(tmp_path):
    """The fault server gives each word the log-probability minus its length, the first
    token none: after the context 'A red car is a ' the tokens ' good' and ' example'."""
    server = FaultServer(logprobs="given")
    try:
        model = ServedModel(ServedEndpoint(server.base, server.model), tmp_path, RequestSettings(), logprobs=True)
        scores = served_loglikelihoods(
            model, ["A red car is a ", "A red car is a type of car:"], ["good example", "true."]
        )
    finally:
        server.stop()
    # the context's trailing space moves to the continuation: ' good' counts (-4), ' example' (-7)
    assert scores[0] == -11.0
    # 'car:true.' is one word of the fault server's: it starts before the continuation, not counted
    assert scores[1] == 0.0
    assert np.asarray(scores).dtype == np.float64


def test_log_likelihoods_through_a_chat_template_are_refused(tmp_path):
    settings = PromptSettings(templates=["internal"], answer="verbalisers", chat_template="on")
    triplets = pd.DataFrame([{"adj": "red", "noun": "car", "hyp": "vehicle", "class": "I"}])
    entry = {"model": "m", "api_base": "http://127.0.0.1:9/v1", "api_key_env": None}
    with pytest.raises(ConfigError, match="^config plane.prompting.answer: verbalisers compares log-likelihoods"):
        evaluate_prompting(entry, triplets, settings, served=ServedJob(tmp_path))


def test_the_plan_counts_one_request_per_distinct_text_before_the_mask():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    plane = config["plane"]
    plane["evaluation_set"]["triplets_per_class"] = 2
    plane["prompting"].update(answer="vocabulary", templates=["internal"], verbalisers={"GP": ["good", "poor"]})
    two_shot, zero_shot = planned_requests(config)
    # 6 triplets: 3 ITs x 2 premise orders; zero-shot: the three ITs share the text before the mask
    assert (two_shot.requests, zero_shot.requests) == (36, 6)
    assert two_shot.max_output_tokens == 5 and zero_shot.max_output_tokens == 1 + len("unacceptable")
    plane["prompting"]["answer"] = "verbalisers"
    two_shot, _ = planned_requests(config)
    assert two_shot.requests == 72 and two_shot.max_output_tokens == 1, "two filled sentences per prompt"
