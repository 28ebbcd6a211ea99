"""Heads on frozen embeddings (FB) and an encoder fine-tuned with a head (FT), with tiny models."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.pss.classifiers import (
    EncoderClassifier,
    HeadSettings,
    embed_sentences,
    make_head,
    predict_head,
    train_head,
)
from natcomp.pss.experiment import LabelledSentences, PairSentences, evaluate_fine_tuned, evaluate_frozen

POSITIVE = ["good", "great", "fun", "nice"]
NEGATIVE = ["bad", "awful", "dull", "rude"]
NOUNS = ["food", "staff", "place", "service", "pizza"]


def sentences(rng, count):
    texts, labels = [], []
    for _ in range(count):
        label = int(rng.integers(0, 2))
        word = rng.choice(POSITIVE if label else NEGATIVE)
        texts.append(f"the {rng.choice(NOUNS)} was {word} .")
        labels.append(label)
    return texts, np.array(labels)


def test_heads_shapes():
    assert make_head("linear", 8)(torch.zeros(3, 8)).shape == (3, 2)
    dnn = make_head("dnn", 8)
    assert dnn(torch.zeros(3, 8)).shape == (3, 2)
    assert [layer.out_features for layer in dnn if isinstance(layer, torch.nn.Linear)] == [500, 100, 2]
    with pytest.raises(ValueError, match="head"):
        make_head("cnn", 8)


@pytest.mark.parametrize("head", ["linear", "dnn"])
def test_head_learns_a_separable_task_and_is_reproducible(head):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=200)
    features = rng.normal(size=(200, 6)) + 2.0 * labels[:, None]
    settings = HeadSettings(epochs=20, batch_size=32, learning_rate=1e-2, seed=1, device="cpu")
    first = predict_head(train_head(features, labels, head, settings), features)
    assert (first == labels).mean() > 0.9
    second = predict_head(train_head(features, labels, head, settings), features)
    np.testing.assert_array_equal(first, second)


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    words = POSITIVE + NEGATIVE + NOUNS + ["the", "was", ".", "not"]
    return str(hf.build_tiny_model(tmp_path_factory.mktemp("tiny") / "encoder", words, hidden_size=16, seed=0))


def test_fine_tuned_encoder_beats_chance_and_frozen_mode_scores(tiny_encoder):
    rng = np.random.default_rng(1)
    train_texts, train_labels = sentences(rng, 160)
    test_texts, test_labels = sentences(rng, 60)
    train, test = LabelledSentences(train_texts, train_labels), LabelledSentences(test_texts, test_labels)
    pairs = PairSentences(
        ["the food was bad .", "the staff was nice ."],
        ["the food was great .", "the staff was rude ."],
        np.array([0, 1]),
    )
    settings = hf.FineTuneSettings(epochs=4, batch_size=16, learning_rate=3e-3, seed=0, device="cpu", warmup_ratio=0.0)
    rows = evaluate_fine_tuned(tiny_encoder, "linear", train, test, pairs, settings, pooling="mean")
    assert [row["direction"] for row in rows] == ["neg_to_pos", "pos_to_neg"]
    assert rows[0]["accuracy"] > 75 and rows[0]["accuracy"] == rows[1]["accuracy"]
    assert [row["pairs"] for row in rows] == [1, 1] and all(0 <= row["pss"] <= 100 for row in rows)

    embeddings = {
        name: embed_sentences(tiny_encoder, texts, pooling="mean", device="cpu")
        for name, texts in (("train", train.texts), ("test", test.texts), ("pairs", pairs.sentences))
    }
    frozen = evaluate_frozen(
        "dnn",
        embeddings["train"],
        train.labels,
        embeddings["test"],
        test.labels,
        pairs,
        embeddings["pairs"],
        HeadSettings(epochs=20, learning_rate=3e-3, device="cpu"),
    )
    assert frozen[0]["test_sentences"] == 60 and frozen[0]["accuracy"] > 50


def test_encoder_classifier_pools_like_encode(tiny_encoder):
    encoder, tokenizer = hf.load_encoder(tiny_encoder), hf.load_tokenizer(tiny_encoder)
    texts = ["the food was good .", "bad ."]
    identity = torch.nn.Identity()
    model = EncoderClassifier(encoder, identity, "mean").eval()
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        pooled = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])["logits"].numpy()
    expected = hf.encode(encoder, tokenizer, texts, pooling="mean", device="cpu")
    np.testing.assert_allclose(pooled, expected, rtol=1e-4, atol=1e-5)


def test_unknown_encoder_is_a_config_error_before_work(tmp_path):
    from natcomp.errors import ConfigError

    with pytest.raises(ConfigError, match="no-such-encoder"):
        embed_sentences(str(tmp_path / "no-such-encoder"), ["a"], pooling="mean", key="pss.encoders.x.model")


def test_encoder_classifier_pools_the_configured_layer_like_encode(tiny_encoder):
    encoder, tokenizer = hf.load_encoder(tiny_encoder), hf.load_tokenizer(tiny_encoder)
    texts = ["the food was good .", "bad ."]
    model = EncoderClassifier(encoder, torch.nn.Identity(), "mean", layer=-2).eval()
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        pooled = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])["logits"].numpy()
    second_to_last = hf.encode(encoder, tokenizer, texts, pooling="mean", device="cpu", layer=-2)
    last = hf.encode(encoder, tokenizer, texts, pooling="mean", device="cpu")
    np.testing.assert_allclose(pooled, second_to_last, rtol=1e-4, atol=1e-5)
    assert not np.allclose(second_to_last, last, atol=1e-3)
    np.testing.assert_allclose(
        embed_sentences(tiny_encoder, texts, pooling="mean", layer=-2, device="cpu"), pooled, rtol=1e-4, atol=1e-5
    )
