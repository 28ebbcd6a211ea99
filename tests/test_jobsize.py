"""The GPUs, memory and time a model's job asks for, from its description (natcomp.jobsize,
natcomp.model_description), checked against figures computed by hand for Qwen2.5-0.5B,
Llama-3.1-8B, Llama-3.1-70B and Gemma-3-27B (configs built by transformers' config classes
with the real sizes, no weights)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from natcomp import jobsize
from natcomp.errors import ConfigError
from natcomp.finetuning import FamilyTraining, FineTuning
from natcomp.model_description import ModelDescription, lora_parameters, model_config, parameter_count
from workflow_copy import rule_blocks

REPO = Path(__file__).resolve().parents[1]

#: bert-base-uncased (109.5M parameters)
BERT_BASE = {
    "model_type": "bert",
    "hidden_size": 768,
    "intermediate_size": 3072,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "vocab_size": 30522,
    "max_position_embeddings": 512,
}
#: gpt2 (124.4M) and Llama-3.2-1B (1.236B: tied embeddings, 8 key-value heads of 64)
GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024}
LLAMA_1B = {
    "model_type": "llama",
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "vocab_size": 128256,
    "tie_word_embeddings": True,
}

#: Parameters by hand (embeddings + layers x (attention + gated MLP); norms and biases left
#: out), the published counts and how close the two are (Gemma's card rounds to 27.4B).
#: Qwen2.5-0.5B: 151936 x 896 (tied) + 24 x (2 x 896 x 14 x 64 + 2 x 896 x 2 x 64 + 3 x 896 x 4864)
#: Llama-3.1-8B: 2 x 128256 x 4096 + 32 x (2 x 4096 x 32 x 128 + 2 x 4096 x 8 x 128 + 3 x 4096 x 14336)
#: Llama-3.1-70B: 2 x 128256 x 8192 + 80 x (2 x 8192 x 64 x 128 + 2 x 8192 x 8 x 128 + 3 x 8192 x 28672)
#: Gemma-3-27B, under text_config: 262208 x 5376 (tied) + 62 x (2 x 5376 x 32 x 128 + 2 x 5376 x 16 x 128
#: + 3 x 5376 x 21504); its vision tower (vision_config, SigLIP): patches 3 x 14 x 14 x 1152, positions
#: (896 / 14)^2 x 1152, 27 x (4 x 1152^2 + 2 x 1152 x 4304), the projector 1152 x 5376
PARAMETERS = {
    "Qwen2.5-0.5B": (136_134_656 + 24 * (1_605_632 + 229_376 + 13_074_432), 494_032_768, 0.001),
    "Llama-3.1-8B": (1_050_673_152 + 32 * (33_554_432 + 8_388_608 + 176_160_768), 8_030_261_248, 0.001),
    "Llama-3.1-70B": (2_101_346_304 + 80 * (134_217_728 + 16_777_216 + 704_643_072), 70_553_706_496, 0.001),
    "Gemma-3-27B": (
        1_409_630_208
        + 62 * (44_040_192 + 22_020_096 + 346_816_512)
        + 677_376
        + 4_718_592
        + 27 * 15_224_832
        + 6_193_152,
        27_400_000_000,
        0.002,
    ),
}
#: LoRA r=16 on q, k, v, o: 16 x ((h + h) + (h + kv) + (h + kv) + (h + h)) per layer, kv = key-value heads x 128 (64)
LORA = {
    "Qwen2.5-0.5B": 24 * 16 * (1792 + 1024 + 1024 + 1792),
    "Llama-3.1-8B": 32 * 16 * (8192 + 5120 + 5120 + 8192),
    "Llama-3.1-70B": 80 * 16 * (16384 + 9216 + 9216 + 16384),
    "Gemma-3-27B": 62 * 16 * ((5376 + 4096) + 2 * (5376 + 2048) + (4096 + 5376)),  # gemma3_text's q,k,v,o
}
#: (rule, model) -> method, GPU bytes, GPUs, host MB, minutes, on 80 GB GPUs in bf16:
#: inference: P x 2 bytes x 1.25; full: P x 16 / 0.5; LoRA: (P x 2 + adapters x 16) x 1.25, and
#: without gradient checkpointing the activations of a step of 32 x 128 tokens, 4096 x layers x
#: (24 h + 8 i) bytes (8B: 27.9 GB; the 70B's 140 GB and the 27B's 76 GB take checkpointing);
#: host: the rule's MB + the weights (P x 2 bytes; full: x 4), at most 5 GB: the model loads
#: straight onto the GPUs, a shard at a time; minutes: the rule's x P / 10B, at least the rule's
SIZES = {
    ("tre_embed", "Qwen2.5-0.5B"): ("inference", 1_234_903_040, 1, 4000 + 988, 30),
    ("pss_fine_tune", "Qwen2.5-0.5B"): ("full", 15_806_758_912, 1, 8000 + 1976, 60),
    ("tre_embed", "Llama-3.1-8B"): ("inference", 20_074_987_520, 1, 4000 + 5000, 30),
    ("pss_fine_tune", "Llama-3.1-8B"): ("lora", 20_347_617_280 + 4096 * 32 * 212_992, 1, 8000 + 5000, 60),
    ("tre_embed", "Llama-3.1-70B"): ("inference", 176_380_968_960, 3, 4000 + 5000, 212),
    ("pss_fine_tune", "Llama-3.1-70B"): ("lora", 177_691_688_960, 3, 8000 + 5000, 424),
    # (27,430,651,392 x 2 + 33,521,664 x 16) x 1.25: one GPU; the time x 2.743
    ("tre_embed", "Gemma-3-27B"): ("inference", 68_576_628_480, 1, 4000 + 5000, 83),
    ("pss_fine_tune", "Gemma-3-27B"): ("lora", 69_247_061_760, 1, 8000 + 5000, 165),
}


@pytest.fixture(scope="module")
def configs(real_shapes) -> dict[str, dict]:
    return {name: model_config(folder) for name, folder in real_shapes.items()}


@pytest.mark.parametrize("name", list(PARAMETERS))
def test_the_real_shapes_parameters_by_hand_and_close_to_the_published(configs, name):
    by_hand, published, tolerance = PARAMETERS[name]
    assert parameter_count(configs[name]) == by_hand
    assert abs(by_hand - published) / published < tolerance
    described = ModelDescription(name, configs[name])
    assert configs[name]["dtype"] == "bfloat16" and described.weights_dtype("inference") == "bf16"


@pytest.mark.parametrize(
    "config, published", [(BERT_BASE, 109_482_240), (GPT2, 124_439_808), (LLAMA_1B, 1_235_814_400)]
)
def test_parameter_counts_are_within_two_percent_of_the_published_ones(config, published):
    assert abs(parameter_count(config) - published) / published < 0.02


def test_an_untied_output_layer_and_an_unknown_size(configs):
    qwen = configs["Qwen2.5-0.5B"]
    untied = {**qwen, "tie_word_embeddings": False}
    assert parameter_count(untied) - parameter_count(qwen) == 151936 * 896
    assert parameter_count({"model_type": "qwen2"}) is None


@pytest.mark.parametrize("name", list(LORA))
def test_lora_adapters_by_hand(configs, name):
    assert lora_parameters(configs[name], FineTuning(method="lora")) == LORA[name]
    # named modules count as hidden x hidden each
    text = configs[name].get("text_config", configs[name])
    named = FineTuning(method="lora", rank=8, target_modules=("q_proj", "v_proj"))
    assert lora_parameters(configs[name], named) == text["num_hidden_layers"] * 2 * 8 * 2 * text["hidden_size"]


@pytest.mark.parametrize("rule, name", list(SIZES))
def test_job_sizes_by_hand(configs, rule, name):
    method, gpu_bytes, gpus, mem_mb, minutes = SIZES[rule, name]
    size = jobsize.size_job(rule, configs[name], model=name)
    assert (size.method, size.gpus, size.mem_mb, size.runtime_min) == (method, gpus, mem_mb, minutes)
    assert size.gpu_bytes == pytest.approx(gpu_bytes, abs=1)
    assert size.dtype == ("fp32" if method == "full" else "bf16") and size.parameters == PARAMETERS[name][0]
    if method == "lora":  # QLoRA's rates: 2e-4 up to 20B parameters, 1e-4 above
        assert size.fine_tuning.learning_rate == (2e-4 if name == "Llama-3.1-8B" else 1e-4)
    assert (size.fine_tuning is None) == (method == "inference")


def test_what_the_plan_says_of_a_job(configs):
    inference = jobsize.size_job("tre_embed", configs["Llama-3.1-70B"])
    assert inference.describe() == "3 GPUs, 177 GB of GPU memory, 9 GB host memory, 3.5 h"
    assert inference.role() == "inference in bf16"
    # PLANE's steps: 16 x 12 tokens, 1.3 GB of activations beside 20.3 GB
    plane = FamilyTraining(FineTuning(), batch_size=16, max_length=12)
    lora = jobsize.size_job("plane_finetune", configs["Llama-3.1-8B"], fine_tuning=plane)
    assert lora.describe() == "1 GPU, 22 GB of GPU memory, 13 GB host memory, 1.0 h"
    assert lora.role("llama") == "fine-tuning: LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4"
    assert jobsize.size_job("pss_fine_tune", configs["Qwen2.5-0.5B"]).role() == "fine-tuning: full"
    assert jobsize.format_minutes(30) == "30 min" and jobsize.format_gpus(1) == "1 GPU"


def test_the_gpu_memory_the_dtype_and_the_most_gpus_are_settings(configs):
    llama70 = configs["Llama-3.1-70B"]
    # 176.4 GB on 40 GB GPUs: 5; in fp32 (4 bytes) 352.8 GB on 80 GB GPUs: 5
    assert jobsize.size_job("tre_embed", llama70, jobsize.JobSettings(gpu_memory_gb=40)).gpus == 5
    fp32 = jobsize.size_job("tre_embed", llama70, jobsize.JobSettings(dtype="fp32"))
    assert fp32.gpus == 5 and fp32.mem_mb == 4000 + 5000
    # an 8B model on 12 GB GPUs: inference on 2; auto fine-tunes Qwen with LoRA there (limit 0.375B)
    assert jobsize.size_job("tre_embed", configs["Llama-3.1-8B"], jobsize.JobSettings(gpu_memory_gb=12)).gpus == 2
    assert jobsize.size_job("pss_fine_tune", configs["Qwen2.5-0.5B"], jobsize.JobSettings(gpu_memory_gb=12)).method == (
        "lora"
    )
    settings = jobsize.JobSettings.from_config({"dtype": "fp16", "gpus": {"memory_gb": 40, "max_per_job": 4}})
    assert settings == jobsize.JobSettings("fp16", 40, 4)
    assert jobsize.JobSettings.from_config({}) == jobsize.JobSettings("auto", 80, 8)


def test_a_model_too_large_for_the_gpus_per_job_is_one_line_naming_the_key(configs):
    two = jobsize.JobSettings(max_gpus=2)
    with pytest.raises(ConfigError) as inference:
        jobsize.size_job("tre_embed", configs["Llama-3.1-70B"], two, model="llama-70b")
    assert inference.value.key == "gpus.max_per_job"
    assert inference.value.message == (
        "llama-70b (70.6B parameters) needs 176 GB of GPU memory to run in bf16 (tre_embed): more than 2 GPUs of 80 GB "
        "per job"
    )
    with pytest.raises(ConfigError) as lora:
        jobsize.size_job("plane_finetune", configs["Llama-3.1-70B"], two, model="llama-70b")
    assert lora.value.message.startswith("llama-70b (70.6B parameters) fits neither 2 GPUs of 80 GB per job nor LoRA")
    with pytest.raises(ConfigError) as full:
        jobsize.size_job("plane_finetune", configs["Llama-3.1-8B"], fine_tuning=FineTuning(method="full"))
    assert full.value.key == "gpus.max_per_job"
    assert "needs 257 GB of GPU memory to fine-tune in full (plane_finetune): more than one GPU of 80 GB" in str(
        full.value
    )
    assert "\n" not in str(inference.value) + str(lora.value) + str(full.value)


def test_a_model_whose_config_is_not_here_is_a_base_size_fp32_model(tmp_path):
    size = jobsize.job_size("pss_embed", tmp_path / "missing")
    assert (size.gpus, size.mem_mb, size.runtime_min, size.dtype, size.parameters) == (1, 4000 + 440, 30, "fp32", None)
    assert jobsize.job_size("noncompsst_train", None).method == "full"
    small = tmp_path / "small"
    small.mkdir()
    (small / "config.json").write_text(json.dumps({**BERT_BASE, "num_hidden_layers": 2}))
    assert jobsize.job_size("pss_fine_tune", small).runtime_min == 60, "never below the rule's own minutes"


def test_a_rules_resources_read_the_jobs_model_from_its_wildcards(real_shapes, tmp_path):
    models = {"llama": str(real_shapes["Llama-3.1-70B"]), "other": str(tmp_path / "missing")}
    resources = jobsize.RuleResources(jobsize.JobSettings())

    class Wildcards:
        def __init__(self, model):
            self.model = model

    def model_of(wildcards):
        return models[wildcards.model]

    gpus, mem_mb = resources.gpus("tre_embed", model_of), resources.mem_mb("tre_embed", model_of)
    runtime = resources.runtime("tre_embed", model_of)
    assert (gpus(Wildcards("llama")), mem_mb(Wildcards("llama")), runtime(Wildcards("llama"))) == (3, 9000, 212)
    assert (gpus(Wildcards("other")), mem_mb(Wildcards("other")), runtime(Wildcards("other"))) == (1, 4440, 30)
    # a family's fine-tuning settings, and the stop the workflow ends a ConfigError with
    full = resources.gpus("pss_fine_tune", model_of, lambda wildcards: FineTuning(method="full"))
    with pytest.raises(ConfigError):
        full(Wildcards("llama"))
    stopped = jobsize.RuleResources(jobsize.JobSettings(max_gpus=2), stop=lambda *args: "stopped")
    assert stopped.size("tre_embed", model_of)(Wildcards("llama")) == "stopped"


def test_every_rule_that_runs_a_model_is_sized_by_its_own_name():
    """The rules with natcomp.jobsize figures ask for them under their own name, and the
    other GPU rules (fairseq's, the demo's tiny models', TRE's composer) for one GPU."""
    sized = {
        name: re.findall(r'MODEL_JOBS\.\w+\(\s*"(\w+)"', block)
        for name, block in rule_blocks().items()
        if "gpu=" in block
    }
    for rule in jobsize.RULES:
        assert sized.get(rule) == [rule] * 3, (rule, sized.get(rule))
    assert all(not names for rule, names in sized.items() if rule not in jobsize.RULES)


def test_the_memory_table_of_docs_hf_md_is_the_computed_one(configs):
    import yaml

    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text(encoding="utf-8"))
    table = jobsize.size_table(configs, run_config=paper)
    assert table in (REPO / "docs" / "design" / "hf.md").read_text(), f"docs/design/hf.md should hold:\n{table}"


def test_a_lora_job_is_sized_in_the_dtype_it_loads_in_whatever_the_runs_dtype(configs):
    """The run's dtype is inference's: LoRA loads an fp32 checkpoint's frozen base in fp32
    (natcomp.model_description.weights_dtype, which natcomp.hf.precision.training_dtype calls
    too), so its job is sized in fp32 under --dtype bf16 (before: in bf16, half the memory)."""
    fp32 = {**configs["Llama-3.1-8B"], "dtype": "float32"}
    plane = FamilyTraining(FineTuning(), batch_size=16, max_length=12)
    size = jobsize.size_job("plane_finetune", fp32, jobsize.JobSettings(dtype="bf16"), fine_tuning=plane)
    assert size.method == "lora" and size.dtype == "fp32"
    adapters, activations = LORA["Llama-3.1-8B"], 192 * 32 * (24 * 4096 + 8 * 14336)
    assert size.gpu_bytes == pytest.approx((PARAMETERS["Llama-3.1-8B"][0] * 4 + adapters * 16) * 1.25 + activations)
    inference = jobsize.size_job("tre_embed", fp32, jobsize.JobSettings(dtype="bf16"))
    assert inference.dtype == "bf16", "inference follows the run's dtype"
