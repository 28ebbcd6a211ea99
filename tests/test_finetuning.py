"""The fine-tuning method of the fine-tuning families (natcomp.finetuning, issue 43)."""

import pytest

from natcomp.errors import ConfigError
from natcomp.finetuning import ATTENTION_MODULES, FineTuning, full_fine_tuning_limit


def test_the_full_fine_tuning_limit_is_half_a_gpu_at_16_bytes_per_parameter():
    # 80 GB x 0.5 / (4 weights + 4 gradients + 8 AdamW moments) bytes per parameter
    assert full_fine_tuning_limit(80) == 2_500_000_000
    assert full_fine_tuning_limit(40) == 1_250_000_000


@pytest.mark.parametrize(
    ("parameters", "gpu_memory_gb", "method"),
    [
        (109_482_240, 80, "full"),  # BERT-base: the papers' full fine-tuning
        (2_500_000_000, 80, "full"),  # at the limit: still full
        (2_500_000_001, 80, "lora"),
        (494_032_768, 80, "full"),  # Qwen2.5-0.5B
        (494_032_768, 12, "lora"),  # ... on a 12 GB GPU: 0.375B limit
        (8_030_261_248, 80, "lora"),  # Llama-3.1-8B
        (None, 80, "full"),  # size unknown: as a base-size model
    ],
)
def test_auto_is_full_up_to_the_limit_and_lora_above(parameters, gpu_memory_gb, method):
    resolved = FineTuning().resolved(parameters, gpu_memory_gb)
    assert resolved.method == method
    assert resolved.gradient_checkpointing is False, "auto: only where the memory needs it"
    assert FineTuning().resolved(parameters, gpu_memory_gb, needs_checkpointing=True).gradient_checkpointing is True


def test_an_explicit_method_and_checkpointing_are_kept():
    assert FineTuning(method="full").resolved(8_000_000_000).method == "full"
    assert FineTuning(method="lora").resolved(100).method == "lora"
    assert FineTuning(method="lora", gradient_checkpointing=False).resolved(100).gradient_checkpointing is False


def test_the_description_names_rank_alpha_the_projections_and_the_learning_rate():
    lora = FineTuning(method="lora").resolved(None, needs_checkpointing=True)
    assert lora.describe("llama") == "LoRA r=16, alpha=32 on q,k,v,o, lr 2e-4, gradient checkpointing"
    assert FineTuning(method="lora", rank=8, alpha=16, gradient_checkpointing=False).describe("gpt2") == (
        "LoRA r=8, alpha=16 on qkv,o"
    )
    assert FineTuning(method="full").resolved(None).describe("bert") == "full"
    named = FineTuning(method="lora", target_modules=("q_proj", "v_proj"), gradient_checkpointing=False)
    assert named.describe("llama") == "LoRA r=16, alpha=32 on q_proj,v_proj"


def test_the_modules_of_an_architecture_and_an_unknown_one():
    assert FineTuning().modules("llama") == {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj"}
    assert FineTuning().modules("gpt2")["o"] == "attn.c_proj", "GPT-2's MLP has a c_proj too"
    assert FineTuning(target_modules=("dense",)).modules("anything") == {"dense": "dense"}
    with pytest.raises(ConfigError, match=r"x.fine_tuning.target_modules.*model type 'mamba'"):
        FineTuning().modules("mamba", "x.fine_tuning")
    assert {"bert", "llama", "qwen2", "gpt2", "opt", "phi3", "falcon", "gpt_neox"} <= set(ATTENTION_MODULES)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"method": "qlora"}, r"k.method: 'qlora'; expected one of auto, full, lora"),
        ({"rank": 0}, r"k.rank: 0 is not a positive integer"),
        ({"alpha": 2.5}, r"k.alpha: 2.5 is not a positive integer"),
        ({"rank": True}, r"k.rank: True is not a positive integer"),
        ({"dropout": 1.0}, r"k.dropout: 1.0; expected a number in \[0, 1\)"),
        ({"target_modules": "q_proj"}, r"k.target_modules: 'q_proj'; expected a non-empty list"),
        ({"target_modules": []}, r"k.target_modules: \[\]; expected a non-empty list"),
        ({"gradient_checkpointing": "yes"}, r"k.gradient_checkpointing: 'yes'; expected true, false or auto"),
        ({"ranks": 4}, r"k.ranks: unknown fine-tuning setting"),
        ({"learning_rate": 0}, r"k.learning_rate: 0; expected a number above 0, or null"),
        ({"learning_rate": "2e-4"}, r"k.learning_rate: '2e-4'; expected a number above 0, or null"),
    ],
)
def test_bad_settings_are_one_line_naming_the_key(section, message):
    with pytest.raises(ConfigError, match=message):
        FineTuning.from_config(section, "k")


def test_settings_from_config():
    settings = FineTuning.from_config({"method": "lora", "rank": 4, "target_modules": ["q_proj"]}, "k")
    assert settings == FineTuning(method="lora", rank=4, target_modules=("q_proj",))
    assert FineTuning.from_config(None, "k") == FineTuning()


def test_settings_round_trip_through_a_config_mapping():
    settings = FineTuning(method="lora", rank=4, target_modules=("q_proj",), gradient_checkpointing=True)
    assert settings.as_config()["target_modules"] == ["q_proj"]
    assert FineTuning.from_config(settings.as_config(), "k") == settings
    with pytest.raises(ConfigError, match=r"k: 'lora'; expected a mapping of fine-tuning settings"):
        FineTuning.from_config("lora", "k")


def test_fine_tune_settings_take_the_setting_as_a_mapping():
    from natcomp.hf import FineTuneSettings

    section = {"epochs": 1, "batch_size": 8, "learning_rate": 1e-3, "fine_tuning": {"method": "lora", "rank": 4}}
    settings = FineTuneSettings.from_config(section, "pss.fine_tune")
    assert settings.fine_tuning == FineTuning(method="lora", rank=4)
    with pytest.raises(ConfigError, match=r"pss.fine_tune.fine_tuning.rank: 0 is not a positive integer"):
        FineTuneSettings.from_config({**section, "fine_tuning": {"rank": 0}}, "pss.fine_tune")
    assert FineTuneSettings(epochs=1, batch_size=8, learning_rate=1e-3).fine_tuning == FineTuning(method="full")
    with pytest.raises(ValueError, match="fine_tuning must be a natcomp.finetuning.FineTuning"):
        FineTuneSettings(epochs=1, batch_size=8, learning_rate=1e-3, fine_tuning="lora")
