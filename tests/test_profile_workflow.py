"""``natcomp evaluate`` and ``natcomp compare`` through the command line: plan-only runs on
tiny models built from a config (Marian, plain encoder, masked LM, NLI classifier, GPT-2,
Llama and a Llama whose tokenizer has a chat template) and on
the shipped MiniLM, the one-line errors before any job, and one full demo-scale profile
of a tiny encoder (marked ``demo``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from natcomp.profile.table import DIRECTIONS, PROFILE_COLUMNS

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.workflow

BERT_MLM = {"model_type": "bert", "architectures": ["BertForMaskedLM"]}
WORDS = "a the movie film is was good bad great awful not very funny boring . , !".split()


def natcomp(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "natcomp", *args], cwd=cwd, capture_output=True, text=True, env=environment
    )


def planned_jobs(output: str) -> dict[str, int]:
    counts = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """One tiny model of each kind, built from a config (nothing downloaded)."""
    from natcomp import hf  # first: it guards transformers' optional imports

    from transformers import MarianConfig  # noqa: I001

    folder = tmp_path_factory.mktemp("models")
    built = {
        "encoder": hf.build_tiny_model(folder / "tiny-encoder", WORDS, kind="base", hidden_size=16, layers=1),
        "masked_lm": hf.build_tiny_model(folder / "tiny-mlm", WORDS, kind="masked_lm", hidden_size=16, layers=1),
        "nli": hf.build_tiny_model(
            folder / "tiny-nli",
            WORDS,
            kind="sequence_classification",
            id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
            hidden_size=16,
            layers=1,
        ),
    }
    marian = folder / "tiny-marian"
    MarianConfig(
        d_model=16, encoder_layers=1, decoder_layers=1, vocab_size=64, pad_token_id=0, decoder_start_token_id=0
    ).save_pretrained(marian)
    config = json.loads((marian / "config.json").read_text())
    config["architectures"] = ["MarianMTModel"]
    (marian / "config.json").write_text(json.dumps(config))
    built["translation"] = marian
    sentences = ["English: the movie was good\nDutch: de film was goed\n"] * 20
    built["gpt2"] = hf.build_tiny_causal_lm(
        folder / "tiny-gpt2", sentences, kind="gpt2", vocab_size=300, d_model=16, layers=1
    )
    built["llama"] = hf.build_tiny_causal_lm(
        folder / "tiny-llama", sentences, kind="llama", vocab_size=300, d_model=16, layers=1
    )
    built["llama_instruct"] = hf.build_tiny_causal_lm(
        folder / "tiny-llama-instruct", sentences, kind="llama", instruct=True, vocab_size=300, d_model=16, layers=1
    )
    return built


#: the rules whose jobs load a causal LM the profile runs
CAUSAL_MODEL_RULES = (
    "mt_system_translate",
    "noncompsst_train",
    "plane_finetune",
    "plane_prompting",
    "plane_zero_shot",
    "pss_embed",
    "pss_fine_tune",
    "tre_embed",
)


def planned_resources(dry_run_output: str) -> dict[str, list[dict]]:
    """Each planned job's resources (``snakemake -n``'s ``resources:`` lines), by rule."""
    resources: dict[str, list[dict]] = {}
    rule = None
    for line in dry_run_output.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("resources:"):
            fields = dict(part.strip().split("=", 1) for part in line.split(":", 1)[1].split(","))
            resources.setdefault(rule, []).append(fields)
    return resources


def planned_kinds(model):
    from natcomp.profile import fit

    return fit.model_kinds(fit.read_model_config(model))


OTHER_FAMILY_RULES = {
    "mt": ("mt_train", "mt_system_translate"),
    "noncompsst": ("noncompsst_train",),
    "plane": ("plane_finetune",),
    "pss": ("pss_embed",),
    "tre": ("tre_embed",),
}


@pytest.mark.parametrize(
    "kind, roles, present, absent",
    # the masked LM and the NLI classifier plan PLANE only (--families plane): their other
    # families are the plain encoder's
    [
        (
            "encoder",
            ["encoder"],
            ["noncompsst_train", "noncompsst_report", "plane_finetune_table", "pss_fine_tune", "pss_table", "tre_fit"],
            ["plane_prompting", "plane_nli", "plane_demo_models", "pss_tiny_encoder", "mt_system_translate"],
        ),
        ("masked_lm", ["encoder", "masked LM"], ["plane_prompting", "plane_prompting_table"], ["plane_nli"]),
        ("nli", ["encoder", "NLI classifier"], ["plane_nli", "plane_nli_table"], ["plane_prompting"]),
        (
            "translation",
            ["translation model"],
            ["mt_system_translate", "mt_tables"],
            ["mt_train", "mt_system_few_shot", "noncompsst_train", "pss_embed", "tre_embed", "plane_finetune"],
        ),
        # a causal LM fits every family: MT translating by prompting (the plan names the
        # prompt), PLANE prompting by log-likelihood, the encoder families on its states
        *(
            (
                kind,
                [role, "translating by prompting: prompt '{source_language}: {source}\\n{target_language}:', 0-shot"],
                ["mt_system_few_shot", "mt_tables", *CAUSAL_MODEL_RULES],
                ["mt_train", "mt_demo_causal_lm", "plane_nli", "plane_demo_models", "pss_tiny_encoder"],
            )
            # the other two architectures are planned without Snakemake below (each dry run costs ~40 s)
            for kind, role in (("llama_instruct", "causal LM (has a chat template, not applied: --chat-template)"),)
        ),
    ],
)
def test_evaluate_plans_every_family_a_tiny_model_fits(models, tmp_path, kind, roles, present, absent):
    run = tmp_path / "runs" / kind
    only = ["--families", "plane"] if kind in ("masked_lm", "nli") else []
    result = natcomp("evaluate", "--model", str(models[kind]), *only, "--directory", str(run), "-n", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    plan = result.stderr.split("the plan:\n", 1)[1]
    assert plan.splitlines()[0].split()[:2] == ["family", "role"]
    for role in roles:
        assert role in plan
    jobs = planned_jobs(result.stdout)
    assert all(jobs.get(rule) for rule in present), (present, jobs)
    assert not any(rule in jobs for rule in absent), (absent, jobs)
    assert not run.exists(), "a dry run creates no run folder"
    from natcomp.profile.cli import plan_run

    planned = plan_run(str(models[kind]), families=["plane"] if only else None)
    config, record = planned.config, planned.record
    name = models[kind].name
    assert record["scale"] == "demo" and record["name"] == name
    for family in record["families"]:
        section = config[family]
        lists = {
            "mt": lambda: section["systems"],
            "noncompsst": lambda: section["models"],
            "plane": lambda: {**section["prompting"]["models"], **section["nli"]["models"]} or {name: 1},
            "pss": lambda: section["encoders"],
            "tre": lambda: section["encoders"],
        }[family]()
        assert list(lists) == [name], f"{family}: the model is the only one"
    for family in set(OTHER_FAMILY_RULES) - set(record["families"]):
        assert config[family] == {"enabled": False}
    if kind == "llama_instruct":
        assert config["mt"]["systems"][name]["family"] == "causal"
        # mt_system_translate decodes the synonym probes too (beam search, n-best)
        assert config["mt"]["synonyms"]["candidates"] == "probes"
        # issue 41: a chat template in the tokenizer does not make it an instruct model, nor applied
        assert "0-shot, no chat template" in plan and "instruct causal LM" not in plan
        assert record["chat_template"] == {"mt": False, "plane": False}


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_a_causal_lm_of_either_architecture_is_planned_in_every_family(models, kind):
    from natcomp.profile import fit, runconfig
    from natcomp.profile.cli import plan_run

    planned = plan_run(str(models[kind]))
    families = ["mt", "noncompsst", "plane", "pss", "tre"]
    assert planned.record["families"] == families
    assert planned.targets == runconfig.profile_targets(families, planned_kinds(models[kind]))
    assert planned.record["plane"] == {"prompting": True, "nli": False}
    system = planned.config["mt"]["systems"][models[kind].name]
    assert system["family"] == "causal" and system["model"] == str(models[kind].resolve())
    assert planned.config["mt"]["train"]["enabled"] is False
    text = fit.format_plan(planned.rows)
    assert "causal LM" in text and "instruct" not in text and "chat template applied" not in text
    assert "has a chat template" not in text, "its tokenizer has none"
    assert "prompt '{source_language}: {source}\\n{target_language}:', 0-shot, no chat template" in text


def test_chat_template_applies_a_causal_lms_chat_template_in_mt_and_plane_only_when_asked(models, tmp_path):
    """Issue 41: ``natcomp evaluate --chat-template`` turns the chat template on for the
    evaluated causal LM in MT and PLANE prompting, and the plan and the record say so;
    without it the template its tokenizer has is not applied. A model without one, or no
    causal LM, is refused in one line before any job."""
    from natcomp.cli import build_parser
    from natcomp.errors import ConfigError
    from natcomp.profile import fit
    from natcomp.profile.cli import plan_run

    model = str(models["llama_instruct"])
    assert build_parser().parse_args(["evaluate", "--model", model, "--chat-template"]).chat_template is True
    assert build_parser().parse_args(["evaluate", "--model", model]).chat_template is False
    planned = plan_run(model, chat_template=True)
    name = models["llama_instruct"].name
    assert planned.config["mt"]["systems"][name]["chat_template"] == "on"
    assert planned.config["plane"]["prompting"]["chat_template"] == "on"
    assert planned.record["chat_template"] == {"mt": True, "plane": True}
    assert planned.description == f"{model} is causal LM, chat template applied"
    roles = {(row.family, row.role) for row in planned.rows}
    assert ("mt", "causal LM, chat template applied") in roles and ("pss", "causal LM") in roles
    assert sum(role == "causal LM, chat template applied" for _, role in roles) == 2, "MT and PLANE prompting"
    assert "0-shot, chat template, greedy" in fit.format_plan(planned.rows)
    with pytest.raises(
        ConfigError, match="--chat-template: is for MT and PLANE prompting, and --families runs neither"
    ):
        plan_run(model, families=["pss", "tre"], chat_template=True)
    plain = plan_run(model)
    assert plain.config["mt"]["systems"][name].get("chat_template") is None, "mt.prompting's: off"
    assert plain.config["plane"]["prompting"]["chat_template"] == "off"
    assert plain.description == f"{model} is causal LM (has a chat template, not applied: --chat-template)"
    for kind, message in (
        ("gpt2", f"natcomp: error: --chat-template: {models['gpt2']} has no chat template"),
        ("encoder", "natcomp: error: --chat-template: is for a causal LM; "),
    ):
        result = natcomp("evaluate", "--model", str(models[kind]), "--chat-template", "-n", cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
        assert result.stderr.strip().splitlines()[-1].startswith(message), result.stderr


def test_evaluate_plans_the_shipped_minilm(tmp_path):
    from natcomp import hf
    from natcomp.errors import ConfigError

    try:
        hf.shipped_model_path("all-MiniLM-L6-v2")
    except ConfigError as error:
        pytest.skip(f"the shipped MiniLM is not installed: {error}")
    run = tmp_path / "runs" / "minilm"
    result = natcomp(
        "evaluate", "--model", "all-MiniLM-L6-v2", "--name", "minilm", "--directory", str(run), "-n", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "encoder" in result.stderr and "masked LM" not in result.stderr
    jobs = planned_jobs(result.stdout)
    assert jobs["pss_fine_tune"] == 2 and jobs["tre_fit"] == 1 and jobs["noncompsst_train"] == 2
    from natcomp.profile.cli import plan_run

    config = plan_run("all-MiniLM-L6-v2", name="minilm").config
    assert config["pss"]["encoders"]["minilm"]["normalize"] is True, "the demo's own MiniLM settings"


def test_a_paper_scale_profile_is_one_dag(models, tmp_path):
    run = tmp_path / "runs" / "paper"
    result = natcomp(
        "evaluate", "--model", str(models["masked_lm"]), "--configfile", str(REPO / "config" / "paper.yaml"),
        "--directory", str(run), "-n", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "paper scale" in result.stderr
    jobs = planned_jobs(result.stdout)
    assert jobs["total"] > 20 and jobs["plane_prompting"] == 1 and jobs["noncompsst_train"] == 3
    # every job that runs the model declares its GPU (the same DAG, printed job by job)
    from natcomp.profile import fit, runconfig
    from natcomp.profile.cli import plan_run

    targets = runconfig.profile_targets(["noncompsst", "plane", "pss", "tre"], fit.model_kinds(BERT_MLM))
    planned = plan_run(str(models["masked_lm"]), configfile=REPO / "config" / "paper.yaml")
    configfile = runconfig.write_config(planned.config, tmp_path / "paper_profile.yaml", "the test")
    run.mkdir(parents=True)
    detail = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(run),
         "--configfile", str(configfile), "-n", "--cores", "1", "--", *targets],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )  # fmt: skip
    assert detail.returncode == 0, detail.stderr[-3000:]
    gpu = {rule: {job.get("gpu") == "1" for job in jobs} for rule, jobs in planned_resources(detail.stdout).items()}
    model_rules = ("noncompsst_train", "plane_finetune", "plane_prompting", "pss_embed", "pss_fine_tune", "tre_embed")
    assert all(gpu.get(rule) == {True} for rule in model_rules), gpu


def test_evaluate_plans_an_8b_llm_on_one_gpu_and_fine_tunes_it_with_lora(real_shapes, tmp_path):
    """The paper-scale plan of a model of Llama-3.1-8B's config (no weights): every family's
    jobs on one GPU, the fine-tuning families with LoRA; Snakemake plans the same DAG."""
    result = natcomp(
        "evaluate", "--model", str(real_shapes["Llama-3.1-8B"]), "--configfile", str(REPO / "config" / "paper.yaml"),
        "-n", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stderr.split("(gpus.max_per_job):\n", 1)[1].split("\nnatcomp evaluate: precision", 1)[0]
    rows = {line.split()[0] + " " + line.split()[1].rstrip(","): line for line in table.splitlines()[1:]}
    assert set(rows) == {
        "mt mt_system_translate", "noncompsst noncompsst_train", "plane plane_prompting", "plane plane_finetune",
        "pss pss_embed", "pss pss_fine_tune", "tre tre_embed",
    }  # fmt: skip
    assert all("  1 GPU  " in row for row in rows.values()), table
    # LoRA at its own learning rate (QLoRA's for an 8B model); one 80 GB GPU holds the
    # activations of every family's steps beside 16 GB of weights: no gradient checkpointing
    lora = "fine-tuning: LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4  "
    for family in ("noncompsst noncompsst_train", "plane plane_finetune", "pss pss_fine_tune"):
        assert lora in rows[family], rows[family]
    assert "fine-tuning: LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4 (NonCompSST, PLANE, PSS FT)" in result.stderr
    assert "inference in bf16" in rows["tre tre_embed"] and "  9 GB  " in rows["tre tre_embed"]
    assert planned_jobs(result.stdout)["pss_fine_tune"] == 2


def test_a_70b_llms_inference_jobs_ask_snakemake_for_several_gpus(real_shapes, tmp_path):
    """Snakemake's dry run of a profile of a model of Llama-3.1-70B's config: every job that
    loads it asks for the GPUs, host memory and time natcomp.jobsize gives it (3 GPUs of 80
    GB); only the config is read."""
    from natcomp import jobsize
    from natcomp.profile import runconfig
    from natcomp.profile.cli import plan_run

    folder = real_shapes["Llama-3.1-70B"]
    planned = plan_run(str(folder), configfile=REPO / "config" / "paper.yaml")
    assert {job.size.gpus for job in planned.jobs} == {3}
    assert "3 GPUs" in planned.jobs_table
    configfile = runconfig.write_config(planned.config, tmp_path / "paper_llm.yaml", "the test")
    run = tmp_path / "runs" / "paper-llm"
    run.mkdir(parents=True)
    detail = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(run),
         "--configfile", str(configfile), "-n", "--cores", "1", "--", *planned.targets],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )  # fmt: skip
    assert detail.returncode == 0, detail.stderr[-3000:]
    resources = planned_resources(detail.stdout)
    for name in CAUSAL_MODEL_RULES:
        assert resources.get(name), f"{name} is not planned"
        size = jobsize.job_size(name, folder)
        for job in resources[name]:
            assert (job.get("gpu"), job.get("mem_mb"), job.get("runtime")) == (
                "3",
                str(size.mem_mb),
                str(size.runtime_min),
            ), (name, job)


def test_a_familys_fine_tuning_setting_sizes_its_jobs_in_the_plan_and_in_snakemake(real_shapes, tmp_path):
    """The job sizes follow each family's fine_tuning setting, not the default: with
    --fine-tuning lora a 0.5B model (full by auto) is sized for LoRA in the plan and in
    Snakemake's resources; with PSS's method full an 8B model's full fine-tuning needs more
    than one GPU, one line before any job."""
    from natcomp import jobsize
    from natcomp.finetuning import FineTuning
    from natcomp.profile import runconfig
    from natcomp.profile.cli import plan_run

    folder = real_shapes["Qwen2.5-0.5B"]
    planned = plan_run(str(folder), configfile=REPO / "config" / "paper.yaml", fine_tuning="lora")
    methods = {job.rules[0]: job.size.method for job in planned.jobs}
    assert methods["pss_fine_tune"] == methods["noncompsst_train"] == methods["plane_finetune"] == "lora"
    assert methods["pss_embed"] == "inference"
    configfile = runconfig.write_config(planned.config, tmp_path / "lora.yaml", "the test")
    run = tmp_path / "run"
    run.mkdir()
    detail = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(run),
         "--configfile", str(configfile), "-n", "--cores", "1", "--", *planned.targets],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )  # fmt: skip
    assert detail.returncode == 0, detail.stderr[-3000:]
    lora = jobsize.job_size("pss_fine_tune", folder, fine_tuning=FineTuning(method="lora"))
    full = jobsize.job_size("pss_fine_tune", folder)
    assert lora.mem_mb != full.mem_mb, "the test needs LoRA and full to differ"
    for job in planned_resources(detail.stdout)["pss_fine_tune"]:
        assert job.get("mem_mb") == str(lora.mem_mb), job

    base = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    base["pss"]["fine_tune"]["fine_tuning"] = {"method": "full"}
    (tmp_path / "full.yaml").write_text(yaml.safe_dump(base))
    result = natcomp(
        "evaluate", "--model", str(real_shapes["Llama-3.1-8B"]), "--configfile", str(tmp_path / "full.yaml"), "-n",
        "--families", "pss", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_model_too_large_for_the_gpus_per_job_stops_the_plan_in_one_line(real_shapes, tmp_path):
    base = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    (tmp_path / "two.yaml").write_text(yaml.safe_dump({**base, "gpus": {"max_per_job": 2}}))
    result = natcomp(
        "evaluate", "--model", str(real_shapes["Llama-3.1-70B"]), "--configfile", str(tmp_path / "two.yaml"), "-n",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("natcomp: error: config gpus.max_per_job: ") and "more than 2 GPUs of 80 GB per job" in last
    # Snakemake on such a config stops as it reads it, before the DAG: the same one line
    from natcomp.profile import runconfig
    from natcomp.profile.cli import plan_run

    planned = plan_run(str(real_shapes["Llama-3.1-70B"]), configfile=REPO / "config" / "paper.yaml")
    configfile = runconfig.write_config({**planned.config, "gpus": {"max_per_job": 2}}, tmp_path / "c.yaml", "test")
    (tmp_path / "run").mkdir()
    snakemake = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path / "run"),
         "--configfile", str(configfile), "-n", "--cores", "1", "--", *planned.targets],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )  # fmt: skip
    assert snakemake.returncode != 0 and "Traceback" not in snakemake.stderr
    assert snakemake.stderr.strip().splitlines()[-1].startswith("natcomp: config gpus.max_per_job: "), snakemake.stderr


def test_errors_before_any_job_are_one_line(models, tmp_path):
    wrong = natcomp("evaluate", "--model", str(models["encoder"]), "--families", "mt", cwd=tmp_path)
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines()[-1].startswith("natcomp: error: --families: ")
    assert "does not fit mt" in wrong.stderr and "Traceback" not in wrong.stderr
    remote = natcomp("evaluate", "--model", "some-org/not-cached-model", cwd=tmp_path, env={"HF_HUB_OFFLINE": "1"})
    assert remote.returncode == 2 and "Traceback" not in remote.stderr
    assert "natcomp: error: --model: " in remote.stderr
    mt_on_encoder = natcomp("mt", "evaluate", "--model", str(models["encoder"]), cwd=tmp_path)
    assert mt_on_encoder.returncode == 2 and "does not fit mt" in mt_on_encoder.stderr
    # issue 45: a translation family named for a causal LM was ignored (it translated by prompting)
    marian_llm = natcomp("mt", "evaluate", "--model", str(models["llama"]), "--family", "marian", "-n", cwd=tmp_path)
    assert marian_llm.returncode == 2, marian_llm.stderr
    assert len(marian_llm.stderr.strip().splitlines()) == 1, marian_llm.stderr
    assert marian_llm.stderr.startswith("natcomp: error: --family: marian is a translation model's family; "), (
        marian_llm.stderr
    )
    # issue 45: a config error was found by Snakemake, after the plan and its banner
    bad = tmp_path / "bad.yaml"
    base = (REPO / "config" / "config.yaml").read_text(encoding="utf-8")
    bad.write_text(base.replace("\nplane:\n", "\nplane:\n  seeds_typo: 1\n", 1), encoding="utf-8")
    config = natcomp("evaluate", "--model", str(models["encoder"]), "--configfile", str(bad), "-n", cwd=tmp_path)
    assert config.returncode == 2 and len(config.stderr.strip().splitlines()) == 1, config.stderr
    assert config.stderr.startswith(f"natcomp: error: {bad}: plane.seeds_typo: unknown key"), config.stderr
    # issue 45: a run folder that is a file, or where nothing can be written, was promised in the plan
    existing = tmp_path / "a-file"
    existing.write_text("x\n", encoding="utf-8")
    for folder, message in ((existing, "already exists as a file"), (Path("/proc/natcomp-run"), "cannot be written")):
        run = natcomp("evaluate", "--model", str(models["encoder"]), "--directory", str(folder), "-n", cwd=tmp_path)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert run.stderr.startswith(f"natcomp: error: {folder}: {message}"), run.stderr
    assert not (tmp_path / "runs").exists(), "no run folder before the checks pass"


@pytest.fixture(scope="module")
def encoder_profile(models, tmp_path_factory):
    """A demo-scale profile of the tiny encoder: (the command's result, its run folder, seconds)."""
    tmp_path = tmp_path_factory.mktemp("encoder_profile")
    run = tmp_path / "runs" / "tiny-encoder"
    start = time.perf_counter()
    result = natcomp(
        "evaluate", "--model", str(models["encoder"]), "--directory", str(run), "--cores", "2", cwd=tmp_path
    )
    return result, run, time.perf_counter() - start


def profile_rows(run: Path) -> list[dict]:
    lines = (run / "results" / "profile.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    assert tuple(header) == PROFILE_COLUMNS
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


@pytest.mark.demo
def test_a_demo_scale_profile_of_a_tiny_encoder_end_to_end(models, encoder_profile, tmp_path):
    """The whole command on a tiny encoder: every family it fits runs at demo scale, the
    profile has a row per family and measure with the scale, and compare reads it."""
    result, run, seconds = encoder_profile
    assert result.returncode == 0, result.stderr[-5000:]
    # Snakemake's output in the run folder's log; the terminal gets the plan and the progress
    log = (run / "natcomp_evaluate.log").read_text()
    assert "Finished jobid" in log and "steps (100%) done" in log and len(log.splitlines()) > 300
    assert f"Snakemake's output in {run / 'natcomp_evaluate.log'}" in result.stderr
    assert result.stdout == "" and len(result.stderr.splitlines()) < 100, result.stderr  # was about 950
    assert " jobs done (100%); " in result.stderr.splitlines()[-2]
    rows = profile_rows(run)  # with the profile's columns in their order
    assert {row["family"] for row in rows} == {"noncompsst", "plane", "pss", "tre"}
    assert {row["scale"] for row in rows} == {"demo"}
    measures = {(row["family"], row["measure"]) for row in rows}
    assert ("pss", "relative PSS") in measures and ("tre", "Spearman rho of TRE with WNS") in measures
    assert ("noncompsst", "r with MAXABS") in measures and ("plane", "fine-tuning accuracy") in measures
    assert all(row["direction"] in DIRECTIONS and row["unit"] in ("%", "r", "rho") for row in rows)
    assert all(row["n"] for row in rows), "every row says how many runs its value is over"
    for row in rows:
        assert (row["value"] == "") == (row["flag"] == "undefined"), row
        assert row["flag"] == "" or row["note"], row
    pss = [row for row in rows if row["measure"] == "PSS"]
    assert len(pss) == 4 and all(0 <= float(row["value"]) <= 100 and float(row["baseline"]) > 0 for row in pss)
    tuned = next(row for row in rows if row["measure"] == "fine-tuning accuracy")
    assert 0 < float(tuned["baseline"]) <= 100 and tuned["sd_over"] == "split seeds", "chance in percent"
    r = next(row for row in rows if row["measure"] == "r with MAXABS")
    assert r["n"] == "2" and r["baseline"] != "" and (r["ci_low"] != "" or r["flag"] == "undefined")
    wns = next(row for row in rows if row["measure"] == "Spearman rho of TRE with WNS")
    assert wns["baseline"] != "" and wns["baseline2"] != "" and wns["p_value"] != ""
    assert (run / "results" / "profile.html").is_file()
    assert (run / "results" / "item_outcomes.tsv").is_file()
    # compare needs two runs: one is refused in one line (two: the tests below)
    compared = natcomp("compare", str(run), "--output", str(tmp_path / "compare.tsv"), cwd=tmp_path)
    assert compared.returncode == 2 and "expected two or more to compare" in compared.stderr, compared.stderr
    assert not (tmp_path / "compare.tsv").exists()

    # a dry run in the finished run folder: nothing remains to be done, no file changes (but
    # Snakemake's own .snakemake/iocache, which it writes on every dry run)
    def files():
        return {path: path.stat().st_mtime_ns for path in run.rglob("*") if ".snakemake" not in path.parts}

    before = files()
    again = natcomp("evaluate", "--model", str(models["encoder"]), "--directory", str(run), "-n", cwd=tmp_path)
    assert again.returncode == 0 and "what remains to be done in" in again.stderr, again.stderr[-2000:]
    assert "Nothing to be done" in again.stdout + again.stderr
    assert files() == before
    print(f"demo-scale profile of a tiny encoder: {seconds:.0f} s")


@pytest.fixture(scope="module")
def causal_profiles(tmp_path_factory):
    """Demo-scale profiles of tiny causal LMs (NonCompSST, PLANE, PSS, TRE), each run once
    when a test first asks for it: architecture -> (the command's result, run folder, seconds)."""
    from natcomp.hf.tiny_architectures import build_tiny

    done = {}

    def profile(architecture: str):
        if architecture not in done:
            tmp_path = tmp_path_factory.mktemp(f"causal_{architecture}")
            texts = [
                "English: the movie was good\nDutch: de film was goed\n",
                "the food was great but the service was slow .",
            ]
            model = build_tiny(architecture, tmp_path / "models" / architecture, texts * 10)
            assert '"dtype": "bfloat16"' in (model / "config.json").read_text()
            name = f"tiny-{architecture}"
            run = tmp_path / "runs" / name
            start = time.perf_counter()
            result = natcomp(
                "evaluate", "--model", str(model), "--name", name, "--families", "noncompsst", "plane", "pss",
                "tre", "--directory", str(run), "--cores", "2", cwd=tmp_path,
            )  # fmt: skip
            done[architecture] = result, run, time.perf_counter() - start
        return done[architecture]

    return profile


@pytest.mark.demo
@pytest.mark.parametrize("architecture", ["llama3-instruct", "gemma2"])
def test_a_demo_scale_profile_of_a_tiny_causal_lm_beside_the_encoders(
    architecture, encoder_profile, causal_profiles, tmp_path
):
    """A Llama 3 instruct and a Gemma 2, saved in bf16 as released (issue 41), through
    NonCompSST, PLANE (fine-tuning, zero- and two-shot prompting by log-likelihood), PSS and
    TRE at demo scale: every row valued, the profile has the encoder's columns and measures,
    plus prompting, the page says fp32 inference on a CPU and fp32 training, and compare lays
    it beside the encoder. (MT of a causal LM at demo scale is the demo's own tiny-llama
    system: about 10 minutes of decoding, docs/profile.md.)"""
    result, run, seconds = causal_profiles(architecture)
    name = run.name
    assert result.returncode == 0, result.stderr[-5000:]
    if architecture == "llama3-instruct":
        assert "causal LM (has a chat template, not applied: --chat-template)" in result.stderr
    assert "precision: inference in bf16 on a GPU" in result.stderr and "fp32 on a CPU" in result.stderr
    page = (run / "results" / "profile.html").read_text()
    assert "Precision: inference in bf16 on a GPU" in page and "training in fp32 weights" in page
    rows = profile_rows(run)
    assert rows and all(row["value"] != "" for row in rows), "every row valued"
    assert {row["family"] for row in rows} == {"noncompsst", "plane", "pss", "tre"}
    measures = {(row["family"], row["measure"]) for row in rows}
    encoder_measures = {(row["family"], row["measure"]) for row in profile_rows(encoder_profile[1])}
    assert encoder_measures <= measures, "every measure an encoder gets"
    assert {("plane", "two-shot prompting F1"), ("plane", "zero-shot prompting F1")} <= measures
    for row in rows:
        assert row["direction"] in DIRECTIONS and row["n"] and row["scale"] == "demo", row
        assert (row["value"] == "") == (row["flag"] == "undefined"), row
    prompting = [row for row in rows if row["measure"] == "two-shot prompting F1"]
    assert prompting and all(row["baseline_kind"] for row in prompting), "against chance"
    compared = natcomp(
        "compare", str(encoder_profile[1]), str(run), "--output", str(tmp_path / "compare.tsv"), cwd=tmp_path
    )
    assert compared.returncode == 0, compared.stderr[-2000:]
    header = (tmp_path / "compare.tsv").read_text().splitlines()[0].split("\t")
    assert {"tiny-encoder sd", f"{name} sd", f"{name} baseline", f"difference ({name} - tiny-encoder)"} <= set(header)
    print(f"demo-scale profile of a tiny bf16 {architecture} (four families): {seconds:.0f} s")


@pytest.mark.demo
def test_a_demo_scale_profile_of_a_tiny_lora_adapter_names_base_and_adapter(tmp_path):
    """``natcomp evaluate --model <a LoRA adapter folder>`` (issue 43.3): a LoRA adapter made
    with peft on a tiny Llama 3 runs at demo scale as its base with the adapter merged
    (PLANE: fine-tuning a sequence classifier, prompting the causal LM; TRE: the bare
    model's states), and the plan, the run record and the profile page name both."""
    import torch
    import yaml
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from natcomp.hf.tiny_architectures import build_tiny

    texts = ["English: the movie was good\nDutch: de film was goed\n", "the food was great but the service was slow ."]
    base = build_tiny("llama3", tmp_path / "models" / "llama3", texts * 10)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(str(base), dtype=torch.float32)
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    adapter = tmp_path / "adapters" / "tiny-lora"
    get_peft_model(model, config).save_pretrained(adapter)
    run = tmp_path / "runs" / "tiny-lora"
    start = time.perf_counter()
    result = natcomp(
        "evaluate", "--model", str(adapter), "--families", "plane", "tre", "--directory", str(run), "--cores", "2",
        cwd=tmp_path,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-5000:]
    method = "LoRA r=4 alpha=8 on q_proj,v_proj"
    assert f"adapter {adapter} ({method}) on base {base} is causal LM" in result.stderr
    record = yaml.safe_load((run / "natcomp_profile.yaml").read_text())
    assert record["adapter"] == str(adapter) and record["base_model"] == str(base) and record["name"] == "tiny-lora"
    page = (run / "results" / "profile.html").read_text()
    assert f"Compositionality profile of tiny-lora (adapter {adapter}: {method}, on base {base}, demo scale" in page
    rows = profile_rows(run)
    assert {row["family"] for row in rows} == {"plane", "tre"} and all(row["value"] != "" for row in rows)
    assert {row["model"] for row in rows} == {"tiny-lora"}
    assert ("plane", "two-shot prompting F1") in {(row["family"], row["measure"]) for row in rows}
    print(f"demo-scale profile of a tiny LoRA adapter on a Llama 3 (PLANE and TRE): {seconds:.0f} s")


def _outcomes_of(run: Path):
    from natcomp.profile.outcomes import read_outcomes

    outcomes = read_outcomes(run / "results" / "item_outcomes.tsv")
    assert outcomes is not None, f"{run} has no item outcomes"
    return {key: rows for key, rows in outcomes.groupby(["family", "measure", "setting"], sort=False)}


@pytest.mark.demo
def test_every_row_of_a_real_profile_has_item_outcomes_whose_statistic_is_its_value(encoder_profile, causal_profiles):
    """The profiles of the tiny encoder and the tiny Llama 3 (every family but MT, PLANE
    prompting too): each valued row has its items' outcomes, and the row's statistic of them
    is its value, as the family's table has it (to the table's rounding)."""
    from natcomp.paired import Outcomes, value

    for run in (encoder_profile[1], causal_profiles("llama3-instruct")[1]):
        by_key = _outcomes_of(run)
        for row in profile_rows(run):
            key = (row["family"], row["measure"], row["setting"])
            assert key in by_key, f"{run.name}: no item outcomes for {key}"
            outcomes = Outcomes.from_frame(by_key[key])
            assert outcomes.items and len(set(outcomes.items)) == len(outcomes.items)
            if row["value"] == "":
                continue
            # the families' tables round: PLANE's F1 to 0.1, the others to 4 digits or more
            tolerance = 0.051 if row["unit"] == "%" else 0.001
            assert value(outcomes) == pytest.approx(float(row["value"]), abs=tolerance), (run.name, key)


@pytest.mark.demo
def test_two_real_profiles_are_compared_item_by_item(encoder_profile, causal_profiles, tmp_path):
    """``natcomp compare`` of the tiny encoder and the tiny Llama 3: every row both have is
    tested on their shared items (the same items: one config), with an interval around the
    difference and a verdict in words; a row only one has says so."""
    encoder, llama = encoder_profile[1], causal_profiles("llama3-instruct")[1]
    result = natcomp("compare", str(encoder), str(llama), "-o", str(tmp_path / "compare.tsv"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = (tmp_path / "compare.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:]]
    assert f"difference ({llama.name} - tiny-encoder)" in header
    # the headers say what differs besides the model: the checkpoints' dtypes and the chat template
    encoder_value = "tiny-encoder [demo; dtype auto (checkpoint fp32); chat template -]"
    llama_value = f"{llama.name} [demo; dtype auto (checkpoint bf16); chat template plane off]"
    assert {encoder_value, llama_value} <= set(header), header
    assert "The runs differ in dtype (tiny-encoder: auto (checkpoint fp32)" in result.stderr
    both = [row for row in rows if row[encoder_value] != "" and row[llama_value] != ""]
    assert len(both) >= 15
    for row in both:
        assert row["p_value"] != "" and row["p_holm"] != "", row
        assert float(row["ci_low"]) <= float(row["ci_high"]), row
        assert float(row["p_holm"]) >= float(row["p_value"])
        assert row["verdict"] in {
            "no difference detected", f"{llama.name} more compositional", "tiny-encoder more compositional",
            f"{llama.name} better", "tiny-encoder better",
        }, row  # fmt: skip
        assert int(row["items"]) > 1
    tests = {row["measure"]: row["test"] for row in both}
    assert tests["PSS"].startswith("exact McNemar") and tests["relative PSS"].startswith("paired permutation")
    r = next(row for row in rows if row["measure"] == "r with MAXABS")  # the tiny encoder's may be undefined
    assert r["test"].startswith(("paired bootstrap over items (", "no test: a value is undefined")), r
    assert tests["F1 on the top phrases"].startswith("paired bootstrap over items and seeds")
    assert tests["fine-tuning accuracy"].startswith("exact McNemar"), "the demo has one split seed"
    prompting = [row for row in rows if row["measure"] == "two-shot prompting F1"]
    assert prompting and all(row["test"] == "not compared: tiny-encoder has no such row" for row in prompting)
    assert "tested rows differ at 0.05 after Holm" in result.stderr


@pytest.mark.demo
def test_three_real_profiles_make_a_board_that_sorts_in_a_headless_browser(
    encoder_profile, causal_profiles, tmp_path, chromium
):
    """The tiny encoder, Llama 3 and Gemma 2 through ``natcomp compare``: board.html opens
    from the file in Chromium with every model, a column per profile row, a figure per family,
    and a click on a column's header orders the models by their rank there."""
    from browser import Browser

    runs = [encoder_profile[1], causal_profiles("llama3-instruct")[1], causal_profiles("gemma2")[1]]
    result = natcomp("compare", *map(str, runs), "-o", str(tmp_path / "compare.tsv"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    board = tmp_path / "board.html"
    models = "[...document.querySelectorAll('#board tbody tr')].map(row => row.dataset.model)"
    with Browser(chromium, tmp_path / "chromium") as browser:
        browser.open(board)
        assert browser.evaluate(models) == [run.name for run in runs]
        columns = browser.evaluate("document.querySelectorAll('#board thead th[data-column]').length")
        assert columns == 1 + len(
            {(row["family"], row["measure"], row["setting"]) for run in runs for row in profile_rows(run)}
        )
        families = browser.evaluate("[...document.querySelectorAll('#board th.family')].map(th => th.textContent)")
        assert families == ["NonCompSST", "PLANE", "PSS", "TRE"]
        assert browser.evaluate("[...document.images].map(image => image.naturalWidth > 0)") == [True] * 4
        # PLANE's first fine-tuning column: the models ordered by their rank there
        index = browser.evaluate(
            "[...document.querySelectorAll('#board thead th[data-column]')].find(th => "
            "th.textContent.startsWith('fine-tuning accuracy')).dataset.column"
        )
        browser.click(f'th[data-column="{index}"]')
        ranks = browser.evaluate(
            f"[...document.querySelectorAll('#board tbody td[data-column=\"{index}\"]')].map(td => td.dataset.sort)"
        )
        assert [int(rank) for rank in ranks] == sorted(int(rank) for rank in ranks)
        assert browser.errors() == []
