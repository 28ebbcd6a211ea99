import pandas as pd
import pytest

from natcomp.mt import tables as mt
from natcomp.errors import InputError
from natcomp.tsv import read_tsv, write_tsv


def write_scores(root, size, seed, checkpoint, test, data_type, rows):
    """A score file as the mt_score rule writes it: the model columns first."""
    path = root / f"{size}.{seed}.{checkpoint}.{test}.{data_type}.tsv"
    model = {
        "size": size,
        "seed": seed,
        "checkpoint": checkpoint,
        "test": test,
        "data_type": data_type,
        "decode_signature": f"ckpt:{size}{seed}{checkpoint}|beam:5",
    }
    write_tsv(path, [{**model, **row} for row in rows])
    return path


def np_vp_rows(labels, template=1, condition="np_prime"):
    return [
        {
            "item": i,
            "template": template,
            "condition": condition,
            "source_a": f"A{i}",
            "source_b": f"B{i}",
            "translation_a": f"a {i} .",
            "translation_b": f"b {i} ,",
            "consistent": label,
        }
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
        "size",
        "seed",
        "data_type",
        "condition",
        "template",
        "consistency",
        "n",
        "decode_signature",
    ]
    assert table["decode_signature"].tolist() == [
        "ckpt:small1best|beam:5",
        "ckpt:small2best|beam:5",
        "ckpt:full1best|beam:5",
    ]
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
        rows = [
            {
                "item": i,
                "template": 1,
                "idiom": "by heart",
                "source": "s",
                "reference": "",
                "translation": "t",
                "overgeneralised": v,
            }
            for i, v in enumerate(labels)
        ]
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


def systematicity_rows(consistency_by_seed_and_template, size="small", data_type="synthetic", condition="np_prime"):
    """A per-model systematicity table as :func:`systematicity_table` returns it."""
    return [
        {
            "size": size,
            "seed": seed,
            "data_type": data_type,
            "condition": condition,
            "template": template,
            "consistency": value,
            "n": 10,
            "decode_signature": "sig",
        }
        for (seed, template), value in consistency_by_seed_and_template.items()
    ]


def test_summaries_put_the_sd_over_seeds_next_to_each_size(tmp_path):
    # seed 1 scores (0.2 + 0.4) / 2 = 0.3 over its templates, seed 2 (0.6 + 1.0) / 2 = 0.8
    rows = systematicity_rows({(1, 1): 0.2, (1, 2): 0.4, (2, 1): 0.6, (2, 2): 1.0})
    rows += systematicity_rows({(1, 1): 0.5, (1, 2): 0.5}, size="full")
    summary = mt.systematicity_summary(pd.DataFrame(rows), ["small", "full"])
    assert list(summary.columns) == ["data_type", "condition", "small", "small_sd", "full", "full_sd"]
    row = summary.iloc[0]
    assert row["small"] == pytest.approx(0.55), "the mean is unchanged: template means of seed means"
    assert row["small_sd"] == pytest.approx(pd.Series([0.3, 0.8]).std()), "sample sd of the seeds' scores"
    mt.write_table(summary, tmp_path / "summary.tsv")
    written = read_tsv(tmp_path / "summary.tsv")
    assert written.iloc[0]["small_sd"] == "0.3536"
    assert written.iloc[0]["full"] == "0.5000"
    assert written.iloc[0]["full_sd"] == "", "one seed: no sd, neither 0 nor NaN"


def test_substitutivity_summary_sd_is_over_seed_scores():
    rows = [
        {
            "size": "small",
            "seed": seed,
            "data_type": "synthetic",
            "pair": pair,
            "template": 1,
            "consistency": value,
            "synonym_consistency": 1.0,
            "n": 5,
        }
        for seed, pair, value in [(1, "a/b", 0.0), (1, "c/d", 0.2), (2, "a/b", 0.6), (2, "c/d", 1.0)]
    ]
    summary = mt.substitutivity_summary(pd.DataFrame(rows), ["small"])
    consistency = summary[summary["metric"] == "consistency"].iloc[0]
    assert consistency["small"] == pytest.approx(0.45)
    assert consistency["small_sd"] == pytest.approx(pd.Series([0.1, 0.8]).std())
    synonym = summary[summary["metric"] == "synonym_consistency"].iloc[0]
    assert synonym["small_sd"] == 0.0, "identical seeds: a real zero"


def test_an_idiom_never_overgeneralised_has_no_peak(tmp_path):
    paths = []
    for seed, epoch, by_heart in [(1, 1, [0, 1]), (1, 2, [1, 1]), (2, 1, [0, 0]), (2, 2, [1, 0])]:
        rows = [
            {
                "item": i,
                "template": 1,
                "idiom": "by heart",
                "source": "s",
                "reference": "",
                "translation": "t",
                "overgeneralised": v,
            }
            for i, v in enumerate(by_heart)
        ]
        rows += [
            {
                "item": 10 + i,
                "template": 1,
                "idiom": "in tandem",
                "source": "s",
                "reference": "",
                "translation": "t",
                "overgeneralised": 0,
            }
            for i in range(2)
        ]
        paths.append(write_scores(tmp_path, "small", seed, f"epoch{epoch}", "overgeneralisation", "natural", rows))
    peaks = mt.overgeneralisation_peaks(mt.overgeneralisation_table(mt.read_scores(paths), ["small"]), ["small"])
    assert list(peaks.columns) == ["data_type", "size", "idiom", "peak", "peak_checkpoint", "peak_sd", "note"]
    by_heart, in_tandem = peaks.iloc[0], peaks.iloc[1]
    assert (by_heart["peak"], by_heart["peak_checkpoint"], by_heart["note"]) == (0.75, 2, "")
    assert by_heart["peak_sd"] == pytest.approx(pd.Series([1.0, 0.5]).std())
    assert in_tandem["peak"] == 0 and pd.isna(in_tandem["peak_checkpoint"])
    assert in_tandem["note"] == mt.NEVER_OVERGENERALISED
    mt.write_table(peaks, tmp_path / "peaks.tsv")
    written = read_tsv(tmp_path / "peaks.tsv")
    assert written["peak_checkpoint"].tolist() == ["2", ""], "an epoch, not 2.0; no epoch for no peak"
    assert written["note"].tolist() == ["", "never overgeneralised"]
