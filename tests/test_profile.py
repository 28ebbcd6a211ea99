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
    COMPARE_COLUMNS,
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
        (GPT2, fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False)),
        # an encoder-decoder without a generation head is no translation model, nor an encoder
        (
            {"model_type": "bart", "architectures": ["BartModel"], "is_encoder_decoder": True},
            fit.ModelKinds(translation=False, encoder=False, masked_lm=False, nli=False),
        ),
        # a generation head on a model that is not an encoder-decoder is not a translation model
        (
            {"model_type": "bert", "architectures": ["BertForConditionalGeneration"]},
            fit.ModelKinds(translation=False, encoder=True, masked_lm=False, nli=False),
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


def test_a_model_that_fits_nothing_or_a_family_it_does_not_fit_is_an_error():
    with pytest.raises(ConfigError, match="gpt fits no family"):
        fit.choose_families("gpt", fit.model_kinds(GPT2), None)
    with pytest.raises(ConfigError, match="does not fit mt: it is encoder"):
        fit.choose_families("enc", fit.model_kinds(BERT), ["mt", "pss"])
    with pytest.raises(ConfigError, match="does not fit pss"):
        fit.choose_families("marian", fit.model_kinds(MARIAN), ["pss"])
    assert fit.choose_families("enc", fit.model_kinds(BERT), ["tre", "pss"]) == ["pss", "tre"]
    assert fit.choose_families("enc", fit.model_kinds(BERT), None) == ["noncompsst", "plane", "pss", "tre"]


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
            {"model": "other", "sst7_f1": 0.1, "r_MAXABS": 0.9, "f1_top67": 0.9},
            {"model": name, "sst7_f1": 0.4, "r_MAXABS": 0.25, "f1_top67": 0.35},
        ],
    )
    write_tsv(
        tables / "plane" / "table4_prompting.tsv",
        [
            {"model": name, "class": cls, "f1_mean": value, "f1_sd": 1.0}
            for cls, value in (("I", 70.0), ("Average", 50.0))
        ],
    )
    write_tsv(
        tables / "plane" / "table8_zero_shot.tsv",
        [{"model": "other", "class": "Average", "f1_mean": 9.0}, {"model": name, "class": "Average", "f1_mean": 30.0}],
    )
    write_tsv(
        tables / "plane" / "table5_nli.tsv",
        [{"model": name, "class": cls, "f1": value, "items": 10} for cls, value in (("S", 40.0), ("O", 20.0))],
    )
    write_tsv(
        tables / "plane" / "table6_finetune.tsv",
        [
            {"train_set": "own", "setting": "good", "test_set": "own", "splits": 1, "accuracy_mean": 0.7},
            {"train_set": "own", "setting": "one_it", "test_set": "own", "splits": 1, "accuracy_mean": 0.6},
            {"train_set": "released", "setting": "good", "test_set": "released", "splits": 5, "accuracy_mean": 0.8},
        ],
    )
    write_tsv(
        tables / "pss" / "table1.tsv",
        [
            {"encoder": name, "head": "linear", "mode": "fb", "accuracy": 80, "pss": 50, "relative_pss": 62.5},
            {"encoder": name, "head": "linear", "mode": "ft", "accuracy": 90, "pss": 72, "relative_pss": 80},
            {"encoder": "other", "head": "linear", "mode": "fb", "accuracy": 1, "pss": 1, "relative_pss": 1},
        ],
    )
    write_tsv(
        tables / "tre" / "table2.tsv",
        [
            {"setting": "paper", "encoder": name, "targets": "encoder", "score": "wns", "spearman_rho": -0.3},
            {"setting": "paper", "encoder": name, "targets": "encoder", "score": "ti", "spearman_rho": -0.1},
            {"setting": "paper", "encoder": name, "targets": "random", "score": "wns", "spearman_rho": -0.28},
            {"setting": "paper", "encoder": name, "targets": "shuffled", "score": "wns", "spearman_rho": -0.21},
            {"setting": "held_out", "encoder": name, "targets": "encoder", "score": "wns", "spearman_rho": -0.05},
            {"setting": "paper", "encoder": "other", "targets": "encoder", "score": "wns", "spearman_rho": 0.9},
        ],
    )


def _value(profile: pd.DataFrame, family: str, measure: str, setting: str, column: str = "value"):
    row = profile[(profile["family"] == family) & (profile["measure"] == measure) & (profile["setting"] == setting)]
    assert len(row) == 1, (family, measure, setting, profile.to_string())
    return row[column].iloc[0]


