"""The one description of a model (natcomp.model_description): its nested text config, size,
dtypes and each fine-tuning family's method, decided once; configs only, no weights."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.finetuning import FamilyTraining, FineTuning, family_training
from natcomp.model_description import (
    ModelDescription,
    activation_bytes,
    autocast_dtype,
    checkpoint_dtype,
    job_setting,
    weights_dtype,
)

REPO = Path(__file__).resolve().parents[1]
PAPER = yaml.safe_load((REPO / "config" / "paper.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def described(real_shapes) -> dict[str, ModelDescription]:
    return {name: ModelDescription.read(folder) for name, folder in real_shapes.items()}


def test_a_multimodal_checkpoint_is_read_through_its_text_config(described):
    """Gemma 3 keeps its language model's sizes under text_config: counted there, with its
    vision tower; LoRA adapts its language model's projections (gemma3_text)."""
    gemma = described["Gemma-3-27B"]
    assert gemma.config["model_type"] == "gemma3" and gemma.model_type == "gemma3_text"
    assert gemma.text_config["hidden_size"] == 5376 and gemma.checkpoint_dtype == "bf16"
    assert gemma.size_text() == "27.4B parameters"
    resolved = gemma.resolve(FamilyTraining(FineTuning()), key="noncompsst.training.fine_tuning")
    assert resolved.method == "lora" and resolved.learning_rate == 1e-4, "27B: QLoRA's rate of its 33B and 65B"
    assert resolved.describe(gemma.model_type).startswith("LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4")


def test_a_size_that_cannot_be_known_refuses_auto_in_one_line_and_is_never_guessed_small(tmp_path):
    unknown = ModelDescription("custom-lm", {"model_type": "custom", "architectures": ["CustomForCausalLM"]})
    assert unknown.parameters is None and unknown.size_text().startswith("size unknown, its config names no")
    with pytest.raises(ConfigError) as refused:
        unknown.resolve(FamilyTraining(FineTuning()), key="pss.fine_tune.fine_tuning")
    assert refused.value.key == "pss.fine_tune.fine_tuning.method" and "\n" not in str(refused.value)
    assert "auto cannot choose between full fine-tuning and LoRA for custom-lm" in refused.value.message
    assert unknown.resolve(FamilyTraining(FineTuning(method="full"))).method == "full", "a method given is kept"
    folder = tmp_path / "custom"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "custom"}')
    with pytest.raises(ConfigError, match=r"^config pss\.fine_tune\.fine_tuning\.method: auto cannot choose"):
        job_setting(PAPER, "pss", str(folder))
    # a model whose config is not here at all (the workflow builds it: the demo's) stays a base-size model
    assert job_setting(PAPER, "pss", str(tmp_path / "built-later"))["method"] == "full"


@pytest.mark.parametrize(
    ("method", "checkpoint", "requested", "bf16", "expected"),
    [
        ("inference", "bf16", "auto", True, "bf16"),
        ("inference", "bf16", "auto", False, "fp32"),
        ("inference", "fp32", "bf16", True, "bf16"),
        ("full", "bf16", "auto", True, "fp32"),
        ("lora", "bf16", "auto", True, "bf16"),
        ("lora", "bf16", "auto", False, "fp32"),
        ("lora", "fp16", "auto", False, "fp16"),
        # the run's dtype is inference's: an fp32 checkpoint's LoRA base is sized and loaded in fp32
        ("lora", "fp32", "bf16", True, "fp32"),
    ],
)
def test_one_rule_decides_the_dtype_of_the_weights(method, checkpoint, requested, bf16, expected):
    assert weights_dtype(method, checkpoint, requested, bf16=bf16) == expected
    assert weights_dtype(method, checkpoint, requested, on_gpu=False) == "fp32"


def test_the_forward_pass_autocasts_to_the_lora_bases_half_dtype():
    assert autocast_dtype("lora", "fp16") == "fp16"
    assert autocast_dtype("lora", "bf16") == autocast_dtype("full", "fp32") == "bf16"
    assert autocast_dtype("full", "fp32", bf16=False) is None and autocast_dtype("lora", "bf16", on_gpu=False) is None


