"""natcomp.profile.render: profile.html and the figures of profile and compare, driven by
synthetic long profile rows in the row contract's columns (docs/profile.md)."""

from __future__ import annotations

import html
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from natcomp.profile.render import (  # noqa: E402
    DEMO_CAVEAT,
    FAMILY_ABOUT,
    compare_figure,
    draw_figure,
    model_colours,
    profile_page,
    write_profile,
)

CONTRACT = (
    "model family measure setting value sd n sd_over ci_low ci_high p_value baseline baseline_kind baseline2 "
    "baseline2_kind paper_value paper_source direction unit scale flag note"
).split()
HIGHER = "higher is more compositional"


def _row(model, family, measure, setting, value, **cells) -> dict:
    row = dict.fromkeys(CONTRACT, "")
    row.update(model=model, family=family, measure=measure, setting=setting, value=value, n=1, scale="demo")
    row.update(cells)
    return row


def _profile(model: str = "tiny", *, pss_value=0.0, r_value="", scale="demo") -> pd.DataFrame:
    pss = {"baseline_kind": "classifier sentiment accuracy, chance 50%", "direction": HIGHER, "unit": "%"}
    defined = r_value != ""
    r_cells = {"ci_low": 0.1, "ci_high": 0.45, "p_value": 0.004} if defined else {"flag": "undefined"}
    rows = [
        _row(model, "pss", "PSS", "linear FB", 48.6, sd=2.5, n=3, sd_over="seeds", baseline=81.0, **pss)
        | {"paper_value": 61.2, "paper_source": "Table 1 / BERT Linear FB / PSS"},
        _row(model, "pss", "PSS", "dnn FT", pss_value, baseline=50.3, flag="at chance", **pss)
        | {"note": "classifier at chance (50.3% on 300 sentences, binomial p = 0.47): PSS meaningless"},
        _row(model, "noncompsst", "r with MAXABS", "all rated phrases", r_value, n=2, sd_over="seeds", **r_cells)
        | {"baseline": 0, "baseline_kind": "no correlation", "direction": "higher is better", "unit": "r"}
        | ({} if defined else {"note": "constant predictions: r undefined"}),
        _row(model, "tre", "Spearman rho of TRE with WNS", "paper", -0.14, baseline=0.02, baseline2=-0.05)
        | {"baseline_kind": "random vectors", "baseline2_kind": "shuffled embeddings"}
        | {"direction": "lower is more compositional", "unit": "rho"},
        _row(model, "plane", "fine-tuning accuracy", "good released", 70.0, sd=4.0, n=5, sd_over="split seeds")
        | {"baseline": 50.0, "baseline_kind": "chance (majority class)", "direction": "higher is better", "unit": "%"},
    ]
    return pd.DataFrame(rows, columns=CONTRACT).assign(scale=scale)


def _artists(figure) -> dict[str, object]:
    """Every artist of the figure's panels that carries a gid: gid -> artist."""
    found = {}
    for axis in figure.axes:
        for artist in [*axis.lines, *axis.collections]:
            if artist.get_gid():
                found[artist.get_gid()] = artist
    return found


def _colour(artist) -> tuple:
    if hasattr(artist, "get_color") and not hasattr(artist, "get_colors"):
        return to_rgba(artist.get_color())
    return tuple(artist.get_colors()[0])


# ------------------------------------------------------------------ figure


def test_every_mark_of_a_model_has_the_colour_of_its_legend_entry():
    """Today's figure gave the legend one colour and the bars of a setting another: here
    three models, each with dots, sd bars, baselines and a paper star, all in the colour
    their legend handle shows."""
    rows = pd.concat([_profile("a", r_value=0.3), _profile("b", r_value=0.2), _profile("c", r_value=0.1)])
    figure = draw_figure(rows)
    legend = {handle.get_label(): to_rgba(handle.get_color()) for handle in figure.legends[0].legend_handles}
    artists = _artists(figure)
    kinds = set()
    for gid, artist in artists.items():
        kind, model, _ = gid.split("|")
        kinds.add(kind)
        assert _colour(artist) == legend[model], f"{gid} drawn in another colour than {model}'s legend entry"
    assert kinds == {"value", "sd", "baseline", "baseline2", "paper"}
    assert len({legend[model] for model in "abc"}) == 3, "one colour per model"
    plt.close(figure)