def test_the_profile_reads_each_family_headline_for_its_own_model(tmp_path):
    _tables(tmp_path, "roberta")
    profile = profile_rows(
        tmp_path,
        model="roberta-base",
        name="roberta",
        scale="paper",
        families=["mt", "noncompsst", "plane", "pss", "tre"],
        plane_roles={"prompting": True, "nli": False},
    )
    assert set(profile["scale"]) == {"paper"} and set(profile["model"]) == {"roberta"}
    assert _value(profile, "mt", "systematicity consistency", "synthetic s_np_vp") == 0.6
    assert _value(profile, "mt", "substitutivity consistency", "natural") == 0.4
    assert _value(profile, "mt", "substitutivity synonym consistency", "natural") == 0.3
    assert _value(profile, "mt", "overgeneralisation", "natural") == pytest.approx(0.3), "mean over idioms"
    assert _value(profile, "noncompsst", "r with MAXABS", "all rated phrases") == 0.25
    assert _value(profile, "noncompsst", "r with MAXABS", "all rated phrases", "paper_value") == 0.31
    assert _value(profile, "noncompsst", "F1 on the top phrases", "top 67") == 0.35
    assert _value(profile, "noncompsst", "F1 on the top phrases", "top 67", "paper_value") == 0.32
    assert _value(profile, "plane", "two-shot prompting F1", "class Average") == 50.0
    assert _value(profile, "plane", "zero-shot prompting F1", "class Average") == 30.0, "the model's row, not another's"
    assert _value(profile, "plane", "two-shot prompting F1", "class Average", "paper_value") == 61.3
    assert _value(profile, "plane", "two-shot prompting F1", "class I", "paper_value") == 97.6
    assert _value(profile, "plane", "fine-tuning accuracy", "one_it own") == 0.6
    assert pd.isna(_value(profile, "plane", "fine-tuning accuracy", "good own", "paper_value")), "BERT's, not RoBERTa's"
    assert _value(profile, "pss", "PSS", "linear FT") == 72
    assert _value(profile, "pss", "relative PSS", "linear FB") == 62.5
    assert pd.isna(_value(profile, "pss", "PSS", "linear FT", "paper_value"))
    assert _value(profile, "tre", "Spearman rho of TRE with WNS", "paper") == -0.3
    assert _value(profile, "tre", "Spearman rho of TRE with TI", "paper") == -0.1
    assert _value(profile, "tre", "Spearman rho of TRE with WNS (random-vector baseline)", "paper") == -0.28
    assert _value(profile, "tre", "Spearman rho of TRE with WNS (shuffled-embedding baseline)", "paper") == -0.21
    assert _value(profile, "tre", "Spearman rho of TRE with WNS", "held_out") == -0.05
    source = _value(profile, "noncompsst", "r with MAXABS", "all rated phrases", "paper_source")
    assert source == "Table 2 / ROBERTA-BASE, Liu et al. / MAXABS r"


def test_the_papers_bert_gets_the_pss_tre_and_plane_values(tmp_path):
    _tables(tmp_path, "bert")
    profile = profile_rows(tmp_path, model="bert-base-uncased", name="bert", scale="demo", families=["pss", "tre"])
    assert _value(profile, "pss", "PSS", "linear FT", "paper_value") == 73.7
    assert _value(profile, "pss", "relative PSS", "linear FB", "paper_value") == 75.1
    assert _value(profile, "tre", "Spearman rho of TRE with WNS", "paper", "paper_value") == -0.1997
    assert pd.isna(_value(profile, "tre", "Spearman rho of TRE with WNS", "held_out", "paper_value"))
    assert pd.isna(
        _value(profile, "tre", "Spearman rho of TRE with WNS (random-vector baseline)", "paper", "paper_value")
    )
    profile = profile_rows(tmp_path, model="bert-base-cased", name="bert", scale="demo", families=["plane"])
    assert _value(profile, "plane", "fine-tuning accuracy", "good released", "paper_value") == 0.85
    assert _value(profile, "plane", "fine-tuning accuracy", "good released") == 0.8
    # The paper trained on its released splits: its value is not put beside the project's own splits.
    assert pd.isna(_value(profile, "plane", "fine-tuning accuracy", "good own", "paper_value"))
    assert pd.isna(_value(profile, "plane", "fine-tuning accuracy", "one_it own", "paper_value"))


def test_a_missing_table_or_row_is_one_line(tmp_path):
    with pytest.raises(InputError, match="did the workflow finish"):
        profile_rows(tmp_path, model="m", name="m", scale="demo", families=["tre"])
    _tables(tmp_path, "someone")
    with pytest.raises(InputError, match="no row with encoder 'm'"):
        profile_rows(tmp_path, model="m", name="m", scale="demo", families=["tre"])


# ------------------------------------------------------------------ compare


def _profile(tmp_path: Path, name: str, model: str, families: list[str], scale: str = "demo") -> Path:
    run = tmp_path / name
    _tables(run, name)
    profile = profile_rows(run, model=model, name=name, scale=scale, families=families)
    write_profile(profile, run / "results", f"profile of {name}")
    return run


def test_compare_puts_profiles_side_by_side_with_missing_blank(tmp_path):
    a = _profile(tmp_path, "a", "/m/a", ["pss", "tre"])
    b = _profile(tmp_path, "b", "bert-base-uncased", ["tre"], scale="paper")
    assert (a / "results" / "profile.html").read_text(encoding="utf-8").count("<tr") >= 6
    table = compare_profiles([read_profile(a), read_profile(b)])
    assert list(table.columns) == [*COMPARE_COLUMNS, "a [demo]", "b [paper]", "b [published]"]
    pss = table[table["family"] == "pss"]
    assert len(pss) == 4 and pss["b [paper]"].isna().all(), "a family b has no run for is blank"
    assert not (table.fillna(1) == 0).any().any()
    wns = table[table["measure"] == "Spearman rho of TRE with WNS"].iloc[0]
    assert wns["a [demo]"] == -0.3 and wns["b [published]"] == -0.1997
    compare_figure(pd.concat([read_profile(a), read_profile(b)]), tmp_path / "compare.png")
    assert (tmp_path / "compare.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(InputError, match="same model name"):
        compare_profiles([read_profile(a), read_profile(a)])
    with pytest.raises(InputError, match="no profile here"):
        read_profile(tmp_path / "nowhere")


def test_compare_keeps_a_measure_only_one_model_has(tmp_path):
    a = read_profile(_profile(tmp_path, "a", "/m/a", ["tre"]))
    b = read_profile(_profile(tmp_path, "b", "/m/b", ["pss"]))
    table = compare_profiles([a, b])
    assert table["family"].tolist() == ["pss"] * 4 + ["tre"] * 5, "families in profile order"
    assert math.isnan(table.loc[table["family"] == "tre", "b [demo]"].iloc[0])


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
