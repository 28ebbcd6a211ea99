"""Adapters as models (issue 43.3): a LoRA adapter made with peft on a tiny Llama 3 and a
tiny BERT (tiny_architectures, offline) loads through natcomp's loaders as its base with the
adapter merged, as peft's own PeftModel computes it; its config is the base's, its tokenizer
its own or the base's; its fingerprint is neither the base's nor another adapter's; and
``natcomp evaluate -n`` plans it as its base, naming both. The demo-scale run is in
tests/test_profile_workflow.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf.causal import load_causal_lm
from natcomp.hf.tiny_architectures import build_tiny

TEXTS = ["English: the movie was good\nDutch: de film was goed\n", "the food was great but the service was slow ."]
SENTENCES = ["the movie was good", "the service was slow ."]


def make_adapter(base: Path, folder: Path, head: str, targets: list[str], seed: int, base_name: str | None = None):
    """A LoRA adapter (r=4) on ``base`` loaded as ``head`` (a transformers Auto class name),
    its B matrices random (peft starts them at zero: the adapter would change nothing),
    saved with base_model_name_or_path ``base_name`` (default: ``base`` as loaded)."""
    import transformers
    from peft import LoraConfig, get_peft_model

    model = getattr(transformers, head).from_pretrained(str(base), dtype=torch.float32)
    torch.manual_seed(seed)
    adapted = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=targets, init_lora_weights=False))
    adapted.save_pretrained(folder)
    if base_name is not None:
        settings = json.loads((folder / "adapter_config.json").read_text())
        settings["base_model_name_or_path"] = base_name
        (folder / "adapter_config.json").write_text(json.dumps(settings))
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny Llama 3 and a tiny BERT, two LoRA adapters on the Llama (one naming its base
    relative to itself) and one on the BERT."""
    root = tmp_path_factory.mktemp("adapters")
    llama = build_tiny("llama3", root / "llama3", TEXTS * 10)
    bert = build_tiny("bert", root / "bert", TEXTS * 10)
    return {
        "llama": llama,
        "bert": bert,
        "lora": make_adapter(llama, root / "lora", "AutoModelForCausalLM", ["q_proj", "v_proj"], 1),
        "other": make_adapter(llama, root / "other", "AutoModelForCausalLM", ["q_proj", "v_proj"], 2, "../llama3"),
        "bert_lora": make_adapter(bert, root / "bert-lora", "AutoModelForMaskedLM", ["query", "value"], 3),
    }


def peft_reference(base: Path, adapter: Path, head: str):
    """peft's own PeftModel of ``adapter`` on ``base`` (fp32), not merged."""
    import transformers
    from peft import PeftModel

    model = getattr(transformers, head).from_pretrained(str(base), dtype=torch.float32)
    return PeftModel.from_pretrained(model, str(adapter)).eval()


def test_a_causal_lm_adapter_loads_as_peft_computes_it_and_differs_from_its_base(tiny):
    tokenizer, model = load_causal_lm(tiny["lora"])
    assert type(model).__name__ == "LlamaForCausalLM" and not hasattr(model, "peft_config"), "merged"
    assert model.dtype == torch.float32
    assert all(parameter.requires_grad for parameter in model.parameters()), "fine-tunable as any model"
    batch = tokenizer(SENTENCES, return_tensors="pt", padding=True)
    with torch.no_grad():
        ours = model(**batch).logits
        reference = peft_reference(tiny["llama"], tiny["lora"], "AutoModelForCausalLM")(**batch).logits
        base = load_causal_lm(tiny["llama"])[1](**batch).logits
    torch.testing.assert_close(ours, reference, atol=1e-5, rtol=1e-5)
    assert (ours - base).abs().max() > 1e-2, "the adapter changes the outputs"


def test_the_bare_model_and_a_classifier_of_a_causal_lm_adapter_get_its_weights(tiny):
    """PSS and TRE load the bare model (LlamaModel: no ``model.`` prefix), PLANE and
    NonCompSST a sequence classifier: the adapter trained on LlamaForCausalLM fits both."""
    tokenizer = hf.load_tokenizer(tiny["lora"])
    batch = tokenizer(SENTENCES, return_tensors="pt", padding=True)
    encoder = hf.load_encoder(tiny["lora"])
    assert type(encoder).__name__ == "LlamaModel"
    with torch.no_grad():
        states = encoder(**batch).last_hidden_state
        reference = peft_reference(tiny["llama"], tiny["lora"], "AutoModelForCausalLM").base_model.model.model
        torch.testing.assert_close(states, reference(**batch).last_hidden_state, atol=1e-5, rtol=1e-5)
        base = hf.load_encoder(tiny["llama"])(**batch).last_hidden_state
    assert (states - base).abs().max() > 1e-2
    classifier = hf.load_sequence_classifier(tiny["lora"], 3)
    torch.testing.assert_close(
        classifier.model.layers[0].self_attn.q_proj.weight, encoder.layers[0].self_attn.q_proj.weight
    )


def test_a_bert_adapter_loads_as_masked_lm_and_as_encoder(tiny):
    tokenizer = hf.load_tokenizer(tiny["bert_lora"])
    batch = tokenizer(SENTENCES, return_tensors="pt", padding=True)
    reference = peft_reference(tiny["bert"], tiny["bert_lora"], "AutoModelForMaskedLM")
    with torch.no_grad():
        masked = hf.load_masked_lm(tiny["bert_lora"])(**batch).logits
        torch.testing.assert_close(masked, reference(**batch).logits, atol=1e-5, rtol=1e-5)
        states = hf.load_encoder(tiny["bert_lora"])(**batch).last_hidden_state
        expected = reference.base_model.model.bert(**batch).last_hidden_state
        torch.testing.assert_close(states, expected, atol=1e-5, rtol=1e-5)
        assert (states - hf.load_encoder(tiny["bert"])(**batch).last_hidden_state).abs().max() > 1e-2


