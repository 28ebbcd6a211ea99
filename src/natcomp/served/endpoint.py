"""An OpenAI-compatible server as a model: where it is, its key, the requests' settings,
and what the server can do (:func:`probe`).

The key is read from the environment variable the user names (``api_key_env``) when a
client is made, and is never stored: not in a config, a log, a record, a cache or a page.
Every sampling parameter is sent (:func:`sampling_parameters`), because servers otherwise
apply the model's own generation defaults (vLLM reads ``generation_config.json``,
llama-cpp-python repeats with penalty 1.1); the vendors' own penalty parameters are sent
only where the probe found the server accepts them (``transformers serve`` and OpenAI
refuse unknown fields).

:func:`probe` judges prompt log-probabilities by the answer's shape (the prompt echoed, one
log-probability per prompt token, the first null), never by the HTTP status: llama.cpp's
``llama-server``, ``transformers serve`` and others accept ``echo`` and ``logprobs`` and
ignore them.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlparse

from natcomp.errors import ConfigError, NatcompError

__all__ = [
    "NO_KEY",
    "Capabilities",
    "RequestSettings",
    "ServedEndpoint",
    "ServedError",
    "probe",
    "sampling_parameters",
    "served_endpoint",
]

#: the key sent to a server that needs none (the openai client insists on one); not a secret
NO_KEY = "natcomp-no-key"
#: the vendors' repetition penalties, neutral (vLLM, llama-cpp-python: its default is 1.1)
VENDOR_PENALTIES = {"repetition_penalty": 1.0, "repeat_penalty": 1.0}
#: the prompt of the probe's requests
PROBE_PROMPT = "The cat sat on the mat."


class ServedError(NatcompError):
    """A served model's request failed (after the client's retries), or its answer is not
    what the API promises: names the server and what happened."""

    def __init__(self, api_base: str, message: str):
        self.api_base, self.message = api_base, message
        super().__init__(f"served model at {api_base}: {message}")


@dataclass(frozen=True)
class RequestSettings:
    """How natcomp talks to a server (the config's top-level ``served`` section):
    ``concurrency`` requests in flight per job, a request's ``timeout_s``, the openai
    client's ``max_retries`` (408, 409, 429 and 5xx, honouring ``Retry-After``), and the
    ``seed`` every request sends."""

    concurrency: int = 4
    timeout_s: float = 120.0
    max_retries: int = 5
    seed: int = 1

    def __post_init__(self):
        if self.concurrency < 1 or self.max_retries < 0 or not self.timeout_s > 0:
            raise ValueError(
                f"served: concurrency >= 1, max_retries >= 0 and timeout_s > 0 expected, got {self.concurrency}, "
                f"{self.max_retries}, {self.timeout_s}"
            )

    @classmethod
    def from_config(cls, section: Mapping | None) -> RequestSettings:
        section = section or {}
        return cls(
            **{name: section[name] for name in ("concurrency", "timeout_s", "max_retries", "seed") if name in section}
        )


def sampling_parameters(settings: RequestSettings, vendor_penalties: bool) -> tuple[dict, dict]:
    """``(parameters, extra_body)`` of every generation request: greedy (temperature 0,
    top_p 1), one answer, the seed, no penalties; the vendors' own penalty parameters (in
    ``extra_body``) only where the server accepts them."""
    parameters = dict(temperature=0.0, top_p=1.0, n=1, seed=settings.seed, frequency_penalty=0.0, presence_penalty=0.0)
    return parameters, dict(VENDOR_PENALTIES) if vendor_penalties else {}


def sampling_text(settings: RequestSettings, vendor_penalties: bool) -> str:
    """The sampling parameters in a decode signature."""
    return f"t0,p1,n1,seed{settings.seed},pen0{',rep1' if vendor_penalties else ''}"


@dataclass(frozen=True)
class ServedEndpoint:
    """A model behind an OpenAI-compatible API: the base URL (``http://host:8000/v1``), the
    server's model id, and the environment variable that holds the key (None: no key).
    ``where``: the config section naming it (``mt.systems.NAME``), None for the command
    line's options (``--api-base``, ``--api-key-env``, ``--model``), for error messages."""

    api_base: str
    model: str
    api_key_env: str | None = None
    where: str | None = None

    def key_name(self, name: str) -> str:
        """The option or config key of one of the fields (``api_base``, ``api_key_env``, ``model``)."""
        return f"--{name.replace('_', '-')}" if self.where is None else f"{self.where}.{name}"

    def check(self) -> ServedEndpoint:
        """The base URL is http(s) with a host; the key's variable is set (one line each)."""
        parsed = urlparse(self.api_base)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(
                self.key_name("api_base"),
                f"{self.api_base!r} is not an http(s) URL; expected an OpenAI-compatible base such as "
                "http://localhost:8000/v1",
            )
        self.api_key()
        return self

    def api_key(self) -> str:
        """The key, read from its environment variable now (never kept)."""
        if self.api_key_env is None:
            return NO_KEY
        value = os.environ.get(self.api_key_env, "")
        if not value.strip():
            raise ConfigError(
                self.key_name("api_key_env"),
                f"the environment variable {self.api_key_env} is not set or empty; expected the server's API key in it",
            )
        return value.strip()

    def client(self, settings: RequestSettings, *, max_retries: int | None = None, connect_s: float = 10.0):
        """An ``openai.OpenAI`` client of the server (its own retries and back-off)."""
        import openai

        _quiet_http_logs()
        return openai.OpenAI(
            base_url=self.api_base,
            api_key=self.api_key(),
            max_retries=settings.max_retries if max_retries is None else max_retries,
            timeout=openai.Timeout(settings.timeout_s, connect=min(connect_s, settings.timeout_s)),
        )


def served_endpoint(entry: Mapping, where: str) -> ServedEndpoint | None:
    """The endpoint of a config entry (``{model, api_base, api_key_env}``), None when it
    names no ``api_base`` (a model natcomp loads)."""
    if not isinstance(entry, Mapping) or not entry.get("api_base"):
        return None
    return ServedEndpoint(str(entry["api_base"]), str(entry["model"]), entry.get("api_key_env") or None, where)


def _quiet_http_logs() -> None:
    """One INFO line per request from the HTTP library would bury a job's log: its
    warnings stay (the openai client's retries are logged as it makes them)."""
    for name in ("httpx", "httpx2", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)


@dataclass(frozen=True)
class Capabilities:
    """What the probe found: the model id as listed, what the server says it is and
    which requests it honours."""

    api_base: str
    model: str
    listed: tuple[str, ...]
    owned_by: str = ""
    server_header: str = ""
    max_model_len: int | None = None
    #: the model the answers name (``transformers serve``: ``id@revision``)
    served_as: str = ""
    #: OpenAI's ``system_fingerprint`` ('' where the server gives none)
    fingerprint: str = ""
    completions: bool = True
    chat: bool | None = None
    vendor_penalties: bool = False
    #: None: not probed; the reason says what was seen
    prompt_logprobs: bool | None = None
    prompt_logprobs_reason: str = ""
    beam: bool | None = None
    beam_reason: str = ""
    #: requests the probe sent (GET /v1/models included)
    requests: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def server(self) -> str:
        """Which server this is, as far as its answers tell."""
        owner = self.owned_by.lower()
        host = urlparse(self.api_base).hostname or ""
        if owner == "vllm":
            return "vLLM"
        if "llamacpp" in owner or "llama.cpp" in owner:
            return "llama.cpp"
        if owner == "sglang":
            return "SGLang"
        if host.endswith("openai.com"):
            return "OpenAI"
        if "@" in self.served_as:  # transformers serve answers with id@revision
            return "transformers serve"
        return "an OpenAI-compatible server"

    @property
    def revision(self) -> str:
        """The fingerprint, else the revision the answers name, else ''."""
        if self.fingerprint:
            return self.fingerprint
        return self.served_as.rpartition("@")[2] if "@" in self.served_as else ""

    def record(self) -> dict:
        """What the run record keeps (never the key)."""
        return {
            "api_base": self.api_base,
            "model": self.model,
            "server": self.server,
            "owned_by": self.owned_by,
            "served_as": self.served_as,
            "fingerprint": self.fingerprint,
            "max_model_len": self.max_model_len,
            "completions": self.completions,
            "chat": self.chat,
            "prompt_logprobs": self.prompt_logprobs,
            "prompt_logprobs_reason": self.prompt_logprobs_reason,
            "beam": self.beam,
            "beam_reason": self.beam_reason,
            "vendor_penalties": self.vendor_penalties,
        }


def _status_error(endpoint: ServedEndpoint, what: str, error) -> ConfigError:
    """A refused probe request as one line naming the option or key to fix."""
    import openai

    status = getattr(error, "status_code", None)
    if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
        env = endpoint.api_key_env
        how = f"the key in {env}" if env else "no key (--api-key-env names the variable that holds one)"
        return ConfigError(
            endpoint.key_name("api_key_env"),
            f"{endpoint.api_base} refused {how} (HTTP {status}) when asked for {what}",
        )
    if isinstance(error, (openai.APIConnectionError, openai.APITimeoutError)):
        cause = "timed out" if isinstance(error, openai.APITimeoutError) else "no connection"
        return ConfigError(
            endpoint.key_name("api_base"),
            f"{endpoint.api_base} does not answer ({cause}) when asked for {what}; expected an OpenAI-compatible "
            "server there (vllm serve, transformers serve, a hosted API)",
        )
    return ConfigError(
        endpoint.key_name("api_base"),
        f"{endpoint.api_base} answered HTTP {status} when asked for {what}: {_short(error)}",
    )


def _short(error) -> str:
    text = " ".join(str(getattr(error, "message", "") or error).split())
    return text[:200]


def _refused(error) -> bool:
    """A request the server refuses for its parameters (400, 404 of a route, 422), not a failure."""
    return getattr(error, "status_code", None) in (400, 404, 405, 422, 501)


def probe(
    endpoint: ServedEndpoint,
    settings: RequestSettings = RequestSettings(),
    *,
    chat: bool = False,
    logprobs: bool = True,
    beam: bool = True,
) -> Capabilities:
    """Ask the server what it can do, before any job: ``/v1/models`` (the id must be listed;
    its maximum length where the server gives it), one one-token request (the route the
    run uses: completions, or chat completions with ``chat``; whether the vendors' penalty
    parameters are accepted; the fingerprint), and where asked whether it returns prompt
    log-probabilities (``logprobs``: ``/v1/completions`` with ``echo`` and ``logprobs``,
    judged by the answer's shape) and beam search (``beam``: vLLM's ``use_beam_search``
    with ``n`` 2, judged by two different answers). A server that does not answer, refuses
    the key or does not list the model is a :class:`ConfigError` naming the option or key."""
    import openai

    endpoint.check()
    client = endpoint.client(settings, max_retries=min(settings.max_retries, 1))
    try:
        raw = client.models.with_raw_response.list()
    except openai.OpenAIError as error:
        raise _status_error(endpoint, "its models (/v1/models)", error) from None
    try:
        entries = [entry.to_dict(warnings=False) for entry in raw.parse().data]
    except Exception as error:  # a body that is no model list
        raise ConfigError(
            endpoint.key_name("api_base"),
            f"{endpoint.api_base}/models did not answer with a model list ({type(error).__name__}); expected an "
            "OpenAI-compatible server",
        ) from None
    listed = tuple(str(entry.get("id", "")) for entry in entries)
    if endpoint.model not in listed:
        shown = ", ".join(listed[:10]) + (" ..." if len(listed) > 10 else "") if listed else "no model"
        raise ConfigError(
            endpoint.key_name("model"),
            f"{endpoint.model!r} is not a model the server at {endpoint.api_base} lists; it lists {shown}",
        )
    entry = entries[listed.index(endpoint.model)]
    found: dict = dict(
        api_base=endpoint.api_base,
        model=endpoint.model,
        listed=listed,
        owned_by=str(entry.get("owned_by") or ""),
        server_header=str(raw.headers.get("server", "")),
        max_model_len=_positive_int(entry.get("max_model_len")),
        requests=1,
    )
    found.update(_first_answer(client, endpoint, settings, chat))
    if logprobs:
        found["prompt_logprobs"], found["prompt_logprobs_reason"] = _prompt_logprobs(client, endpoint)
        found["requests"] += 1
    if beam:
        found["beam"], found["beam_reason"] = _beam(client, endpoint, settings, found["vendor_penalties"])
        found["requests"] += 1
    return Capabilities(**found)


def _positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _first_answer(client, endpoint: ServedEndpoint, settings: RequestSettings, chat: bool) -> dict:
    """One one-token request on the run's route, with the vendors' penalties, then
    without them where the server refuses them."""
    import openai

    route = "chat completions (/v1/chat/completions)" if chat else "a completion (/v1/completions)"
    sent = 0
    for vendor in (True, False):
        parameters, extra = sampling_parameters(settings, vendor)
        sent += 1
        try:
            if chat:
                answer = client.chat.completions.create(
                    model=endpoint.model,
                    messages=[{"role": "user", "content": PROBE_PROMPT}],
                    max_tokens=1,
                    extra_body=extra or None,
                    **parameters,
                )
            else:
                answer = client.completions.create(
                    model=endpoint.model, prompt=PROBE_PROMPT, max_tokens=1, extra_body=extra or None, **parameters
                )
            break
        except openai.OpenAIError as error:
            if vendor and _refused(error) and getattr(error, "status_code", None) != 404:
                continue  # the vendors' penalty fields: asked again without them
            if _refused(error) and not chat:
                raise ConfigError(
                    "--chat-template" if endpoint.where is None else f"{endpoint.where}.chat_template",
                    f"{endpoint.api_base} refuses {route} for {endpoint.model} (HTTP {getattr(error, 'status_code', '')}: "
                    f"{_short(error)}); a chat model is asked through chat completions: turn the chat template on",
                ) from None
            raise _status_error(endpoint, route, error) from None
    choices = getattr(answer, "choices", None)
    if not choices:
        raise ConfigError(endpoint.key_name("api_base"), f"{endpoint.api_base} answered {route} without choices")
    return dict(
        served_as=str(getattr(answer, "model", "") or ""),
        fingerprint=str(getattr(answer, "system_fingerprint", "") or ""),
        completions=not chat,
        chat=True if chat else None,
        vendor_penalties=vendor,
        requests=1 + sent,
    )


def _prompt_logprobs(client, endpoint: ServedEndpoint) -> tuple[bool, str]:
    """Whether ``/v1/completions`` with ``echo`` and ``logprobs`` gives one log-probability
    per prompt token (the first null), judged by the answer's shape."""
    import openai

    try:
        answer = client.completions.create(
            model=endpoint.model, prompt=PROBE_PROMPT, max_tokens=1, temperature=0.0, echo=True, logprobs=1
        )
    except openai.OpenAIError as error:
        if _refused(error):
            return False, f"echo with logprobs refused (HTTP {getattr(error, 'status_code', '')})"
        raise _status_error(endpoint, "prompt log-probabilities (echo, logprobs)", error) from None
    problem = prompt_logprobs_problem(answer, PROBE_PROMPT)
    if problem:
        return False, problem
    return True, "echo with logprobs gives one log-probability per prompt token"


def prompt_logprobs_problem(answer, prompt: str) -> str:
    """Why a completion asked with ``echo`` and ``logprobs`` does not carry the prompt's
    log-probabilities ('' when it does): its text must start with the prompt, its
    ``logprobs`` give a token, an offset and a log-probability per token (the first null,
    the others numbers) over the whole prompt."""
    choices = getattr(answer, "choices", None) or []
    if not choices:
        return "no choices in the answer"
    choice = choices[0]
    text = getattr(choice, "text", None)
    if not isinstance(text, str) or not text.startswith(prompt):
        return "echo ignored: the answer does not repeat the prompt"
    logprobs = getattr(choice, "logprobs", None)
    if logprobs is None:
        return "logprobs ignored: the answer has none"
    tokens = getattr(logprobs, "tokens", None) or []
    values = getattr(logprobs, "token_logprobs", None) or []
    offsets = getattr(logprobs, "text_offset", None) or []
    if not (len(tokens) == len(values) == len(offsets)) or len(values) < 2:
        return "logprobs of the generated tokens only, not of the prompt's"
    if offsets[0] != 0 or values[0] is not None:
        return "logprobs of the generated tokens only, not of the prompt's (no null first log-probability)"
    if any(not isinstance(value, (int, float)) or not math.isfinite(value) for value in values[1:]):
        return "a prompt token without a log-probability"
    if sum(1 for offset in offsets if offset < len(prompt)) < 2:
        return "logprobs of the generated tokens only, not of the prompt's"
    return ""


def _beam(client, endpoint: ServedEndpoint, settings: RequestSettings, vendor: bool) -> tuple[bool, str]:
    """Whether the server decodes with beam search on request (vLLM's ``use_beam_search``):
    two answers that differ for ``n`` 2 at temperature 0."""
    import openai

    parameters, extra = sampling_parameters(settings, vendor)
    parameters["n"] = 2
    try:
        answer = client.completions.create(
            model=endpoint.model,
            prompt=PROBE_PROMPT,
            max_tokens=2,
            extra_body={**extra, "use_beam_search": True},
            **parameters,
        )
    except openai.OpenAIError as error:
        if _refused(error):
            return False, f"beam search refused (use_beam_search: HTTP {getattr(error, 'status_code', '')})"
        raise _status_error(endpoint, "beam search (use_beam_search)", error) from None
    texts = [getattr(choice, "text", None) for choice in getattr(answer, "choices", None) or []]
    if len(texts) < 2:
        return False, "beam search ignored: one answer for n 2"
    if len(set(texts)) < 2:
        return False, "beam search ignored: n 2 at temperature 0 gave the same answer twice"
    return True, "use_beam_search gives the n best hypotheses"
