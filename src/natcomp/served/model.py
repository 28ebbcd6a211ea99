"""A served model's answers: requests sent with bounded concurrency through the official
``openai`` client, each answer appended to a cache as it arrives, usage counted.

:class:`ServedModel` probes the server when it is made (:func:`natcomp.served.endpoint.probe`:
the id listed, the fingerprint, what the job needs), then answers lists of prompts in
input order: :meth:`~ServedModel.generate` (greedy, one answer), :meth:`~ServedModel.generate_nbest`
(beam search where the server offers it) and :meth:`~ServedModel.prompt_logprobs` (the
prompt's token log-probabilities where the server gives them). Its cache
(:class:`natcomp.keyedcache.KeyedCache`, the translation cache's design) is keyed by a
signature naming the base URL, the route, the model id, the revision or fingerprint the
answers name and every sampling parameter, never the key; a request is the cache key, so
a job killed half-way sends none of its answered requests again. A request that fails
after the client's retries fails the job (:class:`ServedError`), never an empty answer.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.keyedcache import KeyedCache
from natcomp.served.endpoint import (
    Capabilities,
    RequestSettings,
    ServedEndpoint,
    ServedError,
    prompt_logprobs_problem,
    probe,
    sampling_parameters,
    sampling_text,
)

__all__ = ["USAGE_FOLDER", "Answer", "PromptLogprobs", "ServedModel", "cut_at_stop", "usage_path"]

log = logging.getLogger(__name__)

#: where a run's served jobs write their usage (the profile reads it into the run record)
USAGE_FOLDER = Path("results") / "served"


def usage_path(family: str, job: str, name: str) -> Path:
    """The usage file of one served job, relative to the run folder."""
    return USAGE_FOLDER / f"{family}.{job}.{name}.json"


@dataclass(frozen=True)
class Answer:
    """One generated answer: its text cut before the first stop string, whether it ended
    (a stop string, the end of sequence) before the token limit, and what the server
    reported (its tokens, the fingerprint)."""

    text: str
    finished: bool
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    fingerprint: str = ""


@dataclass(frozen=True)
class PromptLogprobs:
    """The log-probability of each token of a prompt (the first None) and where each token
    starts in the prompt's text, and the token the model found likeliest at each place."""

    tokens: tuple[str, ...]
    logprobs: tuple[float | None, ...]
    offsets: tuple[int, ...]
    top: tuple[str | None, ...]


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` before the first of the ``stop`` strings, and whether one was found (a
    server may keep the stop string in its answer: ``transformers serve`` does)."""
    found = [text.find(s) for s in stop if s and s in text]
    return (text[: min(found)], True) if found else (text, False)


class ServedModel:
    """A served model's answers, cached in ``cache_dir`` (see the module's text).

    ``chat``: prompts go through ``/v1/chat/completions`` as the user's turn (the server's
    chat template), else ``/v1/completions``; ``logprobs`` / ``beam``: the job needs prompt
    log-probabilities / beam search, a :class:`ConfigError` where the server gives none;
    ``concurrency``: requests in flight (default ``settings.concurrency``; a job takes its
    share of the Snakemake resource ``served_requests``)."""

    def __init__(
        self,
        endpoint: ServedEndpoint,
        cache_dir: str | Path,
        settings: RequestSettings = RequestSettings(),
        *,
        chat: bool = False,
        logprobs: bool = False,
        beam: bool = False,
        concurrency: int | None = None,
    ):
        self.endpoint, self.settings, self.chat = endpoint, settings, chat
        self.concurrency = max(1, int(concurrency or settings.concurrency))
        self.capabilities: Capabilities = probe(endpoint, settings, chat=chat, logprobs=logprobs, beam=beam)
        caps = self.capabilities
        for needed, offered, what, reason in (
            (logprobs, caps.prompt_logprobs, "prompt log-probabilities", caps.prompt_logprobs_reason),
            (beam, caps.beam, "beam search", caps.beam_reason),
        ):
            if needed and not offered:
                raise ConfigError(
                    endpoint.key_name("api_base"),
                    f"this job needs {what}, which {caps.server} at {endpoint.api_base} does not give ({reason})",
                )
        self.signature = "|".join(
            [
                f"served:{endpoint.api_base}",
                f"api:{'chat' if chat else 'completions'}",
                f"model:{endpoint.model}",
                f"rev:{caps.revision or '-'}",
                f"sampling:{sampling_text(settings, caps.vendor_penalties)}",
            ]
        )
        self.cache = KeyedCache(cache_dir, self.signature)
        self._client = endpoint.client(settings)
        self._needed: dict[str, None] = {}
        self.sent = 0
        self._lock = threading.Lock()

    # ------------------------------------------------------------ requests

    def generate(
        self, prompts: Sequence[str], max_tokens: int | Sequence[int], stop: Sequence[str] = ()
    ) -> list[Answer]:
        """Each prompt's greedy answer, in input order (``max_tokens``: one limit, or one per prompt)."""
        limits = [max_tokens] * len(prompts) if isinstance(max_tokens, int) else list(max_tokens)
        requests = [self._request(prompt, limit, stop) for prompt, limit in zip(prompts, limits, strict=True)]
        return [self._answers(value, stop)[0] for value in self._values(requests)]

    def generate_nbest(
        self, prompts: Sequence[str], n: int, max_tokens: int | Sequence[int], stop: Sequence[str] = ()
    ) -> list[list[Answer]]:
        """Each prompt's ``n`` best answers by the server's beam search (vLLM's
        ``use_beam_search`` with beam width ``n``), best first."""
        if self.chat:
            raise ConfigError(self.endpoint.key_name("api_base"), "beam search is asked through completions, not chat")
        limits = [max_tokens] * len(prompts) if isinstance(max_tokens, int) else list(max_tokens)
        requests = [self._request(p, limit, stop, n=n, beam=True) for p, limit in zip(prompts, limits, strict=True)]
        return [self._answers(value, stop) for value in self._values(requests)]

    def prompt_logprobs(self, texts: Sequence[str]) -> list[PromptLogprobs]:
        """Each text's token log-probabilities (``/v1/completions`` with ``echo`` and ``logprobs``)."""
        requests = [{"route": "completions", "prompt": text, "max_tokens": 1, "echo": True} for text in texts]
        return [
            PromptLogprobs(*(tuple(value[name]) for name in ("tokens", "logprobs", "offsets", "top")))
            for value in self._values(requests)
        ]

    def _request(self, prompt: str, max_tokens: int, stop: Sequence[str], n: int = 1, beam: bool = False) -> dict:
        if int(max_tokens) < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
        request = {"route": "chat" if self.chat else "completions", "prompt": prompt, "max_tokens": int(max_tokens)}
        if stop:
            request["stop"] = list(stop)
        if beam:
            request.update(n=int(n), beam=True)
        return request

    @staticmethod
    def _key(request: Mapping) -> str:
        # JSON escapes tabs and line breaks: a prompt is one cache field
        return json.dumps(request, sort_keys=True, ensure_ascii=False)

    def _values(self, requests: Sequence[Mapping]) -> list[dict]:
        """Each request's answer (a JSON object), from the cache or the server; the
        missing ones sent ``concurrency`` at a time, each appended to the cache as it arrives."""
        keys = [self._key(request) for request in requests]
        for key in keys:
            self._needed[key] = None
        todo = self.cache.missing(keys)
        if todo:
            by_key = dict(zip(keys, requests))
            log.info(
                "%s: %d request(s), %d from the cache, %d to send (%d at a time)",
                self.endpoint.model,
                len(set(keys)),
                len(set(keys)) - len(todo),
                len(todo),
                self.concurrency,
            )
            self._send_all([by_key[key] for key in todo])
        return [json.loads(self.cache.entries[key]) for key in keys]

    def _send_all(self, requests: Sequence[Mapping]) -> None:
        """Send ``requests``, ``concurrency`` at a time; each answer is on disk before its
        thread sends the next request. The first failure stops the rest: the requests not
        started are dropped, those in flight are waited for (and kept), then it is raised."""
        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="served")
        futures = [pool.submit(self._send_and_keep, request) for request in requests]
        try:
            for future in as_completed(futures):
                if future.exception() is not None:
                    for other in futures:
                        other.cancel()
                    raise future.exception()  # a ServedError ends the job: never an empty answer
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _send_and_keep(self, request: Mapping) -> None:
        value = self._send(request)
        with self._lock:
            self.cache.add([(self._key(request), json.dumps(value, ensure_ascii=False))])
            self.sent += 1

    def _send(self, request: Mapping) -> dict:
        """One request through the openai client (its retries), its answer as a JSON object."""
        import openai

        route = request["route"]
        parameters, extra = sampling_parameters(self.settings, self.capabilities.vendor_penalties)
        options = dict(model=self.endpoint.model, max_tokens=request["max_tokens"], **parameters)
        if request.get("stop"):
            options["stop"] = request["stop"]
        if request.get("beam"):
            options["n"] = request["n"]
            extra = {**extra, "use_beam_search": True}
        if request.get("echo"):
            options.update(echo=True, logprobs=1)
        try:
            if route == "chat":
                answer = self._client.chat.completions.create(
                    messages=[{"role": "user", "content": request["prompt"]}], extra_body=extra or None, **options
                )
            else:
                answer = self._client.completions.create(prompt=request["prompt"], extra_body=extra or None, **options)
        except openai.APIStatusError as error:
            raise ServedError(
                self.endpoint.api_base,
                f"a {route} request for {self.endpoint.model} failed after {self.settings.max_retries} retries: HTTP "
                f"{error.status_code}: {' '.join(str(error.message).split())[:200]}",
            ) from None
        except (openai.APIConnectionError, openai.APITimeoutError) as error:
            cause = "timed out" if isinstance(error, openai.APITimeoutError) else "no connection"
            raise ServedError(
                self.endpoint.api_base,
                f"a {route} request for {self.endpoint.model} got no answer after {self.settings.max_retries} "
                f"retries ({cause}, timeout {self.settings.timeout_s:g} s)",
            ) from None
        except (openai.OpenAIError, ValueError) as error:  # a body that is not the API's JSON
            raise ServedError(
                self.endpoint.api_base, f"a malformed answer to a {route} request ({type(error).__name__})"
            ) from None
        return self._parse(request, answer)

    def _parse(self, request: Mapping, answer) -> dict:
        """The parts of an answer natcomp keeps, checked: a :class:`ServedError` for an
        answer without the text (or log-probabilities) the API promises."""
        choices = getattr(answer, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise ServedError(self.endpoint.api_base, f"a malformed answer (no choices) to {request['route']}")
        usage = getattr(answer, "usage", None)
        value: dict = {
            "prompt_tokens": getattr(usage, "prompt_tokens", None),
            "completion_tokens": getattr(usage, "completion_tokens", None),
            "fingerprint": str(getattr(answer, "system_fingerprint", "") or ""),
            "served_as": str(getattr(answer, "model", "") or ""),
        }
        if request.get("echo"):
            problem = prompt_logprobs_problem(answer, request["prompt"])
            if problem:
                raise ServedError(
                    self.endpoint.api_base, f"the answer has no prompt log-probabilities any more ({problem})"
                )
            logprobs = choices[0].logprobs
            tops = list(getattr(logprobs, "top_logprobs", None) or [])
            tops += [None] * (len(logprobs.tokens) - len(tops))
            # the prompt's tokens only (the one generated token after it is not the prompt's)
            kept = [index for index, offset in enumerate(logprobs.text_offset) if offset < len(request["prompt"])]
            value.update(
                tokens=[logprobs.tokens[index] for index in kept],
                logprobs=[logprobs.token_logprobs[index] for index in kept],
                offsets=[logprobs.text_offset[index] for index in kept],
                top=[max(tops[index], key=tops[index].get) if tops[index] else None for index in kept],
            )
            return value
        texts, reasons = [], []
        for choice in choices:
            text = choice.message.content if request["route"] == "chat" else getattr(choice, "text", None)
            if not isinstance(text, str):
                raise ServedError(
                    self.endpoint.api_base, f"a malformed answer (no text in a choice) to {request['route']}"
                )
            texts.append(text)
            reasons.append(str(getattr(choice, "finish_reason", "") or ""))
        value.update(texts=texts, finish_reasons=reasons)
        return value

    @staticmethod
    def _answers(value: Mapping, stop: Sequence[str]) -> list[Answer]:
        answers = []
        for text, reason in zip(value["texts"], value["finish_reasons"]):
            cut, stopped = cut_at_stop(text, stop)
            answers.append(
                Answer(
                    cut,
                    stopped or reason != "length",
                    value.get("prompt_tokens"),
                    value.get("completion_tokens"),
                    value.get("fingerprint", ""),
                )
            )
        return answers

    # ------------------------------------------------------------ usage

    def usage(self) -> dict:
        """The requests the job's results rest on, how many were sent now (the others came
        from the cache), the tokens the server reported for them, the fingerprints their
        answers named, and a warning where those changed."""
        values = [json.loads(self.cache.entries[key]) for key in self._needed if key in self.cache.entries]

        def total(name: str) -> int | None:
            counts = [value.get(name) for value in values]
            return sum(counts) if counts and all(isinstance(c, int) for c in counts) else None

        start = self.capabilities.fingerprint
        seen = list(dict.fromkeys([start] + [value.get("fingerprint", "") for value in values]))
        warnings = []
        if len([fingerprint for fingerprint in seen if fingerprint]) > 1 or (start and len(seen) > 1):
            warnings.append(
                f"the server's fingerprint changed during the run ({' -> '.join(f or 'none' for f in seen)}): "
                "its answers may come from different backends"
            )
        return {
            "model": self.endpoint.model,
            "api_base": self.endpoint.api_base,
            "route": "chat" if self.chat else "completions",
            "requests": len(values),
            "sent": self.sent,
            "from_cache": len(values) - self.sent,
            "prompt_tokens": total("prompt_tokens"),
            "completion_tokens": total("completion_tokens"),
            "fingerprints": [fingerprint for fingerprint in seen if fingerprint],
            "warnings": warnings,
        }

    def write_usage(self, path: str | Path) -> dict:
        """Write :meth:`usage` as JSON (atomically) and log it; returns it."""
        from natcomp.files import atomic_open

        usage = self.usage()
        with atomic_open(path) as handle:
            json.dump(usage, handle, indent=1)
            handle.write("\n")
        log.info(
            "%s: %d request(s) (%d sent now, %d from the cache), %s prompt and %s output token(s) reported",
            usage["model"],
            usage["requests"],
            usage["sent"],
            usage["from_cache"],
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )
        for warning in usage["warnings"]:
            log.warning("%s", warning)
        return usage
