"""``natcomp evaluate --model ID --api-base URL``: the one-line refusals before any job, the
plan (what the probe found, what each family does, the requests counted) and a small
demo-scale profile through ``transformers serve`` (the session fixture ``served_model``)
that equals the profile of the same weights loaded locally on every MT and PLANE prompting
row, with the key nowhere in the run folder."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
import yaml

from served_fixtures import FaultServer
from test_profile_workflow import natcomp, profile_rows

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.workflow


@pytest.fixture
def fault():
    server = FaultServer()
    yield server
    server.stop()


def test_bad_served_inputs_are_one_line_and_exit_2_before_any_job(fault, tmp_path, capsys, monkeypatch):
    """A URL that does not answer, a model id the server does not list, a missing key
    variable, a family that needs weights asked for explicitly, --dtype for a served model,
    a key variable without a server and a URL that is none: one line each, exit 2, no run folder."""
    from natcomp.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NATCOMP_UNSET_KEY", "")
    cases = [
        (
            ["--model", "m", "--api-base", "http://127.0.0.1:9/v1"],
            ["--api-base: http://127.0.0.1:9/v1 does not answer"],
        ),
        (
            ["--model", "other/model", "--api-base", fault.base],
            ["--model: 'other/model' is not a model", "fault/model"],
        ),
        (
            ["--model", fault.model, "--api-base", fault.base, "--api-key-env", "NATCOMP_UNSET_KEY"],
            ["--api-key-env: the environment variable NATCOMP_UNSET_KEY is not set"],
        ),
        (
            ["--model", fault.model, "--api-base", fault.base, "--families", "mt", "pss"],
            ["--families: pss need(s) the model's weights", "expected mt or plane"],
        ),
        (["--model", fault.model, "--api-base", fault.base, "--dtype", "bf16"], ["--dtype: a served model runs in"]),
        (["--model", fault.model, "--api-key-env", "HOME"], ["--api-key-env: names the key of a served model"]),
        (
            ["--model", fault.model, "--api-base", "localhost:8000"],
            ["--api-base: 'localhost:8000' is not an http(s) URL"],
        ),
        (["--model", fault.model, "--api-base", fault.base, "--families", "noncompsst"], ["noncompsst need(s)"]),
    ]
    for arguments, expected in cases:
        assert main(["evaluate", *arguments]) == 2, arguments
        captured = capsys.readouterr()
        lines = [line for line in captured.err.splitlines() if line.strip()]
        assert len(lines) == 1 and captured.out == "", captured.err
        assert all(text in lines[0] for text in expected), lines[0]
    assert main(["mt", "evaluate", "--model", fault.model, "--api-base", fault.base, "--family", "marian"]) == 2
    assert "--family: marian is a translation model's family" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
    assert not any(path.endswith("completions") for path, _, _ in fault.requests), "no request before the checks"


def test_the_plan_says_what_the_server_gives_what_each_family_does_and_counts_the_requests(fault, tmp_path):
    """A dry run against a server without prompt log-probabilities or beam search: MT by
    prompting with the shipped synonym translations instead of the probes, PLANE by the
    word the model writes, one 'not run' line for each part that needs weights, the
    requests and tokens counted, Snakemake's jobs planned; nothing written."""
    result = natcomp("evaluate", "--model", fault.model, "--api-base", fault.base, "-n", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    err = result.stderr
    assert f"{fault.model} at {fault.base} is a served causal LM; demo scale" in err
    assert "prompt log-probabilities: no (echo ignored" in err and "beam search: no (beam search ignored" in err
    assert "synonym probes refused" in err and "mt.synonyms.candidates: shipped" in err
    assert "plane.prompting.answer: vocabulary" in err
    for family in ("noncompsst", "pss", "tre"):
        assert any(
            line.startswith(family) and "not run: needs the model's weights" in line for line in err.splitlines()
        )
    assert "not run: fine-tuning" in err
    # 60 triplets: two-shot 3 ITs x 2 orders x 2 templates x 3 verbaliser pairs; zero-shot 1 + 3
    # distinct texts before the mask (internal, external)
    assert "mt translation: at most" in err and "plane two-shot prompting: at most 2,160 request(s)" in err
    assert "plane zero-shot prompting: at most 240 request(s)" in err
    assert "estimate of 4 characters a token" in err
    jobs = result.stdout + err
    assert "mt_system_translate" in jobs and "plane_prompting" in jobs and "plane_finetune" not in jobs
    assert "pss_embed" not in jobs  # and no synonym probes in mt_system_translate: the shipped candidates (above)
    assert not (tmp_path / "runs").exists()
    assert all(path == "/v1/models" or path.endswith("completions") for path, _, _ in fault.requests)


def test_natcomp_evaluate_caps_the_requests_in_flight_of_all_jobs_together():
    from natcomp.profile.served import with_request_limit

    assert with_request_limit([], 4) == ["--resources", "served_requests=4"]
    assert with_request_limit(["--resources", "mem_mb=1000"], 4) == ["--resources", "served_requests=4", "mem_mb=1000"]
    assert with_request_limit(["--resources", "served_requests=32"], 4) == ["--resources", "served_requests=32"]


def small_demo_config(path: Path) -> Path:
    """The demo's config made small enough for a server on two cores: a few items of each
    test, a short FLORES, a few PLANE triplets; the synonym candidates and PLANE's answer
    that a server without beam search and prompt log-probabilities allows, so both runs
    compare like with like; the internal template only (docs/llm.md: the external one's
    ``:[MASK]`` lets a BPE join the verbaliser to the colon, which the loaded model's check
    follows and the server's text does not)."""
    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    mt = base["mt"]
    mt["demo_corpus"].update(
        train_pairs=2000, dev_pairs=50, test_pairs=50, flores_dev_pairs=10, flores_devtest_pairs=10
    )
    mt["tests"].update(samples_per_template=1, natural_max_items=1, random_word_samples=1)
    mt["tests"]["data_types"] = {
        "np_vp": ["synthetic"],
        "s_conj": [],  # no row of its own in the profile
        "substitutivity": ["natural"],
        "overgeneralisation": ["random_words"],
    }
    mt["synonyms"]["candidates"] = "shipped"
    mt["bleu"]["splits"] = ["devtest"]
    plane = base["plane"]
    plane["demo_corpus"]["nouns"] = 60
    plane["evaluation_set"]["triplets_per_class"] = 2
    plane["prompting"].update(answer="vocabulary", templates=["internal"], verbalisers={"GP": ["good", "poor"]})
    plane["zero_shot"]["verbalisers"] = [["good", "poor"], ["true", "false"]]
    plane["finetune"].update(splits=["good"])
    plane["finetune"]["length_sweep"]["enabled"] = False
    path.write_text(yaml.safe_dump(base))
    return path


def test_a_small_demo_scale_profile_through_transformers_serve_equals_the_local_weights_profile(served_model, tmp_path):
    """``natcomp evaluate --families mt plane`` of the tiny model through transformers serve
    (its key in a variable), then of the same weights loaded locally in a copy of that run
    folder (the items and triplets are made once): every MT and PLANE prompting row of the
    two profiles is equal; the served run's record keeps what the server is and the usage
    its jobs reported, its page says it was served, and the key is nowhere in the folder."""
    from natcomp.profile.cli import evaluate_model

    key = "sk-natcomp-test-key-0451"
    base = small_demo_config(tmp_path / "small.yaml")
    served_run, local_run = tmp_path / "runs" / "served", tmp_path / "runs" / "local"
    options = dict(name="tiny", families=["mt", "plane"], configfile=base, cores=2, mt_system={"max_new_tokens": 16})
    os.environ["NATCOMP_TEST_SERVED_KEY"] = key
    try:
        start = time.perf_counter()
        status = evaluate_model(
            served_model.model,
            directory=served_run,
            api_base=served_model.base,
            api_key_env="NATCOMP_TEST_SERVED_KEY",
            **options,
        )
        served_seconds = time.perf_counter() - start
    finally:
        del os.environ["NATCOMP_TEST_SERVED_KEY"]
    assert status == 0, (served_run / "natcomp_evaluate.log").read_text()[-3000:]
    shutil.copytree(served_run, local_run, symlinks=True)
    start = time.perf_counter()
    status = evaluate_model(str(served_model.folder), directory=local_run, **options)
    local_seconds = time.perf_counter() - start
    assert status == 0, (local_run / "natcomp_evaluate.log").read_text()[-3000:]

    def compared(run: Path) -> dict:
        return {
            (row["family"], row["measure"], row["setting"]): (row["value"], row["sd"], row["n"], row["baseline"])
            for row in profile_rows(run)
            if row["family"] == "mt" or "prompting" in row["measure"]
        }

    served_rows, local_rows = compared(served_run), compared(local_run)
    assert served_rows == local_rows
    measures = {measure for _, measure, _ in served_rows}
    assert {"systematicity consistency", "two-shot prompting F1", "zero-shot prompting F1"} <= measures
    assert any(value not in ("", "0") for value, *_ in served_rows.values()), "a profile with values"
    record = yaml.safe_load((served_run / "natcomp_profile.yaml").read_text())
    served = record["served"]
    assert served["server"] == "transformers serve" and served["model"] == served_model.model
    assert served["api_key_env"] == "NATCOMP_TEST_SERVED_KEY" and record["families"] == ["mt", "plane"]
    usage = served["usage"]
    assert set(usage) == {"mt.translate.tiny", "plane.prompting.tiny", "plane.zero_shot.tiny"}
    assert all(
        job["requests"] > 0 and job["sent"] == job["requests"] and job["prompt_tokens"] for job in usage.values()
    )
    page = (served_run / "results" / "profile.html").read_text()
    assert "Served: by transformers serve" in page and "not bit-reproducible" in page
    assert {row["family"] for row in profile_rows(served_run)} == {"mt", "plane"}
    assert not any(row["measure"] == "fine-tuning accuracy" for row in profile_rows(served_run))
    for path in served_run.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert key.encode() not in path.read_bytes(), path
    print(
        f"small demo-scale profile: through transformers serve {served_seconds:.0f} s, local weights {local_seconds:.0f} s"
    )


def test_a_served_model_without_beam_search_cannot_take_the_dutch_synonym_lists_for_another_language():
    from natcomp.errors import ConfigError
    from natcomp.profile.served import served_base
    from natcomp.served import Capabilities

    caps = Capabilities("http://x/v1", "m", ("m",), beam=False, beam_reason="refused")
    base = {"mt": {"target_lang": "de", "synonyms": {"candidates": "probes"}}}
    with pytest.raises(ConfigError, match="^config mt.synonyms.candidates: probes need n-best lists"):
        served_base(base, caps, ["mt"], chat=False)
    base["mt"]["target_lang"] = "nl"
    adapted, notes = served_base(base, caps, ["mt"], chat=False)
    assert adapted["mt"]["synonyms"]["candidates"] == "shipped" and "synonym probes refused" in notes[0]
    assert base["mt"]["synonyms"]["candidates"] == "probes", "the base config is not changed in place"
    with_beam = Capabilities("http://x/v1", "m", ("m",), beam=True)
    assert served_base(base, with_beam, ["mt"], chat=False)[0]["mt"]["synonyms"]["candidates"] == "probes"


def test_plane_reads_the_written_word_where_the_server_gives_no_prompt_log_probabilities():
    from natcomp.profile.served import served_base
    from natcomp.served import Capabilities

    base = {"plane": {"prompting": {"answer": "verbalisers"}}}
    without = Capabilities("http://x/v1", "m", ("m",), prompt_logprobs=False, prompt_logprobs_reason="echo ignored")
    with_logprobs = Capabilities("http://x/v1", "m", ("m",), prompt_logprobs=True)
    adapted, notes = served_base(base, without, ["plane"], chat=False)
    assert adapted["plane"]["prompting"]["answer"] == "vocabulary" and "echo ignored" in notes[0]
    assert served_base(base, with_logprobs, ["plane"], chat=False)[0]["plane"]["prompting"]["answer"] == "verbalisers"
    chat, notes = served_base(base, with_logprobs, ["plane"], chat=True)
    assert chat["plane"]["prompting"]["answer"] == "vocabulary" and "chat template" in notes[0]
