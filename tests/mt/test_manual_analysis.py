import pytest

from natcomp.errors import InputError
from natcomp.mt import tables as mt
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.manual_analysis import (
    GENERAL_CATEGORIES,
    SYNONYM_CATEGORIES,
    differs_in_punctuation_only,
    sample_sheet,
    summarise_sheets,
    write_summary,
)
from natcomp.tsv import read_tsv, write_tsv


def write_scores(root, size, seed, test, data_type, rows, system=TRAINED_SYSTEM):
    """A score file as the mt_score rule writes it: the model columns first (a pretrained
    system: size and seed empty, checkpoint final)."""
    path = root / f"{system}.{size}.{seed}.{test}.{data_type}.tsv"
    model = {
        "system": system,
        "size": size,
        "seed": seed,
        "checkpoint": "best" if system == TRAINED_SYSTEM else "final",
        "test": test,
        "data_type": data_type,
        "decode_signature": f"ckpt:{size}{seed}|beam:5",
    }
    write_tsv(path, [{**model, **row} for row in rows])
    return path


def pair_rows(labels, column="condition", value="np_prime"):
    return [
        {
            "item": i,
            "template": 1,
            column: value,
            "source_a": f"A{i}",
            "source_b": f"B{i}",
            "translation_a": f"a {i} .",
            "translation_b": f"b {i} ,",
            "consistent": label,
        }
        for i, label in enumerate(labels)
    ]


def sheet_of(tmp_path, family, labels):
    test, column, value = (
        ("np_vp", "condition", "np_prime")
        if family == "systematicity"
        else ("substitutivity", "pair", "aeroplane/airplane")
    )
    scores = mt.read_scores([write_scores(tmp_path, "small", 1, test, "synthetic", pair_rows(labels, column, value))])
    return sample_sheet(scores, family, pairs_per_model=10, seed=1)


def test_a_sentence_with_quotes_survives_the_manual_analysis_sheet(tmp_path):
    rows = pair_rows([0])
    rows[0]["source_a"] = 'The man said "yes" .'
    rows[0]["translation_a"] = 'De man zei "ja".'
    scores = mt.read_scores([write_scores(tmp_path, "small", 1, "np_vp", "synthetic", rows)])
    sheet = sample_sheet(scores, "systematicity", pairs_per_model=5, seed=1)
    write_tsv(tmp_path / "sheet.tsv", sheet)
    back = read_tsv(tmp_path / "sheet.tsv")
    assert back["source_a"].tolist() == ['The man said "yes" .']
    assert back["translation_a"].tolist() == ['De man zei "ja".']


def test_summary_shares_are_of_annotated_pairs_and_of_marks(tmp_path):
    sheet = sheet_of(tmp_path, "systematicity", [0, 0, 1])
    assert len(sheet) == 2, "only inconsistent pairs"
    assert set(sheet["formatting"]) == {""}
    sheet.loc[0, "error"] = "1"
    sheet.loc[1, "rephrasing"] = "x"
    sheet.loc[1, "formatting"] = "Yes"
    write_tsv(tmp_path / "filled.tsv", sheet)
    summary = summarise_sheets([tmp_path / "filled.tsv"])
    assert list(summary.columns) == [
        "family",
        "system",
        "size",
        "category",
        "count",
        "share",
        "pairs",
        "marked_pairs",
        "share_of_marks",
    ]
    by_category = summary.set_index("category")
    assert by_category.loc["error", "share"] == pytest.approx(1 / 2), "one of the two annotated pairs"
    assert by_category.loc["error", "share_of_marks"] == pytest.approx(1 / 3), "one of three marks (Figure 5)"
    assert by_category.loc["ambiguity", "share"] == 0
    assert by_category.loc["formatting", "count"] == 1, "marks are case-insensitive"
    assert (summary["pairs"] == 2).all() and (summary["marked_pairs"] == 2).all()


