"""A real server: ``transformers serve`` (the pinned transformers' own, offline, on a free
local port) serving a tiny trained Llama 3 instruct (the session fixture ``served_model``).
What it can do (probed), greedy translations through its API equal to natcomp's local
``CausalGenerator`` on the same weights (completions and chat), PLANE's written-word
answers equal to the local model's, and a translation job killed half-way that resumes
from the cache without sending an answered request again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from natcomp.mt.systems import system_translator
from natcomp.plane.prompting import PromptSettings, evaluate_prompting, evaluate_zero_shot
from natcomp.plane.served_prompting import ServedJob
from natcomp.served import RequestSettings, ServedEndpoint, probe
from served_fixtures import PAIRS, CountingProxy

REPO = Path(__file__).resolve().parents[1]
SOURCES = [source for source, _ in PAIRS] + [
    "the cat reads a letter .",
    "a dog sees the man .",
    "the woman eats bread .",
    "the child writes a book .",
]
TRIPLETS = pd.DataFrame(
    [
        {"adj": "red", "noun": "car", "hyp": "vehicle", "class": "I"},
        {"adj": "fake", "noun": "gun", "hyp": "weapon", "class": "O"},
        {"adj": "small", "noun": "dog", "hyp": "animal", "class": "S"},
    ]
)


def translators(served_model, cache: Path, **settings):
    """The same causal system loaded here and through the server."""
    entry = {"family": "causal", "max_new_tokens": 16, "precision": "fp32", "device": "cpu", **settings}
    local = system_translator(
        {**entry, "model": str(served_model.folder)}, source_lang="en", target_lang="nl", key="mt.systems.local"
    )
    served = system_translator(
        {**entry, "model": served_model.model, "api_base": served_model.base},
        source_lang="en",
        target_lang="nl",
        key="mt.systems.served",
        cache_dir=cache,
    )
    return local, served


def test_transformers_serve_is_probed_for_what_it_gives(served_model):
    """transformers serve lists the model (from the Hub cache), answers with id@revision,
    ignores echo and logprobs (200, no prompt log-probabilities), refuses beam search and
    the vendors' penalty fields (422)."""
    caps = probe(ServedEndpoint(served_model.base, served_model.model))
    assert caps.model in caps.listed and caps.server == "transformers serve" and caps.revision == "main"
    assert caps.prompt_logprobs is False and "echo ignored" in caps.prompt_logprobs_reason
    assert caps.beam is False and "422" in caps.beam_reason
    assert caps.vendor_penalties is False and caps.completions


@pytest.mark.parametrize("chat", ["off", "on"])
def test_greedy_translations_through_the_api_equal_the_local_generators(served_model, tmp_path, chat):
    """The same prompts, the same weights in fp32: every translation and its status equal
    (through completions, and with the chat template through chat completions, which the
    server renders with the model's template)."""
    local, served = translators(served_model, tmp_path, chat_template=chat)
    expected = local.translate_with_status(SOURCES)
    assert served.translate_with_status(SOURCES) == expected
    translations, statuses = expected
    assert len({hypotheses[0] for hypotheses in translations}) >= 4 and "ok" in statuses, "a model that translates"
    assert served.model.sent == len(SOURCES)
    again = translators(served_model, tmp_path, chat_template=chat)[1]
    assert again.translate(SOURCES) == [hypotheses[0] for hypotheses in translations] and again.model.sent == 0


def test_plane_prompting_through_the_api_equals_the_local_models_written_words(served_model, tmp_path):
    """Two-shot and zero-shot by the word the model writes: the served answers (its text)
    and the loaded model's (its logits) are the same predictions, and some are verbalisers.
    The internal template: in the external one (``...:[MASK]``) a byte-level BPE may join
    ``:`` and the verbaliser into one token, and the loaded model's check, which follows the
    tokenizer's segmentation (lm-evaluation-harness's rule), then misses a word the model
    writes (docs/llm.md)."""
    settings = PromptSettings(
        templates=["internal"],
        verbalisers={"GP": ["good", "poor"], "TF": ["true", "false"]},
        answer="vocabulary",
        device="cpu",
        dtype="fp32",
    )
    entry = {"model": served_model.model, "api_base": served_model.base, "api_key_env": None}
    job = ServedJob(tmp_path / "cache", RequestSettings(concurrency=2), usage=tmp_path / "usage.json")
    local = evaluate_prompting(str(served_model.folder), TRIPLETS, settings, name="tiny")
    served = evaluate_prompting(entry, TRIPLETS, settings, name="tiny", served=job)
    pd.testing.assert_frame_equal(served, local)
    assert (local["predicted"] != -1).sum() >= 5, "the model writes verbalisers"
    local = evaluate_zero_shot(str(served_model.folder), TRIPLETS, settings, name="tiny")
    served = evaluate_zero_shot(entry, TRIPLETS, settings, name="tiny", served=job)
    pd.testing.assert_frame_equal(served, local)
    # one request per distinct text before the mask: the three ITs of a triplet share it
    assert json.loads((tmp_path / "usage.json").read_text())["requests"] == len(TRIPLETS)


JOB = """
import json, sys
from natcomp.mt.prompted_translation import translate_with_status
from natcomp.mt.systems import system_translator
from natcomp.mt.translation_cache import TranslationCache
base, model, cache, sources = json.loads(sys.argv[1])
system = {"model": model, "api_base": base, "max_new_tokens": 16}
translator = system_translator(
    system, source_lang="en", target_lang="nl", key="mt.systems.tiny", cache_dir=cache, concurrency=2
)
stats, _ = translate_with_status(TranslationCache(cache, translator.signature), sources, translator)
print(json.dumps(TranslationCache(cache, translator.signature).entries))
"""


def test_a_translation_job_killed_half_way_resumes_without_sending_an_answered_request_twice(served_model, tmp_path):
    """The job's own code (system_translator, translate_with_status) in a process killed
    (SIGKILL) once 5 answers came and two more requests were waiting; the rerun sends only the
    requests that had no answer, and every prompt is answered exactly once."""
    proxy = CountingProxy(served_model.base)
    proxy.hold_after = 5
    sources = SOURCES + ["the man sees a dog .", "a cat eats the bread ."]
    arguments = [sys.executable, "-c", JOB, json.dumps([proxy.base, served_model.model, str(tmp_path), sources])]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    try:
        job = subprocess.Popen(arguments, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while proxy.held < 2 and time.monotonic() < deadline and job.poll() is None:
            time.sleep(0.05)
        assert proxy.held == 2, "two requests in flight when the job is killed"
        os.kill(job.pid, signal.SIGKILL)
        job.wait()
        proxy.release(drop=True)
        # the request in flight when the fifth answer came is answered too
        assert sum(proxy.answered.values()) in (5, 6)
        done = subprocess.run(arguments, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    finally:
        proxy.stop()
    assert set(proxy.answered) == {f"English: {source}\nDutch:" for source in sources}
    assert set(proxy.answered.values()) == {1}, "no prompt answered twice"
    assert sum(proxy.received.values()) == len(sources) + 2, "only the two held requests were sent again"
    translations = json.loads(done.stdout)
    local, _ = translators(served_model, tmp_path / "other")
    assert [translations[source] for source in sources] == local.translate(sources)
