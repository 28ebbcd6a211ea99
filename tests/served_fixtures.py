"""Servers for the tests of models behind an OpenAI-compatible API (natcomp.served).

* :func:`build_served_model`: a tiny released-style Llama 3 instruct
  (natcomp.hf.tiny_architectures), trained for a few seconds to answer MT prompts and to
  write PLANE's verbalisers, saved as a Hugging Face Hub cache entry, so that
  ``transformers serve`` lists it (it lists only models of the cache) and natcomp can load
  the same weights from the plain folder.
* :class:`TransformersServe`: ``transformers serve`` on a free local port, offline
  (``HF_HUB_OFFLINE=1``), in fp32 on the CPU (the dtype natcomp's CPU inference uses), stopped by its pid.
* :class:`FaultServer`: a few lines of OpenAI-shaped answers for what a real server rarely
  does on demand (429 with Retry-After, 500, a malformed body, a timeout, log-probabilities
  silently missing), each request counted.
* :class:`CountingProxy`: forwards to a real server, counts the requests it answered by
  their prompt, and can hold every request after the n-th unanswered (a job killed then
  has sent them but got no answer).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from natcomp.served.endpoint import PROBE_PROMPT

#: the served model's id, as the Hub cache names it
MODEL_ID = "natcomp-test/tiny-llama3-instruct"
#: parallel sentences the tiny model learns to translate (the MT prompts' answers)
PAIRS = [
    ("the cat sleeps .", "de kat slaapt ."),
    ("the dog runs .", "de hond rent ."),
    ("the man reads a book .", "de man leest een boek ."),
    ("the woman sees the cat .", "de vrouw ziet de kat ."),
    ("a child eats bread .", "een kind eet brood ."),
    ("the teacher writes a letter .", "de leraar schrijft een brief ."),
]
#: PLANE-style prompts cut at the mask and what follows, so the model writes verbalisers
PLANE_ANSWERS = [
    ("A red car is a", " good example of a vehicle."),
    ("A fake gun is a", " poor example of a weapon."),
    ("A small dog is a type of animal:", "true."),
    ("A former president is a type of president:", "false."),
    ("A big house is a", " good example of a building."),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_served_model(root: Path) -> tuple[Path, Path]:
    """Train the tiny model into ``root/model`` and put it in a Hub cache ``root/hub`` as
    :data:`MODEL_ID`; returns (the model folder, the Hub cache)."""
    from natcomp import hf
    from natcomp.hf.tiny_architectures import build_tiny
    from natcomp.mt.prompting import PromptFormat

    prompt = PromptFormat(source_lang="en", target_lang="nl")
    mt = [prompt.training_pair(source, target) for source, target in PAIRS]
    untrained = build_tiny("llama3-instruct", root / "untrained", [p + c for p, c in mt + PLANE_ANSWERS])
    # the same translations as the assistant's answers through its chat template
    template = hf.load_tokenizer(str(untrained), "model")
    chat = [
        (
            template.apply_chat_template([{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True),
            c.strip(),
        )
        for p, c in mt
    ]
    pairs = (mt + PLANE_ANSWERS + chat) * 8
    model = root / "model"
    hf.train_causal_lm(
        untrained,
        [p for p, _ in pairs],
        [c for _, c in pairs],
        hf.CausalTrainingSettings(epochs=12, batch_size=8, learning_rate=5e-3, seed=1, device="cpu"),
        model,
    )
    return model, hub_cache(model, root / "hub", MODEL_ID)


def hub_cache(folder: Path, cache: Path, repo_id: str) -> Path:
    """``folder``'s files as the Hugging Face Hub cache holds a downloaded model (blobs,
    a snapshot of links, refs/main)."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snapshot / path.name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, snapshot))
    return cache


