"""Synonym translation candidates from probe sentences (natcomp.mt.synonym_probes, appendix C)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.mt.consistency import synonym_consistent
from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.synonym_probes import (
    PAPER_PROBE_TEMPLATES,
    candidate_sheet,
    candidate_span,
    choose_candidates,
    extract_candidates,
    frame_tokens,
    load_candidates,
    pooled_candidates,
    probe_rows,
    probe_sentences,
    read_checked_sheet,
    read_probe_translations,
    scoring_synonyms,
    write_candidates,
    write_probe_translations,
    write_sheet,
)
from natcomp.tsv import read_tsv

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@pytest.fixture(scope="module")
def pairs():
    return load_synonyms(RESOURCES / "synonyms.tsv")


# ---------------------------------------------------------------- probe sentences


def test_probes_are_the_papers_frame_with_both_spellings(pairs):
    probes = probe_sentences(pairs)
    assert PAPER_PROBE_TEMPLATES == ("This is the {term} .",)
    assert len(probes) == 2 * len(pairs) == 40
    assert [p.sentence for p in probes[:2]] == ["This is the aeroplane .", "This is the airplane ."]
    assert [(p.pair, p.spelling) for p in probes[:2]] == [
        ("aeroplane/airplane", "british"),
        ("aeroplane/airplane", "american"),
    ]
    assert "This is the shopping cart ." in {p.sentence for p in probes}
    two = probe_sentences(pairs[:1], ["This is the {term} .", "I like the {term} ."])
    assert [p.sentence for p in two] == [
        "This is the aeroplane .",
        "This is the airplane .",
        "I like the aeroplane .",
        "I like the airplane .",
    ]


@pytest.mark.parametrize("templates", [[], ["This is the noun ."], ["{term} and {term}"]])
def test_a_template_needs_the_term_exactly_once(pairs, templates):
    with pytest.raises(ValueError, match="template"):
        probe_sentences(pairs, templates)


# ---------------------------------------------------------------- spans

FRAME = {"dit", "is", "de", "het", "een", "."}


@pytest.mark.parametrize(
    ("hypothesis", "span"),
    [
        ("Dit is het vliegtuig .", "vliegtuig"),
        ("Dit is de pyjama's.", "pyjama's"),  # detokenised: cut from the text as written
        ("Dit is de winkelwagen trolley .", "winkelwagen trolley"),  # multi-word stays whole
        ("Dit is de postcode van de zip .", "postcode van de zip"),  # frame words inside stay
        ("Dit is het .", None),  # the noun was dropped
        ("Is dit de Zeilboot ?", "Zeilboot ?"),  # only frame tokens are stripped
    ],
)
def test_candidate_span_strips_the_frame_at_both_ends(hypothesis, span):
    assert candidate_span(hypothesis, FRAME) == span


def test_frame_tokens_are_shared_by_different_pairs():
    by_pair = {
        "aeroplane/airplane": ["Dit is het vliegtuig .", "Dit is een vliegtuig ."],
        "doughnut/donut": ["Dit is de donut .", "Dit is de donut ."],
        "theatre/theater": ["Dit is het theater ."],
    }
    # 'vliegtuig' and 'donut' twice, but each within one pair: not frame; nor is 'de' here
    assert frame_tokens(by_pair) == {"dit", "is", "het", "."}
    with pytest.raises(ValueError, match="at least 2 pairs"):
        frame_tokens({"aeroplane/airplane": ["Dit is het vliegtuig ."]})


def _probe_frame(model_hypotheses):
    """Probe translations of models: {(size, seed): {(pair, spelling): [hypotheses]}} for
    trained models, {system: {...}} for pretrained ones."""
    rows = []
    for model, found in model_hypotheses.items():
        system, size, seed = ("trained", *model) if isinstance(model, tuple) else (model, "", "")
        for (pair, spelling), hyps in found.items():
            for rank, hyp in enumerate(hyps, start=1):
                rows.append(
                    {
                        "system": system, "size": size, "seed": seed, "pair": pair, "spelling": spelling,
                        "template": "This is the {term} .", "probe": f"This is the {pair}-{spelling} .",
                        "rank": str(rank), "hypothesis": hyp, "decode_signature": "sig",
                    }
                )  # fmt: skip
    return pd.DataFrame(rows)


MODELS = {
    ("full", "1"): {
        ("aeroplane/airplane", "british"): ["Dit is het vliegtuig .", "Dit is het vliegtuigje .", "Dit is het ."],
        ("aeroplane/airplane", "american"): ["Dit is het vliegtuig .", "Dit is de toestel ."],
        ("doughnut/donut", "british"): ["Dit is de donut .", "Dit is de ezel ."],
        ("doughnut/donut", "american"): ["Dit is de donut ."],
        # with a second het-noun "het" is frame, as it is among the 20 pairs of the paper
        ("theatre/theater", "british"): ["Dit is het theater ."],
    },
    ("small", "1"): {
        # another frame translation: this model says "Het is"
        ("aeroplane/airplane", "british"): ["Het is vliegtuig .", "Het is vlucht ."],
        ("aeroplane/airplane", "american"): ["Het is vliegtuig ."],
        ("doughnut/donut", "british"): ["Het is donut ."],
        ("doughnut/donut", "american"): ["Het is donuts ."],
    },
}


def test_extract_candidates_counts_spans_per_model():
    found = extract_candidates(_probe_frame(MODELS))
    counts = {(r.size, r.pair, r.spelling, r.candidate): r.count for r in found.itertuples()}
    assert counts == {
        ("full", "aeroplane/airplane", "british", "vliegtuig"): 1,
        ("full", "aeroplane/airplane", "british", "vliegtuigje"): 1,
        ("full", "aeroplane/airplane", "american", "vliegtuig"): 1,
        ("full", "aeroplane/airplane", "american", "toestel"): 1,
        ("full", "doughnut/donut", "british", "donut"): 1,
        ("full", "doughnut/donut", "british", "ezel"): 1,
        ("full", "doughnut/donut", "american", "donut"): 1,
        ("full", "theatre/theater", "british", "theater"): 1,
        ("small", "aeroplane/airplane", "british", "vliegtuig"): 1,
        ("small", "aeroplane/airplane", "british", "vlucht"): 1,
        ("small", "aeroplane/airplane", "american", "vliegtuig"): 1,
        ("small", "doughnut/donut", "british", "donut"): 1,
        ("small", "doughnut/donut", "american", "donuts"): 1,
    }


def test_probe_translation_files_round_trip(tmp_path, pairs):
    probes = probe_sentences(pairs[:2])
    hypotheses = {p.sentence: [f"Dit is de {p.sentence.split()[3]} .", "Dit is het ."] for p in probes}
    rows = probe_rows(probes, hypotheses, {"system": "trained", "size": "full", "seed": 1}, "sig")
    assert len(rows) == 8 and rows[0]["rank"] == "1" and rows[1]["hypothesis"] == "Dit is het ."
    write_probe_translations(tmp_path / "full.tsv", rows)
    frame = read_probe_translations([tmp_path / "full.tsv"])
    assert frame.to_dict("records") == rows
    found = extract_candidates(frame)
    assert sorted(found["candidate"]) == ["aeroplane", "airplane", "aluminium", "aluminum"]


# ---------------------------------------------------------------- the sheet


@pytest.fixture
def sheet_path(tmp_path, pairs):
    sheet = candidate_sheet(extract_candidates(_probe_frame(MODELS)), pairs)
    write_sheet(tmp_path / "sheet.tsv", sheet)
    return tmp_path / "sheet.tsv"


def test_sheet_pools_models_with_counts_per_model(sheet_path):
    sheet = read_tsv(sheet_path)
    assert list(sheet.columns) == [
        "pair", "spelling", "term", "candidate", "models", "count", "count_full_seed1", "count_small_seed1", "keep",
    ]  # fmt: skip
    first = sheet.iloc[0].to_dict()
    assert first == {
        "pair": "aeroplane/airplane", "spelling": "british", "term": "aeroplane", "candidate": "vliegtuig",
        "models": "2", "count": "2", "count_full_seed1": "1", "count_small_seed1": "1", "keep": "",
    }  # fmt: skip
    # pairs in synonyms.tsv order, British first, most frequent span first
    assert sheet["pair"].tolist()[:5] == ["aeroplane/airplane"] * 5
    assert sheet["spelling"].tolist()[:5] == ["british"] * 3 + ["american"] * 2
    assert set(sheet["keep"]) == {""}


def test_a_pretrained_system_is_one_column_of_the_sheet(pairs):
    models = {**MODELS, "opus-mt-en-nl": {("aeroplane/airplane", "british"): ["Dit is het vliegtuig ."],
                                          ("doughnut/donut", "british"): ["Dit is de donut ."],
                                          ("theatre/theater", "british"): ["Dit is het theater ."]}}  # fmt: skip
    sheet = candidate_sheet(extract_candidates(_probe_frame(models)), pairs)
    assert list(sheet.columns)[6:] == ["count_full_seed1", "count_small_seed1", "count_opus-mt-en-nl", "keep"]
    first = sheet.iloc[0]
    assert (first["candidate"], first["models"], first["count_opus-mt-en-nl"]) == ("vliegtuig", 3, 1)


def test_sheet_round_trip_gives_every_span(sheet_path, pairs):
    lists = pooled_candidates(sheet_path, pairs)
    assert lists["aeroplane/airplane"] == {
        "british": ["vliegtuig", "vliegtuigje", "vlucht"],
        "american": ["vliegtuig", "toestel"],
    }
    assert lists["doughnut/donut"] == {"british": ["donut", "ezel"], "american": ["donut", "donuts"]}
    assert lists["whisky/whiskey"] == {"british": [], "american": []}
    scored = {p.name: p for p in choose_candidates(pairs, "probes", sheet=sheet_path)}
    assert scored["aeroplane/airplane"].nl_candidates == ("vliegtuig", "vliegtuigje", "vlucht", "toestel")
    assert scored["whisky/whiskey"].nl_candidates == ("whisky",), "a pair without spans keeps its gold word"


def _check(sheet_path, keep):
    sheet = read_tsv(sheet_path)
    sheet["keep"] = [keep.get(c, "yes") for c in sheet["candidate"]]
    return sheet


def test_checked_sheet_overrides_the_pooled_spans(sheet_path, pairs, tmp_path):
    sheet = _check(sheet_path, {"ezel": "no", "vlucht": "NO"})
    added = {column: "" for column in sheet.columns}
    added.update(pair="whisky/whiskey", spelling="american", candidate="whiskey", keep="yes")
    sheet = pd.concat([sheet, pd.DataFrame([added])], ignore_index=True)
    write_sheet(tmp_path / "checked.tsv", sheet)
    lists = read_checked_sheet(tmp_path / "checked.tsv", pairs)
    assert lists["doughnut/donut"]["british"] == ["donut"]
    assert lists["aeroplane/airplane"]["british"] == ["vliegtuig", "vliegtuigje"]
    assert lists["whisky/whiskey"]["american"] == ["whiskey"], "a person may add a span"
    scored = {
        p.name: p for p in choose_candidates(pairs, "probes", sheet=sheet_path, checked_sheet=tmp_path / "checked.tsv")
    }
    assert "ezel" not in scored["doughnut/donut"].nl_candidates
    # the rejected span no longer counts as the synonym's translation: the two translations
    # below render it alike, and only with "ezel" as a candidate is that what is compared
    a, b = "De man eet de ezel snel .", "De vrouw eet de ezel ."
    assert not synonym_consistent(a, b, scored["doughnut/donut"].nl_candidates)
    pooled = {p.name: p for p in choose_candidates(pairs, "probes", sheet=sheet_path)}
    assert synonym_consistent(a, b, pooled["doughnut/donut"].nl_candidates)


def test_unchecked_rows_of_a_checked_sheet_are_named(sheet_path, pairs, tmp_path):
    sheet = _check(sheet_path, {"toestel": ""})
    write_sheet(tmp_path / "checked.tsv", sheet)
    line = 2 + sheet.index[sheet["candidate"] == "toestel"][0]
    with pytest.raises(InputError, match="keep must be yes or no") as info:
        read_checked_sheet(tmp_path / "checked.tsv", pairs)
    assert info.value.line == line


def test_unknown_pair_and_spelling_in_a_sheet_are_named(sheet_path, pairs, tmp_path):
    for column, value, message in (
        ("pair", "biscuit/cookie", "unknown synonym pair"),
        ("spelling", "scottish", "spelling"),
    ):
        sheet = _check(sheet_path, {})
        sheet.loc[3, column] = value
        write_sheet(tmp_path / "bad.tsv", sheet)
        with pytest.raises(InputError, match=message) as info:
            read_checked_sheet(tmp_path / "bad.tsv", pairs)
        assert info.value.line == 5


def test_choose_candidates_sources(pairs, sheet_path):
    assert choose_candidates(pairs, "shipped") == list(pairs)
    with pytest.raises(ValueError, match="only read with candidates from probes"):
        choose_candidates(pairs, "shipped", checked_sheet=sheet_path)
    with pytest.raises(ValueError, match="need the candidate sheet"):
        choose_candidates(pairs, "probes")
    with pytest.raises(ValueError, match="shipped or probes"):
        choose_candidates(pairs, "manual")


# ---------------------------------------------------------------- to scoring


def test_candidates_file_round_trip_keeps_order_and_any_text(tmp_path, pairs):
    changed = [pairs[0].with_candidates(["vliegtuig", "toestel;kist"], ["straaljager"]), *pairs[1:]]
    write_candidates(tmp_path / "candidates.tsv", changed)
    loaded = load_candidates(tmp_path / "candidates.tsv", pairs)
    assert loaded[0].candidates("british") == ("vliegtuig", "toestel;kist")
    assert loaded[0].nl_candidates == ("vliegtuig", "toestel;kist", "straaljager")
    assert loaded == changed
    # the shipped lists pass through unchanged
    write_candidates(tmp_path / "shipped.tsv", pairs)
    assert load_candidates(tmp_path / "shipped.tsv", pairs) == list(pairs)


def test_scoring_synonyms_read_the_candidates_file_when_given(tmp_path, pairs):
    assert scoring_synonyms(RESOURCES / "synonyms.tsv") == list(pairs)
    write_candidates(tmp_path / "candidates.tsv", [pairs[0].with_candidates(["straaljager"], []), *pairs[1:]])
    scored = scoring_synonyms(RESOURCES / "synonyms.tsv", tmp_path / "candidates.tsv")
    assert scored[0].nl_candidates == ("vliegtuig", "straaljager") and scored[1:] == pairs[1:]


# ---------------------------------------------------------------- config


def _demo_mt_config():
    import yaml
    from snakemake.utils import validate

    config = yaml.safe_load((RESOURCES.parent / "config" / "config.yaml").read_text())["mt"]
    validate(config, str(RESOURCES.parent / "config" / "schema" / "mt.yaml"), set_default=True)
    return config


@pytest.mark.parametrize(
    ("synonyms", "key"),
    [
        ({"nbest": 6}, "mt.synonyms.nbest"),
        ({"candidates": "shipped", "checked_sheet": "checked.tsv"}, "mt.synonyms.checked_sheet"),
        ({"probe_templates": ["{term} is {term}"]}, "mt.synonyms.probe_templates"),
    ],
)
def test_config_errors_name_the_key(synonyms, key):
    from natcomp.errors import ConfigError
    from natcomp.mt.config import check_mt_config

    config = _demo_mt_config()
    config["synonyms"].update(synonyms)
    with pytest.raises(ConfigError) as info:
        check_mt_config(config)
    assert info.value.key == key


# ---------------------------------------------------------------- n-best cache fields


def test_nbest_cache_fields_round_trip_and_settings_check():
    from natcomp.mt.translation_cache import DecodeSettings, decode_nbest, encode_nbest

    hypotheses = ["Dit is de pyjama's .", 'Dit is "het" vliegtuig\tmet tab', "Dit is één lieveheersbeestje"]
    field = encode_nbest(hypotheses)
    assert "\t" not in field and "\n" not in field, "one TSV field"
    assert decode_nbest(field) == hypotheses
    with pytest.raises(ValueError, match="n-best"):
        decode_nbest('{"a": 1}')
    with pytest.raises(ValueError, match="nbest"):
        DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10, nbest=6)
    with pytest.raises(ValueError, match="nbest"):
        DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10, nbest=0)


def test_a_run_into_another_language_scores_the_probes_candidates_without_the_dutch_gold_word(tmp_path, pairs):
    write_candidates(tmp_path / "candidates.tsv", [pairs[0].with_candidates(["Düsenjäger"], ["Flieger"]), *pairs[1:]])
    from natcomp.mt.scoring import probe_synonym_candidates

    scored = scoring_synonyms(RESOURCES / "synonyms.tsv", tmp_path / "candidates.tsv", target_lang="de")
    candidates = probe_synonym_candidates(scored)
    assert candidates[pairs[0].name] == ("Düsenjäger", "Flieger"), "no Dutch gold word (vliegtuig) in a German run"
    with pytest.raises(ValueError, match="Dutch"):
        scoring_synonyms(RESOURCES / "synonyms.tsv", target_lang="de")
