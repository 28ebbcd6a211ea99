"""The fine_tuning setting in the configs (issue 43): the three fine-tuning families take it,
every other section refuses it in one line, and the papers' models resolve to full."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from natcomp.configcheck import check_config, load_schema
from natcomp.errors import ConfigError
from natcomp.finetuning import FAMILY_SECTIONS, FineTuning
from natcomp.model_description import job_setting

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "config" / "schema"


def _config(name: str) -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text(encoding="utf-8"))


def _schema(family: str) -> dict:
    return load_schema(SCHEMAS / f"{family}.yaml")


def test_the_three_schemas_share_one_definition_with_the_librarys_defaults():
    definitions = [_schema(family)["$defs"]["fine_tuning"] for family in FAMILY_SECTIONS]
    assert definitions[0] == definitions[1] == definitions[2]
    defaults = {name: entry["default"] for name, entry in definitions[0]["properties"].items()}
    assert defaults == FineTuning().as_config()


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml"])
def test_both_configs_set_it_in_each_fine_tuning_family(name):
    config = _config(name)
    for family in FAMILY_SECTIONS:
        check_config(config[family], _schema(family), family)
        assert job_setting(config, family, None) == FineTuning().resolved(None).as_config()


@pytest.mark.parametrize(
    ("family", "path"),
    [
        ("tre", ("fit",)),
        ("tre", ()),
        ("pss", ("frozen",)),
        ("pss", ("encoders", "minilm")),
        ("mt", ("translate",)),
        ("mt", ()),
    ],
)
def test_a_family_section_that_does_not_fine_tune_refuses_it_in_one_line(family, path):
    config = _config("config.yaml")
    section = config[family]
    for part in path:
        section = section.setdefault(part, {})
    section["fine_tuning"] = {"method": "lora"}
    with pytest.raises(ConfigError) as error:
        check_config(config[family], _schema(family), family)
    assert str(error.value) == (
        f"config {'.'.join((family, *path, 'fine_tuning'))}: unknown key: this section fine-tunes no model; "
        "fine_tuning is a setting of noncompsst.training, plane.finetune.training and pss.fine_tune"
    )
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"method": "qlora"}, "pss.fine_tune.fine_tuning.method: 'qlora'"),
        ({"rank": 0}, "pss.fine_tune.fine_tuning.rank: 0"),
        ({"ranks": 8}, "pss.fine_tune.fine_tuning.ranks: unknown key (did you mean 'rank'?)"),
        ({"target_modules": []}, "pss.fine_tune.fine_tuning.target_modules: []"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_key(setting, message):
    config = _config("config.yaml")
    config["pss"]["fine_tune"]["fine_tuning"] = setting
    with pytest.raises(ConfigError) as error:
        check_config(config["pss"], _schema("pss"), "pss")
    assert str(error.value).startswith(f"config {message}")


def test_a_job_gets_the_setting_decided_for_its_model(tmp_path):
    config = _config("paper.yaml")
    folder = tmp_path / "llama-8b"
    folder.mkdir()
    llama = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
    }
    (folder / "config.json").write_text(json.dumps(llama))
    setting = job_setting(config, "noncompsst", str(folder))
    # 7.5B parameters (tied embeddings): LoRA at QLoRA's 2e-4; a step of 32 x 128 tokens keeps
    # 4096 x 32 x (24 x 4096 + 8 x 14336) = 27.9 GB of activations, which the 61 GB its 80 GB
    # GPU has left beside 15 GB of weights hold: no checkpointing
    assert setting == {
        **FineTuning().as_config(),
        "method": "lora",
        "gradient_checkpointing": False,
        "learning_rate": 2e-4,
    }
    assert job_setting(config, "pss", str(tmp_path / "not-there"))["method"] == "full"
    (folder / "config.json").write_text(json.dumps({**llama, "model_type": "mamba"}))
    with pytest.raises(ConfigError, match=r"noncompsst.training.fine_tuning.target_modules: .*'mamba'"):
        job_setting(config, "noncompsst", str(folder))
