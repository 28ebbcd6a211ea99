"""natcomp.hf.causal_training: a tiny causal LM trained on prompt/completion pairs, the loss
on the completion's tokens only, saved atomically and loaded back through from_pretrained.
(tests/hf/conftest.py: offline, one thread, make_tiny_causal.)"""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file

from natcomp import hf
from natcomp.hf.causal_training import (
    IGNORED,
    CausalTrainingSettings,
    completion_batch,
    completion_loss,
    completion_rows,
    train_causal_lm,
)

NOUNS = [("poet", "dichter"), ("king", "koning"), ("baker", "bakker"), ("mayor", "burgemeester")]
VERBS = [("sees", "ziet"), ("admires", "bewondert"), ("forgets", "vergeet")]
PAIRS = [
    (f"The {a} {verb} the {b}.", f"De {a_nl} {verb_nl} de {b_nl}.")
    for a, a_nl in NOUNS
    for verb, verb_nl in VERBS
    for b, b_nl in NOUNS
    if a != b
]
PROMPTS = [f"English: {source}\nDutch:" for source, _ in PAIRS]
COMPLETIONS = [f" {target}\n" for _, target in PAIRS]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, make_tiny_causal):
    """Untrained tiny causal LMs by kind, their tokenizers trained on the pairs' texts."""
    root = tmp_path_factory.mktemp("causal_training")
    texts = [prompt + completion for prompt, completion in zip(PROMPTS, COMPLETIONS)]
    return {kind: make_tiny_causal(root / kind, texts=texts, kind=kind, seed=2) for kind in hf.TINY_CAUSAL_KINDS}


def test_settings_list_every_problem():
    with pytest.raises(ValueError) as caught:
        CausalTrainingSettings(epochs=0, warmup=1.0, schedule="cosine", threads=0)
    for word in ("epochs", "warmup", "schedule", "threads"):
        assert word in str(caught.value)


def test_the_labels_are_the_completion_and_its_eos_only(tiny):
    tokenizer, _ = hf.load_causal_lm(tiny["llama"])
    prompts, completions = (
        ["English: The poet sees the long king.\nDutch:", "English: Hi.\nDutch:"],
        [" De x\n", " Ja\n"],
    )
    inputs, labels = completion_rows(tokenizer, prompts, completions, max_length=256)
    eos = tokenizer.eos_token_id
    for prompt, completion, row, label in zip(prompts, completions, inputs, labels):
        prompt_ids = tokenizer(prompt)["input_ids"]  # with the BOS token a Llama tokenizer adds
        answer = [*tokenizer(completion, add_special_tokens=False)["input_ids"], eos]
        assert row == prompt_ids + answer
        assert label == [IGNORED] * len(prompt_ids) + answer
    assert len(inputs[0]) > len(inputs[1])
    # A pair longer than max_length loses its end.
    cut_inputs, cut_labels = completion_rows(tokenizer, prompts, completions, max_length=5)
    assert cut_inputs == [row[:5] for row in inputs] and cut_labels == [label[:5] for label in labels]


def test_a_batch_masks_the_padding_by_length_even_where_the_pad_id_is_eos():
    eos = 7
    inputs = [[1, 2, 3, 4, eos], [5, 6, eos]]
    labels = [[IGNORED, IGNORED, 3, 4, eos], [IGNORED, 6, eos]]
    input_ids, attention_mask, batch_labels = completion_batch(inputs, labels, pad=eos)
    assert input_ids.tolist() == [[1, 2, 3, 4, eos], [5, 6, eos, eos, eos]]
    # The EOS that ends the second completion is attended to and learnt; the padding is not.
    assert attention_mask.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]
    assert batch_labels.tolist() == [[IGNORED, IGNORED, 3, 4, eos], [IGNORED, 6, eos, IGNORED, IGNORED]]


