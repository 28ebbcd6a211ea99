"""The original study's own scores per size, seed and cell (resources/mt/paper_results/)
beside a run's tables: their means give the paper's printed tables, each cell's mean and
sd stand beside ours, and every summary row says whether ours lies within the paper's
seed spread."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.mt import tables as mt
from natcomp.mt.figures import overgeneralisation_figure
from natcomp.mt.lexicon import load_synonyms
from natcomp.mt.paper_results import (
    RESULT_COLUMNS,
    paper_summaries,
    read_paper_results,
    with_paper,
    with_paper_results,
)
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.published import published_path, read_published
from natcomp.shipped import resource_path

REPO = Path(__file__).resolve().parents[2]
RELEASED = REPO.parent / "shared" / "data" / "paradox_mt"


@pytest.fixture(scope="module")
def shipped():
    return read_paper_results()


def test_the_paper_results_give_the_printed_tables_4a_and_6a(shipped):
    """resources/mt/published.tsv's Tables 4a and 6a, as printed, are the means over seeds
    (then templates, pairs) of the shipped per-seed results, to the printed digits."""
    summaries = paper_summaries(shipped)
    published = read_published(published_path("mt"))
    keys = {"systematicity_summary": ["data_type", "condition"], "substitutivity_summary": ["data_type", "metric"]}
    checked = 0
    for name, columns in keys.items():
        summary = summaries[name].set_index(columns)
        for row in published[published["our_table"] == name].itertuples():
            mean = summary.loc[tuple(row.our_row.split(" / ")), row.our_column]
            assert abs(mean - row.value) <= 0.005 + 1e-9, f"{row.table} {row.row} {row.column}: {mean} vs {row.value}"
            checked += 1
    assert checked == 27 + 18, "every printed cell of Tables 4a and 6a"


#: Table 8 as printed: per data type and size, the peak of each idiom's seed-averaged curve,
#: idioms in the release's order (the first-seen order of the shipped file)
TABLE_8 = {
    ("synthetic", "small"): ".98 .92 .98 1.0 .40 .75 1.0 1.0 1.0 1.0 1.0 .01 1.0 1.0 1.0 .99 1.0 .72 .20 .74",
    ("synthetic", "medium"): ".99 .96 .98 1.0 .76 .73 1.0 1.0 1.0 1.0 1.0 .22 1.0 1.0 1.0 1.0 .57 .55 .38 .57",
    ("synthetic", "full"): ".97 .86 .97 1.0 .50 .56 1.0 1.0 1.0 1.0 1.0 .24 1.0 .91 1.0 1.0 .74 .38 .24 .44",
    ("semi_natural", "small"): ".95 .66 .98 1.0 .49 .73 1.0 1.0 1.0 .97 1.0 .08 1.0 .98 1.0 .88 .99 .56 .15 .81",
    ("semi_natural", "medium"): ".91 .60 .95 1.0 .78 .63 .96 1.0 1.0 .97 1.0 .31 .99 .99 1.0 .97 .74 .45 .30 .59",
    ("semi_natural", "full"): ".97 .55 .95 1.0 .40 .68 .99 1.0 1.0 .99 1.0 .31 1.0 .90 1.0 .97 .90 .25 .23 .47",
    ("natural", "small"): ".80 .51 .80 .97 .84 .31 .75 .96 .92 .82 .88 .14 .74 .60 1.0 .40 .96 .29 .23 .87",
    ("natural", "medium"): ".80 .50 .82 .96 .84 .32 .71 .94 .92 .68 .90 .22 .74 .63 .99 .39 .61 .33 .29 .84",
    ("natural", "full"): ".79 .39 .83 .95 .90 .36 .83 .98 .95 .89 .90 .11 .65 .55 1.0 .65 .56 .19 .27 .76",
}


def test_the_paper_results_give_table_8(shipped):
    """The peaks table computed from the shipped curves (nanmean over seeds, max over epochs)
    is Table 8 to the printed digits, idiom by idiom."""
    peaks = paper_summaries(shipped)["overgeneralisation_peaks"].set_index(["data_type", "size", "idiom"])["peak"]
    idioms = list(dict.fromkeys(shipped["overgeneralisation"]["idiom"]))
    assert len(idioms) == 20
    for (data_type, size), printed in TABLE_8.items():
        ours = [peaks[(data_type, size, idiom)] for idiom in idioms]
        assert [round(value, 2) for value in ours] == pytest.approx([float(v) for v in printed.split()], abs=1e-9)


@pytest.mark.skipif(not (RELEASED / "paper_results").is_dir(), reason=f"{RELEASED} is absent (outside the project)")
def test_the_shipped_results_are_the_released_values(shipped):
    """Every value of the release's results (../shared/data, converted from its pickles)
    stands in the shipped files at its place: sizes by the paper's names, the release's
    synonym and idiom numbers by the names of its own lists."""
    sizes = {"tiny": "small", "small": "medium", "all": "full"}
    # the release numbers its pairs and idioms by its own lists
    lists = {
        name: [line.split("\t") for line in (RELEASED / name).read_text().splitlines()[1:]]
        for name in ("synonyms.tsv", "idioms.tsv")
    }
    pairs = [f"{row[0].strip()}/{row[1].strip()}" for row in lists["synonyms.tsv"]]
    idioms = [row[0].strip() for row in lists["idioms.tsv"]]
    assert set(pairs) == {pair.name for pair in load_synonyms(resource_path("synonyms.tsv"))}

    def released(name):
        frame = pd.read_csv(RELEASED / "paper_results" / f"{name}.tsv", sep="\t", na_values=["nan"])
        return frame.assign(size=frame["size"].map(sizes), seed=frame["seed"].astype("Int64"))

    def matched(name, theirs, keys, values):
        ours = shipped[name].merge(theirs, on=keys, how="outer", suffixes=("", "_released"), indicator=True)
        assert (ours["_merge"] == "both").all(), ours[ours["_merge"] != "both"].head()
        for value in values:
            both = ours[[value, value + "_released"]]
            same = (both[value] == both[value + "_released"]) | both.isna().all(axis=1)
            assert same.all(), ours[~same].head()
        return len(ours)

    systematicity = released("systematicity").melt(
        id_vars=["size", "seed", "setup", "data", "template"], value_vars=["score_1", "score_2"], var_name="score"
    )
    conditions = {
        ("s_np_vp", "score_1"): "np_prime",
        ("s_np_vp", "score_2"): "vp_prime",
        ("s_conj", "score_1"): "s1_prime",
        ("s_conj", "score_2"): "s3",
    }
    systematicity["condition"] = [conditions[key] for key in zip(systematicity["setup"], systematicity["score"])]
    systematicity = systematicity.dropna(subset=["value"]).rename(columns={"data": "data_type", "value": "consistency"})
    keys = ["size", "seed", "data_type", "condition", "template"]
    assert matched("systematicity", systematicity[[*keys, "consistency"]], keys, ["consistency"]) == 1350
    substitutivity = released("substitutivity").rename(columns={"data": "data_type"})
    substitutivity["template"] = substitutivity["template"].fillna(0).astype(int)
    substitutivity["pair"] = [pairs[k] for k in substitutivity.pop("synonym")]
    keys = ["size", "seed", "data_type", "template", "pair"]
    assert matched("substitutivity", substitutivity, keys, ["consistency", "synonym_consistency"]) == 6300
    overgeneralisation = released("overgeneralisation").rename(columns={"data": "data_type", "epoch": "checkpoint"})
    overgeneralisation["idiom"] = [idioms[i] for i in overgeneralisation["idiom"]]
    overgeneralisation["checkpoint"] = overgeneralisation["checkpoint"].astype("Int64")
    keys = ["size", "seed", "data_type", "idiom", "checkpoint"]
    assert matched("overgeneralisation", overgeneralisation, keys, ["overgeneralisation"]) == 9000
    assert idioms[13] == "look the other way", "the release numbers its idioms in its own order"


# --------------------------------------------------------------------------------------
# small results written for the tests


def write_results(folder: Path, systematicity=(), substitutivity=(), overgeneralisation=()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (
        ("systematicity", systematicity),
        ("substitutivity", substitutivity),
        ("overgeneralisation", overgeneralisation),
    ):
        lines = ["\t".join(RESULT_COLUMNS[name]), *("\t".join(map(str, row)) for row in rows)]
        (folder / f"{name}.tsv").write_text("\n".join(lines) + "\n")
    return folder


def run_rows(values_by_seed, size="small", data_type="synthetic", condition="np_prime", template=1, system=None):
    return [
        {
            "system": system or TRAINED_SYSTEM,
            "size": "" if system else size,
            "seed": pd.NA if system else seed,
            "data_type": data_type,
            "condition": condition,
            "template": template,
            "consistency": value,
            "n": 10,
            "decode_signature": "sig",
        }
        for seed, value in values_by_seed.items()
    ]


def test_a_bad_results_file_is_one_line_naming_file_and_line(tmp_path):
    folder = write_results(tmp_path / "a", systematicity=[("tiny", 1, "synthetic", "np_prime", 1, 0.5)])
    with pytest.raises(InputError, match=r"systematicity\.tsv, line 2: size 'tiny' is not a corpus size of the paper"):
        read_paper_results(folder)
    folder = write_results(tmp_path / "b", systematicity=[("small", 1, "synthetic", "np_prime", 1, "x")])
    with pytest.raises(InputError, match=r"line 2: consistency 'x' is not a number or empty"):
        read_paper_results(folder)


def test_each_cell_of_a_per_template_table_gets_the_papers_mean_and_sd_over_its_seeds(tmp_path):
    results = read_paper_results(
        write_results(
            tmp_path,
            systematicity=[
                ("small", 1, "synthetic", "np_prime", 1, 0.6),
                ("small", 2, "synthetic", "np_prime", 1, 0.8),
                ("medium", 1, "synthetic", "np_prime", 1, 0.1),
                ("medium", 2, "synthetic", "np_prime", 1, 0.1),
                ("small", 1, "synthetic", "np_prime", 2, 0.0),
                ("small", 2, "synthetic", "np_prime", 2, 0.0),
            ],
        )
    )
    ours = pd.DataFrame(
        run_rows({1: 0.2, 2: 0.3}) + run_rows({1: 0.9}, size="full") + run_rows({1: 0.5}, system="tiny-marian")
    )
    table = with_paper_results({"systematicity": ours}, results)["systematicity"]
    assert list(table.columns) == [
        *ours.columns[: list(ours.columns).index("consistency") + 1],
        "paper_consistency",
        "paper_consistency_sd",
        "n",
        "decode_signature",
    ]
    small = table[table["size"] == "small"]
    assert small["paper_consistency"].tolist() == pytest.approx([0.7, 0.7]), "the same size's cell, not medium's"
    assert small["paper_consistency_sd"].tolist() == pytest.approx([pd.Series([0.6, 0.8]).std()] * 2), "sample sd"
    others = table[table["size"] != "small"]
    assert others["paper_consistency"].isna().all(), "no paper cell for full, none for a pretrained system"


def summary_results(tmp_path, small_seed_means, conditions=("np_prime", "vp_prime", "s3")):
    """Paper results whose every condition has the given per-seed means (one template)."""
    rows = [
        ("small", seed, "synthetic", condition, 1, value)
        for condition in conditions
        for seed, value in enumerate(small_seed_means, start=1)
    ]
    rows.append(("small", 1, "natural", "s3", 1, 0.9))  # one seed: no sd, no verdict
    return read_paper_results(write_results(tmp_path, systematicity=rows))


def test_summary_rows_say_whether_ours_lies_within_two_of_the_papers_seed_sds(tmp_path):
    """The paper's seeds 0.4 and 0.6: mean 0.5, sample sd 0.1414, so within 0.2828 of 0.5.
    Ours 0.78 (0.28 away) is within; 0.79 is outside; 0.72 (0.22 away) is within with the
    sample sd but would be outside with the population sd (0.1); 0.25 is within 0.5 but
    far from the printed 0.73 of Table 4a: the verdict takes the mean of the paper's seeds.
    Our own sd (0.5) never counts."""
    results = summary_results(tmp_path, [0.4, 0.6], conditions=("np_prime", "vp_prime", "s1_prime", "s3"))
    ours = {"np_prime": 0.78, "vp_prime": 0.79, "s1_prime": 0.72, "s3": 0.25}
    summary = pd.DataFrame(
        {
            "data_type": ["synthetic"] * 4 + ["natural"],
            "condition": [*ours, "s3"],
            "small": [*ours.values(), 0.9],
            "small_sd": [0.5] * 5,
        }
    )
    tables = with_paper({"systematicity_summary": summary}, read_published(published_path("mt")), results)
    table = tables["systematicity_summary"]
    assert list(table.columns) == [
        "data_type",
        "condition",
        "small",
        "small_sd",
        "paper_small",
        "paper_small_sd",
        "small_vs_paper",
        "paper_medium",
        "paper_full",
    ]
    assert table["paper_small"].tolist()[0] == pytest.approx(0.73), "the printed value stands beside ours"
    assert table["paper_small_sd"].tolist()[0] == pytest.approx(0.1414, abs=1e-4)
    assert table["small_vs_paper"].tolist() == ["within", "outside", "within", "within", ""]


def test_the_verdict_flips_where_ours_crosses_two_sds(tmp_path):
    results = summary_results(tmp_path, [0.45, 0.55, 0.50], conditions=("np_prime",))  # mean .5, sd .05
    for ours, verdict in ((0.5 + 0.099, "within"), (0.5 + 0.101, "outside"), (0.5 - 0.101, "outside")):
        summary = pd.DataFrame({"data_type": ["synthetic"], "condition": ["np_prime"], "small": [ours]})
        table = with_paper_results({"systematicity_summary": summary}, results)["systematicity_summary"]
        assert table["small_vs_paper"].tolist() == [verdict], ours


def test_the_peaks_table_gets_the_papers_peak_its_sd_and_the_verdict(tmp_path):
    # the paper's seeds peak together at epoch 2 (0.6, 0.8: mean 0.7, sd 0.1414)
    rows = [
        ("small", seed, "synthetic", "by heart", epoch, value)
        for seed, values in ((1, (0.1, 0.6, 0.3)), (2, (0.1, 0.8, 0.2)))
        for epoch, value in zip((1, 2, 3), values)
    ]
    results = read_paper_results(write_results(tmp_path, overgeneralisation=rows))
    ours = pd.DataFrame(
        [
            {"system": TRAINED_SYSTEM, "size": "small", "seed": seed, "data_type": "synthetic", "idiom": "by heart"}
            | {"checkpoint": epoch, "overgeneralisation": value, "n": 5, "decode_signature": "s"}
            for seed, values in ((1, (0.0, 0.2, 0.3)), (2, (0.0, 0.2, 0.3)))
            for epoch, value in zip((1, 2, 3), values)
        ]
    ).astype({"seed": "Int64", "checkpoint": "Int64"})
    tables = {"overgeneralisation": ours, "overgeneralisation_peaks": mt.overgeneralisation_peaks(ours, ["small"])}
    tables = with_paper_results(tables, results)
    peaks = tables["overgeneralisation_peaks"]
    assert peaks[["paper_peak", "paper_peak_sd"]].iloc[0].tolist() == pytest.approx([0.7, 0.1414], abs=1e-4)
    assert peaks["peak_vs_paper"].tolist() == ["outside"], "0.3 is 0.4 from 0.7: more than 2 x 0.1414"
    curve = tables["overgeneralisation"]
    assert curve.loc[curve["checkpoint"] == 3, "paper_overgeneralisation"].tolist() == pytest.approx([0.25, 0.25])


def test_the_overgeneralisation_figure_draws_the_papers_curve_beside_ours(tmp_path):
    """A dashed line per size: the paper's mean over idioms of its seed means, at our epochs."""
    rows = [
        ("small", seed, "synthetic", idiom, epoch, value)
        for seed in (1, 2)
        for idiom, values in (("by heart", (0.2, 0.6)), ("in tandem", (0.4, 0.0)))
        for epoch, value in zip((1, 2), values)
    ]
    results = read_paper_results(write_results(tmp_path, overgeneralisation=rows))
    ours = pd.DataFrame(
        [
            {"system": TRAINED_SYSTEM, "size": "small", "seed": 1, "data_type": data_type, "idiom": idiom}
            | {"checkpoint": epoch, "overgeneralisation": 0.1, "n": 5, "decode_signature": "s"}
            for data_type in ("synthetic", "random_words")  # the paper has no random-words curve
            for idiom in ("by heart", "in tandem")
            for epoch in (1, 2, 3)
        ]
    ).astype({"seed": "Int64", "checkpoint": "Int64"})
    mt.write_table(with_paper_results({"overgeneralisation": ours}, results)["overgeneralisation"], tmp_path / "o.tsv")
    table = mt.read_table(tmp_path / "o.tsv")  # as the workflow's figure job reads it
    figure = overgeneralisation_figure(table, ["small"], tmp_path / "o.png")
    dashed = [line for line in figure.axes[0].get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_label() == "small, paper (published)"
    assert list(dashed[0].get_xdata()) == [1, 2], "epoch 3 is not the paper's"
    assert list(dashed[0].get_ydata()) == pytest.approx([0.3, 0.3])
    assert not [line for line in figure.axes[1].get_lines() if line.get_linestyle() == "--"]
    legend = [text.get_text() for text in figure.axes[-1].get_legend().get_texts()]
    assert legend == ["small", "small, paper (published)"], "the last panel's legend names every panel's lines"
    plain = overgeneralisation_figure(ours, ["small"], tmp_path / "p.png")
    assert not [line for line in plain.axes[0].get_lines() if line.get_linestyle() == "--"]


def test_tables_of_pretrained_systems_alone_stay_as_they_are(shipped):
    """natcomp mt evaluate: no trained model, so no size of the paper's: no cell, sd or verdict
    column (the printed Table 4a stands at the end, as it did)."""
    ours = pd.DataFrame(run_rows({1: 0.5}, system="tiny-m2m") + run_rows({1: 0.4}, system="tiny-m2m", template=2))
    tables = {
        "systematicity": ours,
        "systematicity_summary": mt.systematicity_summary(ours, [], systems=["tiny-m2m"]),
    }
    out = with_paper(tables, read_published(published_path("mt")), shipped)
    assert list(out["systematicity"].columns) == list(ours.columns)
    printed = ["paper_small", "paper_medium", "paper_full"]
    assert list(out["systematicity_summary"].columns) == [*tables["systematicity_summary"].columns, *printed]
