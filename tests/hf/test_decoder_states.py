"""Decoder-only models in the encoder core (issue 34): pooling of the last real token, the
mean of the real tokens, position ids that ignore left padding, a pad token for GPT-2, and
transformers' sequence-classification head of a causal LM."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError

TEXTS = ["The poet sees the king.", "The king admires the baker and the mayor.", "De dichter."]


def _alone(model, tokenizer, text):
    """The last layer's states of one text run alone (no padding at all)."""
    ids = tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        return model(**ids).last_hidden_state[0]


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_last_and_mean_pooling_equal_the_states_of_each_text_alone(tiny_causal, kind, side):
    model, tokenizer = hf.load_encoder(tiny_causal[kind]), hf.load_tokenizer(tiny_causal[kind])
    tokenizer.padding_side = side
    lengths = {len(tokenizer(text)["input_ids"]) for text in TEXTS}
    assert len(lengths) == len(TEXTS), "the texts must pad differently"
    states = [_alone(model, tokenizer, text) for text in TEXTS]
    last = hf.encode(model, tokenizer, TEXTS, pooling="last", batch_size=8)
    mean = hf.encode(model, tokenizer, TEXTS, pooling="mean", batch_size=8)
    np.testing.assert_allclose(last, np.stack([state[-1].numpy() for state in states]), atol=1e-5)
    # the mean leaves Llama's BOS out (issue 41.4); GPT-2 adds none
    skip = 1 if kind == "llama" else 0
    np.testing.assert_allclose(mean, np.stack([state[skip:].mean(dim=0).numpy() for state in states]), atol=1e-5)


def test_the_last_real_token_is_found_on_either_side():
    mask_right = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1], [1, 0, 0, 0]])
    mask_left = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1]])
    assert hf.last_token_indices(mask_right).tolist() == [2, 3, 0]
    assert hf.last_token_indices(mask_left).tolist() == [3, 3, 3]
    assert hf.padding_position_ids(mask_left).tolist() == [[0, 0, 1, 2], [0, 1, 2, 3], [0, 0, 0, 0]]
    hidden = torch.arange(3 * 4, dtype=torch.float).reshape(3, 4, 1)
    assert hf.pool_states(hidden, mask_right, "last")[:, 0].tolist() == [2.0, 7.0, 8.0]
    assert hf.pool_states(hidden, mask_right, "mean")[:, 0].tolist() == [1.0, 5.5, 8.0]
    assert hf.pool_states(hidden, mask_right, "cls")[:, 0].tolist() == [0.0, 4.0, 8.0]
    with pytest.raises(ConfigError, match="not a pooling"):
        hf.pool_states(hidden, mask_right, "max")


def test_decoder_only_is_decided_by_the_model_type(tiny_causal, tmp_path):
    assert hf.is_decoder_only(hf.load_encoder(tiny_causal["gpt2"]))
    assert hf.is_decoder_only({"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]})
    assert not hf.is_decoder_only({"model_type": "bert", "architectures": ["BertForMaskedLM"]})
    assert not hf.is_decoder_only({"model_type": "marian", "is_encoder_decoder": True})


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_a_causal_lms_sequence_classifier_reads_the_last_real_token(tiny_causal, kind, side):
    """transformers' head of a decoder-only model (pad token id set by natcomp) gives each
    text the logits it has alone, in a padded batch on either side."""
    classifier = hf.load_sequence_classifier(tiny_causal[kind], num_labels=3, seed=1)
    tokenizer = hf.load_tokenizer(tiny_causal[kind])
    assert tokenizer.pad_token is not None and classifier.config.pad_token_id == tokenizer.pad_token_id
    tokenizer.padding_side = side
    batched = hf.predict_logits(classifier, tokenizer, TEXTS, batch_size=8)
    alone = np.concatenate([hf.predict_logits(classifier, tokenizer, [text]) for text in TEXTS])
    np.testing.assert_allclose(batched, alone, atol=1e-5)


def test_a_checkpoint_whose_config_pads_with_another_id_classifies_alike_at_any_batch_size(tiny_causal, tmp_path):
    """A classifier checkpoint whose config names a pad id its tokenizer does not pad with
    (here the unknown token's; the tokenizer pads with EOS, on the right): transformers' head
    would look for the config's id, find none, and read the last column, a padding position
    for every shorter row. natcomp makes the config's id the tokenizer's."""
    import shutil

    from transformers import AutoModelForSequenceClassification

    folder = tmp_path / "classifier"
    shutil.copytree(tiny_causal["llama"], folder)
    saved = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=3)
    tokenizer = hf.load_tokenizer(folder)
    saved.config.pad_token_id = tokenizer.unk_token_id
    assert saved.config.pad_token_id != tokenizer.pad_token_id and tokenizer.padding_side == "right"
    saved.save_pretrained(folder)
    model = hf.load_sequence_classifier(folder)
    assert model.config.pad_token_id == tokenizer.pad_token_id
    alone = hf.predict_logits(model, tokenizer, TEXTS, batch_size=1)
    together = hf.predict_logits(model, tokenizer, TEXTS, batch_size=len(TEXTS))
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-6)
