import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.mt import tables as mt
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.tsv import read_tsv, write_tsv


def write_scores(root, size, seed, checkpoint, test, data_type, rows, system=TRAINED_SYSTEM):
    """A score file as the mt_score rule writes it: the model columns first (a pretrained
    system: size and seed empty, checkpoint final)."""
    path = root / f"{system}.{size}.{seed}.{checkpoint}.{test}.{data_type}.{len(list(root.iterdir()))}.tsv"
    model = {
        "system": system,
        "size": size,
        "seed": seed,
        "checkpoint": checkpoint,
        "test": test,
        "data_type": data_type,
        "decode_signature": f"ckpt:{size}{seed}{checkpoint}|beam:5"
        if system == TRAINED_SYSTEM
        else f"hf:{system}|beam:5",
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
        "system",
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
    with pytest.raises(
        InputError, match="missing column\\(s\\) system, seed, checkpoint, test, data_type, decode_signature"
    ):
        mt.read_scores([bad])


def systematicity_rows(consistency_by_seed_and_template, size="small", data_type="synthetic", condition="np_prime"):
    """A per-model systematicity table as :func:`systematicity_table` returns it."""
    return [
        {
            "system": TRAINED_SYSTEM,
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


def test_summaries_carry_the_papers_tables_4a_and_6a():
    from natcomp.published import published_path, read_published

    rows = systematicity_rows({(1, 1): 0.2, (2, 1): 0.6})
    rows += systematicity_rows({(1, 1): 0.1}, data_type="natural", condition="s3")
    tables = {"systematicity": pd.DataFrame(rows)}
    tables["systematicity_summary"] = mt.systematicity_summary(tables["systematicity"], ["small"])
    tables = mt.with_published(tables, read_published(published_path("mt")))
    summary = tables["systematicity_summary"].set_index(["data_type", "condition"])
    assert list(summary.columns) == ["small", "small_sd", "paper_small", "paper_medium", "paper_full"]
    assert summary.loc[("synthetic", "np_prime"), ["paper_small", "paper_medium", "paper_full"]].tolist() == [
        pytest.approx(0.73),
        pytest.approx(0.84),
        pytest.approx(0.84),
    ]
    assert summary.loc[("natural", "s3"), "paper_full"] == pytest.approx(0.47)
    assert list(tables["systematicity"].columns) == list(pd.DataFrame(rows).columns), "per-model tables unchanged"


def substitutivity_rows(scores):
    """A per-model substitutivity table (size small, synthetic, template 1) from
    ``(seed, pair, consistency, synonym_consistency, n)`` tuples."""
    return pd.DataFrame(
        [
            {
                "system": TRAINED_SYSTEM,
                "size": "small",
                "seed": seed,
                "data_type": "synthetic",
                "pair": pair,
                "template": 1,
                "consistency": consistency,
                "synonym_consistency": synonym,
                "n": n,
            }
            for seed, pair, consistency, synonym, n in scores
        ]
    )


def test_substitutivity_summary_sd_is_over_seed_scores():
    rows = substitutivity_rows(
        [(1, "a/b", 0.0, 1.0, 5), (1, "c/d", 0.2, 1.0, 5), (2, "a/b", 0.6, 1.0, 5), (2, "c/d", 1.0, 1.0, 5)]
    )
    summary = mt.substitutivity_summary(rows, ["small"])
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
    assert list(peaks.columns) == [
        "data_type",
        "system",
        "size",
        "idiom",
        "peak",
        "peak_checkpoint",
        "peak_sd",
        "note",
    ]
    by_heart, in_tandem = peaks.iloc[0], peaks.iloc[1]
    assert (by_heart["peak"], by_heart["peak_checkpoint"], by_heart["note"]) == (0.75, 2, "")
    assert by_heart["peak_sd"] == pytest.approx(pd.Series([1.0, 0.5]).std())
    assert in_tandem["peak"] == 0 and pd.isna(in_tandem["peak_checkpoint"])
    assert in_tandem["note"] == mt.NEVER_OVERGENERALISED
    mt.write_table(peaks, tmp_path / "peaks.tsv")
    written = read_tsv(tmp_path / "peaks.tsv")
    assert written["peak_checkpoint"].tolist() == ["2", ""], "an epoch, not 2.0; no epoch for no peak"
    assert written["note"].tolist() == ["", "never overgeneralised"]


# --------------------------------------------------------------------------------------
# pretrained systems: one released model each, beside the trained models

#: config order of the pretrained systems, deliberately not alphabetical
SYSTEMS = ["tiny-marian", "opus-mt-en-nl"]


def write_pretrained_scores(root, system, test, data_type, rows):
    return write_scores(root, "", "", "final", test, data_type, rows, system=system)


def mixed_systematicity_scores(tmp_path):
    return [
        write_pretrained_scores(tmp_path, "opus-mt-en-nl", "np_vp", "synthetic", np_vp_rows([1, 1, 1, 0])),
        write_scores(tmp_path, "full", 1, "best", "np_vp", "synthetic", np_vp_rows([1, 1, 0, 0])),
        write_pretrained_scores(tmp_path, "tiny-marian", "np_vp", "synthetic", np_vp_rows([0, 0, 0, 1])),
        write_pretrained_scores(tmp_path, "tiny-marian", "np_vp", "synthetic", np_vp_rows([1, 1], template=2)),
        write_scores(tmp_path, "small", 2, "best", "np_vp", "synthetic", np_vp_rows([1, 1, 1, 1])),
        write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", np_vp_rows([1, 0, 0, 1])),
    ]


def test_pretrained_systems_follow_the_trained_models_with_empty_size_and_seed(tmp_path):
    scores = mt.read_scores(mixed_systematicity_scores(tmp_path))
    assert str(scores["seed"].dtype) == "Int64" and scores["seed"].isna().sum() == 10
    table = mt.systematicity_table(scores, ["small", "full"], systems=SYSTEMS)
    assert list(table.columns[:3]) == ["system", "size", "seed"]
    models = list(zip(table["system"], table["size"], table["seed"].astype(object).where(table["seed"].notna(), "")))
    assert models == [
        ("trained", "small", 1),
        ("trained", "small", 2),
        ("trained", "full", 1),
        ("tiny-marian", "", ""),
        ("tiny-marian", "", ""),
        ("opus-mt-en-nl", "", ""),
    ], "trained sizes in config order and seeds, then the systems in config order"
    tiny = table[table["system"] == "tiny-marian"]
    assert tiny["template"].tolist() == [1, 2]
    assert tiny["consistency"].tolist() == [0.25, 1.0]
    assert set(tiny["decode_signature"]) == {"hf:tiny-marian|beam:5"}, "the system's own signature"
    mt.write_table(table, tmp_path / "systematicity.tsv")
    lines = (tmp_path / "systematicity.tsv").read_text().splitlines()
    assert lines[0].startswith("system\tsize\tseed\tdata_type\t")
    assert lines[4].startswith("tiny-marian\t\t\tsynthetic\tnp_prime\t1\t0.2500\t4\t")
    back = mt.read_table(tmp_path / "systematicity.tsv")
    assert str(back["seed"].dtype) == "Int64" and back["seed"].isna().tolist() == [False] * 3 + [True] * 3
    assert back["size"].tolist() == ["small", "small", "full", "", "", ""]
    pd.testing.assert_frame_equal(
        back.drop(columns="consistency"), table.drop(columns="consistency"), check_dtype=False
    )


def test_systems_not_in_the_configuration_sort_after_those_that_are(tmp_path):
    table = mt.systematicity_table(mt.read_scores(mixed_systematicity_scores(tmp_path)), ["small", "full"])
    assert list(pd.unique(table["system"])) == ["trained", "opus-mt-en-nl", "tiny-marian"], "then by name"


def test_summaries_give_each_pretrained_system_a_column_without_sd(tmp_path):
    table = mt.systematicity_table(
        mt.read_scores(mixed_systematicity_scores(tmp_path)), ["small", "full"], systems=SYSTEMS
    )
    summary = mt.systematicity_summary(table, ["small", "full"], systems=SYSTEMS)
    assert list(summary.columns) == [
        "data_type",
        "condition",
        "small",
        "small_sd",
        "full",
        "full_sd",
        "tiny-marian",
        "tiny-marian_sd",
        "opus-mt-en-nl",
        "opus-mt-en-nl_sd",
    ]
    row = summary.iloc[0]
    assert row["small"] == pytest.approx(0.75), "the trained columns are unchanged by the systems"
    assert row["tiny-marian"] == pytest.approx((0.25 + 1.0) / 2), "a system's template mean"
    assert row["opus-mt-en-nl"] == pytest.approx(0.75)
    assert pd.isna(row["tiny-marian_sd"]) and pd.isna(row["opus-mt-en-nl_sd"]), "one model: no seeds, no sd"
    mt.write_table(summary, tmp_path / "summary.tsv")
    written = read_tsv(tmp_path / "summary.tsv").iloc[0]
    assert (written["tiny-marian"], written["tiny-marian_sd"]) == ("0.6250", "")


def test_substitutivity_summary_of_a_pretrained_system():
    rows = [
        {
            "system": system,
            "size": size,
            "seed": pd.NA if system != TRAINED_SYSTEM else seed,
            "data_type": "natural",
            "pair": pair,
            "template": 0,
            "consistency": value,
            "synonym_consistency": 1.0,
            "n": 5,
        }
        for system, size, seed, pair, value in [
            (TRAINED_SYSTEM, "small", 1, "a/b", 0.0),
            (TRAINED_SYSTEM, "small", 2, "a/b", 1.0),
            ("tiny-marian", "", None, "a/b", 0.2),
            ("tiny-marian", "", None, "c/d", 0.6),
        ]
    ]
    table = pd.DataFrame(rows).astype({"seed": "Int64"})
    summary = mt.substitutivity_summary(table, ["small"], systems=SYSTEMS)
    assert list(summary.columns) == ["data_type", "metric", "small", "small_sd", "tiny-marian", "tiny-marian_sd"]
    consistency = summary[summary["metric"] == "consistency"].iloc[0]
    assert consistency["tiny-marian"] == pytest.approx(0.4)
    assert pd.isna(consistency["tiny-marian_sd"])
    assert consistency["small_sd"] == pytest.approx(pd.Series([0.0, 1.0]).std())


def test_a_system_named_like_a_corpus_size_is_refused():
    table = pd.DataFrame(
        [
            {"system": TRAINED_SYSTEM, "size": "small", "seed": 1},
            {"system": "small", "size": "", "seed": pd.NA},
        ]
    )
    with pytest.raises(ValueError, match="system\\(s\\) small have the name of a corpus size"):
        mt.model_groups(table, ["small"])


def overgeneralisation_rows(labels_by_idiom):
    return [
        {
            "item": f"{idiom}{i}",
            "template": 1,
            "idiom": idiom,
            "source": "s",
            "reference": "",
            "translation": "t",
            "overgeneralised": v,
        }
        for idiom, labels in labels_by_idiom.items()
        for i, v in enumerate(labels)
    ]


def test_a_pretrained_system_is_one_point_in_the_overgeneralisation_tables(tmp_path):
    paths = [
        write_scores(
            tmp_path,
            "small",
            1,
            f"epoch{epoch}",
            "overgeneralisation",
            "natural",
            overgeneralisation_rows({"by heart": labels, "in tandem": [0, 0]}),
        )
        for epoch, labels in [(1, [0, 0]), (2, [1, 1]), (3, [1, 0])]
    ]
    paths.append(
        write_pretrained_scores(
            tmp_path,
            "tiny-marian",
            "overgeneralisation",
            "natural",
            overgeneralisation_rows({"by heart": [1, 0, 0, 0], "in tandem": [0, 0]}),
        )
    )
    table = mt.overgeneralisation_table(mt.read_scores(paths), ["small"], systems=SYSTEMS)
    tiny = table[table["system"] == "tiny-marian"]
    assert tiny["checkpoint"].isna().all(), "no epochs: the released final model"
    assert tiny["overgeneralisation"].tolist() == [0.25, 0.0]
    assert table[table["system"] == TRAINED_SYSTEM]["checkpoint"].tolist() == [1, 2, 3, 1, 2, 3]
    mt.write_table(table, tmp_path / "overgeneralisation.tsv")
    written = read_tsv(tmp_path / "overgeneralisation.tsv")
    assert written["checkpoint"].tolist()[-2:] == ["", ""]
    back = mt.read_table(tmp_path / "overgeneralisation.tsv")
    assert str(back["checkpoint"].dtype) == "Int64" and back["checkpoint"].isna().sum() == 2

    peaks = mt.overgeneralisation_peaks(back, ["small"], systems=SYSTEMS)
    assert peaks["system"].tolist() == [TRAINED_SYSTEM, TRAINED_SYSTEM, "tiny-marian", "tiny-marian"]
    point = peaks.iloc[2]
    assert (point["size"], point["idiom"], point["peak"]) == ("", "by heart", 0.25)
    assert pd.isna(point["peak_checkpoint"]) and pd.isna(point["peak_sd"])
    assert point["note"] == mt.FINAL_MODEL_ONLY
    trained = peaks.iloc[0]
    assert (trained["peak"], trained["peak_checkpoint"], trained["note"]) == (1.0, 2, "")
    assert peaks.iloc[1]["note"] == mt.NEVER_OVERGENERALISED
    mt.write_table(peaks, tmp_path / "peaks.tsv")
    lines = (tmp_path / "peaks.tsv").read_text().splitlines()
    assert lines[3] == "natural\ttiny-marian\t\tby heart\t0.2500\t\t\tfinal model only: no training curve"


def test_a_pretrained_system_alone_has_tables(tmp_path):
    """`natcomp mt evaluate --model` scores one system and no trained models."""
    paths = [write_pretrained_scores(tmp_path, "opus-mt-en-nl", "np_vp", "synthetic", np_vp_rows([1, 0]))]
    table = mt.systematicity_table(mt.read_scores(paths), ["small", "full"])
    summary = mt.systematicity_summary(table, ["small", "full"])
    assert list(summary.columns) == ["data_type", "condition", "opus-mt-en-nl", "opus-mt-en-nl_sd"]
    assert summary.iloc[0]["opus-mt-en-nl"] == 0.5
    rows = overgeneralisation_rows({"by heart": [1, 1]})
    paths = [write_pretrained_scores(tmp_path, "opus-mt-en-nl", "overgeneralisation", "natural", rows)]
    peaks = mt.overgeneralisation_peaks(mt.overgeneralisation_table(mt.read_scores(paths), []), [])
    assert peaks[["system", "peak", "note"]].values.tolist() == [["opus-mt-en-nl", 1.0, mt.FINAL_MODEL_ONLY]]


@pytest.mark.parametrize(
    ("system", "checkpoint", "expected"),
    [(TRAINED_SYSTEM, "final", "expected an epoch checkpoint"), ("tiny-marian", "epoch3", "expected 'final'")],
)
def test_overgeneralisation_checkpoints_must_fit_the_system(tmp_path, system, checkpoint, expected):
    rows = overgeneralisation_rows({"by heart": [1]})
    path = write_scores(tmp_path, "small", 1, checkpoint, "overgeneralisation", "natural", rows, system=system)
    with pytest.raises(ValueError, match=expected):
        mt.overgeneralisation_table(mt.read_scores([path]), ["small"])


def test_systematicity_summary_averages_seeds_then_templates_not_items(tmp_path):
    """Paper Table 4a: each template's score is the mean over seeds of that seed's item
    mean, the summary the mean over templates. Templates with 1 and 3 items per seed,
    and a seed with more scored items than the other, make every pooled variant differ:
    all items pooled 3/10 = 0.3, items pooled per template (2/3 + 1/7) / 2 = 0.405, per
    seed (1/4 + 2/6) / 2 = 0.292; seed means then template means (0.75 + 0.125) / 2."""
    paths = [
        write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", np_vp_rows([1], template=1)),
        write_scores(tmp_path, "small", 1, "best", "np_vp", "synthetic", np_vp_rows([0, 0, 0, ""], template=2)),
        write_scores(tmp_path, "small", 2, "best", "np_vp", "synthetic", np_vp_rows([1, 0], template=1)),
        write_scores(tmp_path, "small", 2, "best", "np_vp", "synthetic", np_vp_rows([1, 0, 0, 0], template=2)),
    ]
    table = mt.systematicity_table(mt.read_scores(paths), ["small"])
    assert table["n"].tolist() == [1, 3, 2, 4]
    row = mt.systematicity_summary(table, ["small"]).iloc[0]
    assert row["small"] == pytest.approx(((1.0 + 0.5) / 2 + (0.0 + 0.25) / 2) / 2)
    # each seed's score is its mean over templates: 0.5 and 0.375
    assert row["small_sd"] == pytest.approx(pd.Series([0.5, 0.375]).std())


def test_substitutivity_summary_averages_pairs_templates_and_seeds_not_items():
    """Paper Table 6a: the mean over seeds, pairs and templates of each one's item mean.
    Pair a/b has 1 item per seed, c/d 3 (seed 1) and 4 (seed 2): pooling the items would
    give 3/9 (consistency) instead of (1 + 0 + 1/3 + 1/4) / 4 = 0.396."""
    rows = substitutivity_rows(
        [(1, "a/b", 1.0, 1.0, 1), (1, "c/d", 1 / 3, 2 / 3, 3), (2, "a/b", 0.0, 1.0, 1), (2, "c/d", 1 / 4, 1 / 4, 4)]
    )
    summary = mt.substitutivity_summary(rows, ["small"]).set_index("metric")
    assert summary.loc["consistency", "small"] == pytest.approx((1.0 + 1 / 3 + 0.0 + 1 / 4) / 4)
    assert summary.loc["synonym_consistency", "small"] == pytest.approx((1.0 + 2 / 3 + 1.0 + 1 / 4) / 4)


def test_overgeneralisation_tables_say_whose_keyword_lists_they_matched():
    from natcomp.mt.tables import KEYWORDS_COLUMN, keyword_lists, with_keyword_lists

    assert keyword_lists("nl") == "Dutch: the paper's"
    assert keyword_lists("de") == "German: drafted by natcomp"
    table = with_keyword_lists(pd.DataFrame({"idiom": ["out of the blue"], "overgeneralisation": [0.5]}), "fr")
    assert list(table.columns)[-1] == KEYWORDS_COLUMN and table[KEYWORDS_COLUMN].tolist() == [
        "French: drafted by natcomp"
    ]


def test_a_language_without_idiom_keywords_has_a_table_that_says_why(monkeypatch, tmp_path):
    import dataclasses

    from natcomp.mt import languages
    from natcomp.mt.figures import overgeneralisation_figure
    from natcomp.mt.tables import no_keywords_table

    german = languages.target_language("de")
    monkeypatch.setattr(
        languages, "target_language", lambda code, key="": dataclasses.replace(german, idiom_keywords=None)
    )
    table = no_keywords_table("de")
    assert table.to_dict("records") == [
        {
            "keywords": "German: none",
            "note": "overgeneralisation not scored: German has no idiom keywords "
            "(resources/mt/languages/de.yaml has no idiom_keywords)",
        }
    ]
    overgeneralisation_figure(table, ["small"], tmp_path / "o.png")
    assert (tmp_path / "o.png").stat().st_size > 0
