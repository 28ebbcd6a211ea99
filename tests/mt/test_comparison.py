"""natcomp.mt.comparison: the item outcomes behind the MT summaries, the paired comparisons
between corpus sizes and systems (is full more systematic than small?), and BLEU's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from natcomp.mt import tables as mt
from natcomp.mt.comparison import bleu_comparison, group_comparison, group_outcomes, item_outcomes
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.paired import Outcomes, value
from natcomp.tsv import write_tsv

TEMPLATES = 4
PER_TEMPLATE = 40


def scores(labels_by_model: dict[tuple, np.ndarray], condition: str = "np_prime") -> pd.DataFrame:
    """np_vp scores as natcomp.mt.tables.read_scores returns them: per model (system, size,
    seed) one label per item, items numbered across templates of unequal sizes."""
    rows = []
    for (system, size, seed), labels in labels_by_model.items():
        for index, label in enumerate(labels):
            template = 1 + min(index // PER_TEMPLATE, TEMPLATES - 1)
            rows.append(
                {
                    "system": system, "size": size, "seed": seed, "checkpoint": "best" if seed else "final",
                    "test": "np_vp", "data_type": "synthetic", "decode_signature": "sig", "item": str(index),
                    "template": template, "condition": condition, "source_a": f"the dog {index} .",
                    "source_b": f"the cat {index} .", "consistent": label,
                }
            )  # fmt: skip
    frame = pd.DataFrame(rows)
    frame["seed"] = pd.array([seed if seed != "" else pd.NA for seed in frame["seed"]], dtype="Int64")
    frame["consistent"] = pd.to_numeric(frame["consistent"])
    return frame


def labels(rng, share: float, n: int = TEMPLATES * PER_TEMPLATE + 25) -> np.ndarray:
    return (rng.random(n) < share).astype(float)


def test_a_sizes_item_outcomes_give_the_summarys_value():
    """The outcomes of a size over its seeds, averaged as the summary averages (templates of
    unequal sizes, an unscored item left out, a template no item of which seed 2 scored: the
    mean over templates of the seeds' means, not the mean over seeds of the templates'),
    give the systematicity summary's number."""
    rng = np.random.default_rng(1)
    small = {(TRAINED_SYSTEM, "small", seed): labels(rng, 0.2 + 0.25 * seed) for seed in (1, 2, 3)}
    small[(TRAINED_SYSTEM, "small", 2)][PER_TEMPLATE + 5] = np.nan
    small[(TRAINED_SYSTEM, "small", 2)][:PER_TEMPLATE] = np.nan
    frame = scores(small)
    summary = mt.systematicity_summary(mt.systematicity_table(frame, ["small"]), ["small"])
    outcomes = item_outcomes({"systematicity": frame})
    assert set(outcomes["metric"]) == {"consistency"} and set(outcomes["seed"]) == {"1", "2", "3"}
    assert outcomes["stratum"].nunique() == TEMPLATES and outcomes["item"].str.contains("#").all()
    row = Outcomes.from_frame(group_outcomes(outcomes, "small", "training seed"))
    assert value(row) == pytest.approx(100 * summary["small"].iloc[0])


