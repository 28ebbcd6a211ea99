"""The PSS and TRE rules hand each job its encoder's own learning rate, layer and max_length, not
the shared value: the rules' params functions called as Snakemake calls them, on a config with a
BERT-like encoder whose rate, layer and length differ from every shared default. PSS's FT does
not inherit FB's layer and length (issue 42.4): it reads the encoder's fine_tune overrides, else
the last layer and the longest sentence."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from workflow_copy import parsed_rules

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.workflow
BERT_RATE = 5.0e-5  # neither frozen.learning_rate (3e-3) nor fine_tune.learning_rate (2e-5)


@pytest.fixture(scope="module")
def rule(tmp_path_factory):
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    bert_like = {
        "model": "bert-base-uncased",
        "pooling": "mean",
        "layer": -2,
        "max_length": 25,
        "learning_rate": BERT_RATE,
    }
    config["pss"]["encoders"]["bert_base"] = {**bert_like, "modes": ["fb", "ft", "ft_fb"]}
    config["tre"]["encoders"]["bert_base"] = {
        key: bert_like[key] for key in ("model", "pooling", "layer", "max_length")
    }
    del config["pss"]["encoders"]["minilm"]["learning_rate"]
    # FT's own layer and length, set explicitly
    config["pss"]["encoders"]["mpnet"]["fine_tune"] = {"layer": -3, "max_length": 40}
    for family in ("pss", "tre"):  # a decoder-only model pooled at its last real token
        config[family]["encoders"]["gpt2"] = {"model": "gpt2", "pooling": "last"}
    folder = tmp_path_factory.mktemp("wiring")
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    return parsed_rules(folder / "config.yaml", folder)


def params(rule, name: str, **wildcards):
    """One rule's params, each function called with the job's wildcards."""
    values = rule(name).params
    job = SimpleNamespace(**wildcards)
    return {key: value(job) if callable(value) else value for key, value in values.items()}


def test_pss_heads_train_at_the_encoders_own_learning_rate(rule):
    assert params(rule, "pss_frozen", encoder="bert_base", head="linear")["settings"]["learning_rate"] == BERT_RATE
    assert (
        params(rule, "pss_fine_tune", encoder="bert_base", head="linear", mode="ft")["settings"]["learning_rate"]
        == BERT_RATE
    )
    # an encoder without a rate of its own trains at the mode's shared rate
    assert params(rule, "pss_frozen", encoder="minilm", head="linear")["settings"]["learning_rate"] == 3e-3
    assert (
        params(rule, "pss_fine_tune", encoder="minilm", head="linear", mode="ft")["settings"]["learning_rate"] == 2e-5
    )


def test_pss_and_tre_pool_the_encoders_own_layer(rule):
    assert params(rule, "pss_embed", encoder="bert_base", pooling="mean")["encoder"]["layer"] == -2
    assert params(rule, "pss_frozen", encoder="bert_base", head="dnn")["layer"] == -2  # the FB rows state it
    assert params(rule, "tre_embed", encoder="bert_base", pooling="mean", max_length="25")["encoder"]["layer"] == -2
    # an encoder without a layer pools the last one
    assert params(rule, "pss_embed", encoder="minilm", pooling="mean")["encoder"]["layer"] == -1
    assert params(rule, "tre_embed", encoder="minilm", pooling="mean", max_length="none")["encoder"]["layer"] == -1


def test_pss_embeds_the_pairs_originals_first_then_rewrites(rule):
    # natcomp.pss.experiment reads the first half of the pair embeddings as the originals'
    columns = params(rule, "pss_embed", encoder="bert_base", pooling="mean")["columns"]
    assert columns == [["sentence"], ["sentence"], ["original", "rewrite"]]


def test_pss_and_tre_read_the_encoders_own_max_length(rule):
    """bert-as-service's 25 tokens for the paper's BERT; PSS's sections' 128 for the others. TRE
    embeds at the path's length setting: 25, or none (no limit; tests/tre/test_lengths.py)."""
    assert params(rule, "pss_embed", encoder="bert_base", pooling="mean")["embed"]["max_length"] == 25
    assert params(rule, "pss_frozen", encoder="bert_base", head="linear")["max_length"] == 25
    assert params(rule, "tre_embed", encoder="bert_base", pooling="mean", max_length="25")["embed"]["max_length"] == 25
    assert params(rule, "pss_embed", encoder="minilm", pooling="mean")["embed"]["max_length"] == 128
    assert params(rule, "pss_frozen", encoder="minilm", head="linear")["max_length"] == 128
    assert params(rule, "tre_embed", encoder="minilm", pooling="mean", max_length="none")["embed"]["max_length"] is None


