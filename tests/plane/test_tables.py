"""The aggregation lines of Tables 4 and 5, on inputs where the variants give other numbers:
cells of one template x verbaliser pooled over their ITs (not one cell per IT, nor one per
template or verbaliser), unequal numbers of cells and items per class (so pooling differs
from averaging class means), two models, rows in no particular order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from natcomp.plane.tables import table4, table5

#: (template, verbaliser, class) -> [(it, gold, predicted)]; -1 is no verbaliser (wrong)
PROMPTING_CELLS = {
    # class I: F1 100, 66.7 (one of two missed), 0, 100
    ("internal", "GP", "I"): [("IT1", 1, 1), ("IT2", 1, 1)],
    ("internal", "TF", "I"): [("IT1", 1, 1), ("IT2", 1, -1)],
    ("external", "GP", "I"): [("IT1", 1, -1), ("IT2", 1, -1)],
    ("external", "TF", "I"): [("IT1", 1, 1), ("IT2", 1, 1)],
    # class S: 100, 33.3 (all "no"), 33.3 (all "yes"), 0
    ("internal", "GP", "S"): [("IT1", 1, 1), ("IT3", 0, 0)],
    ("internal", "TF", "S"): [("IT1", 1, 0), ("IT3", 0, 0)],
    ("external", "GP", "S"): [("IT1", 1, 1), ("IT3", 0, 1)],
    ("external", "TF", "S"): [("IT1", 1, -1), ("IT3", 0, -1)],
    # class O: two cells only (the external template), both 100
    ("external", "GP", "O"): [("IT1", 0, 0), ("IT3", 1, 1)],
    ("external", "TF", "O"): [("IT1", 0, 0), ("IT3", 1, 1)],
}
CELL_F1 = {"I": [100, 200 / 3, 0, 100], "S": [100, 100 / 3, 100 / 3, 0], "O": [100, 100]}


def prompting_predictions() -> pd.DataFrame:
    rows = [
        {"model": "m", "template": t, "verbaliser": v, "class": c, "it": it, "gold": gold, "predicted": predicted}
        for (t, v, c), items in PROMPTING_CELLS.items()
        for it, gold, predicted in items
    ]
    frame = pd.DataFrame(rows)
    # a second model that is always right: its cells must not mix with m's
    perfect = frame.assign(model="n", predicted=frame["gold"])
    return pd.concat([perfect, frame.iloc[::-1]], ignore_index=True)


def test_table4_cells_are_template_x_verbaliser_pooled_over_the_its():
    table = table4(prompting_predictions()).set_index(["model", "class"])
    for cls, cells in CELL_F1.items():
        assert table.loc[("m", cls), "f1_mean"] == pytest.approx(np.mean(cells)), cls
        assert table.loc[("m", cls), "f1_sd"] == pytest.approx(np.std(cells, ddof=1)), cls
        assert table.loc[("m", cls), "cells"] == len(cells)
    # one cell per IT would give I a mean of 62.5, one per template 76.2
    assert table.loc[("m", "I"), "f1_mean"] == pytest.approx(100 * 2 / 3)
    assert list(table.loc["n", "f1_mean"]) == [100.0] * 4 and list(table.loc["n", "cells"]) == [4, 4, 2, 10]


def test_table4_average_pools_every_cell():
    """Average: mean and sample sd over all template x verbaliser x class cells (10 here),
    not the mean of the three class means (69.4) or of their sds."""
    table = table4(prompting_predictions()).set_index(["model", "class"])
    every_cell = [f1 for cells in CELL_F1.values() for f1 in cells]
    average = table.loc[("m", "Average")]
    assert average["f1_mean"] == pytest.approx(np.mean(every_cell)) == pytest.approx(63.3333, abs=1e-3)
    assert average["f1_sd"] == pytest.approx(np.std(every_cell, ddof=1))
    assert average["cells"] == 10


def nli_predictions() -> pd.DataFrame:
    """m: I 2 items (F1 100), S 4 items (F1 50), O 6 items all answered "no" (F1 53.3)."""
    rows = [
        *[("I", "IT1", 1, 1), ("I", "IT2", 1, 1)],
        *[("S", "IT1", 1, 1), ("S", "IT2", 1, 0), ("S", "IT3", 0, 0), ("S", "IT3", 0, 1)],
        *[("O", it, gold, 0) for it, gold in [("IT1", 0), ("IT1", 0), ("IT2", 0), ("IT2", 0), ("IT3", 1), ("IT3", 1)]],
    ]
    frame = pd.DataFrame(rows, columns=["class", "it", "gold", "predicted"]).assign(model="m")
    perfect = frame.assign(model="n", predicted=frame["gold"])
    return pd.concat([frame.iloc[::-1], perfect], ignore_index=True)


def test_table5_f1_per_class_over_its_items_and_the_average_of_the_classes():
    table = table5(nli_predictions())
    assert list(table["model"]) == ["m"] * 4 + ["n"] * 4
    assert list(table["class"]) == ["I", "S", "O", "Average"] * 2
    m = table[table["model"] == "m"].set_index("class")
    # S pooled over its ITs: 50 (the mean of its per-IT F1s would be 55.6)
    assert list(m["f1"][:3]) == pytest.approx([100.0, 50.0, 100 * 8 / 15])
    assert list(m["items"]) == [2, 4, 6, 12]
    # Average: the mean of the class F1s, as the paper's rows (Liu et al.: (17.1 + 24.1 + 57.4) / 3
    # = 32.8); pooling all 12 items would give 65.7, weighting the classes by items 60.0
    assert m.loc["Average", "f1"] == pytest.approx((100 + 50 + 100 * 8 / 15) / 3)
    n = table[table["model"] == "n"]
    assert list(n["f1"]) == [100.0] * 4


def test_chance_f1_is_the_best_constant_answer_on_the_same_gold_labels():
    from natcomp.plane.scoring import chance_f1, f1

    # two "no" and one "yes": always "no" scores 2/3 * 80 = 53.3; always "yes" 1/3 * 50 = 16.7
    assert chance_f1([1, 0, 0]) == pytest.approx(100 * 8 / 15) == pytest.approx(f1([1, 0, 0], [0, 0, 0]))
    assert chance_f1([1, 1, 1]) == 100.0, "one label: the constant answer is right on every item"
    assert chance_f1([0, 1]) == pytest.approx(100 / 3)
    assert np.isnan(chance_f1([]))


def test_table4_and_table5_carry_the_chance_f1_of_their_items():
    m = table5(nli_predictions()).set_index(["model", "class"]).loc["m"]
    # I all "yes": 100; S two of each: 33.3; O four "no", two "yes": 53.3 (what m's all-"no" got)
    assert list(m["chance_f1"][:3]) == pytest.approx([100.0, 100 / 3, 100 * 8 / 15])
    assert m.loc["Average", "chance_f1"] == pytest.approx((100 + 100 / 3 + 100 * 8 / 15) / 3)
    prompting = table4(prompting_predictions()).set_index(["model", "class"])
    assert list(prompting.loc["m", "chance_f1"][:3]) == pytest.approx([100.0, 100 / 3, 100 / 3])
    # Average: the mean over the 10 cells as f1_mean is (60.0), not over the class means (55.6)
    assert prompting.loc[("m", "Average"), "chance_f1"] == pytest.approx(60.0)
