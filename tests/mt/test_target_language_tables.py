"""What the MT tables, figures and profile say of a run into a language other than the
paper's (issue 53): the Dutch paper's published values stand beside Dutch tables only, and
word-for-word idioms and kept keyword collisions are marked per idiom and left out of the
means over idioms."""

from __future__ import annotations

import pandas as pd
import pytest

from natcomp.mt import languages
from natcomp.mt.bleu import BLEU_KEYS
from natcomp.mt.languages_compare import MEAN_ROW, compare_languages
from natcomp.mt.tables import (
    KEYWORDS_COLUMN,
    PUBLISHED_KEYS,
    WORD_FOR_WORD,
    published_for,
    with_keyword_lists,
    with_published,
    word_for_word_idioms,
)
from natcomp.published import add_paper_columns, published_path, read_published
from natcomp.tsv import write_tsv

PUBLISHED = read_published(published_path("mt"))


# --------------------------------------------------------------------------------------
# the Dutch paper's values beside Dutch tables only


def _summary() -> pd.DataFrame:
    return pd.DataFrame(
        {"data_type": ["synthetic"], "condition": ["np_prime"], "small": [0.5], "medium": [0.6], "full": [0.7]}
    )


def test_the_papers_values_stand_beside_a_dutch_run_only():
    dutch = with_published({"systematicity_summary": _summary()}, published_for(PUBLISHED, "nl"))
    assert dutch["systematicity_summary"]["paper_small"].tolist() == [0.73], "Table 4a, synthetic NP, small"
    for code in ("de", "fr", "es"):
        tables = with_published({"systematicity_summary": _summary()}, published_for(PUBLISHED, code))
        assert not any(column.startswith("paper_") for column in tables["systematicity_summary"].columns), code
    assert set(PUBLISHED_KEYS) <= set(PUBLISHED["our_table"]), "every summary with published values is checked"


def test_the_bleu_table_takes_table_9_in_a_dutch_run_only():
    rows = PUBLISHED[PUBLISHED["our_table"] == "bleu"]
    assert len(rows), "Table 9 is among the published values"
    key = rows.iloc[0]["our_row"].split(" / ")
    table = pd.DataFrame([dict(zip(BLEU_KEYS, key)) | {rows.iloc[0]["our_column"]: 1.0}])
    dutch = add_paper_columns(table, published_for(PUBLISHED, "nl"), "bleu", BLEU_KEYS)
    german = add_paper_columns(table, published_for(PUBLISHED, "de"), "bleu", BLEU_KEYS)
    paper_column = f"paper_{rows.iloc[0]['our_column']}"
    assert dutch[paper_column].tolist() == [rows.iloc[0]["value"]]
    assert paper_column not in german.columns


# --------------------------------------------------------------------------------------
# the keywords column per idiom


def test_the_keywords_column_marks_word_for_word_idioms_and_leaves_the_papers_dutch_as_it_was():
    idioms = pd.DataFrame({"idiom": ["by heart", "out of the blue", "by heart"], "overgeneralisation": [1, 0, 1]})
    french = with_keyword_lists(idioms, "fr")[KEYWORDS_COLUMN].tolist()
    mark = "French: drafted by natcomp; " + WORD_FOR_WORD.format(language="French")
    assert french == [mark, "French: drafted by natcomp", mark]
    dutch = with_keyword_lists(idioms.assign(idiom=["in the short run", "by heart", "in tandem"]), "nl")
    assert set(dutch[KEYWORDS_COLUMN]) == {"Dutch: the paper's"}, "the Dutch tables stay the paper's"
    assert word_for_word_idioms("de") == ["in tandem"] and word_for_word_idioms("nl") == []


