"""Each fine-tuning family's library entry point fine-tunes with LoRA when its setting says
so, and says which method it used (issue 43): NonCompSST's train_and_predict (and its
metrics.json), PLANE's fine_tune_and_test, PSS's fine_tune_encoder."""

from __future__ import annotations

import json
import logging

import pandas as pd
import pytest
import torch

from natcomp import hf
from natcomp.finetuning import FineTuning

TEXTS = [f"the {a} sees the {b} ." for a in ("poet", "king", "baker", "mayor") for b in ("farmer", "judge", "cook")]
LORA = FineTuning(method="lora", rank=4, alpha=8, dropout=0.0, gradient_checkpointing=True)
DESCRIBED = "LoRA r=4, alpha=8 on q,k,v,o, lr 2e-4, gradient checkpointing"  # QLoRA's rate: none given


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("lora_families")
    bert = hf.build_tiny_model(root / "bert", hf.words_for_vocabulary(TEXTS), kind="base")
    llama = hf.build_tiny_causal_lm(
        root / "llama", TEXTS, kind="llama", vocab_size=260, d_model=32, layers=2, heads=4, max_positions=64
    )
    return {"bert": str(bert), "llama": str(llama)}


def _settings(**overrides) -> hf.FineTuneSettings:
    return hf.FineTuneSettings(
        **{"epochs": 1, "batch_size": 4, "learning_rate": 1e-2, "device": "cpu", "max_length": 16, "fine_tuning": LORA}
        | overrides
    )


@pytest.mark.parametrize("architecture", ["bert", "llama"])
def test_noncompsst_fine_tunes_with_lora_and_reports_it(tiny, architecture):
    from natcomp.noncompsst.models import train_and_predict

    rows = [(text, index % 7) for index, text in enumerate(TEXTS)]
    sst7 = {"train": rows, "validation": rows[:4], "test": rows[4:]}
    result = train_and_predict(tiny[architecture], sst7, TEXTS[:2], _settings(select_best=True))
    assert result.fine_tuning == DESCRIBED
    assert len(result.stimulus_predictions) == 2
    auto = train_and_predict(tiny[architecture], sst7, TEXTS[:2], _settings(fine_tuning=FineTuning()))
    assert auto.fine_tuning == "full", "auto: a tiny model is fine-tuned in full"


def test_noncompsst_records_the_method_in_its_metrics(tmp_path, monkeypatch):
    from natcomp.noncompsst import models
    from natcomp.noncompsst.pipeline import run_training
    from natcomp.noncompsst.sst7 import write_sst7
    from natcomp.noncompsst.stimuli import Phrase, write_stimuli

    seen = []

    def fake_train_and_predict(model, sst7, stimuli, settings, *, logger):
        seen.append(settings.fine_tuning)
        return models.SeedResult(settings.seed, 0.5, 1, [], [3] * len(stimuli), 0.0, fine_tuning=DESCRIBED)

    monkeypatch.setattr(models, "train_and_predict", fake_train_and_predict)
    phrase = Phrase("a film", "a film", "is good", "is good", ("the plot",), ("is fine",))
    write_stimuli(tmp_path / "stimuli.tsv", [phrase])
    sst7 = {name: tmp_path / f"{name}.tsv" for name in ("train", "validation", "test")}
    for path in sst7.values():
        write_sst7(path, [("a film is good", 4)])
    training = {"epochs": 1, "batch_size": 2, "learning_rate": 1e-3, "fine_tuning": LORA.as_config()}
    paths = (tmp_path / "stimuli.tsv", tmp_path / "predictions.tsv", tmp_path / "metrics.json")
    run_training("model", sst7, *paths, training=training, seed=1, stanza_dir=tmp_path / "no_stanza_here")
    assert seen == [LORA]
    assert json.loads((tmp_path / "metrics.json").read_text())["fine_tuning"] == DESCRIBED


