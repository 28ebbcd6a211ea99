"""The released sentiment head on a decoder-only model (issue 34): it reads the last real token."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from natcomp import hf
from natcomp.hf.causal import build_tiny_causal_lm
from natcomp.noncompsst.head import load_sentiment_head_classifier
from natcomp.noncompsst.models import check_models, train_and_predict
from natcomp.noncompsst.pipeline import fine_tune_settings, model_training
from natcomp.noncompsst.sst7 import read_sst7

REPO = Path(__file__).resolve().parents[2]
# unequal lengths, so every batch below is padded, and no two texts share their last token
TEXTS = [
    "the plot is great",
    "a dud",
    "the film is not good but the actors are fine",
    "awful",
]
# built in local folders: loading them never reaches the Hub
TINY = dict(vocab_size=300, d_model=32, layers=2, heads=4, max_positions=128)


@pytest.fixture(scope="module")
def tiny_causal(tmp_path_factory):
    torch.set_num_threads(1)  # one thread: tests share the cores
    root = tmp_path_factory.mktemp("causal")
    return {kind: build_tiny_causal_lm(root / kind, TEXTS, kind=kind, **TINY) for kind in ("gpt2", "llama")}


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_the_head_reads_the_last_real_token_whichever_side_pads(tiny_causal, kind, side):
    """In a padded batch the head's input is, for every text, the final state of its last
    token computed on the text alone (no padding), not the state at position 0 or -1."""
    model = load_sentiment_head_classifier(str(tiny_causal[kind]), 7, seed=1).eval()
    assert model.pooling == "last"
    tokenizer = hf.load_tokenizer(str(tiny_causal[kind]))
    tokenizer.padding_side = side
    batch = hf.tokenize(tokenizer, TEXTS, 64)
    mask = batch["attention_mask"]
    padded_rows = (mask == 0).any(dim=1)
    assert padded_rows.sum() >= 2, "the batch must pad"
    pad_column = 0 if side == "left" else -1
    assert (mask[padded_rows, pad_column] == 0).all(), f"padded on the {side}"

    seen = []
    hook = model.head[0].register_forward_pre_hook(lambda module, args: seen.append(args[0].detach().clone()))
    with torch.no_grad():
        model(**hf.model_inputs(model, batch, torch.device("cpu")))
        hook.remove()
        alone = [model.encoder(**tokenizer(text, return_tensors="pt")).last_hidden_state[0, -1] for text in TEXTS]
        batched = hf.hidden_states(model.encoder, batch["input_ids"], mask)
    pooled, expected = seen[0], torch.stack(alone)
    assert torch.allclose(pooled, expected, atol=1e-5)
    # position 0 (the first token, or padding) is never the last real one here; position -1
    # is where right padding pads: pooling either would change the head's input
    width = mask.shape[1]
    last = torch.full_like(mask[:, 0], width - 1) if side == "left" else mask.sum(dim=1) - 1
    for wrong in (0, width - 1) if side == "right" else (0,):
        differs = last != wrong
        assert differs.any() and not torch.allclose(batched[differs, wrong], expected[differs], atol=1e-3)


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_a_causal_lm_fine_tunes_on_real_sst7_rows_and_predicts_every_stimulus(shared_data, tmp_path, kind):
    """train_and_predict takes a causal LM's folder as it takes an encoder's, with the same
    recipe: a few real SST-7 rows, one epoch, a prediction 0-6 for every stimulus (padded
    batches of unequal lengths)."""
    rows = read_sst7(shared_data / "noncompsst" / "sst7" / "validation.tsv")[:24]
    test = read_sst7(shared_data / "noncompsst" / "sst7" / "test.tsv")[:8]
    sst7 = {"train": rows[:16], "validation": rows[16:], "test": test}
    stimuli = ["a dull , simple-minded and stereotypical tale", "just enough", "the movie 's messages do n't work"]
    path = build_tiny_causal_lm(tmp_path / kind, [text for text, _ in rows + test] + stimuli, kind=kind, **TINY)
    check_models({kind: str(path)})
    # appendix D's recipe as the family reads it for any pretrained model, cut to one small epoch
    demo = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))["noncompsst"]
    recipe = model_training(demo, str(path))
    assert (recipe["learning_rate"], recipe["scheduler"], recipe["warmup_ratio"]) == (5e-6, "cosine", 0.2)
    settings = fine_tune_settings({**recipe, "epochs": 1, "batch_size": 8, "device": "cpu"}, seed=1)
    result = train_and_predict(str(path), sst7, stimuli, settings)
    assert len(result.stimulus_predictions) == len(stimuli)
    assert all(prediction in range(7) for prediction in result.stimulus_predictions)
    assert [row["epoch"] for row in result.history] == [1] and 0 <= result.test_f1 <= 1
