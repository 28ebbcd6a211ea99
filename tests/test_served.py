"""Models behind an OpenAI-compatible API (natcomp.served), against a small local fault
server (tests/served_fixtures.py): the probe, the requests' parameters, retries of 429
(with Retry-After) and 500, a malformed body, a timeout, prompt log-probabilities
missing, the cache and its resume, the usage and the key that is never written."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from natcomp.errors import ConfigError
from natcomp.served import (
    RequestSettings,
    ServedEndpoint,
    ServedError,
    ServedModel,
    cut_at_stop,
    probe,
    usage_path,
)
from served_fixtures import FaultServer

FAST = RequestSettings(concurrency=1, timeout_s=5.0, max_retries=2, seed=7)


@pytest.fixture
def fault():
    server = FaultServer()
    yield server
    server.stop()


def endpoint(server: FaultServer, **fields) -> ServedEndpoint:
    return ServedEndpoint(server.base, server.model, **fields)


def test_the_probe_judges_prompt_logprobs_by_the_answers_shape_not_its_status():
    """llama.cpp's server answers echo + logprobs with 200 and the generated token only: not
    prompt log-probabilities; vLLM's shape (the prompt echoed, the first null) is; a 422 is a no."""
    for shape, expected, reason in (
        ("ignored", False, "echo ignored"),
        ("given", True, "one log-probability per prompt token"),
        ("refused", False, "HTTP 422"),
    ):
        server = FaultServer(logprobs=shape)
        try:
            caps = probe(endpoint(server), FAST, beam=False)
        finally:
            server.stop()
        assert caps.prompt_logprobs is expected and reason in caps.prompt_logprobs_reason, (shape, caps)
        assert caps.listed == ("fault/model",) and caps.beam is None


def test_beam_search_is_found_only_where_n_answers_differ():
    for beam in (True, False):
        server = FaultServer(beam=beam)
        try:
            caps = probe(endpoint(server), FAST, logprobs=False)
        finally:
            server.stop()
        assert caps.beam is beam, caps.beam_reason


def test_every_sampling_parameter_is_sent_and_vendor_penalties_only_where_accepted(tmp_path):
    """temperature 0, top_p 1, n 1, the seed and no penalties in every request; the vendors'
    repetition penalties (vLLM, llama-cpp-python) only where the server takes them (a
    strict server, as transformers serve and OpenAI, answers them with 422)."""
    for strict in (False, True):
        server = FaultServer(strict=strict)
        try:
            model = ServedModel(endpoint(server), tmp_path / f"cache{strict}", FAST)
            model.generate(["one", "two"], 5, ["\n"])
        finally:
            server.stop()
        assert model.capabilities.vendor_penalties is not strict
        bodies = server.generation_requests()[-2:]
        for body in bodies:
            assert body["temperature"] == 0 and body["top_p"] == 1 and body["n"] == 1 and body["seed"] == 7
            assert body["frequency_penalty"] == 0 and body["presence_penalty"] == 0 and body["max_tokens"] == 5
            assert body["stop"] == ["\n"] and body["model"] == "fault/model"
            assert ("repetition_penalty" in body) is not strict and ("repeat_penalty" in body) is not strict
            if not strict:
                assert body["repetition_penalty"] == 1 and body["repeat_penalty"] == 1


def test_a_429_with_retry_after_and_a_500_are_retried_by_the_client(fault, tmp_path):
    model = ServedModel(endpoint(fault), tmp_path, FAST)
    fault.script = ["429", "500"]
    start = time.perf_counter()
    (answer,) = model.generate(["hello there"], 5)
    assert time.perf_counter() - start >= 0.2, "Retry-After (0.2 s) honoured"
    assert answer.text.startswith(" answer 0") and answer.finished
    assert [body.get("prompt") for body in fault.generation_requests()[-3:]] == ["hello there"] * 3


def test_a_request_failing_after_its_retries_fails_in_one_line_never_as_an_empty_answer(fault, tmp_path):
    model = ServedModel(endpoint(fault), tmp_path, FAST)
    fault.script = ["500"] * 3  # the first try and the two retries
    with pytest.raises(ServedError) as raised:
        model.generate(["hello"], 5)
    message = str(raised.value)
    assert "\n" not in message and fault.base in message and "HTTP 500" in message and "2 retries" in message
    assert not model.cache.entries, "no answer cached for a failed request"