def test_plane_fine_tunes_with_lora_and_reports_it(tiny):
    from natcomp.plane.finetune import fine_tune_and_test

    sentences = [f"A {adj} poet is a king ." for adj in ("red", "fake", "big", "good")]
    train = pd.DataFrame({"sentence": sentences * 2, "label": [1, 0, 1, 0] * 2})
    test = pd.DataFrame({"sentence": sentences, "label": [1, 0, 1, 0]}).assign(
        **{"class": "I", "it": "IT2", "adj": "red", "noun": "poet", "hyp": "king"}
    )
    for architecture in ("bert", "llama"):
        predictions, result = fine_tune_and_test(tiny[architecture], train, {"test": test}, _settings())
        assert result.fine_tuning == DESCRIBED
        assert len(predictions) == 4 and set(predictions["predicted"]) <= {0, 1}
        assert any("lora_" in name for name, _ in result.model.named_parameters())


def test_pss_fine_tunes_with_lora_and_logs_it(tiny, caplog):
    from natcomp.pss.classifiers import fine_tune_encoder, predict_texts

    labels = [index % 2 for index in range(len(TEXTS))]
    log = logging.getLogger("natcomp.test.pss")
    with caplog.at_level(logging.INFO, logger="natcomp.test.pss"):
        model, tokenizer = fine_tune_encoder(
            tiny["llama"], "linear", TEXTS, labels, _settings(), pooling="mean", log=log
        )
    assert f"fine-tuning: {DESCRIBED}; " in caplog.text
    trainable = {name for name, parameter in model.named_parameters() if parameter.requires_grad}
    assert trainable == {name for name in trainable if "lora_" in name or name.startswith("head.")}
    assert model.encoder.is_activation_checkpointing
    assert set(predict_texts(model, tokenizer, TEXTS)) <= {0, 1}
    assert all(parameter.dtype == torch.float32 for parameter in model.parameters()), "a CPU trains in fp32"


@pytest.fixture(scope="module")
def tiny_gemma3(tmp_path_factory):
    """A tiny Gemma 3 multimodal checkpoint (Gemma3ForConditionalGeneration: its language
    model's sizes under text_config, a SigLIP vision tower), with a Gemma tokenizer."""
    import transformers

    from natcomp.hf.tiny_architectures import build_tiny

    root = tmp_path_factory.mktemp("gemma3")
    tokenizer = hf.load_tokenizer(build_tiny("gemma2", root / "tokenizer", TEXTS))
    ids = {name: getattr(tokenizer, name) for name in ("bos_token_id", "eos_token_id", "pad_token_id")}
    text = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1)
    vision = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, image_size=28)
    config = transformers.Gemma3Config(
        text_config={**text, "head_dim": 16, "vocab_size": len(tokenizer), "sliding_window": 16, **ids},
        vision_config={**vision, "patch_size": 14},
        mm_tokens_per_image=4,
        architectures=["Gemma3ForConditionalGeneration"],
    )
    transformers.set_seed(0)
    return str(hf.save_model(transformers.Gemma3ForConditionalGeneration(config), tokenizer, root / "gemma3"))


def test_a_multimodal_checkpoints_language_model_carries_natcomps_heads_and_lora(tiny_gemma3):
    """Gemma 3 keeps its width under text_config: NonCompSST's head, PSS's embeddings and FT
    head read it there, and LoRA adapts the language model's projections (gemma3_text), the
    vision tower frozen and without adapters. Before, every one of them stopped on
    ``'Gemma3Config' object has no attribute 'hidden_size'``."""
    from natcomp.noncompsst.models import train_and_predict
    from natcomp.pss.classifiers import fine_tune_encoder

    rows = [(text, index % 7) for index, text in enumerate(TEXTS)]
    sst7 = {"train": rows, "validation": rows[:4], "test": rows[4:]}
    result = train_and_predict(tiny_gemma3, sst7, TEXTS[:2], _settings())
    assert result.fine_tuning == DESCRIBED and len(result.stimulus_predictions) == 2
    embeddings = hf.embed_texts(hf.EncoderSpec(tiny_gemma3, "mean"), TEXTS[:3])
    assert embeddings.shape == (3, 32)
    model, _ = fine_tune_encoder(
        tiny_gemma3, "linear", TEXTS, [index % 2 for index in range(len(TEXTS))], _settings(), pooling="last"
    )
    adapted = [name for name, _ in model.named_parameters() if "lora_" in name]
    assert adapted and all(".language_model." in name for name in adapted)
    assert not any(parameter.requires_grad for name, parameter in model.named_parameters() if "vision_tower" in name)