def test_a_planted_gain_of_the_larger_corpus_is_found_and_equal_sizes_are_not_told_apart():
    rng = np.random.default_rng(2)
    models = {}
    for seed in (1, 2, 3, 4, 5):
        base = labels(rng, 0.5)
        gained = base.copy()
        gained[rng.random(base.size) < 0.3] = 1.0  # full: 30% of the items made consistent
        models[(TRAINED_SYSTEM, "small", seed)] = base
        models[(TRAINED_SYSTEM, "medium", seed)] = labels(rng, 0.5)
        models[(TRAINED_SYSTEM, "full", seed)] = gained
    models[("tiny-marian", "", "")] = labels(rng, 0.5)
    groups = ["small", "medium", "full", "tiny-marian"]
    outcomes = item_outcomes({"systematicity": scores(models)})
    table = group_comparison(outcomes, groups, resamples=500)
    pairs = {(row.a, row.b): row for row in table.itertuples(index=False)}
    assert list(pairs) == [
        ("small", "medium"), ("small", "full"), ("small", "tiny-marian"), ("medium", "full"),
        ("medium", "tiny-marian"), ("full", "tiny-marian"),
    ]  # fmt: skip
    full = pairs[("small", "full")]
    assert full.measure == "systematicity consistency" and full.condition == "np_prime"
    assert full.difference > 10 and full.ci_low > 0 and full.verdict == "full more compositional"
    assert full.test.startswith("paired bootstrap over items and seeds") and full.p_holm >= full.p_value
    assert pairs[("small", "medium")].verdict == "no difference detected"
    # a system (one model) beside a size over seeds: the size's seeds are its own
    assert pairs[("full", "tiny-marian")].verdict == "full more compositional"
    assert pairs[("small", "tiny-marian")].verdict == "no difference detected"
    # the summary's table: the pairs of corpus sizes only, Holm over those three
    sizes = [("small", "medium"), ("small", "full"), ("medium", "full")]
    table = group_comparison(outcomes, groups, pairs=sizes, resamples=500)
    assert list(zip(table["a"], table["b"])) == sizes
    smallest = table["p_value"].idxmin()
    assert table.loc[smallest, "p_holm"] == pytest.approx(min(1.0, 3 * table.loc[smallest, "p_value"]))


def test_overgeneralisation_outcomes_are_a_pretrained_systems_final_model_only():
    rows = []
    for system, size, seed, checkpoint in (("trained", "small", 1, "epoch2"), ("tiny-marian", "", pd.NA, "final")):
        for index in range(4):
            rows.append(
                {
                    "system": system, "size": size, "seed": seed, "checkpoint": checkpoint,
                    "test": "overgeneralisation", "data_type": "synthetic", "item": str(index), "template": 1,
                    "idiom": "by heart", "source": f"I know it by heart {index} .", "overgeneralised": index % 2,
                }
            )  # fmt: skip
    frame = pd.DataFrame(rows).astype({"seed": "Int64"})
    outcomes = item_outcomes({"overgeneralisation": frame})
    assert set(outcomes["system"]) == {"tiny-marian"} and set(outcomes["stratum"]) == {"by heart"}
    assert outcomes["outcome"].tolist() == [0, 1, 0, 1] and set(outcomes["seed"]) == {""}


def test_bleu_of_sizes_and_systems_by_sacrebleus_paired_bootstrap(tmp_path):
    rng = np.random.default_rng(3)
    words = "de kat zit op de mat en de hond slaapt in het huis met een boek".split()
    sources = [f"source {i} ." for i in range(60)]
    references = [" ".join(rng.choice(words, 8)) for _ in sources]
    (tmp_path / "src").write_text("\n".join(sources) + "\n")
    (tmp_path / "ref").write_text("\n".join(references) + "\n")

    def translations(name: str, good: float) -> str:
        keep = rng.random(len(sources)) < good
        text = [ref if ok else " ".join(rng.choice(words, 8)) for ref, ok in zip(references, keep)]
        path = tmp_path / f"{name}.tsv"
        write_tsv(path, pd.DataFrame({"set": "flores_dev", "source": sources, "translation": text}))
        return str(path)

    groups = {
        "small": [translations("small1", 0.1), translations("small2", 0.1)],
        "full": [translations("full1", 0.7), translations("full2", 0.7)],
        "tiny-marian": [translations("marian", 0.1)],
    }
    table = bleu_comparison(groups, {"dev": (tmp_path / "src", tmp_path / "ref")}, "nl", resamples=200)
    pairs = {(row.a, row.b): row for row in table.itertuples(index=False)}
    full = pairs[("small", "full")]
    assert full.sentences == 120 and full.difference > 20 and full.verdict == "full better"
    assert full.test.startswith("sacrebleu paired bootstrap") and full.ci_low > 0
    assert pairs[("small", "tiny-marian")].test.startswith("not compared: BLEU pairs groups of as many models")
    assert np.isnan(pairs[("small", "tiny-marian")].p_value)