def test_an_undefined_value_has_no_artist_and_at_chance_is_hollow():
    figure = draw_figure(_profile("m", pss_value=12.0))
    artists = _artists(figure)
    assert "value|m|all rated phrases" not in artists, "undefined r is not drawn (as 0 or anything)"
    assert "sd|m|all rated phrases" not in artists
    assert "baseline|m|all rated phrases" in artists, "its baseline (r = 0) still is"
    hollow = artists["value|m|dnn FT"]
    assert to_rgba(hollow.get_markerfacecolor()) == to_rgba("white")
    assert to_rgba(hollow.get_markeredgecolor()) == model_colours(["m"])["m"]
    filled = artists["value|m|linear FB"]
    assert to_rgba(filled.get_markerfacecolor()) == model_colours(["m"])["m"]
    assert artists["value|m|linear FB"].get_ydata()[0] == 48.6
    assert list(artists["sd|m|linear FB"].get_segments()[0][:, 1]) == [46.1, 51.1], "bar = value +- sd"
    assert "sd|m|dnn FT" not in artists, "no sd, no bar"
    plt.close(figure)


def test_panels_are_measures_only_with_unit_and_direction_on_the_y_axis():
    figure = draw_figure(_profile("m", r_value=0.3))
    titles = [axis.get_title() for axis in figure.axes if axis.get_title()]
    assert len(titles) == 4, "one panel per family and measure"
    assert not any(re.search(r"\bsd\b", title) for title in titles), "no sd drawn as a measure"
    assert all(len(line) <= 48 for title in titles for line in title.splitlines()), "long titles wrapped"
    labels = {axis.get_title().split(":")[0]: axis.get_ylabel().replace("\n", " ") for axis in figure.axes}
    assert labels["PSS"] == f"% ({HIGHER})"
    assert labels["TRE"] == "rho (lower is more compositional)"
    assert figure.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"
    plt.close(figure)


def test_compare_figure_writes_a_png_from_long_rows(tmp_path):
    compare_figure(pd.concat([_profile("a"), _profile("b", r_value=0.2)]), tmp_path / "compare.png")
    assert (tmp_path / "compare.png").read_bytes()[:4] == b"\x89PNG"
    assert [path.name for path in tmp_path.iterdir()] == ["compare.png"]


# ------------------------------------------------------------------ profile.html


def test_profile_html_has_the_caveat_once_two_lines_per_family_and_every_row_judgeable():
    page = profile_page(_profile("tiny", pss_value=0.0), "profile of tiny")
    caveat = html.escape(DEMO_CAVEAT)
    assert page.count(caveat) == 1 and page.count("Demo scale") == 1, "the demo caveat once, at the top"
    assert page.index(caveat) < page.index("<h2")
    assert "<script" not in page.lower() and "javascript" not in page.lower()
    sections = re.split(r"<h2 id=", page)[1:]
    assert [section.split('"')[1] for section in sections] == ["noncompsst", "plane", "pss", "tre"]
    for section in sections:
        family = section.split('"')[1]
        about = re.search(r'<p class="about">(.*?)</p>', section).group(1)
        lines = about.split("<br>")
        assert len(lines) == 2 and all(lines), f"{family}: two lines, what and direction"
        assert "compositional" in lines[1] or "better" in lines[1]
        assert [html.unescape(line) for line in lines] == list(FAMILY_ABOUT[family])
        assert 'src="data:image/png;base64,' in section, f"{family}: its figure"
    rows = re.findall(r"<tr(?: class=flagged)?><td>.*?</tr>", page)
    assert len(rows) == 5
    pss = next(row for row in rows if "linear FB" in row)
    assert "48.6 ± 2.5 %" in pss and "n = 3 seeds" in pss, "value +- sd (n)"
    assert "81.0 %" in pss and "classifier sentiment accuracy" in pss, "baseline (kind) in the row"
    assert "61.2" in pss and "Table 1 / BERT Linear FB / PSS" in pss, "the paper's value and source"
    chance = next(row for row in rows if "dnn FT" in row)
    assert chance.startswith("<tr class=flagged>") and "at chance" in chance and "PSS meaningless" in chance
    undefined = next(row for row in rows if "all rated phrases" in row)
    assert "undefined" in undefined and "constant predictions: r undefined" in undefined
    assert not re.search(r'<td class="number">0(\.0+)?\b', undefined), "an undefined r is never shown as 0"
    tre = next(row for row in rows if "WNS" in row)
    assert "random vectors" in tre and "shuffled embeddings" in tre, "both baselines"
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[2].strip() and cells[3].strip(), "a value (or its flag) and a baseline cell in every row"


def test_profile_html_shows_r_with_its_interval_and_no_caveat_at_paper_scale():
    page = profile_page(_profile("bert", r_value=0.3, scale="paper"), "profile of bert")
    assert "Demo scale" not in page and "Scale: paper" in page
    assert "95% CI [0.100, 0.450]; p = 0.004" in page


