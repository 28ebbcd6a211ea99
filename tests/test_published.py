"""natcomp.published: the papers' values typed into resources/<family>/published.tsv and
put beside a run's own numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.published import PUBLISHED_COLUMNS, add_paper_columns, read_published, spread_verdicts

REPO = Path(__file__).resolve().parents[1]
PUBLISHED_FILES = sorted((REPO / "resources").glob("*/published.tsv"))


def write(path: Path, rows: list[tuple]) -> Path:
    path.write_text(
        "\t".join(PUBLISHED_COLUMNS) + "\n" + "".join("\t".join(map(str, row)) + "\n" for row in rows),
        encoding="utf-8",
    )
    return path


def test_paper_columns_sit_after_their_column_and_its_sd(tmp_path):
    published = read_published(
        write(
            tmp_path / "p.tsv",
            [
                ("Table 4a", "synthetic NP", "small", ".73", "summary", "synthetic / np", "small"),
                ("Table 4a", "synthetic NP", "full", ".84", "summary", "synthetic / np", "full"),
                ("Table 4a", "natural S3", "full", ".47", "summary", "natural / s3", "full"),
                ("Table 4a", "synthetic NP", "medium", ".84", "summary", "synthetic / np", "medium"),
                ("Table 9", "x", "y", "1", "other", "synthetic / np", "small"),
            ],
        )
    )
    ours = pd.DataFrame(
        {
            "data_type": ["natural", "synthetic", "synthetic"],
            "condition": ["s3", "np", "vp"],
            "small": [0.1, 0.2, 0.3],
            "small_sd": [0.01, 0.02, 0.03],
            "full": [0.4, 0.5, 0.6],
        }
    )
    table = add_paper_columns(ours, published, "summary", ["data_type", "condition"])
    assert list(table.columns) == [
        "data_type",
        "condition",
        "small",
        "small_sd",
        "paper_small",
        "full",
        "paper_full",
        "paper_medium",
    ]
    assert table["paper_small"].tolist()[1] == pytest.approx(0.73)
    assert math.isnan(table["paper_small"].tolist()[0]), "the paper has no natural S3 small here: empty, not 0"
    assert table["paper_full"].tolist()[:2] == pytest.approx([0.47, 0.84])
    assert math.isnan(table["paper_full"].tolist()[2])
    assert list(ours.columns) == ["data_type", "condition", "small", "small_sd", "full"], "the input is not changed"


def test_a_papers_sd_stands_right_after_its_mean_where_the_table_has_no_sd():
    """A per-seed table has ``x`` but no ``x_sd``: the paper's ``x`` and ``x_sd`` follow ``x``;
    in a summary, a paper's ``small_sd`` follows ``paper_small`` even when other sizes'
    paper columns were appended after it."""
    cells = pd.DataFrame({"our_table": "t", "our_row": ["a", "a"], "our_column": ["x", "x_sd"], "value": [0.5, 0.1]})
    ours = pd.DataFrame({"key": ["a", "b"], "x": [0.4, 0.6], "n": [3, 3]})
    assert list(add_paper_columns(ours, cells, "t", ["key"]).columns) == ["key", "x", "paper_x", "paper_x_sd", "n"]
    summary = pd.DataFrame({"key": ["a"], "small": [0.4], "paper_small": [0.5], "paper_full": [0.6]})
    sd = pd.DataFrame({"our_table": "t", "our_row": ["a"], "our_column": ["small_sd"], "value": [0.1]})
    assert list(add_paper_columns(summary, sd, "t", ["key"]).columns) == [
        "key",
        "small",
        "paper_small",
        "paper_small_sd",
        "paper_full",
    ]


def test_a_value_is_within_the_papers_spread_up_to_two_of_its_sds():
    ours = pd.Series([0.69, 0.71, 0.29, 0.5, 0.5, float("nan")])
    mean = pd.Series([0.5, 0.5, 0.5, float("nan"), 0.5, 0.5])
    sd = pd.Series([0.1, 0.1, 0.1, 0.1, float("nan"), 0.1])
    assert spread_verdicts(ours, mean, sd) == ["within", "outside", "outside", "", "", ""]
    assert spread_verdicts(ours[:1], mean[:1], sd[:1], sds=1) == ["outside"], "the rule's width is a parameter"


def test_a_paper_sd_sits_after_the_papers_mean_beside_the_sd(tmp_path):
    """A paper's mean and sd of one cell (``x`` and ``x_sd``) stand after the table's own
    ``x`` and ``x_sd``, mean before sd, not the sd wedged between ``x_sd`` and the mean."""
    published = read_published(
        write(
            tmp_path / "p.tsv",
            [
                ("Table 9", "a 1", "y", "3", "t", "a / 1", "y"),
                ("Section 3.1", "a", "x", "20.6", "t", "a / ", "x"),
                ("Section 3.1", "a", "x sd", ".4", "t", "a / ", "x_sd"),
            ],
        )
    )
    ours = pd.DataFrame(
        {
            "key": ["a", "a"],
            "seed": pd.array([1, None], dtype="Int64"),
            "x": [1.0, 2.0],
            "x_sd": [None, 0.5],
            "y": [3.0, 4.0],
        }
    )
    table = add_paper_columns(ours, published, "t", ["key", "seed"])
    assert list(table.columns) == ["key", "seed", "x", "x_sd", "paper_x", "paper_x_sd", "y", "paper_y"]
    assert table["paper_x"].tolist()[1] == 20.6 and table["paper_x_sd"].tolist()[1] == 0.4
    assert math.isnan(table["paper_x"].tolist()[0]) and table["paper_y"].tolist()[0] == 3.0


def test_a_table_the_paper_has_not_gets_no_columns(tmp_path):
    published = read_published(write(tmp_path / "p.tsv", [("T", "r", "c", "1", "summary", "a", "x")]))
    ours = pd.DataFrame({"key": ["b"], "x": [1.0]})
    assert list(add_paper_columns(ours, published, "another", ["key"]).columns) == ["key", "x"]
    assert list(add_paper_columns(ours, published, "summary", ["key"]).columns) == ["key", "x"], "no row in the paper"
    ours = pd.DataFrame({"key": ["b", "a"], "x": [1.0, 2.0]})
    assert add_paper_columns(ours, published, "summary", ["key"])["paper_x"].tolist()[1] == 1.0


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("T", "r", "c", "high", "t", "a", "x")], r"p\.tsv, line 2: value 'high' is not a number"),
        (
            [("T", "r", "c", "1", "t", "a", "x"), ("T", "r2", "c", "2", "t", "a", "x")],
            r"line 3: t \| a \| x is already",
        ),
        ([("T", "r", "c", "", "t", "a", "x")], "line 2"),
        ([("T", "r", "c", "1", "t", "", "x")], "line 2: our_table, our_row and our_column are filled together"),
        ([("T", "r", "c", "1", "", "", ""), ("T", "r", "c", "2", "", "", "")], r"line 3: T \| r \| c is already"),
    ],
)
def test_bad_published_files_name_the_line(tmp_path, rows, message):
    with pytest.raises(InputError, match=message):
        read_published(write(tmp_path / "p.tsv", rows))


@pytest.mark.parametrize("path", PUBLISHED_FILES, ids=lambda path: path.parent.name)
def test_every_published_file_parses_and_names_a_table_of_its_family(path):
    published = read_published(path)
    assert len(published) > 0
    family = path.parent.name
    rules = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "workflow" / "rules").rglob("*.smk"))
    for our_table in set(published["our_table"]) - {""}:
        assert f"results/tables/{family}/{our_table}.tsv" in rules, f"{our_table} is not a table the workflow writes"


def test_mt_published_values_name_rows_and_columns_of_the_summaries():
    from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES
    from natcomp.mt.tables import PUBLISHED_KEYS

    published = read_published(REPO / "resources" / "mt" / "published.tsv")
    bleu = published[published["table"] == "Table 9"]
    published = published[~published["table"].isin(["Table 9", "Section 3.1"])]
    assert set(published["our_table"]) == set(PUBLISHED_KEYS)
    assert set(published["our_column"]) == {"small", "medium", "full"}
    metrics = {"consistency", "synonym_consistency"}
    for row in published["our_row"]:
        data_type, second = row.split(" / ")
        assert data_type in DATA_TYPES
        assert second in set(CONDITION_NAMES) | metrics
    # Table 4a has 9 rows, Table 6a 6, each with the three corpus sizes.
    assert published.groupby("table").size().to_dict() == {"Table 4a": 27, "Table 6a": 18}
    # Table 9: BLEU of 3 sizes x 5 seeds on dev and devtest, beside bleu_tokenised (the
    # paper's BLEU is fairseq-generate's on Moses tokens, appendix E.1)
    assert set(bleu["our_table"]) == {"bleu"} and set(bleu["our_column"]) == {"bleu_tokenised"}
    rows = {tuple(row.split(" / ")) for row in bleu["our_row"]}
    sizes, seeds, splits = ("small", "medium", "full"), "12345", ("dev", "devtest")
    assert rows == {("trained", size, seed, split) for size in sizes for seed in seeds for split in splits}
    for row in bleu.itertuples():
        assert (
            row.our_row.endswith(row.column.removeprefix("BLEU ")) and row.row.split() == row.our_row.split(" / ")[1:3]
        )


def test_mt_section_3_1_means_and_sds_sit_beside_the_bleu_tables_size_mean_rows():
    """Section 3.1: "SacreBLEU scores on the 'devtest' set ... 20.6±.4, 24.4±.3 and 25.8±.1
    for the small, medium and full datasets": the mean over a size's five seeds and its sd,
    beside the BLEU table's mean row of that size on devtest (seed empty), in
    ``bleu_sacrebleu`` and ``bleu_sacrebleu_sd``."""
    published = read_published(REPO / "resources" / "mt" / "published.tsv")
    section = published[published["table"] == "Section 3.1"]
    cells = {(row.our_row, row.our_column): row.value for row in section.itertuples()}
    assert cells == {
        ("trained / small /  / devtest", "bleu_sacrebleu"): 20.6,
        ("trained / small /  / devtest", "bleu_sacrebleu_sd"): 0.4,
        ("trained / medium /  / devtest", "bleu_sacrebleu"): 24.4,
        ("trained / medium /  / devtest", "bleu_sacrebleu_sd"): 0.3,
        ("trained / full /  / devtest", "bleu_sacrebleu"): 25.8,
        ("trained / full /  / devtest", "bleu_sacrebleu_sd"): 0.1,
    }
    assert set(section["our_table"]) == {"bleu"}
    labels = {(row.row, row.column) for row in section.itertuples()}
    sizes = ("small", "medium", "full")
    assert labels == {(size, column) for size in sizes for column in ("SacreBLEU devtest", "SacreBLEU devtest sd")}


def test_noncompsst_table_2_names_the_paper_configs_models_and_the_models_columns():
    import yaml

    from natcomp.noncompsst.report import models_table

    published = read_published(REPO / "resources" / "noncompsst" / "published.tsv")
    paper_models = yaml.safe_load((REPO / "config" / "paper.yaml").read_text(encoding="utf-8"))["noncompsst"]["models"]
    assert set(published["our_row"]) == set(paper_models)
    columns = list(models_table([], 67).columns)
    assert set(published["our_column"]) <= set(columns)
    table = models_table([{"model": "roberta-large", "r_MAXABS": 0.5}, {"model": "tiny", "r_MAXABS": 0.1}], 67)
    table = add_paper_columns(table, published, "models", ["model"])
    assert table.loc[0, "paper_r_MAXABS"] == pytest.approx(0.38) and math.isnan(table.loc[1, "paper_r_MAXABS"])
    assert table.loc[0, "paper_f1_top67"] == pytest.approx(0.37)
    assert list(table.columns).index("paper_r_MAXABS") == list(table.columns).index("r_MAXABS") + 1


def test_plane_tables_4_to_6_name_the_paper_configs_models_and_the_tables_columns():
    import yaml

    published = read_published(REPO / "resources" / "plane" / "published.tsv")
    plane = yaml.safe_load((REPO / "config" / "paper.yaml").read_text(encoding="utf-8"))["plane"]
    rows = {
        table: set(published.loc[published["our_table"] == table, "our_row"]) for table in set(published["our_table"])
    }
    classes = {"I", "S", "O", "Average"}
    assert rows["table4_prompting"] == {f"{m} / {c}" for m in plane["prompting"]["models"] for c in classes}
    assert {row.split(" / ")[0] for row in rows["table5_nli"]} == {*plane["nli"]["models"], "addone"}
    assert rows["table6_finetune"] == {"released / good / released", "released / one_it / released"}
    table4 = published[published["our_table"] == "table4_prompting"].set_index(["our_row", "our_column"])["value"]
    assert table4[("distilroberta / I", "f1_mean")] == 83.79
    assert table4[("bert-large / O", "f1_mean")] == 54.4 and table4[("bert-large / O", "f1_sd")] == 37
