"""PSS with decoder-only models: the sentence embeddings FB and TRE read (``mean`` and ``last``
pooling through natcomp.hf.embed_texts) and the FT model's pooled state, each checked against the
state of the text computed alone, on a tiny GPT-2 and a tiny Llama padded on either side; FT of a
tiny causal LM; ``cls`` of a decoder-only model refused before any training.

Alone, a text has no padding and the model's own positions 0..n-1, so a batch matches it only if
the pooling leaves the padding out (``mean``), reads the last real token rather than the last
column (``last``, right padding) and counts positions from each text's first real token (left
padding; GPT-2's absolute position embeddings show any shift)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.pss.classifiers import EncoderClassifier, embed_sentences, fine_tune_encoder, predict_texts

#: texts of unequal length, so a batch of them is padded
TEXTS = ["the food was good .", "bad .", "the staff was not very nice at all and the pizza was cold ."]
CORPUS = TEXTS + ["the service was great .", "the place was dull .", "nice pizza , rude staff ."]
SETTINGS = hf.FineTuneSettings(
    epochs=1, batch_size=4, learning_rate=1e-3, seed=0, device="cpu", warmup_ratio=0.0, max_length=32
)
TINY = {"vocab_size": 300, "d_model": 32, "layers": 2, "heads": 4, "max_positions": 64, "seed": 3}


@pytest.fixture(scope="module", params=hf.TINY_CAUSAL_KINDS)
def tiny_causal(request, tmp_path_factory):
    """A tiny causal LM of each kind, saved once with a right- and once with a left-padding tokenizer."""
    folder = tmp_path_factory.mktemp(request.param)
    right = hf.build_tiny_causal_lm(folder / "right", CORPUS, kind=request.param, **TINY)
    left = shutil.copytree(right, folder / "left")
    settings = left / "tokenizer_config.json"  # the tokenizer's own setting, as a Llama release has it
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "padding_side": "left"}))
    folders = {"right": str(right), "left": str(left)}
    for side, path in folders.items():
        assert hf.load_tokenizer(path).padding_side == side
    return folders


def alone(model_folder: str, pooling: str) -> np.ndarray:
    """Each text's pooled state computed by hand: the text by itself, no padding, no mask;
    the mean of its own tokens (Llama's BOS left out, issue 41.4)."""
    model, tokenizer = hf.load_encoder(model_folder).eval(), hf.load_tokenizer(model_folder)
    rows = []
    with torch.no_grad():
        for text in TEXTS:
            ids = tokenizer(text, return_tensors="pt")["input_ids"]
            states = model(input_ids=ids).last_hidden_state[0]
            own = torch.tensor([token not in tokenizer.all_special_ids for token in ids[0].tolist()])
            rows.append(states[own].mean(dim=0) if pooling == "mean" else states[-1])
    return torch.stack(rows).numpy()


def test_the_texts_are_padded_on_the_side_the_tokenizer_says(tiny_causal):
    for side, folder in tiny_causal.items():
        batch = hf.load_tokenizer(folder)(TEXTS, padding=True, return_tensors="pt")
        mask = batch["attention_mask"]
        assert len(set(mask.sum(dim=1).tolist())) == len(TEXTS)  # unequal lengths: padding in the batch
        padded_column = 0 if side == "left" else -1
        assert mask[:, padded_column].tolist().count(0) == len(TEXTS) - 1


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("pooling", ["mean", "last"])
def test_frozen_embeddings_pool_each_text_as_if_alone(tiny_causal, side, pooling):
    # the embeddings of FB and TRE (natcomp.hf.embed_texts), all texts in one padded batch
    embedded = embed_sentences(tiny_causal[side], TEXTS, pooling=pooling, device="cpu")
    np.testing.assert_allclose(embedded, alone(tiny_causal[side], pooling), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("pooling", ["mean", "last"])
def test_the_fine_tuned_model_pools_each_text_as_if_alone(tiny_causal, side, pooling):
    folder = tiny_causal[side]
    tokenizer = hf.load_tokenizer(folder)
    model = EncoderClassifier(
        hf.load_encoder(folder), torch.nn.Identity(), pooling, special_ids=tokenizer.all_special_ids
    ).eval()
    batch = tokenizer(TEXTS, padding=True, return_tensors="pt")
    with torch.no_grad():
        pooled = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])["logits"].numpy()
    np.testing.assert_allclose(pooled, alone(folder, pooling), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("side", "pooling", "head"), [("left", "last", "linear"), ("right", "mean", "dnn")])
def test_fine_tuning_a_causal_lm_trains_it_and_predicts_every_text(tiny_causal, side, pooling, head):
    folder = tiny_causal[side]
    texts = CORPUS * 2
    labels = [index % 2 for index in range(len(texts))]
    model, tokenizer = fine_tune_encoder(folder, head, texts, labels, SETTINGS, pooling=pooling)
    predictions = predict_texts(model, tokenizer, TEXTS, max_length=32)
    assert predictions.shape == (len(TEXTS),) and set(predictions.tolist()) <= {0, 1}
    untrained = hf.load_encoder(folder).state_dict()
    assert any(not torch.equal(value, untrained[name]) for name, value in model.encoder.state_dict().items())


def test_cls_pooling_of_a_decoder_only_model_is_a_config_error_naming_the_encoder(tiny_causal, monkeypatch):
    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(hf, "fine_tune_classifier", no_training)
    with pytest.raises(ConfigError, match=r"^config pss\.encoders\.gpt\.pooling: 'cls' of a decoder-only model"):
        fine_tune_encoder(
            tiny_causal["right"],
            "linear",
            TEXTS,
            [0, 1, 0],
            SETTINGS,
            pooling="cls",
            pooling_key="pss.encoders.gpt.pooling",
        )
