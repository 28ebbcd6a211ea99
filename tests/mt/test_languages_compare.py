"""natcomp.mt.languages_compare: the per-language tables of one model's runs in several
target languages, from hand-made per-language tables, and the checks of --target-lang."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from natcomp.errors import ConfigError, OptionError
from natcomp.mt import languages_compare
from natcomp.mt.languages_compare import KEYWORDS_ROW, check_target_langs, compare_languages, write_language_tables

SYSTEM = "tiny-m2m"
REPO = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace("|", "\t"))


def make_run(root: Path, code: str, *, bleu: bool = True, natural: bool = True, third: float = 1 / 3) -> Path:
    run = root / code
    tables = run / "results" / "tables" / "mt"
    rows = [f"synthetic|s_np|{third}|", f"synthetic|s_np_vp|{2 * third}|"]
    if natural:
        rows.append("natural|s_conj|0.5|")
    write(tables / "systematicity_summary.tsv", "\n".join([f"data_type|condition|{SYSTEM}|{SYSTEM}_sd", *rows]) + "\n")
    write(
        tables / "substitutivity_summary.tsv",
        f"data_type|metric|{SYSTEM}|{SYSTEM}_sd\nsynthetic|consistency|{third}|\nsynthetic|synonym_consistency|1.0|\n",
    )
    peaks = ["data_type|system|size|idiom|peak|peak_checkpoint|peak_sd|note"]
    peaks.append(f"synthetic|{SYSTEM}||a piece of cake|{third}|||final model only")
    if natural:
        peaks.append(f"natural|{SYSTEM}||a piece of cake|0.0|||final model only")
    write(tables / "overgeneralisation_peaks.tsv", "\n".join(peaks) + "\n")
    if bleu:
        header = (
            "system|size|seed|split|kind|seeds|bleu_sacrebleu|bleu_sacrebleu_sd|sacrebleu_signature|"
            "bleu_tokenised|bleu_tokenised_sd|tokenised_signature|decode_signature"
        )
        row = f"{SYSTEM}|||dev|model||{100 * third}||sig|12.5||tsig|dsig"
        write(tables / "bleu.tsv", f"{header}\n{row}\n")
    return run


def demo_config(code: str, *, adapted: bool) -> dict:
    natural = [] if adapted else ["natural"]
    return {
        "mt": {
            "target_lang": code,
            "bleu": {"splits": [] if adapted else ["dev", "devtest"]},
            "tests": {
                "data_types": {
                    "np_vp": ["synthetic", "semi_natural"],
                    "s_conj": ["synthetic", "semi_natural", *natural],
                    "substitutivity": ["synthetic", "semi_natural", *natural],
                    "overgeneralisation": ["synthetic", "semi_natural", *natural, "random_words"],
                }
            },
        }
    }


@pytest.fixture
def runs(tmp_path):
    return {
        "nl": make_run(tmp_path, "nl"),
        "de": make_run(tmp_path, "de", bleu=False, natural=False, third=2 / 3),
    }


CONFIGS = {"nl": demo_config("nl", adapted=False), "de": demo_config("de", adapted=True)}


def test_a_column_per_language_and_a_note_for_each_cell_a_language_did_not_score(runs):
    tables = compare_languages(runs, SYSTEM, configs=CONFIGS)
    systematicity = tables["systematicity"]
    assert list(systematicity.columns) == ["data_type", "condition", "nl", "de", "note"]
    assert systematicity["nl"].tolist()[:2] == pytest.approx([1 / 3, 2 / 3])
    assert systematicity["de"].tolist()[:2] == pytest.approx([2 / 3, 4 / 3])
    natural = systematicity[systematicity["data_type"] == "natural"].iloc[0]
    assert natural["nl"] == 0.5 and natural["de"] != natural["de"], "empty (NaN), never 0"
    assert natural["note"] == (
        "de: natural data not scored at demo scale (not in its mt.tests.data_types.np_vp or mt.tests.data_types.s_conj)"
    )
    assert systematicity["note"].tolist()[:2] == ["", ""]
    bleu = tables["bleu"]
    assert list(bleu.columns) == ["split", "score", "nl", "de", "note"]
    assert bleu["score"].tolist() == ["bleu_sacrebleu", "bleu_tokenised"], "each split's scores together"
    assert bleu["nl"].tolist() == pytest.approx([100 / 3, 12.5])
    assert bleu["de"].isna().all()
    assert set(bleu["note"]) == {"de: BLEU not scored: no German references at demo scale (mt.bleu.splits: [])"}


def test_the_overgeneralisation_table_says_whose_keyword_lists_each_language_used(runs):
    table = compare_languages(runs, SYSTEM, configs=CONFIGS)["overgeneralisation"]
    assert list(table.columns) == ["data_type", "idiom", "nl", "de", "note"]
    last = table.iloc[-1]
    assert last["data_type"] == KEYWORDS_ROW
    assert (last["nl"], last["de"]) == ("the paper's", "drafted by natcomp")
    assert table.iloc[0]["nl"] == pytest.approx(1 / 3) and table.iloc[0]["de"] == pytest.approx(2 / 3)


def test_unequal_row_sets_and_a_missing_language_run(tmp_path, runs):
    """Rows only the second language has come after the first's; a language with no tables
    at all has an empty column and a note on every row."""
    runs = dict(runs)
    extra = make_run(tmp_path / "x", "fr")
    path = extra / "results" / "tables" / "mt" / "substitutivity_summary.tsv"
    path.write_text(path.read_text() + "semi_natural\tconsistency\t0.25\t\n")
    runs["fr"] = extra
    runs["es"] = tmp_path / "never-ran"
    tables = compare_languages(runs, SYSTEM, configs={**CONFIGS, "fr": None, "es": None})
    substitutivity = tables["substitutivity"]
    assert list(substitutivity.columns) == ["data_type", "metric", "nl", "de", "fr", "es", "note"]
    assert substitutivity["data_type"].tolist() == ["synthetic", "synthetic", "semi_natural"]
    last = substitutivity.iloc[-1]
    assert last["fr"] == 0.25 and last["nl"] != last["nl"] and last["de"] != last["de"]
    assert "nl: no such row in its substitutivity_summary.tsv" in last["note"]
    assert substitutivity["es"].isna().all()
    assert all("es: no such row" in note for note in substitutivity["note"])


def test_the_tables_are_written_with_scores_to_four_places_and_empty_cells(tmp_path, runs):
    written = write_language_tables(runs, SYSTEM, tmp_path / "languages", configs=CONFIGS)
    assert [path.name for path in written] == [
        "systematicity.tsv",
        "substitutivity.tsv",
        "overgeneralisation.tsv",
        "bleu.tsv",
    ]
    lines = (tmp_path / "languages" / "systematicity.tsv").read_text().splitlines()
    assert lines[0] == "data_type\tcondition\tnl\tde\tnote"
    assert lines[1] == "synthetic\ts_np\t0.3333\t0.6667\t"
    assert lines[3].startswith("natural\ts_conj\t0.5000\t\tde: natural data not scored")
    bleu = (tmp_path / "languages" / "bleu.tsv").read_text().splitlines()
    assert bleu[1].startswith("dev\tbleu_sacrebleu\t33.3333\t\tde: BLEU not scored")
    assert not list((tmp_path / "languages").glob("*.tmp*")), "written atomically: no temporary file left"


def test_the_run_configs_are_read_from_the_run_folders(runs):
    import yaml

    for code, config in CONFIGS.items():
        (runs[code] / "natcomp_evaluate.yaml").write_text(yaml.safe_dump(config))
    bleu = compare_languages(runs, SYSTEM)["bleu"]
    assert set(bleu["note"]) == {"de: BLEU not scored: no German references at demo scale (mt.bleu.splits: [])"}


@pytest.mark.parametrize(
    ("codes", "error", "message"),
    [
        (["de", "xx"], ConfigError, "--target-lang: no language resource for 'xx'"),
        (["de", "en"], ConfigError, "--target-lang: English is the source language"),
        (["de", "fr", "de"], OptionError, "--target-lang: 'de' is given twice"),
        (["DE"], ConfigError, "--target-lang: 'DE' is not a language code"),
    ],
)
def test_every_target_language_is_checked_before_any_run(codes, error, message):
    with pytest.raises(error) as raised:
        check_target_langs(codes)
    assert str(raised.value).startswith(message) or message in str(raised.value), str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_demo_run_into_a_language_the_demo_corpus_lacks_reads_its_english_side_only():
    """The per-language config: mt.target_lang set; on the demo corpus, for a language other
    than nl, the config's English-side adaptation, and what it leaves out in words."""
    import yaml

    from natcomp.mt.config import english_side_only

    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    config, left_out = languages_compare.language_base(base, "de")
    assert config["mt"] == english_side_only({**base["mt"], "target_lang": "de"})
    assert config["mt"]["bleu"]["splits"] == [] and not config["mt"]["train"]["enabled"]
    assert "BLEU (no German references)" in left_out
    config, left_out = languages_compare.language_base(base, "nl")
    assert config["mt"] == base["mt"] and left_out == [], "the demo corpus's own language: as it is"
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text(encoding="utf-8"))
    config, left_out = languages_compare.language_base(paper, "de")
    assert config["mt"] == {**paper["mt"], "target_lang": "de"} and left_out == [], "a corpus of the pair: nothing"
    assert base["mt"]["target_lang"] == "nl", "the base is not changed"


