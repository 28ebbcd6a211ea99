"""natcomp.adapters: a peft adapter folder read and its base found without torch or peft
(issue 43.3). The adapters here are written by hand (adapter_config.json as peft writes it,
no weights); tests/hf/test_adapters.py makes real ones with peft and loads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from natcomp import adapters, jobsize, model_description
from natcomp.adapters import check_base_found_anywhere, file_location, is_adapter, read_adapter
from natcomp.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
BASE_CONFIG = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "vocab_size": 100}


def base_folder(path: Path, config: dict = BASE_CONFIG) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps(config))
    (path / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}))
    return path


def adapter_folder(path: Path, base: str, **fields) -> Path:
    """An adapter folder as peft's save_pretrained writes it (the settings natcomp reads)."""
    path.mkdir(parents=True)
    settings = {
        "base_model_name_or_path": base,
        "peft_type": "LORA",
        "r": 8,
        "lora_alpha": 16,
        "target_modules": ["v_proj", "q_proj"],
        "task_type": "CAUSAL_LM",
        **fields,
    }
    (path / "adapter_config.json").write_text(json.dumps(settings))
    (path / "adapter_model.safetensors").write_bytes(b"weights")
    return path


def test_a_folder_with_adapter_config_is_an_adapter_and_nothing_else_is(tmp_path):
    base = base_folder(tmp_path / "base")
    adapter = adapter_folder(tmp_path / "lora", str(base))
    assert is_adapter(adapter) and not is_adapter(base) and not is_adapter("meta-llama/Llama-3.2-1B")
    assert read_adapter(base) is None and read_adapter("all-MiniLM-L6-v2") is None


def test_peft_settings_are_read_and_described(tmp_path):
    base = base_folder(tmp_path / "base")
    found = read_adapter(adapter_folder(tmp_path / "lora", str(base)))
    assert found.peft_type == "LORA" and found.r == 8 and found.alpha == 16
    assert found.target_modules == ("q_proj", "v_proj") and found.base_location == str(base.resolve())
    assert found.found == "folder" and found.describe() == "LoRA r=8 alpha=16 on q_proj,v_proj"
    dora = read_adapter(adapter_folder(tmp_path / "dora", str(base), use_dora=True, target_modules="all-linear"))
    assert dora.describe() == "DoRA r=8 alpha=16 on modules matching 'all-linear'"
    ia3 = read_adapter(adapter_folder(tmp_path / "ia3", str(base), peft_type="IA3", r=None, lora_alpha=None))
    assert ia3.describe() == "IA3 on q_proj,v_proj"


def test_a_relative_base_is_found_as_given_then_beside_the_adapter(tmp_path, monkeypatch):
    base = base_folder(tmp_path / "models" / "base")
    beside = read_adapter(adapter_folder(tmp_path / "models" / "lora", "../base"))
    assert beside.found == "adapter folder" and beside.base_location == str(base.resolve())
    monkeypatch.chdir(tmp_path)
    given = read_adapter(adapter_folder(tmp_path / "adapters" / "lora", "models/base"))
    assert given.found == "current folder" and given.base_location == str(base.resolve())


def test_a_base_found_only_from_the_current_folder_is_refused_for_the_workflow(tmp_path, monkeypatch):
    """The workflow's jobs run in the run folder: a path relative to where peft ran is lost there."""
    base_folder(tmp_path / "models" / "base")
    monkeypatch.chdir(tmp_path)
    given = read_adapter(adapter_folder(tmp_path / "adapters" / "lora", "models/base"))
    with pytest.raises(ConfigError) as error:
        check_base_found_anywhere(given, "--model")
    (line,) = str(error.value).splitlines()
    assert line.startswith("--model: adapter ") and "'models/base', a path relative to the current folder" in line
    assert "adapter_config.json" in line and "absolute path" in line
    # found as given and beside the adapter, the same folder: found from the run folder too
    inside = adapter_folder(tmp_path / "inside", "../models/base")
    monkeypatch.chdir(inside)
    check_base_found_anywhere(read_adapter(inside), "--model")
    # as given and beside the adapter, two different folders: the jobs would load the other one
    folder = adapter_folder(tmp_path / "models" / "beside", "models/base")
    base_folder(folder / "models" / "base")
    monkeypatch.chdir(tmp_path)
    two = read_adapter(folder)
    assert two.found == "current folder"
    with pytest.raises(ConfigError):
        check_base_found_anywhere(two, "--model")
    check_base_found_anywhere(read_adapter(adapter_folder(tmp_path / "far", str(tmp_path / "models" / "base"))))


