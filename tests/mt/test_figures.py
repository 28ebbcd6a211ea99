import pandas as pd

from natcomp.mt import figures
from natcomp.mt.scoring import TRAINED_SYSTEM

SIZES = ["small", "full"]


def systematicity_table():
    rows = []
    for size in SIZES:
        for seed in (1, 2):
            for data_type, conditions in [
                ("synthetic", ["np_prime", "vp_prime", "s3"]),
                ("semi_natural", ["np_prime", "s3"]),
            ]:
                for condition in conditions:
                    for template in (1, 2):
                        rows.append(
                            {
                                "system": TRAINED_SYSTEM,
                                "size": size,
                                "seed": seed,
                                "data_type": data_type,
                                "condition": condition,
                                "template": template,
                                "consistency": 0.1 * (template + seed),
                                "n": 5,
                            }
                        )
    return pd.DataFrame(rows)


def substitutivity_table():
    rows = [
        {
            "system": TRAINED_SYSTEM,
            "size": size,
            "seed": 1,
            "data_type": data_type,
            "pair": pair,
            "template": 1,
            "consistency": 0.5,
            "synonym_consistency": 0.8,
            "n": 5,
        }
        for size in SIZES
        for data_type in ("synthetic", "natural")
        for pair in ("aeroplane/airplane", "tyre/tire")
    ]
    return pd.DataFrame(rows)


def overgeneralisation_table():
    rows = [
        {
            "system": TRAINED_SYSTEM,
            "size": size,
            "seed": 1,
            "data_type": data_type,
            "idiom": idiom,
            "checkpoint": epoch,
            "overgeneralisation": 0.1 * epoch,
            "n": 4,
        }
        for size in SIZES
        for data_type in ("synthetic", "natural")
        for idiom in ("by heart", "in tandem")
        for epoch in (1, 2, 3)
    ]
    return pd.DataFrame(rows)


def labelled(figure):
    """Every axes of ``figure`` that shows data, with its title and axis labels."""
    return [(ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) for ax in figure.axes]


def assert_titled(figure, path, metric):
    assert path.read_bytes().startswith(b"\x89PNG")
    title = figure._suptitle.get_text() if figure._suptitle is not None else figure.axes[0].get_title()
    assert title, "the figure has a title"
    for axes_title, xlabel, _ in labelled(figure):
        assert axes_title and xlabel
    ylabels = [ylabel for _, _, ylabel in labelled(figure) if ylabel]
    assert ylabels and all(metric in ylabel and "share of" in ylabel for ylabel in ylabels), ylabels


def test_systematicity_figure_names_its_metric_and_says_vp_has_no_semi_natural_items(tmp_path):
    figure = figures.systematicity_figure(systematicity_table(), SIZES, tmp_path / "s.png")
    assert_titled(figure, tmp_path / "s.png", "consistency")
    assert "Systematicity" in figure._suptitle.get_text()
    panels = {ax.get_title(): ax for ax in figure.axes}
    assert set(panels) == {"NP -> NP'", "VP -> VP'", "S1 -> S3"}
    assert "differ in one word" in panels["NP -> NP'"].get_ylabel()
    assert "S2" in panels["S1 -> S3"].get_ylabel()
    assert [t.get_text() for t in panels["VP -> VP'"].texts] == [figures.NO_SEMI_NATURAL_VP]
    assert not panels["NP -> NP'"].texts
    assert [ax.get_legend() is not None for ax in figure.axes] == [False, False, True], "one size legend"
    assert figure.axes[-1].get_legend().get_title().get_text() == "corpus size"
    assert [t.get_text() for t in panels["NP -> NP'"].get_xticklabels()] == ["synthetic", "semi-natural"]


def test_no_vp_note_without_semi_natural_data(tmp_path):
    table = systematicity_table()
    table = table[table["data_type"] == "synthetic"]
    figure = figures.systematicity_figure(table, SIZES, tmp_path / "s.png")
    assert all(not ax.texts for ax in figure.axes)


def test_substitutivity_figures_name_their_metrics(tmp_path):
    figure = figures.substitutivity_figure(substitutivity_table(), SIZES, tmp_path / "sub.png")
    assert_titled(figure, tmp_path / "sub.png", "consistency")
    assert "synonym" in figure.axes[1].get_ylabel()
    synonyms = figures.synonym_figure(substitutivity_table(), tmp_path / "syn.png")
    ax = synonyms.axes[0]
    assert ax.get_title() and "share of" in ax.get_xlabel() and ax.get_ylabel()


def test_overgeneralisation_figure_names_its_metric(tmp_path):
    figure = figures.overgeneralisation_figure(overgeneralisation_table(), SIZES, tmp_path / "o.png")
    assert_titled(figure, tmp_path / "o.png", "overgeneralisation")
    assert [ax.get_title() for ax in figure.axes] == ["synthetic", "natural"]
    assert all("epoch" in ax.get_xlabel() for ax in figure.axes)


# --------------------------------------------------------------------------------------
# pretrained systems beside the trained models

SYSTEMS = ["tiny-marian", "opus-mt-en-nl"]