def test_a_language_without_idiom_keywords_has_empty_overgeneralisation_cells_that_say_why(tmp_path, monkeypatch):
    import dataclasses

    from natcomp.mt import languages
    from natcomp.mt.tables import no_keywords_table

    dutch, german = make_run(tmp_path, "nl"), make_run(tmp_path, "de")
    plain = languages.load_language("de")
    real = languages.load_language
    monkeypatch.setattr(
        languages,
        "load_language",
        lambda code, key="mt.target_lang": (
            dataclasses.replace(plain, idiom_keywords=None) if code == "de" else real(code)
        ),
    )
    monkeypatch.setattr(languages, "target_language", languages.load_language)
    no_keywords_table("de").to_csv(german / "results/tables/mt/overgeneralisation_peaks.tsv", sep="\t", index=False)
    table = compare_languages({"nl": dutch, "de": german}, SYSTEM, configs={"nl": None, "de": None})[
        "overgeneralisation"
    ]
    cake = table[table["idiom"] == "a piece of cake"].iloc[0]
    assert cake["nl"] == pytest.approx(1 / 3) and pd.isna(cake["de"])
    assert "de: overgeneralisation not scored: German has no idiom keyword list" in cake["note"]
    assert table.iloc[-1][["nl", "de"]].tolist() == ["the paper's", "none"]
