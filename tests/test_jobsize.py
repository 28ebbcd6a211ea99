"""The memory and time a model's job asks for, from its config (natcomp.jobsize)."""

from __future__ import annotations

import json

import pytest

from natcomp import jobsize

#: Qwen2.5-0.5B's config.json (the sizes; a real 494M-parameter model)
QWEN_05B = {
    "model_type": "qwen2",
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "tie_word_embeddings": True,
}
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


@pytest.mark.parametrize(
    "config, published",
    [(QWEN_05B, 494_032_768), (BERT_BASE, 109_482_240), (GPT2, 124_439_808), (LLAMA_1B, 1_235_814_400)],
)
def test_parameter_counts_are_within_two_percent_of_the_published_ones(config, published):
    assert abs(jobsize.parameter_count(config) - published) / published < 0.02


def test_an_untied_output_layer_and_an_unknown_size():
    untied = {**QWEN_05B, "tie_word_embeddings": False}
    assert jobsize.parameter_count(untied) - jobsize.parameter_count(QWEN_05B) == 151936 * 896
    assert jobsize.parameter_count({"model_type": "qwen2"}) is None


def test_memory_and_time_scale_with_the_model_read_from_its_folder(tmp_path):
    folder = tmp_path / "qwen"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(QWEN_05B))
    parameters = jobsize.parameter_count(QWEN_05B)
    assert jobsize.job_mem_mb(folder, 2000) == 2000 + -(-parameters * 8 // 1_000_000)
    assert jobsize.job_runtime_min(folder, 60) == -(-60 * parameters // 110_000_000) == 270
    small = tmp_path / "small"
    small.mkdir()
    (small / "config.json").write_text(json.dumps({**BERT_BASE, "num_hidden_layers": 2}))
    assert jobsize.job_runtime_min(small, 60) == 60, "never below the rule's own minutes"
    # a model whose config is not here is sized as a base-size encoder
    assert jobsize.job_mem_mb(tmp_path / "missing", 2000) == 2000 + 880
    assert jobsize.job_runtime_min(None, 45) == 45


def test_a_rules_resources_read_the_jobs_model_from_its_wildcards(tmp_path):
    folder = tmp_path / "qwen"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(QWEN_05B))
    models = {"qwen": str(folder), "other": str(tmp_path / "missing")}
    mem_mb = jobsize.scaled_mem_mb(lambda wildcards: models[wildcards.model], 1000)
    runtime = jobsize.scaled_runtime(lambda wildcards: models[wildcards.model], 10)

    class Wildcards:
        def __init__(self, model):
            self.model = model

    weights_mb = -(-jobsize.parameter_count(QWEN_05B) * 8 // 1_000_000)
    assert mem_mb(Wildcards("qwen")) == 1000 + weights_mb and runtime(Wildcards("qwen")) == 45
    assert mem_mb(Wildcards("other")) == 1000 + 880 and runtime(Wildcards("other")) == 10
