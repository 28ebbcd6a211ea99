import pytest

from natcomp.mt import tables as mt
from natcomp.errors import InputError
from natcomp.mt.manual_analysis import differs_in_punctuation_only, sample_sheet, summarise_sheets
from natcomp.tsv import read_tsv, write_tsv


def write_scores(root, size, seed, checkpoint, test, data_type, rows):
    """A score file as the mt_score rule writes it: the model columns first."""
    path = root / f"{size}.{seed}.{checkpoint}.{test}.{data_type}.tsv"
    model = {"size": size, "seed": seed, "checkpoint": checkpoint, "test": test, "data_type": data_type,
             "decode_signature": f"ckpt:{size}{seed}{checkpoint}|beam:5"}
    write_tsv(path, [{**model, **row} for row in rows])
    return path


def np_vp_rows(labels, template=1, condition="np_prime"):
    return [
        {"item": i, "template": template, "condition": condition, "source_a": f"A{i}", "source_b": f"B{i}",
         "translation_a": f"a {i} .", "translation_b": f"b {i} ,", "consistent": label}
        for i, label in enumerate(labels)
    ]


def test_systematicity_table_and_summary(tmp_path):
    paths = [
        write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", np_vp_rows([1, 0, 0, 1])),
        write_scores(tmp_path, "small", 2, "best", "np_vp", "synthetic", np_vp_rows([1, 1, 1, 1])),
        write_scores(tmp_path, "full", 1, "best", "s_conj", "natural", np_vp_rows([1, "", 0], 2, "s3")),
    ]
    table = mt.systematicity_table(mt.read_scores(paths), ["small", "full"])
    assert list(table.columns) == [
        "size", "seed", "data_type", "condition", "template", "consistency", "n", "decode_signature"
    ]
    assert table["decode_signature"].tolist() == ["ckpt:small1best|beam:5", "ckpt:small2best|beam:5", "ckpt:full1best|beam:5"]
    assert table["size"].tolist() == ["small", "small", "full"], "config order of sizes"
    s3 = table[table["condition"] == "s3"].iloc[0]
    assert (s3["consistency"], s3["n"]) == (0.5, 2), "an unscorable item leaves the denominator"
    summary = mt.systematicity_summary(table, ["small", "full"])
    row = summary[summary["condition"] == "np_prime"].iloc[0]
    assert row["small"] == pytest.approx(0.75)
    assert summary["data_type"].tolist() == ["synthetic", "natural"], "paper order of data types"


def test_overgeneralisation_curves_and_peaks(tmp_path):
    paths = []
    for epoch, labels in [(1, [0, 0]), (2, [1, 1]), (4, [1, 0])]:
        rows = [{"item": i, "template": 1, "idiom": "by heart", "source": "s", "reference": "", "translation": "t",
                 "overgeneralised": v} for i, v in enumerate(labels)]
        paths.append(write_scores(tmp_path, "small", 1, f"epoch{epoch}", "overgeneralisation", "synthetic", rows))
    table = mt.overgeneralisation_table(mt.read_scores(paths), ["small"])
    assert table["checkpoint"].tolist() == [1, 2, 4]
    assert table["overgeneralisation"].tolist() == [0.0, 1.0, 0.5]
    peaks = mt.overgeneralisation_peaks(table, ["small"])
    assert peaks.iloc[0][["idiom", "peak", "peak_checkpoint"]].tolist() == ["by heart", 1.0, 2]


def test_score_files_must_name_the_model(tmp_path):
    bad = tmp_path / "scores.tsv"
    bad.write_text("item\tsize\n1\tsmall\n")
    with pytest.raises(InputError, match="missing column\\(s\\) seed, checkpoint, test, data_type, decode_signature"):
        mt.read_scores([bad])


def test_a_sentence_with_quotes_survives_the_manual_analysis_sheet(tmp_path):
    rows = np_vp_rows([0])
    rows[0]["source_a"] = 'The man said "yes" .'
    rows[0]["translation_a"] = 'De man zei "ja".'
    scores = mt.read_scores([write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", rows)])
    sheet = sample_sheet(scores, "systematicity", pairs_per_model=5, seed=1)
    write_tsv(tmp_path / "sheet.tsv", sheet)
    back = read_tsv(tmp_path / "sheet.tsv")
    assert back["source_a"].tolist() == ['The man said "yes" .']
    assert back["translation_a"].tolist() == ['De man zei "ja".']


def test_manual_analysis_sheet_and_summary(tmp_path):
    scores = mt.read_scores([write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", np_vp_rows([0, 0, 1]))])
    sheet = sample_sheet(scores, "systematicity", pairs_per_model=5, seed=1)
    assert len(sheet) == 2, "only inconsistent pairs"
    assert set(sheet["formatting"]) == {""}
    sheet.loc[0, "error"] = "1"
    sheet.loc[1, "rephrasing"] = "1"
    sheet.loc[1, "formatting"] = "1"
    write_tsv(tmp_path / "filled.tsv", sheet)
    summary = summarise_sheets([tmp_path / "filled.tsv"])
    shares = dict(zip(summary["category"], summary["share"]))
    assert shares["error"] == pytest.approx(1 / 3, abs=1e-3) and shares["ambiguity"] == 0
    assert summary["marked_pairs"].iloc[0] == 2


def test_punctuation_only_difference():
    assert differs_in_punctuation_only("De man slaapt.", "De man slaapt")
    assert not differs_in_punctuation_only("De man slaapt.", "De vrouw slaapt.")
    assert not differs_in_punctuation_only("De man slaapt.", "De man slaapt.")
