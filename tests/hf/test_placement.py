"""A model too large for one GPU, spread over the job's GPUs (natcomp.hf.placement): the
decision, by hand, and a placed tiny model (some of its layers offloaded, accelerate's hooks
carrying the states, as across GPUs) running natcomp's batched inference, and fine-tuned
under NonCompSST's and PSS's own heads, through natcomp's loaders with the same outputs as
the unplaced model (on the CPU: no GPU here)."""

from __future__ import annotations

import numpy as np
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.finetuning import FineTuning
from natcomp.hf import models
from natcomp.hf.placement import load_placement, placement

#: parameters of Llama-3.1-8B and -70B (natcomp.model_description.parameter_count of their configs)
LLAMA_8B, LLAMA_70B = 8_029_995_008, 70_552_387_584
GB = 1_000_000_000


def test_nothing_to_place_without_a_gpu_and_straight_onto_the_gpu_where_one_holds_it():
    assert placement(LLAMA_70B, "bf16", []) == {}
    assert load_placement("no-such-model", "bf16") == {}, "no GPU here: never placed"
    # 8B in bf16: 16.06 GB of weights x 1.25 = 20.07 GB, on an 80 GB GPU and on a 24 GB one:
    # loaded onto the first GPU, tensor by tensor, never whole in host memory (an unknown size too)
    one_gpu = {"device_map": {"": 0}}
    assert placement(LLAMA_8B, "bf16", [80 * GB]) == one_gpu
    assert placement(LLAMA_8B, "bf16", [24 * GB, 24 * GB]) == one_gpu
    assert placement(None, "bf16", [80 * GB] * 3) == one_gpu


def test_a_model_one_gpu_cannot_hold_is_spread_with_a_weights_budget_per_gpu():
    # 70B in bf16: 141.1 GB of weights; each 80 GB GPU holds 80 / 1.25 = 64 GB of them (59 GiB)
    assert placement(LLAMA_70B, "bf16", [80 * GB] * 3) == {
        "device_map": "auto",
        "max_memory": {0: "59GiB", 1: "59GiB", 2: "59GiB"},
    }
    # what an "80 GB" H100 reports (torch's total_memory, 79.2 GiB): 63 GiB of weights each
    assert placement(LLAMA_70B, "bf16", [85_029_158_912] * 3)["max_memory"] == {0: "63GiB", 1: "63GiB", 2: "63GiB"}
    # 8B on two 16 GB GPUs: 12.8 GB (11 GiB) of weights each
    assert placement(LLAMA_8B, "bf16", [16 * GB] * 2)["max_memory"] == {0: "11GiB", 1: "11GiB"}
    # in fp32 an 8B model (32.1 GB x 1.25 = 40.1 GB) needs two 40 GB GPUs
    assert placement(LLAMA_8B, "fp32", [40 * GB] * 2)["device_map"] == "auto"


def test_weights_beyond_the_gpus_the_job_sees_are_one_line_naming_the_key():
    with pytest.raises(ConfigError) as error:
        placement(LLAMA_70B, "bf16", [80 * GB] * 2, key="tre.encoders.llama.model", model="llama-70b")
    assert error.value.key == "tre.encoders.llama.model"
    assert error.value.message.startswith("llama-70b's 141 GB of bf16 weights do not fit the 2 GPUs this job sees")


#: the tiny Llama's second layer offloaded: accelerate's hooks bring it in for its forward
#: pass, as they carry the states from one GPU to the next in a model spread over GPUs
OFFLOADED = {"embed_tokens": "cpu", "layers.0": "cpu", "layers.1": "disk", "norm": "cpu", "rotary_emb": "cpu"}


@pytest.fixture
def placed(monkeypatch, tmp_path):
    """Make natcomp's loaders place every model by ``device_map`` (prefix: ``model.`` for a
    model with a head) instead of asking the GPUs."""

    def place(prefix: str = "") -> None:
        device_map = {prefix + name: device for name, device in OFFLOADED.items()}
        if prefix:
            device_map["lm_head"] = "cpu"
        monkeypatch.setattr(
            models,
            "load_placement",
            lambda source, dtype, key: {"device_map": device_map, "offload_folder": str(tmp_path / "offload")},
        )

    return place


def test_a_placed_causal_lm_scores_and_generates_as_the_unplaced_one(tiny_causal, placed):
    settings = hf.GenerationSettings(batch_size=2, max_new_tokens=6, device="cpu")
    contexts, continuations = ["The poet", "English: The poet sees", "The king"], [" sees", " the king.", " admires"]
    prompts = ["The poet sees", "English: The poet sees the king.\nDutch:"]
    plain = hf.CausalGenerator(tiny_causal["llama"], settings)
    placed("model.")
    spread = hf.CausalGenerator(tiny_causal["llama"], settings)
    assert hf.is_placed(spread.model) and not hf.is_placed(plain.model)
    assert spread.model.hf_device_map["model.layers.1"] == "disk" and str(spread.device) == "cpu"
    assert spread.loglikelihoods(contexts, continuations) == pytest.approx(
        plain.loglikelihoods(contexts, continuations)
    )
    assert spread.generate(prompts) == plain.generate(prompts)