def test_summary_lists_only_the_categories_of_each_sheet(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    systematicity = sheet_of(tmp_path / "a", "systematicity", [0, 0])
    substitutivity = sheet_of(tmp_path / "b", "substitutivity", [0, 0, 0])
    substitutivity.loc[0, "synonym_one_untranslated"] = "1"
    write_tsv(tmp_path / "systematicity.tsv", systematicity)
    write_tsv(tmp_path / "substitutivity.tsv", substitutivity)
    summary = summarise_sheets([tmp_path / "systematicity.tsv", tmp_path / "substitutivity.tsv"])
    categories = summary.groupby("family", sort=False)["category"].apply(list).to_dict()
    assert categories == {
        "systematicity": GENERAL_CATEGORIES,
        "substitutivity": GENERAL_CATEGORIES + SYNONYM_CATEGORIES,
    }
    untranslated = summary[summary["category"] == "synonym_one_untranslated"].iloc[0]
    assert (untranslated["count"], untranslated["share"]) == (1, pytest.approx(1 / 3))


def test_an_unannotated_sheet_has_shares_but_no_share_of_marks(tmp_path):
    write_tsv(tmp_path / "sheet.tsv", sheet_of(tmp_path, "systematicity", [0, 0]))
    summary = summarise_sheets([tmp_path / "sheet.tsv"])
    assert summary["share"].tolist() == [0.0] * len(GENERAL_CATEGORIES), "share is filled"
    write_summary(summary, tmp_path / "summary.tsv")
    written = read_tsv(tmp_path / "summary.tsv")
    assert set(written["share"]) == {"0.0000"}
    assert set(written["share_of_marks"]) == {""}, "no marks: no relative frequency"


def test_sheets_of_one_family_and_size_in_several_files_are_summed(tmp_path):
    sheet = sheet_of(tmp_path, "systematicity", [0, 0])
    first, second = sheet.iloc[:1].copy(), sheet.iloc[1:].copy()
    first["error"] = "1"
    second["rephrasing"] = "1"
    write_tsv(tmp_path / "first.tsv", first)
    write_tsv(tmp_path / "second.tsv", second)
    summary = summarise_sheets([tmp_path / "first.tsv", tmp_path / "second.tsv"]).set_index("category")
    assert summary.loc["error", "pairs"] == 2
    assert summary.loc["error", "share"] == pytest.approx(0.5)
    assert summary.loc["error", "share_of_marks"] == pytest.approx(0.5)


def test_an_unknown_mark_names_the_line(tmp_path):
    sheet = sheet_of(tmp_path, "systematicity", [0, 0])
    sheet.loc[1, "error"] = "maybe"
    write_tsv(tmp_path / "sheet.tsv", sheet)
    with pytest.raises(InputError, match=r"sheet.tsv.*line 3.*'error' holds 'maybe'|'error' holds 'maybe'.*line 3"):
        summarise_sheets([tmp_path / "sheet.tsv"])


def test_punctuation_only_difference():
    assert differs_in_punctuation_only("De man slaapt.", "De man slaapt")
    assert not differs_in_punctuation_only("De man slaapt.", "De vrouw slaapt.")
    assert not differs_in_punctuation_only("De man slaapt.", "De man slaapt.")


def test_a_model_without_inconsistent_pairs_gives_an_empty_sheet_and_summary(tmp_path):
    sheet = sheet_of(tmp_path, "systematicity", [1, 1])
    assert len(sheet) == 0 and "error" in sheet.columns
    write_tsv(tmp_path / "sheet.tsv", sheet)
    summary = summarise_sheets([tmp_path / "sheet.tsv"])
    assert len(summary) == 0
    write_summary(summary, tmp_path / "summary.tsv")
    assert (tmp_path / "summary.tsv").read_text().startswith("family\tsystem\tsize\tcategory\tcount\tshare\t")


def test_a_pretrained_system_is_one_model_in_the_sheet_and_the_summary(tmp_path):
    paths = [
        write_scores(tmp_path, "", "", "np_vp", "synthetic", pair_rows([0, 0, 1]), system="tiny-marian"),
        write_scores(tmp_path, "full", 1, "np_vp", "synthetic", pair_rows([0, 1])),
        write_scores(tmp_path, "small", 1, "np_vp", "synthetic", pair_rows([0])),
        write_scores(tmp_path, "small", 2, "np_vp", "natural", pair_rows([0])),
    ]
    sheet = sample_sheet(
        mt.read_scores(paths),
        "systematicity",
        pairs_per_model=10,
        seed=1,
        sizes=["small", "full"],
        systems=["tiny-marian"],
    )
    assert list(sheet.columns[:4]) == ["family", "test", "system", "size"]
    models = list(zip(sheet["system"], sheet["size"], sheet["data_type"]))
    assert models == [
        ("trained", "small", "synthetic"),
        ("trained", "small", "natural"),
        ("trained", "full", "synthetic"),
        ("tiny-marian", "", "synthetic"),
        ("tiny-marian", "", "synthetic"),
    ], "trained sizes in config order, then the systems; data types in the paper's order"
    sheet.loc[sheet["system"] == "tiny-marian", "error"] = "1"
    write_tsv(tmp_path / "sheet.tsv", sheet)
    assert read_tsv(tmp_path / "sheet.tsv")["seed"].tolist() == ["1", "2", "1", "", ""]
    summary = summarise_sheets([tmp_path / "sheet.tsv"])
    errors = summary[summary["category"] == "error"].set_index(["system", "size"])
    assert errors.loc[("tiny-marian", ""), ["count", "pairs"]].tolist() == [2, 2]
    assert errors.loc[("trained", "small"), ["count", "pairs"]].tolist() == [0, 2], "both seeds of a size pooled"


def test_a_sheet_without_a_system_column_is_the_trained_models(tmp_path):
    sheet = sheet_of(tmp_path, "systematicity", [0, 0]).drop(columns="system")
    write_tsv(tmp_path / "old_sheet.tsv", sheet)
    summary = summarise_sheets([tmp_path / "old_sheet.tsv"])
    assert set(summary["system"]) == {TRAINED_SYSTEM} and set(summary["size"]) == {"small"}