class TransformersServe:
    """``transformers serve MODEL_ID`` from the Hub cache ``cache`` on a free port (see the module's text)."""

    def __init__(self, cache: Path, log: Path, model: str = MODEL_ID):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/v1"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "TRANSFORMERS_VERBOSITY": "error"}
        command = [
            str(Path(sys.executable).with_name("transformers")),
            "serve",
            model,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--device",
            "cpu",
            "--dtype",
            "float32",
        ]
        self.log = open(log, "w")
        self.process = subprocess.Popen(command, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"transformers serve ended (exit {self.process.returncode}); its log: {log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"transformers serve did not answer within 120 s; its log: {log}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


class _JSONHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def _send(self, status: int, body: bytes, headers: dict | None = None, content_type="application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass


class FaultServer:
    """An OpenAI-shaped server for faults. ``script``: the behaviour of the next
    generation requests in turn (then ``ok``): ``ok``, ``429`` (Retry-After), ``500``,
    ``malformed`` (a 200 body that is not JSON), ``slow`` (no answer within the client's
    timeout), ``nochoices``, ``length`` (cut off by the token limit), ``empty``. ``logprobs``: how ``echo`` with ``logprobs`` is answered:
    ``ignored`` (the generated tokens only, as llama.cpp), ``given`` (vLLM's shape), or
    ``refused`` (422). ``beam``: whether ``use_beam_search`` gives n different answers.
    ``fingerprints``: the system_fingerprint of each answer in turn (then the last).
    Every request is recorded in ``requests`` (path, body, key header)."""

    def __init__(self, model: str = "fault/model", *, logprobs="ignored", beam=False, strict=False, key=None):
        self.model, self.logprobs, self.beam, self.strict, self.key = model, logprobs, beam, strict, key
        self.script: list[str] = []
        #: the behaviour of every request whose prompt holds the key (before the script)
        self.by_prompt: dict[str, str] = {}
        self.fingerprints: list[str] = []
        self.requests: list[tuple[str, dict, str]] = []
        self.slow_seconds = 3.0
        #: seconds every generation answer takes (to see how many requests are in flight)
        self.delay = 0.0
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(_JSONHandler):
            def do_GET(self):
                server.requests.append((self.path, {}, self.headers.get("Authorization", "")))
                if not server._authorised(self):
                    return self._send(401, b'{"error": {"message": "bad key"}}')
                if self.path.rstrip("/").endswith("/models"):
                    data = {"object": "list", "data": [{"id": server.model, "object": "model", "owned_by": "test"}]}
                    return self._send(200, json.dumps(data).encode())
                self._send(404, b'{"error": {"message": "no such route"}}')

            def do_POST(self):
                body = self._body()
                server.requests.append((self.path, body, self.headers.get("Authorization", "")))
                if not server._authorised(self):
                    return self._send(401, b'{"error": {"message": "bad key"}}')
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay)
                    server._answer(self, body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def _authorised(self, handler) -> bool:
        return self.key is None or handler.headers.get("Authorization") == f"Bearer {self.key}"

    def generation_requests(self) -> list[dict]:
        return [body for path, body, _ in self.requests if path.endswith("completions")]

    def _answer(self, handler: _JSONHandler, body: dict) -> None:
        vendor = {"repetition_penalty", "repeat_penalty", "use_beam_search"} & set(body)
        if self.strict and vendor:
            return handler._send(422, json.dumps({"detail": f"Unexpected fields {sorted(vendor)}"}).encode())
        if body.get("echo"):
            return self._echo(handler, body)
        prompt = body.get("prompt") if "prompt" in body else body["messages"][-1]["content"]
        chosen = [behaviour for part, behaviour in self.by_prompt.items() if part in prompt]
        behaviour = chosen[0] if chosen else self.script.pop(0) if self.script else "ok"
        if behaviour == "429":
            return handler._send(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0.2"})
        if behaviour == "500":
            return handler._send(500, b'{"error": {"message": "boom"}}')
        if behaviour == "malformed":
            return handler._send(200, b"<html>not json", content_type="application/json")
        if behaviour == "slow":
            time.sleep(self.slow_seconds)
        n = int(body.get("n") or 1) if (self.beam and body.get("use_beam_search")) else 1
        texts = [f" answer {index} to {prompt[-12:]!s}\nmore" for index in range(n)]
        reason = "stop"
        if behaviour == "length":  # the token limit before any newline
            texts, reason = [f" answer {index} goes on and on" for index in range(n)], "length"
        elif behaviour == "empty":
            texts = ["" for _ in range(n)]
        fingerprint = self.fingerprints.pop(0) if len(self.fingerprints) > 1 else (self.fingerprints or [""])[0]
        chat = "messages" in body
        choices = [
            {
                "index": index,
                "finish_reason": reason,
                **({"message": {"role": "assistant", "content": text}} if chat else {"text": text}),
            }
            for index, text in enumerate(texts)
        ]
        if behaviour == "nochoices":
            choices = []
        answer = {
            "id": "x",
            "object": "chat.completion" if chat else "text_completion",
            "created": 0,
            "model": self.model,
            "choices": choices,
            "usage": {
                "prompt_tokens": len(prompt.split()),
                "completion_tokens": 5,
                "total_tokens": len(prompt.split()) + 5,
            },
        }
        if fingerprint:
            answer["system_fingerprint"] = fingerprint
        handler._send(200, json.dumps(answer).encode())

    def _echo(self, handler: _JSONHandler, body: dict) -> None:
        prompt = body["prompt"]
        if self.logprobs == "refused":
            return handler._send(422, b'{"detail": "echo is not supported"}')
        if self.logprobs == "ignored":  # llama.cpp: no error, the generated token's log-probability only
            logprobs = {"tokens": [" x"], "token_logprobs": [-1.0], "text_offset": [0], "top_logprobs": [{" x": -1.0}]}
            text = " x"
        else:  # one token per word (vLLM's shape): the first null, each word's log-probability -len(word)
            words, offsets, position = [], [], 0
            for index, word in enumerate(prompt.split(" ")):
                token = word if index == 0 else " " + word
                words.append(token)
                offsets.append(position)
                position += len(token)
            values = [None] + [-float(len(token.strip())) for token in words[1:]]
            logprobs = {
                "tokens": words + [" x"],
                "token_logprobs": values + [-1.0],
                "text_offset": offsets + [len(prompt)],
                "top_logprobs": [None]
                + [{token: value} for token, value in zip(words[1:], values[1:])]
                + [{" x": -1.0}],
            }
            text = prompt + " x"
        answer = {
            "id": "x",
            "object": "text_completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "text": text, "finish_reason": "length", "logprobs": logprobs}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        }
        handler._send(200, json.dumps(answer).encode())

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class CountingProxy:
    """Forwards to ``target`` (a base URL's host), counting the answered generation
    requests by prompt (``answered``); after ``hold_after`` answers, holds every further
    request until :meth:`release` (the client waits: a job killed now got no answer)."""

    def __init__(self, target: str):
        self.target = target.rstrip("/").removesuffix("/v1")
        self.answered: Counter = Counter()
        self.received: Counter = Counter()
        self.hold_after: int | None = None
        self.released = threading.Event()
        self.lock = threading.Lock()
        self.held = 0
        self.drop_held = False
        proxy = self

        class Handler(_JSONHandler):
            def do_GET(self):
                proxy._forward(self, None)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                proxy._forward(self, self.rfile.read(length))

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def release(self, drop: bool = False) -> None:
        """Let the held requests go on (``drop``: answer them 503 without forwarding)."""
        self.drop_held = drop
        self.hold_after = None
        self.released.set()

    def _forward(self, handler: _JSONHandler, data: bytes | None) -> None:
        prompt = None
        if data:
            body = json.loads(data)
            prompt = body.get("prompt") or (body.get("messages") or [{}])[-1].get("content")
            if prompt == PROBE_PROMPT:
                prompt = None  # the probe's requests: not answers a job keeps
        if prompt is not None:
            with self.lock:
                self.received[prompt] += 1
                hold = self.hold_after is not None and sum(self.answered.values()) >= self.hold_after
            if hold:
                self.held += 1
                self.released.wait(timeout=120)
                if self.drop_held:  # its client is gone: never answered
                    return handler._send(503, b'{"error": {"message": "dropped"}}')
        request = urllib.request.Request(
            self.target + handler.path, data=data, method="POST" if data is not None else "GET"
        )
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                body, status = response.read(), response.status
        except urllib.error.HTTPError as error:  # the server's refusal, passed on as it is
            body, status = error.read(), error.code
        if prompt is not None and status == 200:
            with self.lock:
                self.answered[prompt] += 1
        handler._send(status, body)

    def stop(self) -> None:
        self.release(drop=True)
        self.httpd.shutdown()
        self.httpd.server_close()