def test_the_checkpoints_dtype_is_the_configs_or_else_its_text_configs():
    assert checkpoint_dtype({"torch_dtype": "bfloat16", "text_config": {"dtype": "float16"}}) == "bf16"
    assert checkpoint_dtype({"text_config": {"torch_dtype": "float16"}}) == "fp16"
    assert checkpoint_dtype({}) == "fp32"


def test_activations_by_hand():
    """2 x (12h + 4i) bytes per token and layer kept for the backward pass; with checkpointing
    each layer's input (4h) and one layer's worth, recomputed."""
    config = {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32}
    per_token_and_layer = 24 * 4096 + 8 * 14336
    assert activation_bytes(config, 4096, checkpointing=False) == 4096 * 32 * per_token_and_layer
    assert activation_bytes(config, 4096, checkpointing=True) == 4096 * 32 * 4 * 4096 + 4096 * per_token_and_layer
    assert activation_bytes({"model_type": "custom"}, 4096, checkpointing=False) == 0


def test_gradient_checkpointing_is_on_where_the_memory_needs_it_and_the_plan_says_so(described):
    """auto: on where a step's activations do not fit the memory left on the job's GPUs beside
    the weights and optimiser state. PLANE's 16 x 12 tokens never need it; NonCompSST's and
    PSS's 32 x 128 do for a 70B model on 3 GPUs (140 GB of activations, 62 GB left) and a 27B
    model on one (76 GB, 11 GB left), not for an 8B one (28 GB, 60 GB left)."""
    checkpointing = {
        name: {
            family: setting.gradient_checkpointing
            for family, setting in model.for_run(PAPER, ("noncompsst", "plane", "pss")).fine_tuning.items()
        }
        for name, model in described.items()
    }
    assert checkpointing == {
        "Qwen2.5-0.5B": {"noncompsst": False, "plane": False, "pss": False},
        "Llama-3.1-8B": {"noncompsst": False, "plane": False, "pss": False},
        "Llama-3.1-70B": {"noncompsst": True, "plane": False, "pss": True},
        "Gemma-3-27B": {"noncompsst": True, "plane": False, "pss": True},
    }
    assert (family_training(PAPER, "plane").batch_size, family_training(PAPER, "plane").max_length) == (16, 12)
    texts = described["Llama-3.1-70B"].for_run(PAPER, ("noncompsst", "plane")).fine_tuning_texts()
    assert texts == {
        "noncompsst": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4, gradient checkpointing",
        "plane": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4",
    }
    # a setting that names it is kept
    forced = {**PAPER, "plane": {**PAPER["plane"], "finetune": {**PAPER["plane"]["finetune"]}}}
    forced["plane"]["finetune"]["training"] = {
        **PAPER["plane"]["finetune"]["training"],
        "fine_tuning": {"gradient_checkpointing": True},
    }
    assert described["Llama-3.1-8B"].for_run(forced, ("plane",)).fine_tuning["plane"].gradient_checkpointing is True


def test_the_record_holds_what_the_profile_page_says(described):
    record = described["Gemma-3-27B"].for_run(PAPER, ("plane", "tre")).record()
    assert record["parameters"] == described["Gemma-3-27B"].parameters and record["checkpoint_dtype"] == "bf16"
    assert record["fine_tuning"] == {"plane": "LoRA r=16, alpha=32 on q,k,v,o, lr 1e-4"}
    assert "(LoRA: the frozen base in bf16, the forward pass autocast to bf16" in record["precision"]


def test_finetuning_and_jobsize_do_not_import_each_other():
    """The fine-tuning settings know no model and no job: the description decides them for a
    model, the job sizes read it (no import, not even inside a function)."""

    def imported(module: str) -> set[str]:
        tree = ast.parse((REPO / "src" / "natcomp" / f"{module}.py").read_text(encoding="utf-8"))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        return names

    assert not {"natcomp.jobsize", "natcomp.model_description"} & imported("finetuning")
    assert "natcomp.jobsize" not in imported("model_description")
