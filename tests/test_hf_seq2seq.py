"""natcomp.hf.seq2seq: tiny Marian and M2M100 models with their real tokenizers, built from
a handful of sentences, saved, loaded back through from_pretrained, and trained."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf.seq2seq import (
    Seq2SeqTrainingSettings,
    build_tiny_translation_model,
    load_seq2seq,
    train_translation_model,
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
SOURCES = [source for source, _ in PAIRS]
TARGETS = [target for _, target in PAIRS]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test may reach the Hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models run fastest on one thread (see docs/design/hf.md)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("seq2seq")
    return {
        family: build_tiny_translation_model(root / family, SOURCES, TARGETS, family=family, vocab_size=80)
        for family in hf.TINY_TRANSLATION_FAMILIES
    }


def test_tiny_marian_has_the_files_of_a_released_opus_mt_model(tiny):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    folder = tiny["marian"]
    for name in ("config.json", "generation_config.json", "source.spm", "target.spm", "vocab.json"):
        assert (folder / name).is_file(), name
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True)
    assert type(tokenizer).__name__ == "MarianTokenizer"
    assert type(model).__name__ == "MarianMTModel"
    vocab = json.loads((folder / "vocab.json").read_text())
    assert vocab["</s>"] == model.config.eos_token_id == 0
    assert vocab["<pad>"] == model.config.pad_token_id == model.config.decoder_start_token_id == len(vocab) - 1
    ids = tokenizer("The poet sees the king.")["input_ids"]
    assert ids[-1] == tokenizer.eos_token_id and tokenizer.unk_token_id not in ids
    assert tokenizer.decode(ids, skip_special_tokens=True) == "The poet sees the king."
    assert model.generation_config.num_beams == 5


def test_tiny_m2m100_has_language_tokens_and_forces_the_target_language(tiny):
    tokenizer, model = load_seq2seq(tiny["m2m100"])
    assert type(tokenizer).__name__ == "M2M100Tokenizer"
    assert type(model).__name__ == "M2M100ForConditionalGeneration"
    assert (tiny["m2m100"] / "sentencepiece.bpe.model").is_file()
    tokenizer.src_lang = "en"
    ids = tokenizer("The poet sees the king.")["input_ids"]
    assert ids[0] == tokenizer.get_lang_id("en") and ids[-1] == tokenizer.eos_token_id
    # Every id the tokenizer can write (language tokens and made-up words included) has an embedding.
    assert model.config.vocab_size == tokenizer.encoder_size + len(tokenizer.lang_code_to_id) + 8
    assert model.generation_config.forced_bos_token_id == tokenizer.get_lang_id("nl")
    assert model.config.decoder_start_token_id == tokenizer.eos_token_id


def test_equal_arguments_give_equal_files_and_another_seed_other_weights(tiny, tmp_path):
    again = build_tiny_translation_model(tmp_path / "again", SOURCES, TARGETS, family="marian", vocab_size=80)
    other = build_tiny_translation_model(tmp_path / "other", SOURCES, TARGETS, family="marian", vocab_size=80, seed=1)
    for name in ("source.spm", "vocab.json", "config.json"):
        assert (again / name).read_bytes() == (tiny["marian"] / name).read_bytes(), name
    first, second = load_file(tiny["marian"] / "model.safetensors"), load_file(again / "model.safetensors")
    assert first.keys() == second.keys()
    assert all(torch.equal(first[name], second[name]) for name in first)
    third = load_file(other / "model.safetensors")
    assert not all(torch.equal(first[name], third[name]) for name in first)


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="family must be one of marian, m2m100"):
        build_tiny_translation_model(tmp_path / "x", SOURCES, TARGETS, family="t5")
    with pytest.raises(ValueError, match="source texts but"):
        build_tiny_translation_model(tmp_path / "x", SOURCES, TARGETS[:-1])
    with pytest.raises(ValueError, match="no language token for 'english'"):
        build_tiny_translation_model(tmp_path / "x", SOURCES, TARGETS, family="m2m100", source_code="english")
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="epochs must be at least 1.*schedule must be one of"):
        Seq2SeqTrainingSettings(epochs=0, batch_size=8, learning_rate=1e-3, schedule="cosine")


def test_a_missing_model_is_a_config_error_naming_the_key(tmp_path):
    with pytest.raises(ConfigError, match="mt.systems.x.model.*does not exist"):
        load_seq2seq(tmp_path / "nothing", key="mt.systems.x.model")


@pytest.mark.parametrize("family", hf.TINY_TRANSLATION_FAMILIES)
def test_training_lowers_the_loss_and_saves_the_trained_model(tiny, tmp_path, family):
    settings = Seq2SeqTrainingSettings(epochs=25, batch_size=8, learning_rate=3e-3, warmup_steps=20, seed=3)
    figures = train_translation_model(tiny[family], SOURCES, TARGETS, settings, tmp_path / "trained")
    assert figures["sentences"] == len(PAIRS)
    assert figures["steps"] == 25 * -(-len(PAIRS) // 8)
    losses = figures["epoch_losses"]
    assert len(losses) == 25 and figures["train_loss"] == losses[-1]
    # From about ln(vocabulary) per token to the target language model's level (a tiny
    # model needs several hundred steps more before its decoder reads the source).
    assert losses[-1] < 0.4 * losses[0], losses
    assert [path.name for path in tmp_path.iterdir()] == ["trained"]  # no staging folder left
    _, trained = load_seq2seq(tmp_path / "trained")
    _, initial = load_seq2seq(tiny[family])
    assert not torch.equal(trained.get_input_embeddings().weight, initial.get_input_embeddings().weight)
    assert not trained.training


def test_training_is_reproducible(tiny, tmp_path):
    settings = Seq2SeqTrainingSettings(epochs=2, batch_size=8, learning_rate=1e-3, warmup_steps=2, seed=5)
    first = train_translation_model(tiny["marian"], SOURCES, TARGETS, settings, tmp_path / "a")
    second = train_translation_model(tiny["marian"], SOURCES, TARGETS, settings, tmp_path / "b")
    assert first["epoch_losses"] == second["epoch_losses"]
    a, b = load_file(tmp_path / "a" / "model.safetensors"), load_file(tmp_path / "b" / "model.safetensors")
    assert all(torch.equal(a[name], b[name]) for name in a)
