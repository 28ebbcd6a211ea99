"""A model too large for one GPU, spread over the job's GPUs (natcomp.hf.placement): the
decision, by hand, and a placed tiny model (some of its layers offloaded, accelerate's hooks
carrying the states, as across GPUs) running natcomp's batched inference through natcomp's
loaders with the same outputs as the unplaced model (on the CPU: no GPU here)."""

from __future__ import annotations

import numpy as np
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf import models
from natcomp.hf.placement import load_placement, placement

#: parameters of Llama-3.1-8B and -70B (natcomp.jobsize.parameter_count of their configs)
LLAMA_8B, LLAMA_70B = 8_029_995_008, 70_552_387_584
GB = 1_000_000_000


def test_nothing_to_place_without_a_gpu_an_unknown_size_or_a_model_one_gpu_holds():
    assert placement(LLAMA_70B, "bf16", []) == {}
    assert placement(None, "bf16", [80 * GB] * 3) == {}
    # 8B in bf16: 16.06 GB of weights x 1.25 = 20.07 GB, on an 80 GB GPU and on a 24 GB one
    assert placement(LLAMA_8B, "bf16", [80 * GB]) == {}
    assert placement(LLAMA_8B, "bf16", [24 * GB, 24 * GB]) == {}
    assert load_placement("no-such-model", "bf16") == {}, "no GPU here: never placed"


def test_a_model_one_gpu_cannot_hold_is_spread_with_a_weights_budget_per_gpu():
    # 70B in bf16: 141.1 GB of weights; each 80 GB GPU holds 80 / 1.25 = 64 GB of them (59 GiB)
    assert placement(LLAMA_70B, "bf16", [80 * GB] * 3) == {
        "device_map": "auto",
        "max_memory": {0: "59GiB", 1: "59GiB", 2: "59GiB"},
    }
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