def test_pss_ft_reads_its_own_layer_and_length(rule):
    """bert-as-service cannot fine-tune: FT of the paper's BERT does not inherit its layer -2
    and 25 tokens; max_length None is the longest sentence, found by the FT job."""
    for name in ("bert_base", "minilm", "gpt2"):
        fine_tune = params(rule, "pss_fine_tune", encoder=name, head="linear", mode="ft")
        assert (fine_tune["layer"], fine_tune["settings"]["max_length"]) == (-1, None), name
    fine_tune = params(rule, "pss_fine_tune", encoder="mpnet", head="dnn", mode="ft")
    assert (fine_tune["layer"], fine_tune["settings"]["max_length"]) == (-3, 40)
    # FB of the same encoder is untouched by its fine_tune overrides
    frozen = params(rule, "pss_frozen", encoder="mpnet", head="dnn")
    assert (frozen["layer"], frozen["max_length"]) == (-1, 128)


def test_pss_ft_fb_reads_as_fb_and_trains_as_ft(rule):
    """The second FT row (mode ft_fb) reads its sentences with FB's layer and length (for
    BERT, bert-as-service's -2 and 25), and trains at FT's learning rate: FB -> ft_fb changes
    only the training."""
    ft_fb = params(rule, "pss_fine_tune", encoder="bert_base", head="linear", mode="ft_fb")
    frozen = params(rule, "pss_frozen", encoder="bert_base", head="linear")
    assert (ft_fb["layer"], ft_fb["settings"]["max_length"]) == (frozen["layer"], frozen["max_length"]) == (-2, 25)
    ft = params(rule, "pss_fine_tune", encoder="bert_base", head="linear", mode="ft")
    assert (ft["layer"], ft["settings"]["max_length"]) == (-1, None), "ft keeps its own reading"
    assert ft_fb["settings"]["learning_rate"] == ft["settings"]["learning_rate"] == BERT_RATE
    # an encoder with FT overrides: ft_fb still reads as its FB does
    mpnet = params(rule, "pss_fine_tune", encoder="mpnet", head="dnn", mode="ft_fb")
    assert (mpnet["layer"], mpnet["settings"]["max_length"]) == (-1, 128)
    assert rule("pss_fine_tune").is_producer("results/pss/scores/bert_base/linear.ft_fb.tsv")


def test_a_last_token_pooled_encoder_is_embedded_and_fine_tuned_with_last_and_its_keys(rule):
    for family, sets in (("pss", ("train", "test", "pairs")), ("tre", ("sst",))):
        for name in sets:
            length = "/max_length_none" if family == "tre" else ""
            assert rule(f"{family}_embed").is_producer(f"results/{family}/embeddings/gpt2/last{length}/{name}.npy")
        embed = params(rule, f"{family}_embed", encoder="gpt2", pooling="last", max_length="none")
        assert embed["encoder"]["pooling"] == "last"
        assert (embed["key"], embed["pooling_key"]) == (
            f"{family}.encoders.gpt2.model",
            f"{family}.encoders.gpt2.pooling",
        )
    fine_tune = params(rule, "pss_fine_tune", encoder="gpt2", head="linear", mode="ft")
    assert fine_tune["pooling"] == "last" and fine_tune["pooling_key"] == "pss.encoders.gpt2.pooling"