def with_systems(table, checkpoint=None):
    """``table`` plus one model per pretrained system: the rows of the first trained model
    (size and seed empty; ``checkpoint`` the released model's, empty, where the table has one)."""
    first = table[(table["size"] == SIZES[0]) & (table["seed"] == 1)]
    if "checkpoint" in table.columns:
        first = first[first["checkpoint"] == first["checkpoint"].max()]
    systems = [first.assign(system=system, size="", seed=pd.NA) for system in SYSTEMS]
    if "checkpoint" in table.columns:
        systems = [frame.assign(checkpoint=pd.NA) for frame in systems]
    mixed = pd.concat([table, *systems], ignore_index=True)
    return mixed.astype({"seed": "Int64", **({"checkpoint": "Int64"} if "checkpoint" in table.columns else {})})


def legend_texts(ax):
    legend = ax.get_legend()
    return legend.get_title().get_text(), [text.get_text() for text in legend.get_texts()]


def test_consistency_figures_colour_pretrained_systems_after_the_sizes(tmp_path):
    figure = figures.systematicity_figure(
        with_systems(systematicity_table()), SIZES, tmp_path / "s.png", systems=SYSTEMS
    )
    assert_titled(figure, tmp_path / "s.png", "consistency")
    assert legend_texts(figure.axes[-1]) == (figures.MODEL_LEGEND, [*SIZES, *SYSTEMS])
    assert "per condition, data type and model" in figure._suptitle.get_text()
    figure = figures.substitutivity_figure(
        with_systems(substitutivity_table()), SIZES, tmp_path / "sub.png", systems=SYSTEMS
    )
    assert legend_texts(figure.axes[-1]) == (figures.MODEL_LEGEND, [*SIZES, *SYSTEMS])
    synonyms = figures.synonym_figure(with_systems(substitutivity_table()), tmp_path / "syn.png")
    assert "pretrained systems" in synonyms.axes[0].get_title()


def test_trained_models_only_keep_the_corpus_size_legend(tmp_path):
    figure = figures.substitutivity_figure(substitutivity_table(), SIZES, tmp_path / "sub.png")
    assert legend_texts(figure.axes[-1]) == (figures.SIZE_LEGEND, SIZES)


def test_a_pretrained_system_is_a_point_at_final_in_the_overgeneralisation_figure(tmp_path):
    table = with_systems(overgeneralisation_table())
    figure = figures.overgeneralisation_figure(table, SIZES, tmp_path / "o.png", systems=SYSTEMS)
    assert_titled(figure, tmp_path / "o.png", "overgeneralisation")
    for ax in figure.axes:
        ticks = [label.get_text() for label in ax.get_xticklabels()]
        assert ticks[-1] == figures.FINAL_TICK and "3" in ticks, ticks
        assert ax.get_xticks()[-1] > 3, "right of the last epoch"
        assert "epoch" in ax.get_xlabel() and "final" in ax.get_xlabel()
    title, entries = legend_texts(figure.axes[-1])
    assert (title, entries) == (figures.MODEL_LEGEND, [*SIZES, *SYSTEMS])
    # Every system is one marker per panel (its idioms' mean), not a line.
    lines = [line.get_label() for line in figure.axes[0].get_lines()]
    assert not set(SYSTEMS) & set(lines)


def test_overgeneralisation_figure_of_pretrained_systems_alone(tmp_path):
    table = with_systems(overgeneralisation_table())
    table = table[table["system"] != TRAINED_SYSTEM]
    figure = figures.overgeneralisation_figure(table, SIZES, tmp_path / "o.png", systems=SYSTEMS)
    assert (tmp_path / "o.png").read_bytes().startswith(b"\x89PNG")
    assert "pretrained systems" in figure._suptitle.get_text()
    assert [label.get_text() for label in figure.axes[0].get_xticklabels()] == [figures.FINAL_TICK]
    assert legend_texts(figure.axes[-1]) == (figures.MODEL_LEGEND, SYSTEMS)


def paper_bars(ax):
    """(x, y) of the paper's bars in a panel, left to right."""
    collections = [c for c in ax.collections if c.get_label() == figures.PAPER_LABEL]
    return sorted(tuple(round(float(v), 3) for v in point) for c in collections for point in c.get_offsets())


def test_the_papers_values_stand_beside_their_sizes(tmp_path):
    """Figure 1 with the paper's Table 4a: a black bar at each size's place (small left of
    full), only for the conditions and data types the paper reports, from the published file."""
    from natcomp.published import published_path, read_published

    paper = figures.paper_values(read_published(published_path("mt")), "systematicity_summary")
    assert paper[("synthetic", "np_prime", "small")] == 0.73 and paper[("natural", "s3", "full")] == 0.47
    figure = figures.systematicity_figure(systematicity_table(), SIZES, tmp_path / "s.png", paper=paper)
    panels = {ax.get_title(): ax for ax in figure.axes}
    # Two sizes dodge to -0.2 and +0.2 around each data type: synthetic at 0, semi-natural at 1.
    assert paper_bars(panels["NP -> NP'"]) == [(-0.2, 0.73), (0.2, 0.84), (0.8, 0.63), (1.2, 0.64)]
    assert paper_bars(panels["VP -> VP'"]) == [(-0.2, 0.76), (0.2, 0.88)]
    assert legend_texts(figure.axes[-1]) == ("corpus size", ["small", "full", figures.PAPER_LABEL])


def test_without_paper_values_no_bars(tmp_path):
    figure = figures.systematicity_figure(systematicity_table(), SIZES, tmp_path / "s.png")
    assert all(paper_bars(ax) == [] for ax in figure.axes)