def test_a_blank_value_without_a_flag_is_still_marked(tmp_path):
    rows = _profile("m", r_value=0.3)
    rows.loc[rows["setting"] == "paper", "value"] = float("nan")
    page = profile_page(rows, "t")
    row = next(row for row in re.findall(r"<tr.*?</tr>", page) if "WNS" in row)
    assert row.startswith("<tr class=flagged>") and "undefined" in row and "no reason given" in row


def test_write_profile_writes_the_tsv_and_one_self_contained_page(tmp_path):
    tsv, page = write_profile(_profile("m", r_value=0.3), tmp_path, "profile of m")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["profile.html", "profile.tsv"]
    text = page.read_text(encoding="utf-8")
    assert 'download="profile.tsv"' in text and '<img src="data:image/png;base64,' in text
    assert 'src="http' not in text and "<link" not in text, "nothing outside the page"


def test_a_tiny_p_value_survives_the_tsv(tmp_path):
    from natcomp.profile.table import read_profile

    profile = _profile("m", r_value=0.3)
    profile.loc[profile["measure"] == "r with MAXABS", "p_value"] = 3.2e-05
    tsv, _ = write_profile(profile, tmp_path, "profile of m")
    read = read_profile(tsv)
    assert read.loc[read["measure"] == "r with MAXABS", "p_value"].astype(float).iloc[0] == 3.2e-05


@pytest.mark.parametrize("count", [1, 4, 12])
def test_model_colours_are_distinct(count):
    colours = model_colours([f"m{index}" for index in range(count)])
    assert len(set(colours.values())) == count


def test_natcomp_compare_draws_the_figure_from_the_long_rows_of_every_profile(tmp_path, monkeypatch):
    """The figure gets the profiles' rows (model, sd, baseline, flag per row), not the wide
    compare table, so each model's marks keep their sd, baseline and flag."""
    from natcomp import cli
    from natcomp.profile import render

    runs = []
    for name in ("a", "b"):
        folder = tmp_path / name / "results"
        folder.mkdir(parents=True)
        write_profile(_profile(name, r_value=0.2), folder, f"profile of {name}")
        runs.append(str(tmp_path / name))
    drawn = []
    monkeypatch.setattr(render, "compare_figure", lambda rows, path, title=None: drawn.append((rows, title)))
    output = tmp_path / "compare.tsv"
    assert cli.main(["compare", *runs, "--output", str(output)]) == 0
    ((rows, title),) = drawn
    assert "The runs differ in none of scale" in title, "the figure's title says what else differs"
    assert list(dict.fromkeys(rows["model"])) == ["a", "b"]
    assert len(rows) == 2 * len(_profile("a")), "every row of both profiles, one per model"


def test_natcomp_compare_refuses_a_figure_that_would_overwrite_its_table(tmp_path, capsys):
    """Issue 45: --figure naming the table's own file (or a table named .png, whose default
    figure is itself) overwrote the table with the PNG; now one line and exit 2, nothing read
    or written."""
    from natcomp import cli

    for name in ("a", "b"):
        folder = tmp_path / name / "results"
        folder.mkdir(parents=True)
        write_profile(_profile(name, r_value=0.2), folder, f"profile of {name}")
    table = tmp_path / "compare.tsv"
    for options in (["--output", str(table), "--figure", str(table)], ["--output", str(tmp_path / "c.png")]):
        assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), *options]) == 2
        error = capsys.readouterr().err.strip()
        # the command line's output check (two outputs on one path) or compare's own (a table named .png)
        same = "is also the output of --output" in error or "the table's own file" in error
        assert error.startswith("natcomp: error: --figure: ") and same and len(error.splitlines()) == 1, error
    assert not table.exists() and not (tmp_path / "c.png").exists()


def test_a_measures_rows_stand_together_in_the_table():
    """profile_rows lists PSS and relative PSS per setting, interleaved; the page groups them."""
    rows = _profile("m", r_value=0.3)
    relative = rows[rows["setting"] == "linear FB"].assign(measure="relative PSS", value=60.8)
    rows = pd.concat([rows.iloc[:1], relative, rows.iloc[1:]], ignore_index=True)
    page = profile_page(rows, "t")
    pss = page[page.index('<h2 id="pss"') : page.index('<h2 id="tre"')]
    cells = re.findall(r"<tr(?: class=flagged)?><td>(.*?)</td><td class=setting>(.*?)</td>", pss)
    assert [(re.sub("<.*?>|%.*", "", measure), setting) for measure, setting in cells] == [
        ("PSS", "linear FB"),
        ("PSS", "dnn FT"),
        ("relative PSS", "linear FB"),
    ]