@pytest.fixture
def german_keeping_a_collision(tmp_path, monkeypatch):
    """German without the capital rule, keeping Rennen although it fires on rennen (run)."""
    from natcomp.mt import consistency

    folder = tmp_path / "languages"
    folder.mkdir()
    text = (languages.languages_dir() / "de.yaml").read_text(encoding="utf-8")
    text = text.replace("nouns_capitalised: true", "nouns_capitalised: false")
    text = text.replace(
        "  word_for_word:\n", "  kept_collisions:\n    Rennen: the race of a literal translation\n  word_for_word:\n"
    )
    (folder / "de.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(languages, "languages_dir", lambda: folder)
    languages.load_language.cache_clear()
    consistency._language.cache_clear()
    yield
    languages.load_language.cache_clear()
    consistency._language.cache_clear()


def test_a_kept_collision_is_named_with_its_reason_in_the_idioms_rows(german_keeping_a_collision):
    from natcomp.mt.keyword_checks import unlisted_collisions

    assert unlisted_collisions("de") == []
    table = with_keyword_lists(pd.DataFrame({"idiom": ["in the short run", "by heart"]}), "de")
    assert table[KEYWORDS_COLUMN].tolist() == [
        "German: drafted by natcomp; keeps Rennen although it fires on a template word: the race of a literal "
        "translation",
        "German: drafted by natcomp",
    ]


# --------------------------------------------------------------------------------------
# means over idioms without the word-for-word ones


def _peaks_run(root, code: str, peaks: dict[str, float]):
    run = root / code
    rows = [
        {"data_type": "synthetic", "system": "m", "size": "", "idiom": idiom, "peak": peak, "note": ""}
        for idiom, peak in peaks.items()
    ]
    write_tsv(run / "results" / "tables" / "mt" / "overgeneralisation_peaks.tsv", pd.DataFrame(rows))
    return run


def test_the_language_comparison_means_leave_out_idioms_word_for_word_in_any_language(tmp_path):
    peaks = {"by heart": 0.9, "in tandem": 0.8, "out of the blue": 0.2, "from scratch": 0.4}
    runs = {"nl": _peaks_run(tmp_path, "nl", peaks), "fr": _peaks_run(tmp_path, "fr", {**peaks, "by heart": 1.0})}
    table = compare_languages(runs, "m", configs={"nl": None, "fr": None})["overgeneralisation"]
    mean = table[table["idiom"] == MEAN_ROW].iloc[0]
    assert (mean["nl"], mean["fr"]) == pytest.approx((0.3, 0.3)), "the same idioms in every language: blue, scratch"
    assert mean["note"] == "without by heart, in tandem (word for word in a language compared)"
    heart = table[table["idiom"] == "by heart"].iloc[0]
    assert heart["note"] == "fr: word for word in French, left out of the means"
    assert list(table["idiom"])[: len(peaks) + 1] == [*peaks, MEAN_ROW], "the mean after its data type's idioms"


# --------------------------------------------------------------------------------------
# the profile and the figure


def test_the_profile_mean_over_idioms_leaves_out_those_marked_word_for_word(tmp_path):
    from natcomp.profile.table import WORD_FOR_WORD_MARK, profile_rows

    assert WORD_FOR_WORD.format(language="French").startswith(WORD_FOR_WORD_MARK), "the table's mark"
    tables = tmp_path / "results" / "tables" / "mt"
    write_tsv(tables / "systematicity_summary.tsv", [{"data_type": "synthetic", "condition": "np_prime", "m": 0.5}])
    write_tsv(tables / "substitutivity_summary.tsv", [{"data_type": "synthetic", "metric": "consistency", "m": 0.5}])
    peaks = pd.DataFrame(
        {"data_type": "synthetic", "system": "m", "size": "", "idiom": ["by heart", "out of the blue", "from scratch"]}
    )
    peaks["peak"] = [1.0, 0.2, 0.4]
    peaks[KEYWORDS_COLUMN] = with_keyword_lists(peaks, "fr")[KEYWORDS_COLUMN]
    write_tsv(tables / "overgeneralisation_peaks.tsv", peaks)
    profile = profile_rows(tmp_path, model="m", name="m", scale="demo", families=["mt"])
    row = profile[(profile["measure"] == "overgeneralisation") & (profile["setting"] == "synthetic")].iloc[0]
    assert row["value"] == pytest.approx(30.0), "blue and scratch; by heart is par cœur in French"
    assert row["note"] == "mean without by heart (word for word in the target language)"


def test_the_overgeneralisation_figure_mean_leaves_out_word_for_word_idioms(tmp_path):
    from natcomp.mt.figures import overgeneralisation_figure

    table = pd.DataFrame(
        [
            {"system": "trained", "size": "small", "seed": 1, "data_type": "synthetic", "idiom": idiom}
            | {"checkpoint": epoch, "overgeneralisation": value}
            for idiom, values in {
                "by heart": (1.0, 1.0),
                "out of the blue": (0.2, 0.0),
                "from scratch": (0.4, 0.2),
            }.items()
            for epoch, value in zip((1, 2), values)
        ]
    )
    figure = overgeneralisation_figure(table, ["small"], tmp_path / "f.png", word_for_word=["by heart"])
    (mean,) = [line for line in figure.axes[0].lines if line.get_label() == "small"]
    assert list(mean.get_ydata()) == pytest.approx([0.3, 0.1])
    assert "means without by heart" in figure._suptitle.get_text()
    plain = overgeneralisation_figure(table, ["small"], tmp_path / "g.png")
    (mean,) = [line for line in plain.axes[0].lines if line.get_label() == "small"]
    assert list(mean.get_ydata()) == pytest.approx([1.6 / 3, 0.4])
