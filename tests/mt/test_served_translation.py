"""A causal LM behind an OpenAI-compatible API as an MT system (natcomp.mt.served_translation),
against the local fault server: the system factory, the decode signature, the answers'
statuses, n-best by the server's beam search, the config checks and the plan's count."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.mt.config import check_system_models, check_systems
from natcomp.mt.served_translation import ServedTranslator, planned_requests
from natcomp.mt.systems import configured_family, is_served, system_translator
from served_fixtures import FaultServer

REPO_CONFIG = Path(__file__).resolve().parents[2] / "config" / "config.yaml"


@pytest.fixture
def fault():
    server = FaultServer()
    yield server
    server.stop()


def served(server: FaultServer, cache, **system) -> ServedTranslator:
    entry = {"model": server.model, "api_base": server.base, "max_new_tokens": 8, **system}
    return system_translator(entry, source_lang="en", target_lang="nl", key="mt.systems.llm", cache_dir=cache)


def test_an_entry_with_an_api_base_is_a_served_causal_system(fault, tmp_path):
    entry = {"model": "some/llm", "api_base": fault.base}
    assert is_served(entry) and configured_family(entry) == "causal"
    assert not is_served({"model": "some/llm"})
    translator = served(fault, tmp_path)
    assert isinstance(translator, ServedTranslator)
    fields = translator.signature.split("|")
    assert fields[:5] == [
        f"served:{fault.base}",
        "api:completions",
        "model:fault/model",
        "rev:-",
        "sampling:t0,p1,n1,seed1,pen0,rep1",
    ]
    assert fields[6:] == ["shots:-", "dec:greedy", "maxnew:8", "lang:en-nl"]
    assert served(fault, tmp_path).signature == translator.signature
    changed = {
        served(fault, tmp_path, prompt="{source} =").signature,
        served(fault, tmp_path, max_new_tokens=9).signature,
    }
    assert translator.signature not in changed and len(changed) == 2
    assert served(fault, tmp_path, chat_template="on").signature.split("|")[1] == "api:chat"
    with pytest.raises(ValueError, match="cache_dir"):
        system_translator(
            {"model": "m", "api_base": fault.base}, source_lang="en", target_lang="nl", key="mt.systems.llm"
        )


def test_each_answers_first_line_is_the_translation_and_its_status_is_kept(fault, tmp_path):
    """The prompt is the loaded causal LM's; the answer is cut at the newline on the client
    (ok), one that hit the token limit first is cut off, an empty one is empty."""
    translator = served(fault, tmp_path)
    fault.by_prompt = {"dog": "length", "man": "empty"}
    sources = ["the cat sleeps .", "a dog runs .", "the man reads ."]
    translations, statuses = translator.translate_with_status(sources)
    prompt = "English: the cat sleeps .\nDutch:"
    assert translations[0] == [f"answer 0 to {prompt[-12:].split(chr(10))[0]}".strip()]
    assert statuses == ["ok", "cut_off", "empty"] and translations[2] == [""]
    bodies = fault.generation_requests()[-3:]
    assert sorted(body["prompt"] for body in bodies) == sorted(f"English: {source}\nDutch:" for source in sources)
    assert all(body["stop"] == ["\n"] and body["max_tokens"] == 8 for body in bodies)


def test_n_best_lists_use_the_servers_beam_search_where_it_has_one(tmp_path):
    server = FaultServer(beam=True)
    try:
        translator = served(server, tmp_path, decoding="beam", beam=3)
        (hypotheses,) = translator.translate_nbest(["a dog runs ."], 2)
        body = server.generation_requests()[-1]
        assert body["use_beam_search"] is True and body["n"] == 3
        assert hypotheses[0].startswith("answer 0") and hypotheses[1].startswith("answer 1")
    finally:
        server.stop()
    fault = FaultServer()
    try:
        with pytest.raises(ConfigError, match="needs beam search"):
            served(fault, tmp_path, decoding="beam")
    finally:
        fault.stop()


def test_a_served_systems_synonym_probes_are_counted_in_a_usage_file_of_their_own(tmp_path):
    """The probes' n-best requests go through a client of their own, whose requests and
    tokens are written beside the translations' usage (the run's record sums them); a rerun
    answers them from the cache and sends none."""
    import json

    from natcomp.mt.lexicon import load_synonyms
    from natcomp.mt.synonym_probes import probe_sentences, read_probe_translations
    from natcomp.mt.systems import translate_system_probes

    pairs = load_synonyms(REPO_CONFIG.parents[1] / "resources" / "synonyms.tsv")[:2]
    templates = ["This is the {term} .", "I see the {term} ."]
    server = FaultServer(beam=True)
    try:
        system = {"model": server.model, "api_base": server.base, "max_new_tokens": 8, "decoding": "beam", "beam": 3}
        options = dict(source_lang="en", target_lang="nl", key="mt.systems.llm", cache_dir=tmp_path / "cache")
        one_best = system_translator(system, **options)
        sentences = {probe.sentence for probe in probe_sentences(pairs, templates)}

        def probes(run: str):
            return translate_system_probes(
                one_best,
                system,
                "llm",
                2,
                pairs,
                templates,
                tmp_path / f"{run}.tsv",
                usage=tmp_path / f"{run}.json",
                **options,
            )

        signature, stats = probes("first")
        usage = json.loads((tmp_path / "first.json").read_text())
        assert stats.decoded == len(sentences) == 8
        assert usage["requests"] == usage["sent"] == len(sentences) and usage["from_cache"] == 0

        def translation_requests():  # not the capability probes of each new client
            return [body for body in server.generation_requests() if body["max_tokens"] == 8]

        assert sorted(body["prompt"].split("\n")[0] for body in translation_requests()) == sorted(
            f"English: {sentence}" for sentence in sentences
        )
        written = read_probe_translations([tmp_path / "first.tsv"])
        assert set(written["decode_signature"]) == {signature} != {one_best.signature}
        _, again = probes("second")
        usage = json.loads((tmp_path / "second.json").read_text())
        assert again.decoded == 0 and usage["sent"] == 0, "the translation cache answered every probe"
        assert len(translation_requests()) == len(sentences), "nothing sent again"
    finally:
        server.stop()


def test_a_token_limit_by_the_sources_length_needs_the_models_tokenizer_here(fault, tmp_path):
    with pytest.raises(ConfigError, match=r"^config mt.systems.llm.max_len_a: .*tokenizer is not here"):
        served(fault, tmp_path, max_len_a=1.5)


def test_the_config_checks_of_a_served_system(monkeypatch, fault):
    mt = yaml.safe_load(REPO_CONFIG.read_text())["mt"]
    mt["systems"] = {"llm": {"model": "some/llm", "api_base": fault.base, "family": "marian"}}
    with pytest.raises(ConfigError, match=r"mt.systems.llm.family: marian is a translation model's family"):
        check_systems(mt)
    mt["systems"] = {"llm": {"model": "some/llm", "api_key_env": "X"}}
    with pytest.raises(ConfigError, match="mt.systems.llm.api_key_env: names the key of a server"):
        check_systems(mt)
    monkeypatch.delenv("NATCOMP_NO_KEY_HERE", raising=False)
    mt["systems"] = {"llm": {"model": "some/llm", "api_base": fault.base, "api_key_env": "NATCOMP_NO_KEY_HERE"}}
    with pytest.raises(ConfigError, match="mt.systems.llm.api_key_env: the environment variable NATCOMP_NO_KEY_HERE"):
        check_system_models(mt)
    monkeypatch.setenv("NATCOMP_NO_KEY_HERE", "k")
    check_system_models(mt)  # a served model is not looked for locally
    assert not fault.requests, "the run's start checks send nothing"


def test_the_plan_counts_one_request_per_distinct_source(tmp_path):
    """The synthetic and random-word items are built and counted; semi-natural and natural
    ones are bounded: 'at most'."""
    config = yaml.safe_load(REPO_CONFIG.read_text())
    config["mt"]["systems"] = {"llm": {"model": "some/llm", "api_base": "http://x/v1", "max_new_tokens": 7}}
    config["mt"]["tests"]["data_types"] = {
        "np_vp": ["synthetic"],
        "s_conj": [],
        "substitutivity": [],
        "overgeneralisation": ["random_words"],
    }
    config["mt"]["bleu"]["splits"] = ["dev"]
    (estimate,) = planned_requests(config, "llm", REPO_CONFIG.parents[1] / "resources")
    assert estimate.exact and estimate.max_output_tokens == 7
    # 60 distinct np_vp sentences, 20 idioms x 10 random-word samples, the demo's FLORES dev pairs
    assert estimate.requests == 60 + 200 + config["mt"]["demo_corpus"]["flores_dev_pairs"]
    assert estimate.sample_prompts[0].startswith("English: ") and estimate.sample_prompts[0].endswith("\nDutch:")
    config["mt"]["tests"]["data_types"]["substitutivity"] = ["natural"]
    (bounded,) = planned_requests(config, "llm", REPO_CONFIG.parents[1] / "resources")
    assert not bounded.exact and bounded.requests > estimate.requests


@pytest.mark.workflow
def test_a_config_lists_a_served_system_beside_the_others_and_its_jobs_ask_for_no_gpu(tmp_path):
    """A paper-style MT run with a served system among its systems: the served system's
    translation job asks for no GPU, little memory and its share of the server's requests
    (served_requests), the other systems' jobs are sized as before; PLANE lists a served
    prompting model the same way."""
    import subprocess
    import sys

    config = yaml.safe_load(REPO_CONFIG.read_text())
    config["mt"]["systems"]["served-llm"] = {"model": "org/llm", "api_base": "http://node7:8000/v1"}
    config["plane"]["prompting"]["models"]["served-llm"] = {"model": "org/llm", "api_base": "http://node7:8000/v1"}
    config["served"] = {"concurrency": 6}
    for family in ("noncompsst", "pss", "tre"):
        config[family] = {"enabled": False}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--forceall", "--configfile", str(path), "--directory", str(tmp_path)]
        + [f"results/mt/systems/{name}/translations.tsv" for name in ("served-llm", "tiny-llama")]
        + ["results/plane/prompting/served-llm.tsv"],
        cwd=REPO_CONFIG.parents[1],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    blocks = result.stdout.split("\n\n")

    def resources(rule: str, wildcard: str) -> str:
        block = next(b for b in blocks if f"rule {rule}:" in b and wildcard in b)
        return next(line for line in block.splitlines() if "resources:" in line)

    served = resources("mt_system_translate", "system=served-llm")
    assert "gpu=0" in served and "served_requests=6" in served and "mem_mb=2000" in served
    loaded = resources("mt_system_translate", "system=tiny-llama")
    assert "served_requests=0" in loaded and "mem_mb=2000" not in loaded
    plane = resources("plane_prompting", "model=served-llm")
    assert "gpu=0" in plane and "served_requests=6" in plane
