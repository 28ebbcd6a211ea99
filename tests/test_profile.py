"""natcomp.profile: which families a model fits, the run's config, the profile read from the
families' tables with the papers' values beside it, and the comparison of profiles."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from natcomp.errors import ConfigError, InputError
from natcomp.profile import fit, runconfig
from natcomp.profile.table import (
    COMPARE_ROW_COLUMNS,
    DIRECTIONS,
    PROFILE_COLUMNS,
    compare_profiles,
    load_published,
    paper_model,
    profile_rows,
    read_profile,
)
from natcomp.profile.render import compare_figure, write_profile
from natcomp.tsv import write_tsv

REPO = Path(__file__).resolve().parents[1]

MARIAN = {"model_type": "marian", "architectures": ["MarianMTModel"], "is_encoder_decoder": True}
BERT = {"model_type": "bert", "architectures": ["BertModel"]}
BERT_MLM = {"model_type": "bert", "architectures": ["BertForMaskedLM"]}
ROBERTA_NLI = {
    "model_type": "roberta",
    "architectures": ["RobertaForSequenceClassification"],
    "label2id": {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2},
}
GPT2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}
LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}


def base(name="config.yaml") -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text(encoding="utf-8"))


# ------------------------------------------------------------------ which families fit


@pytest.mark.parametrize(
    "config, expected",
    [
        (MARIAN, fit.ModelKinds(translation=True, encoder=False, masked_lm=False, nli=False)),
        (BERT, fit.ModelKinds(translation=False, encoder=True, masked_lm=False, nli=False)),
        (BERT_MLM, fit.ModelKinds(translation=False, encoder=True, masked_lm=True, nli=False)),
        (ROBERTA_NLI, fit.ModelKinds(translation=False, encoder=True, masked_lm=False, nli=True)),
        (GPT2, fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False, causal=True)),
        (LLAMA, fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False, causal=True)),
        # BERT has a causal-LM class too (BertLMHeadModel): a BERT config without
        # architectures is an encoder, not a causal LM
        (
            {"model_type": "bert"},
            fit.ModelKinds(translation=False, encoder=True, masked_lm=False, nli=False),
        ),
        # a translation model is not a causal LM, whatever its type's mappings say
        (
            {"model_type": "marian", "architectures": ["MarianMTModel"], "is_encoder_decoder": True},
            fit.ModelKinds(translation=True, encoder=False, masked_lm=False, nli=False),
        ),
        (
            {"model_type": "m2m_100", "architectures": ["M2M100ForConditionalGeneration"], "is_encoder_decoder": True},
            fit.ModelKinds(translation=True, encoder=False, masked_lm=False, nli=False),
        ),
        # an encoder-decoder without a generation head is no translation model, nor an encoder
        (
            {"model_type": "bart", "architectures": ["BartModel"], "is_encoder_decoder": True},
            fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False),
        ),
        # a BERT decoder is not an encoder
        (
            {**BERT_MLM, "is_decoder": True},
            fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False),
        ),
        # labels without entailment: a classifier, not an NLI model
        (
            {**ROBERTA_NLI, "label2id": {"negative": 0, "positive": 1}},
            fit.ModelKinds(translation=False, encoder=True, masked_lm=False, nli=False),
        ),
    ],
)
def test_model_kinds_from_the_config(config, expected):
    assert fit.model_kinds(config) == expected


def test_an_encoder_decoder_mt_cannot_translate_with_is_refused_when_the_plan_is_made():
    bart = {"model_type": "bart", "architectures": ["BartForConditionalGeneration"], "is_encoder_decoder": True}
    with pytest.raises(ConfigError, match=r"^--model: my-bart is a bart encoder-decoder: the MT family translates"):
        fit.model_kinds(bart, model="my-bart")


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"entailment": 0, "maybe": 1}, "cannot tell what label maybe of my-nli answers"),
        ({"entailment": 0, "Entailed": 1}, "cannot tell which label of my-nli is entailment"),
    ],
)
def test_an_nli_model_plane_cannot_read_is_refused_when_the_plan_is_made(labels, message):
    """PLANE's NLI job reads the labels (natcomp.hf.kinds.nli_label_answers): the plan reads
    them first and stops with the same one line, instead of a failed job after the others ran."""
    with pytest.raises(ConfigError, match=message) as refused:
        fit.model_kinds({**ROBERTA_NLI, "label2id": labels}, model="my-nli")
    assert refused.value.key == "--model" and "expected" in str(refused.value)
    # id2label wins where a config has both, as transformers reads it
    config = {**ROBERTA_NLI, "label2id": labels, "id2label": {0: "entailment", 1: "neutral"}}
    assert fit.model_kinds(config, model="my-nli").nli


def test_the_families_a_model_fits_and_the_plan():
    assert fit.fitting_families(fit.model_kinds(MARIAN)) == ["mt"]
    assert fit.fitting_families(fit.model_kinds(BERT)) == ["noncompsst", "plane", "pss", "tre"]
    roles = [(row.family, row.role) for row in fit.plan(fit.model_kinds(BERT_MLM))]
    assert ("plane", "masked LM") in roles and ("plane", "NLI classifier") not in roles
    roles = [(row.family, row.role) for row in fit.plan(fit.model_kinds(ROBERTA_NLI))]
    assert ("plane", "NLI classifier") in roles and ("plane", "masked LM") not in roles
    text = fit.format_plan(fit.plan(fit.model_kinds(BERT), base()))
    assert text.splitlines()[0].split() == ["family", "role", "what", "will", "run"]
    assert "2 seed(s)" in text, "the demo's NonCompSST seeds are counted from the base config"
    # which MT test items the run uses: the demo's generated ones, the paper's released ones
    (demo,) = fit.plan(fit.model_kinds(MARIAN), base())
    assert "released" not in demo.runs
    (paper,) = fit.plan(fit.model_kinds(MARIAN), base("paper.yaml"))
    assert paper.runs.endswith("; on the original study's released test items")


def test_a_causal_lm_fits_every_family_and_says_whether_its_chat_template_is_applied():
    kinds = fit.model_kinds(LLAMA, chat_template=True)
    assert kinds.chat_template and kinds.describe() == "causal LM (has a chat template, not applied: --chat-template)"
    assert kinds.describe(chat_applied=True) == "causal LM, chat template applied"
    assert fit.model_kinds(GPT2, chat_template=False).describe() == "causal LM"
    assert not fit.model_kinds(BERT_MLM, chat_template=True).chat_template, "only a causal LM's is read"
    assert fit.fitting_families(kinds) == ["mt", "noncompsst", "plane", "pss", "tre"]
    assert fit.fitting_families(fit.model_kinds(GPT2)) == ["mt", "noncompsst", "plane", "pss", "tre"]
    assert kinds.language_model and not kinds.encoder and not kinds.masked_lm, (
        "prompted like a masked LM, but no encoder"
    )
    rows = fit.plan(kinds, base(), {"family": "causal", "few_shot": {"k": 3}, "chat_template": True})
    assert [row.family for row in rows] == ["mt", "noncompsst", "plane", "plane", "pss", "tre"]
    mt, noncompsst, finetune, prompting, pss, tre = rows
    assert mt.role == "causal LM, chat template applied", "the MT entry's on"
    assert prompting.role == "causal LM (has a chat template, not applied: --chat-template)", "the demo's PLANE: off"
    assert {row.role for row in (noncompsst, finetune, pss, tre)} == {"causal LM"}, "they never prompt it"
    assert "prompt '{source_language}: {source}\\n{target_language}:'" in mt.runs
    assert "3-shot, chat template, greedy decoding" in mt.runs
    assert "2 seed(s), the released head on the last real token" in noncompsst.runs
    assert "sequence-classification head" in finetune.runs and "log-likelihood" in prompting.runs
    assert "mean of the real tokens" in pss.runs and "mean of the real tokens" in tre.runs
    assert fit.choose_families("gpt", fit.model_kinds(GPT2), ["tre", "pss"]) == ["pss", "tre"]


def test_a_chat_template_is_applied_only_when_asked_never_because_the_tokenizer_has_one():
    """Issue 41: a base model's tokenizer may have a chat template too (Qwen2.5's does)."""
    with_template, without = fit.model_kinds(LLAMA, chat_template=True), fit.model_kinds(GPT2)
    config = base()
    assert fit.chat_templates(with_template, config) == {"mt": False, "plane": False}, "the demo's defaults"
    assert fit.chat_templates(without, config) == {"mt": False, "plane": False}
    assert fit.chat_templates(fit.model_kinds(BERT_MLM), config) == {}, "no causal LM, nothing to apply"
    on = {**config, "plane": {**config["plane"], "prompting": {**config["plane"]["prompting"], "chat_template": True}}}
    assert fit.chat_templates(with_template, on, {"chat_template": "on"}) == {"mt": True, "plane": True}
    assert fit.chat_templates(with_template, on, families=["mt"]) == {"mt": False}
    with pytest.raises(ConfigError, match="plane.prompting.chat_template: is on but the model's tokenizer has no"):
        fit.chat_templates(without, on)
    with pytest.raises(ConfigError, match="--chat-template: is on but the model's tokenizer has no chat template"):
        fit.chat_templates(without, config, {"chat_template": "on"}, families=["mt"])
    old = {**config, "mt": {**config["mt"], "prompting": {**config["mt"]["prompting"], "chat_template": "auto"}}}
    with pytest.raises(ConfigError, match="mt.prompting.chat_template: auto was removed: a base model's tokenizer"):
        fit.chat_templates(with_template, old)
    with pytest.raises(ConfigError, match="mt.prompting.chat_template: auto was removed"):
        fit.prompting_plan({}, old["mt"]["prompting"])
    assert "0-shot, no chat template, greedy" in fit.prompting_plan({}, config["mt"]["prompting"])
    assert fit.chat_template_text({}) == ""
    assert fit.chat_template_text({"mt": False, "plane": False}) == "chat template not applied"
    assert fit.chat_template_text({"plane": True}) == "chat template applied"
    assert fit.chat_template_text({"mt": True, "plane": False}) == (
        "chat template applied in MT, not in PLANE prompting"
    )


def test_a_model_that_fits_nothing_or_a_family_it_does_not_fit_is_an_error():
    with pytest.raises(ConfigError, match="t5 fits no family: it is none of the kinds natcomp tests"):
        fit.choose_families("t5", fit.model_kinds({"model_type": "t5", "architectures": ["T5Model"]}), None)
    with pytest.raises(ConfigError, match="does not fit mt: it is encoder"):
        fit.choose_families("enc", fit.model_kinds(BERT), ["mt", "pss"])
    with pytest.raises(ConfigError, match="does not fit pss"):
        fit.choose_families("marian", fit.model_kinds(MARIAN), ["pss"])
    assert fit.choose_families("enc", fit.model_kinds(BERT), ["tre", "pss"]) == ["pss", "tre"]
    assert fit.choose_families("enc", fit.model_kinds(BERT), None) == ["noncompsst", "plane", "pss", "tre"]


def test_an_architecture_transformers_cannot_instantiate_is_refused_when_the_plan_is_made():
    """A config whose class is custom code (auto_map) crashed its first job; now one line."""
    custom = {"model_type": "llama", "architectures": ["FancyForCausalLM"], "auto_map": {"AutoModel": "x.Fancy"}}
    with pytest.raises(ConfigError, match=r"^--model: fancy's architecture FancyForCausalLM is not one transformers"):
        fit.model_kinds(custom, model="fancy")
    assert fit.model_kinds({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}).causal


def test_a_tokenizer_without_a_way_to_pad_is_refused_when_the_plan_is_made(tmp_path, capsys):
    import json

    from natcomp import hf
    from natcomp.cli import main

    folder = hf.build_tiny_causal_lm(
        tmp_path / "no-pad", ["the cat sat ."] * 10, kind="gpt2", vocab_size=262, d_model=16, layers=1, heads=2
    )
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    settings.update(bos_token=None, eos_token=None, unk_token=None, pad_token=None)
    (folder / "tokenizer_config.json").write_text(json.dumps(settings))
    capsys.readouterr()  # the build's progress bars
    assert main(["evaluate", "--model", str(folder), "-n"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == f"natcomp: error: --model: '{folder}' has neither a pad, an EOS nor an unknown token to pad with"


def test_a_model_that_is_not_local_fails_before_anything(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="--model"):
        fit.read_model_config("some-org/not-a-cached-model")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="no config.json"):
        fit.read_model_config(empty)


# ------------------------------------------------------------------ the run's config


def test_an_encoder_is_the_only_model_of_every_family_it_fits():
    kinds = fit.model_kinds(BERT)
    demo = base()
    config = runconfig.profile_config(demo, "mine", "/m/mine", ["noncompsst", "plane", "pss", "tre"], kinds)
    assert config["run_name"] == "mine"
    assert config["mt"] == {"enabled": False}
    assert config["noncompsst"]["models"] == {"mine": "/m/mine"}
    assert config["noncompsst"]["training"] == demo["noncompsst"]["training"], "test settings kept"
    plane = config["plane"]
    assert plane["finetune"]["model"] == "/m/mine" and plane["finetune"]["enabled"] is True
    assert plane["prompting"]["enabled"] is False and plane["prompting"]["models"] == {}
    assert plane["nli"]["enabled"] is False and plane["nli"]["models"] == {}
    assert plane["demo_models"]["enabled"] is False
    assert plane["splits"] == demo["plane"]["splits"]
    assert config["pss"]["encoders"] == {
        "mine": {"pooling": "mean", "normalize": False, "modes": ["fb", "ft"], "model": "/m/mine"}
    }
    assert config["tre"]["encoders"] == {"mine": {"pooling": "mean", "model": "/m/mine"}}
    assert config["pss"]["heads"] == demo["pss"]["heads"]
    assert demo["pss"]["encoders"].keys() == {"minilm", "tiny_random"}, "the base is not changed"


def test_masked_lm_and_nli_models_get_their_plane_settings_and_families_left_out_are_off():
    mlm = runconfig.profile_config(base(), "m", "m", ["plane"], fit.model_kinds(BERT_MLM))
    assert mlm["plane"]["prompting"]["enabled"] is True and mlm["plane"]["prompting"]["models"] == {"m": "m"}
    assert mlm["plane"]["nli"]["enabled"] is False
    assert mlm["plane"]["zero_shot"]["enabled"] is True, "a masked LM is prompted zero- and two-shot"
    assert "results/tables/plane/table8_zero_shot.tsv" in runconfig.profile_targets(
        ["plane"], fit.model_kinds(BERT_MLM)
    )
    assert all(mlm[family] == {"enabled": False} for family in ("mt", "noncompsst", "pss", "tre"))
    nli = runconfig.profile_config(base("paper.yaml"), "n", "n", ["plane"], fit.model_kinds(ROBERTA_NLI))
    assert nli["plane"]["nli"]["models"] == {"n": "n"} and nli["plane"]["prompting"]["enabled"] is False
    assert nli["plane"]["zero_shot"]["enabled"] is False
    assert nli["plane"]["finetune"]["model"] == "n"
    targets = runconfig.profile_targets(["plane"], fit.model_kinds(ROBERTA_NLI))
    assert "results/tables/plane/table5_nli.tsv" in targets
    assert "results/tables/plane/table4_prompting.tsv" not in targets


def test_a_causal_lm_is_the_only_model_of_every_family_and_plane_prompts_it():
    families = ["mt", "noncompsst", "plane", "pss", "tre"]
    kinds = fit.model_kinds(GPT2)
    config = runconfig.profile_config(base(), "gpt", "/m/gpt", families, kinds, {"family": "causal"})
    assert config["mt"]["systems"] == {"gpt": {"model": "/m/gpt", "family": "causal"}}
    assert config["noncompsst"]["models"] == {"gpt": "/m/gpt"}
    plane = config["plane"]
    assert plane["prompting"]["enabled"] is True and plane["prompting"]["models"] == {"gpt": "/m/gpt"}
    assert plane["zero_shot"]["enabled"] is True and plane["nli"]["enabled"] is False
    assert plane["finetune"]["model"] == "/m/gpt"
    assert config["pss"]["encoders"]["gpt"]["pooling"] == "mean" == config["tre"]["encoders"]["gpt"]["pooling"]
    targets = runconfig.profile_targets(families, kinds)
    assert {"results/tables/plane/table4_prompting.tsv", "results/tables/plane/table8_zero_shot.tsv"} <= set(targets)
    assert "results/tables/plane/table5_nli.tsv" not in targets


def test_the_profiled_model_is_the_sentiment_model_of_noncompssts_tables():
    config = runconfig.profile_config(base(), "enc", "path/enc", ["noncompsst"], fit.model_kinds(BERT))
    assert config["noncompsst"]["models"] == {"enc": "path/enc"}
    assert config["noncompsst"]["tables"]["sentiment_model"] == "enc"


def test_a_model_the_base_lists_keeps_its_encoder_settings():
    """The shipped MiniLM is listed by the demo with normalised embeddings: the profile keeps them."""
    config = runconfig.profile_config(base(), "minilm", "all-MiniLM-L6-v2", ["pss", "tre"], fit.model_kinds(BERT))
    assert config["pss"]["encoders"]["minilm"]["normalize"] is True
    assert config["pss"]["encoders"]["minilm"]["modes"] == ["fb", "ft"]
    assert config["tre"]["encoders"] == {
        "minilm": {
            "model": "all-MiniLM-L6-v2",
            "pooling": "mean",
            "normalize": True,
            "stands_in_for": "USE Transformer",
        }
    }


def test_run_names_and_scales():
    with pytest.raises(ConfigError, match="--name"):
        runconfig.profile_config(base(), "bad name", "x", ["tre"])
    with pytest.raises(ConfigError, match="no tre section"):
        runconfig.profile_config({"run_name": "x"}, "ok", "x", ["tre"])
    assert runconfig.scale_of(base()) == "demo"
    assert runconfig.scale_of(base("paper.yaml")) == "paper"
    assert runconfig.scale_of({"run_name": "mine"}, "configs/big.yaml") == "big"


# ------------------------------------------------------------------ published values


def test_the_published_values_are_typed_from_the_papers():
    noncompsst = load_published("noncompsst")
    assert noncompsst[("Table 2", "ROBERTA-BASE, Liu et al.", "MAXABS r")] == 0.31
    assert noncompsst[("Table 2", "Camacho-collados et al.", "Top 67 F1")] == 0.43
    plane = load_published("plane")
    assert plane[("Table 4", "Average", "RoBERTa-base")] == 61.3
    assert plane[("Table 4", "O", "BERT-large")] == 54.4
    assert plane[("Table 5", "I", "Nie et al. 20")] == 90.3
    assert plane[("Table 6", "Accuracy", "One–IT")] == 0.86
    pss = load_published("pss")
    assert pss[("Table 1", "BERT Linear FT", "PSS")] == 73.7 and pss[("Table 1", "BERT Linear FB", "Relative")] == 75.1
    assert load_published("tre")[("Table 2", "BERT", "SST Correlation")] == -0.1997
    assert load_published("tre")[("Table 2", "USE DAN", "SST Correlation")] == -0.485
    assert paper_model("plane_prompting", "FacebookAI/roberta-base") == "RoBERTa-base"
    assert paper_model("pss", "bert-base-cased") is None


def test_a_bad_published_value_names_its_line(tmp_path):
    (tmp_path / "tre").mkdir()
    (tmp_path / "tre" / "published.tsv").write_text(
        "table\trow\tcolumn\tvalue\tour_table\tour_row\tour_column\nTable 2\tBERT\tSST\t-.2x\t\t\t\n"
    )
    with pytest.raises(InputError, match="line 2"):
        load_published("tre", tmp_path)


# ------------------------------------------------------------------ the profile from tables


def _tables(run: Path, name: str) -> None:
    """Every family's final table, with the model's rows beside another model's; the numbers
    differ between variants (seeds 3 vs 2, classes of unequal sizes, values not 0 or 50)."""
    tables = run / "results" / "tables"
    write_tsv(
        tables / "mt" / "systematicity_summary.tsv",
        [
            {"data_type": "synthetic", "condition": "s_np", name: 0.8, f"{name}_sd": None, "other": 0.1},
            {"data_type": "synthetic", "condition": "s_np_vp", name: 0.6, f"{name}_sd": None, "other": 0.2},
        ],
    )
    write_tsv(
        tables / "mt" / "substitutivity_summary.tsv",
        [
            {"data_type": "natural", "metric": "consistency", name: 0.4, "other": 0.9},
            {"data_type": "natural", "metric": "synonym_consistency", name: 0.3, "other": 0.9},
        ],
    )
    peaks = [
        {"data_type": "natural", "system": name, "size": "", "idiom": idiom, "peak": peak}
        for idiom, peak in (("a", 0.0), ("b", 0.0), ("c", 0.9))
    ] + [{"data_type": "natural", "system": "other", "size": "", "idiom": "a", "peak": 0.5}]
    write_tsv(tables / "mt" / "overgeneralisation_peaks.tsv", peaks)
    write_tsv(
        tables / "noncompsst" / "models.tsv",
        [
            {"model": "other", "r_MAXABS": 0.9, "f1_top67": 0.9, "f1_top67_sd": 0.0, "f1_top67_chance": 0.5}
            | {"seeds": 2, "n_MAXABS": 40},
            {"model": name, "r_MAXABS": 0.25, "f1_top67": 0.35, "f1_top67_sd": 0.05, "f1_top67_chance": 0.0625}
            | {"seeds": 3, "n_MAXABS": 40},
        ],
    )
    write_tsv(
        tables / "plane" / "table4_prompting.tsv",
        [
            {"model": name, "class": cls, "f1_mean": value, "f1_sd": 1.0, "cells": cells, "chance_f1": chance}
            for cls, value, cells, chance in (("I", 70.0, 6, 100.0), ("Average", 50.0, 18, 62.2))
        ],
    )
    write_tsv(
        tables / "plane" / "table8_zero_shot.tsv",
        [
            {"model": "other", "class": "Average", "f1_mean": 9.0, "f1_sd": 1, "templates": 2, "chance_f1": 60.0},
            {"model": name, "class": "Average", "f1_mean": 30.0, "f1_sd": 4.0, "templates": 2, "chance_f1": 62.2},
        ],
    )
    write_tsv(
        tables / "plane" / "table5_nli.tsv",
        [
            {"model": name, "class": cls, "f1": value, "items": 10, "chance_f1": chance}
            for cls, value, chance in (("S", 40.0, 100 / 3), ("O", 20.0, 53.3))
        ],
    )
    write_tsv(
        tables / "plane" / "table6_finetune.tsv",
        [
            {"train_set": "own", "setting": "good", "test_set": "own", "splits": 1, "accuracy_mean": 0.7,
             "accuracy_sd": None, "chance": 0.5},
            {"train_set": "own", "setting": "one_it", "test_set": "own", "splits": 3, "accuracy_mean": 0.6,
             "accuracy_sd": 0.05, "chance": 0.55},
            {"train_set": "released", "setting": "good", "test_set": "released", "splits": 5, "accuracy_mean": 0.8,
             "accuracy_sd": 0.02, "chance": 0.5},
        ],
    )  # fmt: skip
    write_tsv(
        tables / "pss" / "table1.tsv",
        [
            {"encoder": name, "head": "linear", "mode": "fb", "accuracy": 80, "pss": 50, "relative_pss": 62.5,
             "test_sentences": 300},
            {"encoder": name, "head": "linear", "mode": "ft", "accuracy": 90, "pss": 72, "relative_pss": 80,
             "test_sentences": 300},
            {"encoder": "other", "head": "linear", "mode": "fb", "accuracy": 1, "pss": 1, "relative_pss": 1,
             "test_sentences": 300},
        ],
    )  # fmt: skip
    tre = [
        ("paper", name, "encoder", "wns", -0.3, 0.001, -0.2, 0.01),
        ("paper", name, "encoder", "ti", -0.1, 0.2, "", ""),
        ("paper", name, "random", "wns", -0.28, 0.002, -0.15, 0.03),
        ("paper", name, "random", "ti", 0.05, 0.4, "", ""),
        ("paper", name, "shuffled", "wns", -0.21, 0.004, 0.01, 0.9),
        ("held_out", name, "encoder", "wns", -0.05, 0.5, "", ""),
        ("paper", "other", "encoder", "wns", 0.9, 0.0, "", ""),
    ]
    keys = ["setting", "encoder", "targets", "score", "spearman_rho", "p_value", "partial_rho", "partial_p_value"]
    write_tsv(tables / "tre" / "table2.tsv", [dict(zip(keys, row)) for row in tre])


def _row(profile: pd.DataFrame, family: str, measure: str, setting: str) -> pd.Series:
    row = profile[(profile["family"] == family) & (profile["measure"] == measure) & (profile["setting"] == setting)]
    assert len(row) == 1, (family, measure, setting, profile.to_string())
    return row.iloc[0]


def _value(profile: pd.DataFrame, family: str, measure: str, setting: str, column: str = "value"):
    return _row(profile, family, measure, setting)[column]


def _blank(value) -> bool:
    return value is None or value == "" or pd.isna(value)


ALL = ["mt", "noncompsst", "plane", "pss", "tre"]


def test_every_row_has_the_contracts_columns_a_direction_and_a_unit(tmp_path):
    _tables(tmp_path, "roberta")
    profile = profile_rows(
        tmp_path, model="roberta-base", name="roberta", scale="paper", families=ALL, plane_roles={"prompting": True}
    )
    assert tuple(profile.columns) == PROFILE_COLUMNS
    assert set(profile["direction"]) <= set(DIRECTIONS) and profile["direction"].ne("").all()
    assert set(profile["unit"]) == {"%", "r", "rho"}
    assert set(profile["flag"]) == {""} and not profile["value"].isna().any()
    assert not any(("_sd" in measure) or ("baseline" in measure) for measure in profile["measure"]), (
        "no sd or baseline row of its own"
    )
    percent = profile[profile["unit"] == "%"]
    assert ((percent["value"] >= 0) & (percent["value"] <= 100)).all()
    assert (percent["value"] > 1).sum() > len(percent) - 3, "shares are percents, not 0-1"
    assert profile["n"].notna().all() and (profile["n"] >= 1).all()


def test_mt_rows_are_percents_more_consistent_is_more_compositional(tmp_path):
    _tables(tmp_path, "m")
    profile = profile_rows(tmp_path, model="m", name="m", scale="demo", families=["mt"])
    row = _row(profile, "mt", "systematicity consistency", "synthetic s_np_vp")
    assert row["value"] == pytest.approx(60.0) and row["unit"] == "%"
    assert row["direction"] == "higher is more compositional"
    assert row["n"] == 1 and _blank(row["sd"]) and row["sd_over"] == "", "a released system: one run"
    assert _blank(row["baseline"]) and row["baseline_kind"] == ""
    assert _value(profile, "mt", "substitutivity consistency", "natural") == pytest.approx(40.0)
    assert _value(profile, "mt", "substitutivity synonym consistency", "natural") == pytest.approx(30.0)
    over = _row(profile, "mt", "overgeneralisation", "natural")
    assert over["value"] == pytest.approx(30.0), "mean over idioms"
    assert over["direction"] == "higher is more compositional"


def test_mt_sd_over_a_trained_systems_seeds(tmp_path):
    _tables(tmp_path, "small")
    tables = tmp_path / "results" / "tables" / "mt"
    write_tsv(
        tables / "systematicity_summary.tsv",
        [{"data_type": "synthetic", "condition": "s3", "small": 0.5, "small_sd": 0.125}],
    )
    scores = [
        {"system": "trained", "size": size, "seed": seed, "consistency": 1}
        for size, seeds in (("small", (1, 2, 2, 3)), ("full", (1, 2)))
        for seed in seeds
    ]
    write_tsv(tables / "systematicity.tsv", scores)
    row = _row(profile_rows(tmp_path, model="x", name="small", scale="demo", families=["mt"]), "mt",
               "systematicity consistency", "synthetic s3")  # fmt: skip
    assert row["value"] == 50.0 and row["sd"] == 12.5 and row["n"] == 3 and row["sd_over"] == "seeds"


def test_noncompsst_r_has_its_fisher_interval_and_p_value_against_no_correlation(tmp_path):
    from scipy.stats import pearsonr

    _tables(tmp_path, "roberta")
    profile = profile_rows(tmp_path, model="roberta-base", name="roberta", scale="paper", families=["noncompsst"])
    row = _row(profile, "noncompsst", "r with MAXABS", "all rated phrases")
    assert row["value"] == 0.25 and row["unit"] == "r" and row["direction"] == "higher is better"
    assert row["n"] == 3 and row["sd_over"] == "seeds" and _blank(row["sd"]), "r of the seed-averaged predictions"
    assert row["baseline"] == 0.0 and row["baseline_kind"] == "no correlation (r = 0)"
    # the same numbers as scipy's Pearson test and Fisher interval over 40 phrases with r = 0.25
    x = [float(i) for i in range(40)]
    noise = [((i * 7919) % 40) - 19.5 for i in range(40)]
    for scale in (1.0, 2.0, 3.0):
        sample = pearsonr(x, [a + scale * b for a, b in zip(x, noise)])
        if abs(sample.statistic - 0.25) < 0.2:
            break
    from natcomp.profile.table import fisher_interval, pearson_p_value

    interval = sample.confidence_interval(0.95)
    assert fisher_interval(sample.statistic, 40) == pytest.approx((interval.low, interval.high))
    assert pearson_p_value(sample.statistic, 40) == pytest.approx(sample.pvalue)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((-0.0667, 0.5209), abs=1e-4)
    assert row["p_value"] == pytest.approx(pearson_p_value(0.25, 40)) and 0.1 < row["p_value"] < 0.12
    assert row["paper_value"] == 0.31
    f1 = _row(profile, "noncompsst", "F1 on the top phrases", "top 67")
    assert f1["value"] == pytest.approx(35.0) and f1["sd"] == pytest.approx(5.0) and f1["unit"] == "%"
    assert f1["n"] == 3 and f1["sd_over"] == "seeds" and f1["direction"] == "higher is better"
    assert f1["paper_value"] == pytest.approx(32.0), "the paper's 0.32 in the same unit"
    assert f1["baseline"] == pytest.approx(6.25) and f1["baseline_kind"] == "chance (best constant sentiment class)"
    assert not any(row["setting"].startswith("top 67_") for _, row in profile.iterrows()), "no k from _chance"


def test_a_constant_prediction_r_is_undefined_with_its_reason(tmp_path):
    _tables(tmp_path, "flat")
    write_tsv(
        tmp_path / "results" / "tables" / "noncompsst" / "models.tsv",
        [
            {"model": "flat", "r_MAXABS": "", "f1_top40": 0.1, "f1_top40_sd": "", "seeds": 2, "n_MAXABS": 40},
            {"model": "few", "r_MAXABS": "", "f1_top40": "", "f1_top40_sd": "", "seeds": 1, "n_MAXABS": 2},
        ],
    )
    profile = profile_rows(tmp_path, model="flat", name="flat", scale="demo", families=["noncompsst"])
    row = _row(profile, "noncompsst", "r with MAXABS", "all rated phrases")
    assert _blank(row["value"]) and row["flag"] == "undefined"
    assert row["note"].startswith("constant predictions: r undefined")
    assert _blank(row["ci_low"]) and _blank(row["p_value"])
    f1 = _row(profile, "noncompsst", "F1 on the top phrases", "top 40")
    assert f1["flag"] == "" and f1["value"] == pytest.approx(10.0) and _blank(f1["sd"]) and f1["n"] == 2
    few = profile_rows(tmp_path, model="few", name="few", scale="demo", families=["noncompsst"])
    assert _value(few, "noncompsst", "r with MAXABS", "all rated phrases", "note").startswith("2 rated phrase(s)")
    assert _value(few, "noncompsst", "F1 on the top phrases", "top 40", "flag") == "undefined"


def test_plane_rows_against_the_chance_of_their_split(tmp_path):
    _tables(tmp_path, "roberta")
    profile = profile_rows(
        tmp_path, model="roberta-base", name="roberta", scale="paper", families=["plane"],
        plane_roles={"prompting": True, "nli": True},
    )  # fmt: skip
    two_shot = _row(profile, "plane", "two-shot prompting F1", "class Average")
    assert (two_shot["value"], two_shot["sd"], two_shot["n"], two_shot["sd_over"]) == (50.0, 1.0, 18, "prompts")
    assert two_shot["baseline"] == 62.2 and two_shot["baseline_kind"] == "chance (best constant answer)"
    assert two_shot["paper_value"] == 61.3 and two_shot["direction"] == "higher is better"
    assert _value(profile, "plane", "two-shot prompting F1", "class I", "baseline") == 100.0
    assert _value(profile, "plane", "two-shot prompting F1", "class I", "n") == 6
    zero = _row(profile, "plane", "zero-shot prompting F1", "class Average")
    assert (zero["value"], zero["sd"], zero["n"], zero["baseline"]) == (30.0, 4.0, 2, 62.2), "its own row"
    nli = _row(profile, "plane", "NLI transfer F1", "class O")
    assert nli["value"] == 20.0 and nli["baseline"] == 53.3 and nli["n"] == 1 and _blank(nli["sd"])
    assert _value(profile, "plane", "NLI transfer F1", "class S", "baseline") == pytest.approx(100 / 3)
    tuned = _row(profile, "plane", "fine-tuning accuracy", "one_it own")
    assert tuned["value"] == pytest.approx(60.0) and tuned["sd"] == pytest.approx(5.0) and tuned["unit"] == "%"
    assert tuned["n"] == 3 and tuned["sd_over"] == "split seeds"
    assert tuned["baseline"] == pytest.approx(55.0) and tuned["baseline_kind"] == "chance (majority label)"
    single = _row(profile, "plane", "fine-tuning accuracy", "good own")
    assert single["n"] == 1 and _blank(single["sd"]) and single["baseline"] == pytest.approx(50.0)
    assert _blank(single["paper_value"]), "BERT's, not RoBERTa's"


def test_a_causal_lms_prompted_rows_say_whether_its_chat_template_was_applied(tmp_path):
    """Issue 41: MT's and PLANE prompting's rows of a causal LM say whether its prompts went
    through the chat template (the run record's ``chat_template``); the other rows do not."""
    _tables(tmp_path, "llm")

    def notes(applied):
        profile = profile_rows(
            tmp_path, model="m", name="llm", scale="demo", families=["mt", "plane", "pss"],
            plane_roles={"prompting": True}, chat_template=applied,
        )  # fmt: skip
        prompted = profile["family"].eq("mt") | profile["measure"].str.contains("prompting")
        return set(profile.loc[prompted, "note"]), set(profile.loc[~prompted, "note"])

    assert notes({"mt": False, "plane": False}) == ({"chat template not applied"}, {""})
    assert notes({"mt": True, "plane": False})[0] == {"chat template applied", "chat template not applied"}
    mt_only = profile_rows(tmp_path, model="m", name="llm", scale="demo", families=["mt"], chat_template={"mt": True})
    assert set(mt_only["note"]) == {"chat template applied"}
    assert notes(None) == ({""}, {""}), "no causal LM: no note"


def test_the_profile_page_of_a_causal_lm_says_whether_its_chat_template_was_applied(tmp_path):
    from natcomp.profile.cli import write_run_profile

    _tables(tmp_path, "llm")
    record = {"model": "/m/llm", "name": "llm", "scale": "demo", "families": ["mt"], "chat_template": {"mt": True}}
    runconfig.write_config(record, tmp_path / runconfig.RUN_FILE, "the test")
    tsv, page = write_run_profile(tmp_path)
    assert "<h1>Compositionality profile of llm (/m/llm, demo scale, chat template applied)</h1>" in page.read_text()
    assert set(read_profile(tsv)["note"]) == {"chat template applied"}
    runconfig.write_config({**record, "chat_template": None}, tmp_path / runconfig.RUN_FILE, "the test")
    assert "<h1>Compositionality profile of llm (/m/llm, demo scale)</h1>" in write_run_profile(tmp_path)[1].read_text()


def test_plane_f1_of_a_class_without_items_is_undefined(tmp_path):
    _tables(tmp_path, "m")
    write_tsv(
        tmp_path / "results" / "tables" / "plane" / "table5_nli.tsv",
        [{"model": "m", "class": "O", "f1": "", "items": 0, "chance_f1": ""}],
    )
    profile = profile_rows(tmp_path, model="m", name="m", scale="demo", families=["plane"], plane_roles={"nli": True})
    row = _row(profile, "plane", "NLI transfer F1", "class O")
    assert row["flag"] == "undefined" and row["note"] == "no items scored: F1 undefined"
    assert _blank(row["baseline"]) and row["baseline_kind"] == ""


@pytest.mark.parametrize(
    "accuracy, flag",
    [
        ("54.6667", "at chance"),  # 164 of 300: one-sided binomial p = 0.059
        ("55.0000", ""),  # 165 of 300: p = 0.047
        ("49.0000", "at chance"),
    ],
)
def test_pss_is_flagged_when_its_classifier_is_not_above_chance(tmp_path, accuracy, flag):
    _tables(tmp_path, "m")
    write_tsv(
        tmp_path / "results" / "tables" / "pss" / "table1.tsv",
        [{"encoder": "m", "head": "dnn", "mode": "ft", "accuracy": accuracy, "pss": 0.0, "relative_pss": 0.0,
          "test_sentences": 300}],
    )  # fmt: skip
    profile = profile_rows(tmp_path, model="m", name="m", scale="demo", families=["pss"])
    for measure in ("PSS", "relative PSS"):
        row = _row(profile, "pss", measure, "dnn FT")
        assert row["flag"] == flag and row["value"] == 0.0
        assert row["baseline"] == pytest.approx(float(accuracy)) and row["unit"] == "%"
        assert row["baseline_kind"] == "classifier sentiment accuracy, chance 50%"
        assert row["direction"] == "higher is more compositional"
    if flag:
        assert row["note"].startswith(f"classifier at chance ({float(accuracy):.1f}% on 300 sentences, binomial p = ")
        assert row["note"].endswith("): PSS meaningless")
    else:
        assert row["note"] == ""


def test_tre_rows_carry_their_random_and_shuffled_baselines(tmp_path):
    _tables(tmp_path, "bert")
    profile = profile_rows(tmp_path, model="bert-base-uncased", name="bert", scale="demo", families=["tre"])
    assert set(profile["measure"]) == {
        "Spearman rho of TRE with WNS",
        "Spearman rho of TRE with TI",
        "partial rho of TRE with WNS, length fixed",
    }, "the baselines are columns, not rows"
    wns = _row(profile, "tre", "Spearman rho of TRE with WNS", "paper")
    assert (wns["value"], wns["p_value"], wns["baseline"], wns["baseline2"]) == (-0.3, 0.001, -0.28, -0.21)
    assert wns["baseline_kind"] == "random vectors" and wns["baseline2_kind"] == "shuffled embeddings"
    assert wns["unit"] == "rho" and wns["direction"] == "lower is more compositional"
    assert wns["paper_value"] == -0.1997
    ti = _row(profile, "tre", "Spearman rho of TRE with TI", "paper")
    assert (ti["value"], ti["baseline"]) == (-0.1, 0.05) and _blank(ti["baseline2"]) and ti["baseline2_kind"] == ""
    partial = _row(profile, "tre", "partial rho of TRE with WNS, length fixed", "paper")
    assert (partial["value"], partial["p_value"], partial["baseline"], partial["baseline2"]) == (
        -0.2,
        0.01,
        -0.15,
        0.01,
    )
    held = _row(profile, "tre", "Spearman rho of TRE with WNS", "held_out")
    assert held["value"] == -0.05 and _blank(held["baseline"]) and _blank(held["paper_value"])


def test_the_papers_bert_gets_the_pss_tre_and_plane_values(tmp_path):
    _tables(tmp_path, "bert")
    profile = profile_rows(tmp_path, model="bert-base-uncased", name="bert", scale="demo", families=["pss", "tre"])
    assert _value(profile, "pss", "PSS", "linear FT", "paper_value") == 73.7
    assert _value(profile, "pss", "relative PSS", "linear FB", "paper_value") == 75.1
    assert _value(profile, "tre", "Spearman rho of TRE with WNS", "paper", "paper_value") == -0.1997
    assert pd.isna(_value(profile, "tre", "Spearman rho of TRE with WNS", "held_out", "paper_value"))
    profile = profile_rows(tmp_path, model="bert-base-cased", name="bert", scale="demo", families=["plane"])
    assert _value(profile, "plane", "fine-tuning accuracy", "good released", "paper_value") == pytest.approx(85.0)
    assert _value(profile, "plane", "fine-tuning accuracy", "good released") == pytest.approx(80.0)
    # The paper trained on its released splits: its value is not put beside the project's own splits.
    assert pd.isna(_value(profile, "plane", "fine-tuning accuracy", "good own", "paper_value"))
    assert pd.isna(_value(profile, "plane", "fine-tuning accuracy", "one_it own", "paper_value"))


def test_a_missing_table_or_row_is_one_line(tmp_path):
    with pytest.raises(InputError, match="did the workflow finish"):
        profile_rows(tmp_path, model="m", name="m", scale="demo", families=["tre"])
    _tables(tmp_path, "someone")
    with pytest.raises(InputError, match="no row with encoder 'm'"):
        profile_rows(tmp_path, model="m", name="m", scale="demo", families=["tre"])


def test_an_nli_classifier_gets_plane_nli_transfer_with_the_papers_value(tmp_path):
    _tables(tmp_path, "nli")
    profile = profile_rows(
        tmp_path,
        model="ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli",
        name="nli",
        scale="paper",
        families=["plane"],
        plane_roles={"prompting": False, "nli": True},
    )
    assert _value(profile, "plane", "NLI transfer F1", "class S") == 40.0
    assert _value(profile, "plane", "NLI transfer F1", "class O", "paper_value") == 31.1
    assert _value(profile, "plane", "NLI transfer F1", "class S", "paper_value") == 58.8
    assert "two-shot prompting F1" not in set(profile["measure"]), "no prompting for a model that is no masked LM"


# ------------------------------------------------------------------ read and compare


def _profile(tmp_path: Path, name: str, model: str, families: list[str], scale: str = "demo") -> Path:
    run = tmp_path / name
    _tables(run, name)
    profile = profile_rows(run, model=model, name=name, scale=scale, families=families)
    write_profile(profile, run / "results", f"profile of {name}")
    return run


def test_a_profile_reads_back_with_every_column(tmp_path):
    run = _profile(tmp_path, "a", "/m/a", ["noncompsst", "pss"])
    profile = read_profile(run)
    assert tuple(profile.columns) == PROFILE_COLUMNS
    row = profile[profile["measure"] == "r with MAXABS"].iloc[0]
    assert (row["n"], row["sd_over"], row["baseline"], row["unit"]) == ("3", "seeds", "0", "r")
    assert row["ci_low"] == "-0.0667041" and row["sd"] == "" and row["flag"] == ""


def test_an_old_profile_without_the_new_columns_is_one_line(tmp_path):
    old = tmp_path / "profile.tsv"
    old.write_text(
        "model\tfamily\tmeasure\tsetting\tvalue\tpaper_value\tpaper_source\tscale\nm\tpss\tPSS\tx\t1\t\t\tdemo\n"
    )
    with pytest.raises(
        InputError, match="the profile predates the column\\(s\\) sd, n, sd_over.*re-run 'natcomp evaluate'"
    ):
        read_profile(old)


def test_compare_puts_profiles_side_by_side_with_missing_blank(tmp_path):
    a = _profile(tmp_path, "a", "/m/a", ["pss", "tre"])
    b = _profile(tmp_path, "b", "bert-base-uncased", ["tre"], scale="paper")
    assert (a / "results" / "profile.html").read_text(encoding="utf-8").count("<tr") >= 6
    table = compare_profiles([read_profile(a), read_profile(b)])
    block = ["sd", "n", "baseline", "flag", "note"]
    assert list(table.columns) == [
        *COMPARE_ROW_COLUMNS,
        "a [demo]",
        *(f"a {column}" for column in block),
        "b [paper]",
        *(f"b {column}" for column in block),
        "b [published]",
    ]
    pss = table[table["family"] == "pss"]
    assert len(pss) == 4 and pss["b [paper]"].isna().all(), "a family b has no run for is blank"
    assert pss["b n"].isna().all() and (pss["b flag"] == "").all() and (pss["b note"] == "").all()
    assert set(pss["unit"]) == {"%"} and set(pss["direction"]) == {"higher is more compositional"}
    assert list(pss["a baseline"]) == [80.0, 80.0, 90.0, 90.0]
    numbers = table[[column for column in table.columns if column.endswith(("]", " n", " baseline"))]]
    assert not (numbers.fillna(1) == 0).any().any()
    wns = table[(table["measure"] == "Spearman rho of TRE with WNS") & (table["setting"] == "paper")].iloc[0]
    assert wns["a [demo]"] == -0.3 and wns["b [published]"] == -0.1997 and wns["a baseline"] == -0.28
    assert wns["unit"] == "rho" and wns["direction"] == "lower is more compositional" and wns["b n"] == 1
    compare_figure(pd.concat([read_profile(a), read_profile(b)]), tmp_path / "compare.png")
    assert (tmp_path / "compare.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(InputError, match="same model name"):
        compare_profiles([read_profile(a), read_profile(a)])
    with pytest.raises(InputError, match="no profile here"):
        read_profile(tmp_path / "nowhere")


def test_compare_carries_sd_n_and_the_flag_of_each_model(tmp_path):
    a = _profile(tmp_path, "a", "/m/a", ["noncompsst", "plane"])
    run = tmp_path / "b"
    _tables(run, "b")
    write_tsv(
        run / "results" / "tables" / "noncompsst" / "models.tsv",
        [{"model": "b", "r_MAXABS": "", "f1_top67": 0.5, "f1_top67_sd": 0.1, "seeds": 2, "n_MAXABS": 40}],
    )
    write_profile(profile_rows(run, model="b", name="b", scale="demo", families=["noncompsst"]), run / "results", "b")
    table = compare_profiles([read_profile(a), read_profile(run)]).set_index(["measure", "setting"])
    r = table.loc[("r with MAXABS", "all rated phrases")]
    assert math.isnan(r["b [demo]"]) and r["b flag"] == "undefined" and r["b note"].startswith("constant predictions")
    assert r["a [demo]"] == 0.25 and r["a flag"] == "" and r["a n"] == 3 and r["b n"] == 2
    f1 = table.loc[("F1 on the top phrases", "top 67")]
    assert (f1["a sd"], f1["b sd"]) == pytest.approx((5.0, 10.0))
    tuned = table.loc[("fine-tuning accuracy", "one_it own")]
    assert tuned["a n"] == 3 and tuned["a baseline"] == pytest.approx(55.0) and pd.isna(tuned["b n"])


def test_compare_keeps_a_measure_only_one_model_has(tmp_path):
    a = read_profile(_profile(tmp_path, "a", "/m/a", ["tre"]))
    b = read_profile(_profile(tmp_path, "b", "/m/b", ["pss"]))
    table = compare_profiles([a, b])
    assert table["family"].tolist() == ["pss"] * 4 + ["tre"] * 4, "families in profile order"
    assert math.isnan(table.loc[table["family"] == "tre", "b [demo]"].iloc[0])


def test_a_family_table_older_than_the_profiles_columns_is_one_line(tmp_path):
    _tables(tmp_path, "m")
    write_tsv(
        tmp_path / "results" / "tables" / "plane" / "table5_nli.tsv",
        [{"model": "m", "class": "O", "f1": 20.0, "items": 10}],
    )
    with pytest.raises(InputError, match="table5_nli.tsv: the table predates the column\\(s\\) chance_f1: delete it"):
        profile_rows(tmp_path, model="m", name="m", scale="demo", families=["plane"], plane_roles={"nli": True})