@pytest.mark.parametrize("behaviour, said", [("malformed", "malformed answer"), ("nochoices", "no choices")])
def test_a_malformed_answer_fails_the_request(fault, tmp_path, behaviour, said):
    model = ServedModel(endpoint(fault), tmp_path, FAST)
    fault.script = [behaviour]
    with pytest.raises(ServedError, match=said):
        model.generate(["hello"], 5)
    assert not model.cache.entries


def test_a_timeout_is_retried_then_fails(fault, tmp_path):
    settings = RequestSettings(concurrency=1, timeout_s=0.3, max_retries=1)
    model = ServedModel(endpoint(fault), tmp_path, settings)
    fault.slow_seconds = 1.0
    fault.script = ["slow", "slow"]
    with pytest.raises(ServedError, match="no answer after 1 retries .timed out"):
        model.generate(["hello"], 5)
    assert [body.get("prompt") for body in fault.generation_requests()[-2:]] == ["hello", "hello"]


def test_prompt_logprobs_that_go_missing_during_a_run_fail_the_job(tmp_path):
    """A server that gave prompt log-probabilities when probed and stops (a restarted
    backend, another version) must not score at chance in silence."""
    server = FaultServer(logprobs="given")
    try:
        model = ServedModel(endpoint(server), tmp_path, FAST, logprobs=True)
        (scored,) = model.prompt_logprobs(["A red car is a good example"])
        assert (
            scored.logprobs[0] is None
            and scored.logprobs[-1] == -7.0
            and scored.offsets[1] == 1
            and len(scored.tokens) == 7
        )
        server.logprobs = "ignored"
        with pytest.raises(ServedError, match="no prompt log-probabilities any more"):
            model.prompt_logprobs(["A fake gun is a poor example"])
    finally:
        server.stop()


def test_a_job_that_needs_prompt_logprobs_or_beam_is_refused_where_the_server_has_none(fault, tmp_path):
    with pytest.raises(ConfigError, match="needs prompt log-probabilities.*echo ignored"):
        ServedModel(endpoint(fault), tmp_path, FAST, logprobs=True)
    with pytest.raises(ConfigError, match="needs beam search"):
        ServedModel(endpoint(fault), tmp_path, FAST, beam=True)


def test_answers_are_cached_as_they_arrive_and_a_resumed_job_sends_none_twice(fault, tmp_path):
    prompts = [f"sentence {index}" for index in range(6)]
    model = ServedModel(endpoint(fault), tmp_path, RequestSettings(concurrency=1, max_retries=0))
    fault.script = ["ok", "ok", "ok", "500"]
    with pytest.raises(ServedError):
        model.generate(prompts, 5)
    kept = len(model.cache.entries)
    # each answer appended as it arrived; one already sent when the failure came is waited for and kept
    assert kept in (3, 4)
    again = ServedModel(endpoint(fault), tmp_path, RequestSettings(concurrency=1, max_retries=0))
    answers = again.generate(prompts, 5)
    assert [answer.text.split(" to ")[1].split("\n")[0] for answer in answers] == prompts
    sent = Counter(body["prompt"] for body in fault.generation_requests() if body.get("max_tokens") == 5)
    assert sent["sentence 3"] == 2, "the failed request is sent again"
    assert all(sent[prompt] == 1 for prompt in prompts if prompt != "sentence 3"), "no answered one"
    usage = again.usage()
    assert usage["requests"] == 6 and usage["sent"] == 6 - kept and usage["from_cache"] == kept
    assert usage["prompt_tokens"] == 12 and usage["completion_tokens"] == 30