def test_a_cached_hub_id_is_a_base(tmp_path, monkeypatch):
    monkeypatch.setattr(adapters, "_cached", lambda repo_id: repo_id == "owner/base")
    found = read_adapter(adapter_folder(tmp_path / "lora", "owner/base"))
    assert found.base_location == "owner/base" and found.found == "cache"


def test_a_base_that_cannot_be_found_is_one_line_naming_the_key_the_adapter_and_the_base(tmp_path):
    adapter = adapter_folder(tmp_path / "lora", "owner/not-cached-model")
    with pytest.raises(ConfigError) as error:
        read_adapter(adapter, "plane.finetune.model")
    (line,) = str(error.value).splitlines()
    assert line.startswith(
        f"config plane.finetune.model: adapter {adapter} names the base model 'owner/not-cached-model'"
    )
    assert "natcomp downloads no base" in line and "hf download owner/not-cached-model" in line
    with pytest.raises(ConfigError) as error:
        read_adapter(adapter_folder(tmp_path / "local", "../models/base"), "--model")
    (line,) = str(error.value).splitlines()
    assert "names the base model '../models/base'" in line and "hf download" not in line


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"peft_type": "PREFIX_TUNING"}, "PREFIX_TUNING, which adds prompts rather than weights"),
        ({"peft_type": None}, "has no peft_type"),
        ({"base_model_name_or_path": None}, "names no base model"),
    ],
)
def test_an_adapter_natcomp_cannot_apply_is_one_line(tmp_path, fields, expected):
    base = base_folder(tmp_path / "base")
    with pytest.raises(ConfigError, match=expected):
        read_adapter(adapter_folder(tmp_path / "lora", str(base), **fields), "--model")


def test_a_base_that_is_itself_an_adapter_is_refused(tmp_path):
    base = base_folder(tmp_path / "base")
    first = adapter_folder(tmp_path / "first", str(base))
    with pytest.raises(ConfigError, match="which is itself an adapter; natcomp applies one adapter"):
        read_adapter(adapter_folder(tmp_path / "second", str(first)), "--model")


def test_a_broken_adapter_config_is_one_line(tmp_path):
    folder = tmp_path / "lora"
    folder.mkdir()
    (folder / "adapter_config.json").write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read .*adapter_config.json.*expected peft's adapter_config.json"):
        read_adapter(folder, "--model")


def test_the_base_gives_config_and_job_size_and_the_adapter_its_own_tokenizer(tmp_path):
    """model_config/model_file: an adapter's job is sized as its base's; its tokenizer
    files are its own where it saved a tokenizer, else its base's."""
    base = base_folder(tmp_path / "base")
    adapter = adapter_folder(tmp_path / "lora", str(base))
    assert model_description.model_config(adapter) == BASE_CONFIG
    assert jobsize.job_size("pss_embed", adapter) == jobsize.job_size("pss_embed", base)
    assert model_description.model_file(adapter, "tokenizer_config.json") == base / "tokenizer_config.json"
    (adapter / "tokenizer_config.json").write_text("{}")
    assert model_description.model_file(adapter, "tokenizer_config.json") == adapter / "tokenizer_config.json"
    assert file_location(adapter, "config.json") == str(base.resolve())
    broken = adapter_folder(tmp_path / "broken", "owner/not-cached-model")
    assert model_description.model_config(broken) is None  # sized as a base-size model, refused by natcomp evaluate


def test_reading_an_adapter_imports_neither_torch_nor_peft(tmp_path):
    base = base_folder(tmp_path / "base")
    adapter = adapter_folder(tmp_path / "lora", str(base))
    code = (
        "import sys; from natcomp import adapters, jobsize, model_description; "
        f"adapters.read_adapter({str(adapter)!r}); model_description.model_config({str(adapter)!r}); "
        f"jobsize.job_size('pss_embed', {str(adapter)!r}); "
        "print(sorted({'torch', 'peft', 'transformers'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "src")}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
