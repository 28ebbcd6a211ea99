"""natcomp evaluate --fine-tuning (issue 43): the method of every fine-tuning family for one
run, named in the plan, kept in the run record and shown on the profile page; refused in one
line where no family of the run fine-tunes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from natcomp import hf
from natcomp.errors import InputError, OptionError
from natcomp.model_description import ModelDescription
from natcomp.profile import fit, runconfig
from natcomp.profile.cli import plan_run

REPO = Path(__file__).resolve().parents[1]
#: LoRA as an 8B model gets it: QLoRA's learning rate, and no checkpointing (an 80 GB GPU holds
#: the activations of the families' steps beside its 16 GB of weights)
LORA = "LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4"
LLAMA_8B = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
}
BERT_BASE = {
    "model_type": "bert",
    "architectures": ["BertModel"],
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "vocab_size": 30522,
}


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory) -> str:
    texts = ["the film was good .", "the plot was dull .", "English: the cat\nDutch: de kat\n"] * 4
    folder = tmp_path_factory.mktemp("profile_lora") / "tiny-llama"
    return str(hf.build_tiny_causal_lm(folder, texts, kind="llama", vocab_size=260, d_model=32, layers=2, heads=4))


def _base(name: str = "config.yaml") -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text(encoding="utf-8"))


def test_the_plan_names_each_fine_tuning_familys_method():
    kinds = fit.model_kinds(LLAMA_8B)
    tuned = ModelDescription("llama-8b", LLAMA_8B).for_run(_base(), fit.FAMILIES).fine_tuning_texts()
    assert tuned == {"noncompsst": LORA, "plane": LORA, "pss": LORA}, "8B parameters: auto is LoRA"
    runs = {(row.family, row.runs.split(";")[0]) for row in fit.plan(kinds, _base(), fine_tuning=tuned)}
    assert ("noncompsst", f"SST-7 fine-tuning, 2 seed(s), {LORA}, the released head on the last real token") in runs
    rows = fit.plan(kinds, _base(), fine_tuning=tuned)
    plane = next(row.runs for row in rows if row.family == "plane" and row.role == "causal LM")
    assert plane.endswith(f"on the GOoD and One-IT splits (accuracy), {LORA}")
    pss = next(row.runs for row in rows if row.family == "pss")
    assert f"fine-tuned (FT, {LORA}), mean of the real tokens" in pss
    bert = fit.model_kinds(BERT_BASE)
    small = ModelDescription("bert", BERT_BASE).for_run(_base("paper.yaml"), fit.FAMILIES).fine_tuning_texts()
    assert small == {"noncompsst": "full", "plane": "full", "pss": "full"}
    text = fit.format_plan(fit.plan(bert, _base("paper.yaml"), fine_tuning=small))
    assert "SST-7 fine-tuning, 3 seed(s), full;" in text and "(accuracy), full" in text and "(FT, full)" in text


def test_the_profile_page_phrase():
    assert (
        fit.fine_tuning_text({"noncompsst": LORA, "plane": LORA, "pss": LORA}) == f"{LORA} (NonCompSST, PLANE, PSS FT)"
    )
    assert fit.fine_tuning_text({"noncompsst": "full", "pss": LORA}) == f"NonCompSST full; PSS FT {LORA}"
    assert fit.fine_tuning_text({}) == fit.fine_tuning_text(None) == ""


def test_fine_tuning_lora_sets_every_fine_tuning_family_and_is_planned_recorded_and_configured(tiny_llama):
    planned = plan_run(tiny_llama, fine_tuning="lora")
    assert planned.record["fine_tuning"] == {"noncompsst": LORA, "plane": LORA, "pss": LORA}
    assert planned.record["parameters"] == ModelDescription.read(tiny_llama).parameters
    assert "LoRA: the frozen base in" not in planned.record["precision"], "the tiny Llama is an fp32 checkpoint"
    for family, path in (("noncompsst", ("training",)), ("plane", ("finetune", "training")), ("pss", ("fine_tune",))):
        section = planned.config[family]
        for part in path:
            section = section[part]
        assert section["fine_tuning"]["method"] == "lora" and section["fine_tuning"]["rank"] == 16
    text = fit.format_plan(planned.rows)
    assert f"SST-7 fine-tuning, 2 seed(s), {LORA}, the released head" in text
    assert f"(accuracy), {LORA}" in text and f"(FT, {LORA})" in text
    plain = plan_run(tiny_llama)
    assert plain.record["fine_tuning"] == {"noncompsst": "full", "plane": "full", "pss": "full"}
    assert "fine_tuning" not in plan_run(tiny_llama, families=["tre"]).record


@pytest.mark.parametrize("families", [["mt", "tre"], ["tre"]])
def test_fine_tuning_without_a_fine_tuning_family_is_one_line(tiny_llama, families):
    with pytest.raises(OptionError) as refused:
        plan_run(tiny_llama, families=families, fine_tuning="lora")
    message = str(refused.value)
    assert refused.value.option == "--fine-tuning" and "\n" not in message
    assert f"--families runs none of them ({', '.join(families)})" in message


def test_a_bad_base_setting_is_one_line_before_any_job(tiny_llama, tmp_path):
    base = _base()
    base["pss"]["fine_tune"]["fine_tuning"] = {"method": "qlora"}
    path = tmp_path / "base.yaml"
    path.write_text(yaml.safe_dump(base))
    # the schemas' check, naming the file (issue 45), before the family's own check would
    with pytest.raises(InputError, match=r"base.yaml: pss.fine_tune.fine_tuning.method: 'qlora' is not one of"):
        plan_run(tiny_llama, configfile=path)


def test_with_fine_tuning_keeps_the_other_settings_and_leaves_the_base_alone():
    base = _base()
    config = runconfig.with_fine_tuning(base, "full", ["noncompsst", "tre"])
    assert config["noncompsst"]["training"]["fine_tuning"] == {
        **base["noncompsst"]["training"]["fine_tuning"],
        "method": "full",
    }
    assert base["noncompsst"]["training"]["fine_tuning"]["method"] == "auto"
    assert config["plane"] is base["plane"], "a family the run leaves out is not touched"


def test_the_profile_page_says_how_the_model_was_fine_tuned(tmp_path):
    import pandas as pd

    from natcomp.profile.render import profile_page

    page = profile_page(pd.DataFrame(), "t", fine_tuning=fit.fine_tuning_text({"noncompsst": LORA}))
    assert f"<p class=settings>Fine-tuning: {LORA} (NonCompSST).</p>" in page
    assert "Fine-tuning:" not in profile_page(pd.DataFrame(), "t")


def test_a_runs_record_puts_the_fine_tuning_line_on_its_page(tmp_path, monkeypatch):
    import pandas as pd

    from natcomp.profile import table
    from natcomp.profile.cli import write_run_profile

    monkeypatch.setattr(table, "profile_rows", lambda *args, **kwargs: pd.DataFrame(columns=table.PROFILE_COLUMNS))
    (tmp_path / "results").mkdir()
    record = {"model": "/m/llm", "name": "llm", "scale": "demo", "families": ["pss"], "fine_tuning": {"pss": LORA}}
    runconfig.write_config(record, tmp_path / runconfig.RUN_FILE, "the test")
    _, page = write_run_profile(tmp_path)
    assert f"Fine-tuning: {LORA} (PSS FT)." in page.read_text()


def test_a_gemma_3_27b_config_is_planned_with_lora_on_one_gpu(real_shapes):
    """A multimodal checkpoint keeps its sizes under text_config: the plan reads them there
    (27.4B parameters with the vision tower), fine-tunes with LoRA at QLoRA's rate for its size
    on one 80 GB GPU (69 GB with checkpointing; PLANE's short batches 73 GB without), and loads
    the weights straight onto it (host memory: the rule's figure and one 5 GB shard); before,
    it was a base-size model fine-tuned in full."""
    planned = plan_run(str(real_shapes["Gemma-3-27B"]), configfile=REPO / "config" / "paper.yaml")
    assert planned.jobs_table.startswith("the jobs that run the model (27.4B parameters), sized for GPUs of 80 GB")
    sizes = {rule: job.size for job in planned.jobs for rule in job.rules}
    assert {size.gpus for size in sizes.values()} == {1}
    for rule in ("noncompsst_train", "plane_finetune", "pss_fine_tune"):
        assert sizes[rule].method == "lora" and sizes[rule].fine_tuning.learning_rate == 1e-4, rule
    assert 69e9 < sizes["noncompsst_train"].gpu_bytes == sizes["pss_fine_tune"].gpu_bytes < 70e9
    assert 72e9 < sizes["plane_finetune"].gpu_bytes < 73e9
    assert (sizes["tre_embed"].dtype, sizes["tre_embed"].mem_mb) == ("bf16", 4000 + 5000)
    assert planned.record["fine_tuning"] == {
        "noncompsst": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4, gradient checkpointing",
        "plane": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4",
        "pss": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4, gradient checkpointing",
    }
    assert planned.record["parameters"] == 27_430_651_392
    assert "fine-tuning: LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4, gradient checkpointing" in planned.jobs_table
