"""Mean pooling of decoder-only models leaves the tokens the tokenizer adds out (issue 41.4):
a Llama's BOS state is the same for every input, and a mean that counts it is half BOS
for a one-word TRE phrase."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.pss.classifiers import EncoderClassifier

PHRASES = ["poet", "the king", "the baker sees the mayor ."]


def _states(folder, text):
    """The last layer's states of ``text`` alone, with the token ids the tokenizer gives it."""
    tokenizer, encoder = hf.load_tokenizer(folder), hf.load_encoder(folder)
    ids = tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        states = encoder(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[0]
    return ids[0], states, tokenizer


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_mean_pooling_of_a_decoder_averages_the_texts_tokens_only(tiny_causal, kind):
    folder = tiny_causal[kind]
    embedded = hf.embed_texts(hf.EncoderSpec(str(folder), pooling="mean"), PHRASES, device="cpu")
    for row, text in zip(embedded, PHRASES):
        ids, states, tokenizer = _states(folder, text)
        has_bos = ids[0].item() == tokenizer.bos_token_id and kind == "llama"
        assert has_bos == (kind == "llama")  # Llama's tokenizer puts BOS first, GPT-2's does not
        text_states = states[1:] if has_bos else states
        np.testing.assert_allclose(row, text_states.mean(dim=0).numpy(), rtol=1e-4, atol=1e-5)
        if has_bos:  # counting BOS would give another vector
            assert not np.allclose(row, states.mean(dim=0).numpy(), rtol=1e-3, atol=1e-4)


def test_an_encoders_mean_keeps_its_cls_and_sep(tmp_path):
    """sentence-transformers averages [CLS] and [SEP] with the words; so does natcomp."""
    folder = hf.build_tiny_model(tmp_path / "bert", hf.words_for_vocabulary(PHRASES))
    embedded = hf.embed_texts(hf.EncoderSpec(str(folder), pooling="mean"), PHRASES[:1], device="cpu")
    ids, states, _ = _states(folder, PHRASES[0])
    assert len(ids) == 3  # [CLS] poet [SEP]
    np.testing.assert_allclose(embedded[0], states.mean(dim=0).numpy(), rtol=1e-4, atol=1e-5)


def test_pss_fine_tuning_pools_as_its_frozen_embeddings_do(tiny_causal):
    """FT reads a sentence as FB does: the same mean without BOS, in a padded batch."""
    folder = str(tiny_causal["llama"])
    tokenizer = hf.load_tokenizer(folder)
    model = EncoderClassifier(
        hf.load_encoder(folder), torch.nn.Identity(), "mean", special_ids=tokenizer.all_special_ids
    ).eval()
    batch = tokenizer(PHRASES, padding=True, return_tensors="pt")
    with torch.inference_mode():
        pooled = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])["logits"].numpy()
    frozen = hf.embed_texts(hf.EncoderSpec(folder, pooling="mean"), PHRASES, device="cpu")
    np.testing.assert_allclose(pooled, frozen, rtol=1e-4, atol=1e-5)


def test_the_added_token_mask_marks_the_special_tokens_wherever_they_are():
    ids = torch.tensor([[1, 7, 8, 2], [0, 0, 1, 9]])
    assert hf.added_token_mask(ids, [1, 2]).tolist() == [[0, 1, 1, 0], [1, 1, 0, 1]]
    assert hf.added_token_mask(ids, []).tolist() == [[1, 1, 1, 1], [1, 1, 1, 1]]
