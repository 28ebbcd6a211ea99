"""natcomp.hf.causal: tiny GPT-2 and Llama models saved and loaded back through
from_pretrained, chat templates, and the causal-LM check of load_causal_lm."""

from __future__ import annotations

import json

import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf.causal import build_tiny_causal_lm, has_chat_template, load_causal_lm

# ---------------------------------------------------------------- tiny models and loading


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_tiny_causal_lm_loads_like_a_released_one(tiny_causal, kind):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = tiny_causal[kind]
    raw_tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    assert type(model).__name__ == {"gpt2": "GPT2LMHeadModel", "llama": "LlamaForCausalLM"}[kind]
    assert raw_tokenizer.pad_token is None  # like the released GPT-2 and Llama
    ids = raw_tokenizer("The poet sees the king.").input_ids
    # Llama's tokenizer starts every text with BOS, GPT-2's does not.
    assert (ids[0] == raw_tokenizer.bos_token_id) == (kind == "llama")
    assert raw_tokenizer.decode(ids, skip_special_tokens=True) == "The poet sees the king."
    assert model.config.vocab_size == len(raw_tokenizer) <= 300
    assert not has_chat_template(folder)


def test_equal_arguments_give_equal_models(tmp_path, make_tiny_causal):
    from safetensors.torch import load_file

    first, second, other = (
        make_tiny_causal(tmp_path / name, kind="llama", seed=seed) for name, seed in (("a", 1), ("b", 1), ("c", 2))
    )
    weights = [load_file(folder / "model.safetensors") for folder in (first, second, other)]
    assert all((weights[0][name] == weights[1][name]).all() for name in weights[0])
    assert any((weights[0][name] != weights[2][name]).any() for name in weights[0])
    assert (first / "tokenizer.json").read_text() == (second / "tokenizer.json").read_text()


def test_build_tiny_causal_lm_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="kind must be one of gpt2, llama"):
        build_tiny_causal_lm(tmp_path / "m", ["a text"], kind="bert")
    with pytest.raises(ValueError, match="no texts"):
        build_tiny_causal_lm(tmp_path / "m", [])
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_load_causal_lm_pads_on_the_left_with_the_eos_token(tiny_causal, kind):
    tokenizer, model = load_causal_lm(tiny_causal[kind])
    assert tokenizer.padding_side == "left"
    assert tokenizer.pad_token is not None and tokenizer.pad_token == tokenizer.eos_token
    assert model.generation_config.pad_token_id == tokenizer.pad_token_id
    assert not model.training
    batch = tokenizer(["The poet", "The poet sees the king."], padding=True)
    assert batch["attention_mask"][0][0] == 0 and batch["attention_mask"][0][-1] == 1


def test_load_causal_lm_refuses_a_masked_lm_naming_the_key(tmp_path):
    folder = hf.build_tiny_model(tmp_path / "bert", ["the", "poet"], kind="masked_lm")
    with pytest.raises(ConfigError) as caught:
        load_causal_lm(folder, key="mt.systems.llm.model")
    message = str(caught.value)
    assert "mt.systems.llm.model" in message and "BertForMaskedLM" in message and "\n" not in message


def test_load_causal_lm_refuses_a_missing_model(tmp_path):
    with pytest.raises(ConfigError, match="model"):
        load_causal_lm(tmp_path / "nothing")


def test_instruct_model_has_a_chat_template(tiny_instruct, tiny_causal):
    assert has_chat_template(tiny_instruct)
    assert not has_chat_template(tiny_causal["llama"])
    tokenizer, _ = load_causal_lm(tiny_instruct)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Translate: the poet"}], tokenize=False, add_generation_prompt=True
    )
    assert "Translate: the poet" in prompt and prompt.endswith("<|assistant|>\n")


def test_has_chat_template_reads_tokenizer_config(tmp_path, tiny_causal):
    import shutil

    folder = shutil.copytree(tiny_causal["gpt2"], tmp_path / "copy")
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["chat_template"] = "{{ messages[0]['content'] }}"
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert has_chat_template(folder)
    assert not has_chat_template(tmp_path / "missing")