def test_the_config_is_the_bases_and_the_tokenizer_the_adapters_own_where_it_has_one(tiny, tmp_path):
    assert hf.load_config(tiny["lora"]).to_dict() == hf.load_config(tiny["llama"]).to_dict()
    assert hf.check_model_available(tiny["lora"], "--model") == str(tiny["lora"])
    base_tokenizer = hf.load_tokenizer(tiny["llama"])
    assert hf.load_tokenizer(tiny["lora"]).get_vocab() == base_tokenizer.get_vocab()
    own = tmp_path / "own-tokenizer"
    import shutil

    shutil.copytree(tiny["lora"], own)
    base_tokenizer.add_tokens(["<adapter-token>"])
    base_tokenizer.save_pretrained(own)
    assert "<adapter-token>" in hf.load_tokenizer(own).get_vocab()
    assert hf.has_chat_template(own) is False


def test_a_base_named_relative_to_the_adapter_folder_loads(tiny):
    assert json.loads((tiny["other"] / "adapter_config.json").read_text())["base_model_name_or_path"] == "../llama3"
    tokenizer, model = load_causal_lm(tiny["other"])
    assert type(model).__name__ == "LlamaForCausalLM"


def test_adapter_weights_that_fit_no_module_of_the_base_are_one_line_not_a_silent_base(tiny, tmp_path):
    """An adapter whose weight names fit none of the base's modules would leave peft's
    fresh LoRA weights in place (B = 0: the base unchanged, with a warning only)."""
    import shutil

    from safetensors.torch import load_file, save_file

    broken = tmp_path / "renamed"
    shutil.copytree(tiny["lora"], broken)
    weights = load_file(broken / "adapter_model.safetensors")
    save_file(
        {name.replace(".layers.", ".blocks."): value for name, value in weights.items()},
        broken / "adapter_model.safetensors",
    )
    with pytest.raises(ConfigError) as error:
        hf.load_encoder(broken, "pss.encoders.mine.model")
    (line,) = str(error.value).splitlines()
    assert line.startswith(f"config pss.encoders.mine.model: the weights of adapter {broken} do not fit the modules")
    assert "loaded as LlamaModel" in line and "expected an adapter trained on this base" in line


def test_two_adapters_on_one_base_and_the_base_have_three_fingerprints(tiny, tmp_path):
    """The MT decode signatures (hf:..., causal:...) take model_fingerprint: no two of them
    share a translation cache; the adapter's changes with its base's weights too."""
    import shutil

    from natcomp.mt.hf_translation import detect_family, model_fingerprint

    prints = {model_fingerprint(tiny[name]) for name in ("llama", "lora", "other")}
    assert len(prints) == 3
    assert model_fingerprint(tiny["lora"]) == model_fingerprint(tiny["lora"]), "stable"
    base = tmp_path / "llama3"
    shutil.copytree(tiny["llama"], base)
    moved = make_adapter(base, tmp_path / "lora", "AutoModelForCausalLM", ["q_proj", "v_proj"], 1)
    before = model_fingerprint(moved)
    (base / "generation_config.json").write_text('{"do_sample": false}')
    assert model_fingerprint(moved) != before
    assert detect_family(tiny["lora"]) == "causal"


def test_the_plan_of_an_adapter_is_its_bases_naming_both(tiny, tmp_path, monkeypatch):
    from natcomp.profile.cli import plan_run

    monkeypatch.chdir(tmp_path)
    plan = plan_run(str(tiny["lora"]))
    base = plan_run(str(tiny["llama"]))
    assert plan.description.startswith(
        f"adapter {tiny['lora']} (LoRA r=4 alpha=8 on q_proj,v_proj) on base {tiny['llama']} is causal LM"
    )
    assert [row.family for row in plan.rows] == [row.family for row in base.rows]
    assert plan.name == "lora" and plan.config["pss"]["encoders"]["lora"]["model"] == str(tiny["lora"])
    assert plan.record["adapter"] == str(tiny["lora"]) and plan.record["base_model"] == str(tiny["llama"])
    assert plan.record["adapter_method"] == "LoRA r=4 alpha=8 on q_proj,v_proj"
    assert plan.record["checkpoint_dtype"] == base.record["checkpoint_dtype"] == "bf16"


def test_natcomp_evaluate_refuses_an_adapter_whose_base_is_missing_in_one_line(tiny, tmp_path, monkeypatch, capsys):
    import shutil

    from natcomp.cli import main

    lost = tmp_path / "lost"
    shutil.copytree(tiny["lora"], lost)
    settings = json.loads((lost / "adapter_config.json").read_text())
    settings["base_model_name_or_path"] = str(tmp_path / "deleted-base")
    (lost / "adapter_config.json").write_text(json.dumps(settings))
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--model", str(lost), "-n"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(
        f"natcomp: error: --model: adapter {lost} names the base model '{tmp_path / 'deleted-base'}'"
    )
    assert main(["mt", "evaluate", "--model", str(lost), "-n"]) == 2
    assert "names the base model" in capsys.readouterr().err