def test_the_cache_is_keyed_by_server_model_revision_and_settings_and_never_holds_the_key(fault, tmp_path, monkeypatch):
    key = "sk-never-written-4711"
    monkeypatch.setenv("NATCOMP_SERVED_KEY", key)
    fault.key = key
    fault.fingerprints = ["fp_1"]
    model = ServedModel(endpoint(fault, api_key_env="NATCOMP_SERVED_KEY"), tmp_path / "cache", FAST)
    model.generate(["hello"], 5)
    usage = model.write_usage(tmp_path / usage_path("mt", "translate", "x"))
    assert all(header == f"Bearer {key}" for _, _, header in fault.requests), "the key is sent"
    signature = model.signature
    assert f"served:{fault.base}" in signature and "model:fault/model" in signature and "rev:fp_1" in signature
    assert "seed7" in signature and "api:completions" in signature
    assert usage["fingerprints"] == ["fp_1"] and not usage["warnings"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(), path
    other = ServedModel(endpoint(fault, api_key_env="NATCOMP_SERVED_KEY"), tmp_path / "cache", FAST, chat=True)
    assert other.cache.path != model.cache.path, "chat completions are another cache"


def test_a_fingerprint_that_changes_during_a_run_is_a_warning(fault, tmp_path):
    fault.fingerprints = ["fp_a", "fp_a", "fp_b"]  # the probe's answer, then each request's
    model = ServedModel(endpoint(fault), tmp_path, FAST)
    model.generate(["one", "two"], 5)
    usage = model.write_usage(tmp_path / "usage.json")
    assert usage["fingerprints"] == ["fp_a", "fp_b"]
    assert len(usage["warnings"]) == 1 and "fp_a -> fp_b" in usage["warnings"][0]
    assert json.loads((tmp_path / "usage.json").read_text())["warnings"] == usage["warnings"]


def test_stop_strings_are_cut_on_the_client(fault, tmp_path):
    """transformers serve keeps the stop string in its answer: natcomp cuts it."""
    assert cut_at_stop("de kat\nEnglish:", ["\n"]) == ("de kat", True)
    assert cut_at_stop("ab||cd|ef", ["|e", "||"]) == ("ab", True)
    assert cut_at_stop("de kat", ["\n"]) == ("de kat", False)
    (answer,) = ServedModel(endpoint(fault), tmp_path, FAST).generate(["the cat"], 5, ["\n"])
    assert answer.text == " answer 0 to the cat" and answer.finished


def test_the_requests_in_flight_are_bounded_by_the_concurrency(fault, tmp_path):
    fault.delay = 0.15
    model = ServedModel(endpoint(fault), tmp_path, RequestSettings(concurrency=4), concurrency=3)
    answers = model.generate([f"p{index}" for index in range(9)], 5)
    assert [answer.text.split(" to ")[1] for answer in answers] == [f"p{index}\nmore" for index in range(9)]
    assert fault.max_in_flight == 3, "three at a time (the job's share of served_requests)"


def test_a_bad_url_a_missing_key_variable_and_an_unlisted_model_are_one_line_config_errors(fault, monkeypatch):
    monkeypatch.delenv("NATCOMP_NO_SUCH_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"^--api-base: 'localhost:8000' is not an http\(s\) URL"):
        ServedEndpoint("localhost:8000", "m").check()
    with pytest.raises(ConfigError, match="^--api-key-env: the environment variable NATCOMP_NO_SUCH_KEY is not set"):
        ServedEndpoint(fault.base, "m", "NATCOMP_NO_SUCH_KEY").check()
    with pytest.raises(ConfigError, match="^--model: 'other/model' is not a model the server .* lists fault/model"):
        probe(ServedEndpoint(fault.base, "other/model"), FAST)
    with pytest.raises(ConfigError, match="does not answer .no connection."):
        probe(ServedEndpoint("http://127.0.0.1:9/v1", "m"), FAST)
    where = ServedEndpoint("localhost", "m", where="mt.systems.llm")
    with pytest.raises(ConfigError, match=r"^config mt.systems.llm.api_base: "):
        where.check()
    monkeypatch.setenv("NATCOMP_WRONG_KEY", "wrong")
    fault.key = "right"
    with pytest.raises(ConfigError, match="^--api-key-env: .* refused the key in NATCOMP_WRONG_KEY .HTTP 401."):
        probe(ServedEndpoint(fault.base, "fault/model", "NATCOMP_WRONG_KEY"), FAST)