def test_the_loss_counts_the_completion_tokens_only():
    # Logits that predict every token right with certainty, except the prompt's second
    # token and the padding: a loss over those positions would not be 0.
    vocab = 10
    labels = torch.tensor([[IGNORED, IGNORED, 3, 4], [IGNORED, 5, IGNORED, IGNORED]])
    tokens = torch.tensor([[1, 2, 3, 4], [1, 5, 0, 0]])
    logits = torch.full((2, 4, vocab), -1e4)
    for row in range(2):
        for position in range(3):
            logits[row, position, tokens[row, position + 1]] = 1e4
    logits[0, 0, 2], logits[0, 0, 9] = -1e4, 1e4  # wrong about the prompt's second token
    logits[1, 2, 0], logits[1, 2, 9] = -1e4, 1e4  # wrong about the padding
    assert completion_loss(logits, labels).item() == 0
    logits[0, 1, 3], logits[0, 1, 9] = -1e4, 1e4  # wrong about the first completion token
    assert completion_loss(logits, labels).item() > 1000


@pytest.mark.parametrize("kind", hf.TINY_CAUSAL_KINDS)
def test_training_lowers_the_completion_loss_and_saves_a_loadable_model(tiny, tmp_path, kind):
    from transformers import AutoModelForCausalLM

    settings = CausalTrainingSettings(epochs=12, batch_size=8, learning_rate=1e-2, seed=3, device="cpu")
    figures = train_causal_lm(tiny[kind], PROMPTS, COMPLETIONS, settings, tmp_path / "trained")
    assert figures["sentences"] == len(PAIRS)
    assert figures["steps"] == 12 * -(-len(PAIRS) // 8)
    assert figures["device"] == "cpu" and figures["seconds"] > 0
    losses = figures["epoch_losses"]
    assert len(losses) == 12 and figures["train_loss"] == losses[-1]
    assert [path.name for path in tmp_path.iterdir()] == ["trained"]  # no staging folder left

    def loss_of(model, tokenizer):
        inputs, labels = completion_rows(tokenizer, PROMPTS, COMPLETIONS, max_length=256)
        input_ids, attention_mask, batch_labels = completion_batch(inputs, labels, tokenizer.eos_token_id)
        with torch.no_grad():
            return completion_loss(model(input_ids=input_ids, attention_mask=attention_mask).logits, batch_labels)

    tokenizer, trained = hf.load_causal_lm(tmp_path / "trained")
    _, initial = hf.load_causal_lm(tiny[kind])
    assert not trained.training
    # From about ln(vocabulary) per completion token to a small part of it.
    assert loss_of(trained, tokenizer) < 0.3 * loss_of(initial, tokenizer)
    plain = AutoModelForCausalLM.from_pretrained(tmp_path / "trained")
    assert all(torch.equal(a, b) for a, b in zip(plain.state_dict().values(), trained.state_dict().values()))


def test_training_is_reproducible_and_the_seed_matters(tiny, tmp_path):
    def train(seed, name):
        settings = CausalTrainingSettings(epochs=1, batch_size=8, learning_rate=1e-3, seed=seed, device="cpu")
        figures = train_causal_lm(tiny["gpt2"], PROMPTS, COMPLETIONS, settings, tmp_path / name)
        return figures, load_file(tmp_path / name / "model.safetensors")

    (first, a), (second, b), (_, other) = train(5, "a"), train(5, "b"), train(6, "c")
    assert first["epoch_losses"] == second["epoch_losses"]
    assert all(torch.equal(a[name], b[name]) for name in a)
    assert not all(torch.equal(a[name], other[name]) for name in a)


def test_bad_pairs_are_refused(tiny, tmp_path):
    settings = CausalTrainingSettings(epochs=1)
    with pytest.raises(ValueError, match="2 prompts but 1 completions"):
        train_causal_lm(tiny["gpt2"], ["a", "b"], ["c"], settings, tmp_path / "x")
    with pytest.raises(ValueError, match="no prompt/completion pairs"):
        train_causal_lm(tiny["gpt2"], [], [], settings, tmp_path / "x")
    assert not (tmp_path / "x").exists()
