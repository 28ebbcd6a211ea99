"""Pretrained translation systems in the workflow: plans, config errors, the missing-model
stop before any job, and ``natcomp mt evaluate``."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.mt import evaluate

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.workflow


def snakemake(*args, env=None):
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=REPO, capture_output=True, text=True, env=env)


def planned_jobs(output: str) -> dict[str, int]:
    counts = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def config_with(tmp_path, base="config/config.yaml", **mt_changes) -> Path:
    config = yaml.safe_load((REPO / base).read_text())
    for dotted, value in mt_changes.items():
        section = config["mt"]
        *parents, last = dotted.split("__")
        for part in parents:
            section = section.setdefault(part, {})
        section[last] = value
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_demo_plans_its_pretrained_system_beside_the_trained_models(tmp_path):
    result = snakemake("-n", "--forceall", "--quiet", "rules", "--directory", str(tmp_path / "run"))
    jobs = planned_jobs(result.stdout)
    assert jobs["mt_demo_pretrained_system"] == 1 and jobs["mt_demo_causal_lm"] == 1
    assert jobs["mt_system_translate"] == 2, "tiny-marian and tiny-llama decode every test set in one job each"
    assert jobs["mt_system_score"] == 8, "each test once per system, overgeneralisation included: no epochs"
    assert jobs["mt_system_bleu"] == 4
    probes = [f"results/mt/systems/{system}/synonym_probes.tsv" for system in ("tiny-marian", "tiny-llama")]
    result = snakemake("-n", "--forceall", "--quiet", "rules", "--directory", str(tmp_path / "run"), *probes)
    assert planned_jobs(result.stdout)["mt_system_translate"] == 2, "each translation job decodes its probes too"
    assert jobs["mt_system_few_shot"] == 1, "the causal system's examples, drawn once"
    assert jobs["mt_train"] == 4


def test_only_systems_when_training_is_off(tmp_path):
    config = config_with(tmp_path, "config/paper.yaml", train__enabled=False)
    result = snakemake(
        "-n", "--forceall", "--quiet", "rules", "--directory", str(tmp_path / "run"), "--configfile", config
    )
    assert result.returncode == 0, result.stderr[-2000:]
    jobs = planned_jobs(result.stdout)
    assert jobs["mt_system_translate"] == 4, "the paper config's three released MT models and one LLM"
    assert jobs["mt_system_few_shot"] == 1, "the LLM's five examples, drawn once"
    for rule in ("mt_train", "mt_translate", "mt_translate_epochs", "mt_score", "mt_bpe_chunk"):
        assert rule not in jobs, rule
    assert jobs["mt_tables"] == 1


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"systems": {"small": {"model": "x"}}}, "config mt.systems.small: the name 'small' is a corpus size"),
        ({"systems": {"trained": {"model": "x"}}}, "config mt.systems.trained: the name 'trained' is the workflow's"),
        ({"systems": {}, "train__enabled": False}, "config mt.systems: mt.train.enabled is false and no pretrained"),
        ({"systems": {"s": {"model": "x", "beam": 2}}}, "config mt.systems.s.beam: 2 is below mt.synonyms.nbest"),
    ],
)
def test_system_config_errors_are_one_line(tmp_path, changes, message):
    config = config_with(tmp_path, **changes)
    result = snakemake("-n", "--directory", str(tmp_path / "run"), "--configfile", config)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and f"natcomp: {message}" in output, output[-2000:]


def test_a_missing_model_stops_the_run_before_any_job(tmp_path):
    config = config_with(tmp_path, systems={"opus": {"model": "Helsinki-NLP/opus-mt-en-nl-not-cached"}})
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = tmp_path / "run"
    planned = snakemake("-n", "--directory", str(run), "--configfile", config, env=env)
    assert planned.returncode == 0, "a dry run plans systems whose models are elsewhere"
    target = "results/mt/systems/opus/translations.tsv"
    result = snakemake("--cores", "1", "--directory", str(run), "--configfile", config, "--", target, env=env)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "natcomp: config mt.systems.opus.model: " in output and "HF_HUB_OFFLINE" in output, output[-2000:]
    assert not (run / "results" / "mt").exists(), "no job ran"
    assert not (run / "results" / "run_name.txt").exists(), "the folder is not claimed by a run that never started"
    # A run that decodes nothing with it does not need the model.
    config_only = snakemake(
        "--cores", "1", "--directory", str(run), "--configfile", config, "--", "results/config.yaml"
    )
    assert config_only.returncode == 0, config_only.stderr[-2000:]


def test_evaluation_config_keeps_the_tests_and_drops_everything_else():
    base = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config = evaluate.evaluation_config(base, "opus-mt-en-nl", {"model": "Helsinki-NLP/opus-mt-en-nl", "beam": 5})
    assert config["run_name"] == "opus-mt-en-nl"
    assert config["mt"]["train"]["enabled"] is False
    assert config["mt"]["systems"] == {"opus-mt-en-nl": {"model": "Helsinki-NLP/opus-mt-en-nl", "beam": 5}}
    assert config["mt"]["tests"] == base["mt"]["tests"]
    assert all(config[family] == {"enabled": False} for family in ("noncompsst", "plane", "pss", "tre"))
    assert evaluate.system_name("Helsinki-NLP/opus-mt-en-nl") == "opus-mt-en-nl"
    assert evaluate.system_name("/models/my model/") == "my-model"
    with pytest.raises(ConfigError, match="--name"):
        evaluate.evaluation_config(base, "bad name", {"model": "x"})


def test_natcomp_mt_evaluate_plans_the_tests_of_one_model(tmp_path):
    model = tmp_path / "my-marian"
    model.mkdir()
    # what decides the family: the config of an encoder-decoder with a generation head
    (model / "config.json").write_text(
        '{"model_type": "marian", "architectures": ["MarianMTModel"], "is_encoder_decoder": true}'
    )
    run = tmp_path / "runs" / "mine"
    result = subprocess.run(
        [sys.executable, "-m", "natcomp", "mt", "evaluate", "--model", str(model), "--directory", str(run), "-n"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    jobs = planned_jobs(result.stdout)
    assert jobs["mt_system_translate"] == 1 and jobs["mt_tables"] == 1
    assert "mt_train" not in jobs and "noncompsst_demo_corpus" not in jobs
    assert not run.exists(), "a dry run creates no run folder"
    from natcomp.cli import build_parser
    from natcomp.mt.cli import system_settings
    from natcomp.profile.cli import plan_run

    options = build_parser().parse_args(["mt", "evaluate", "--model", str(model)])
    written = plan_run(str(model), families=["mt"], mt_system=system_settings(options)).config
    assert written["mt"]["systems"] == {
        "my-marian": {
            "model": str(model.resolve()),
            "family": "auto",
            "beam": 5,
            "max_new_tokens": 256,
            "max_len_b": 10,
            "batch_size": 64,
            "precision": "auto",
            "device": "auto",
        }
    }


def test_natcomp_mt_evaluate_makes_a_causal_lm_a_prompted_system_with_its_options(tmp_path):
    from natcomp import hf
    from natcomp.cli import build_parser
    from natcomp.mt.cli import system_settings
    from natcomp.profile.cli import plan_run

    model = hf.build_tiny_causal_lm(
        tmp_path / "tiny-llama", ["English: a\nDutch: een\n"] * 10, kind="llama", vocab_size=280, d_model=16, layers=1
    )
    arguments = ["mt", "evaluate", "--model", str(model), "--prompt", "EN: {source}\\nNL:", "--few-shot", "2"]
    options = build_parser().parse_args([*arguments, "--chat-template", "off", "--decoding", "beam"])
    planned = plan_run(str(model), families=["mt"], mt_system=system_settings(options))
    system = planned.config["mt"]["systems"]["tiny-llama"]
    assert system["family"] == "causal", "auto read from its config"
    assert system["prompt"] == "EN: {source}\nNL:", "\\n typed in a shell is a line break"
    assert system["few_shot"] == {"k": 2, "pool": "train"}
    assert (system["chat_template"], system["decoding"]) == ("off", "beam")
    (row,) = planned.rows
    assert "prompt 'EN: {source}\\nNL:', 2-shot, no chat template, beam decoding" in row.runs
    # the defaults add nothing a translation model would refuse
    plain = system_settings(build_parser().parse_args(["mt", "evaluate", "--model", "m"]))
    assert {plain[key] for key in ("prompt", "few_shot", "chat_template", "decoding")} == {None}