def test_a_placed_decoder_embeds_as_the_unplaced_one(tiny_causal, placed):
    texts = ["The poet sees the king.", "The mayor forgets the baker.", "De dichter ziet de koning."]
    unplaced = {
        pooling: hf.embed_texts(hf.EncoderSpec(tiny_causal["llama"], pooling), texts) for pooling in ("mean", "last")
    }
    placed()
    encoder = hf.load_encoder(tiny_causal["llama"])
    assert hf.is_placed(encoder) and encoder.hf_device_map["layers.1"] == "disk"
    for pooling, expected in unplaced.items():
        spread = hf.embed_texts(hf.EncoderSpec(tiny_causal["llama"], pooling), texts, device="cpu", batch_size=2)
        np.testing.assert_allclose(spread, expected, rtol=1e-5, atol=1e-6)


#: the tiny Llama with its embeddings and final norm offloaded to disk, as a wrapped backbone:
#: LoRA adapts the attention projections of the layers, which stay on the CPU (accelerate
#: cannot train adapters inside an offloaded layer, and a placed model on GPUs offloads none)
HEAD_OFFLOADED = {"embed_tokens": "disk", "layers.0": "cpu", "layers.1": "cpu", "norm": "disk", "rotary_emb": "cpu"}
LORA = FineTuning(method="lora", rank=2, alpha=4, dropout=0.0, gradient_checkpointing=False, learning_rate=1e-2)
TEXTS = ["The poet sees the king.", "The mayor forgets the baker.", "The king admires the poet.", "The baker sees."]


def _with_head(family: str, folder: str):
    """NonCompSST's released head or PSS's FT model around the bare model of ``folder``."""
    import torch

    from natcomp.noncompsst.head import SentimentHeadClassifier
    from natcomp.pss.classifiers import EncoderClassifier, make_head

    encoder = hf.load_encoder(folder)
    torch.manual_seed(0)
    if family == "noncompsst":
        return SentimentHeadClassifier(encoder, 7)
    return EncoderClassifier(encoder, make_head("dnn", encoder.config.hidden_size, 2), "mean")


@pytest.mark.parametrize("family", ["noncompsst", "pss"])
def test_a_placed_model_under_natcomps_heads_fine_tunes_and_predicts_as_the_unplaced_one(
    tiny_causal, monkeypatch, tmp_path, family
):
    """One definition of placed (a module holding a spread model is placed); the heads on the
    device of the states they read; no ``.to`` on a placed model: before, predicting moved the
    whole model (meta tensors of the offloaded layers: an error) and the inputs went to the
    offloaded embeddings' meta device."""
    import dataclasses

    folder = tiny_causal["llama"]
    tokenizer = hf.load_tokenizer(folder)
    labels = [index % (7 if family == "noncompsst" else 2) for index in range(len(TEXTS))]
    settings = hf.FineTuneSettings(epochs=1, batch_size=2, learning_rate=1e-5, device="cpu", fine_tuning=LORA)
    outputs = {}
    for placed in (False, True):
        if placed:
            offload = {"device_map": HEAD_OFFLOADED, "offload_folder": str(tmp_path / "offload")}
            monkeypatch.setattr(models, "load_placement", lambda source, dtype, key: offload)
        model = _with_head(family, folder)
        assert hf.is_placed(model) is placed and hf.is_placed(model.encoder) is placed
        hf.fine_tune_classifier(model, tokenizer, TEXTS, labels, settings=dataclasses.replace(settings))
        outputs[placed] = hf.predict_logits(model, tokenizer, TEXTS, batch_size=3, device="cpu")
        if placed:
            assert model.encoder.hf_device_map["embed_tokens"] == "disk"
    np.testing.assert_allclose(outputs[True], outputs[False], rtol=1e-5, atol=1e-6)


def test_the_heads_go_to_the_device_the_placed_model_runs_on(tiny_causal, monkeypatch, tmp_path):
    """A placed model's states come back to the device accelerate runs it on (its dispatch
    hook's, the first GPU): the head natcomp built on the CPU goes there, and the inputs too.
    (The meta device stands in for a GPU here: nothing is computed.)"""
    import torch

    from natcomp.hf import lora

    offload = {"device_map": HEAD_OFFLOADED, "offload_folder": str(tmp_path / "offload")}
    monkeypatch.setattr(models, "load_placement", lambda source, dtype, key: offload)
    model = _with_head("noncompsst", tiny_causal["llama"])
    model.encoder._hf_hook.execution_device = torch.device("meta")
    assert lora.place_for_training(model, "lora", torch.device("cpu")) == torch.device("meta")
    assert {parameter.device.type for parameter in model.head.parameters()} == {"meta"}
    assert hf.model_device(model) == torch.device("meta")
    assert model.encoder.layers[0].self_attn.q_proj.weight.device.type == "cpu", "the placed model stays put"
