"""``natcomp compare`` with item outcomes: paired tests of two runs per row, the board of
more runs (checked in a real headless Chromium), and the bad inputs: runs on other configs,
a run without item outcomes (an older profile), a single run. The runs here are written
from generated outcomes with planted differences (fast); real profiles go through the same
command in tests/test_profile_workflow.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from natcomp.cli import main
from natcomp.paired import OUTCOME_COLUMNS, Outcomes, value
from natcomp.profile.board import compact_letters, ranks
from natcomp.profile.table import PROFILE_COLUMNS
from natcomp.tsv import read_tsv, write_tsv

N = 200
HIGHER, LOWER = "higher is more compositional", "lower is more compositional"


def write_run(root: Path, name: str, rows: list[dict], *, items_prefix: str = "item", outcomes: bool = True) -> Path:
    """A run folder with ``results/profile.tsv`` and ``results/item_outcomes.tsv`` made from
    ``rows`` (family, measure, setting, unit, direction, statistic, values, gold): each row's
    value is the statistic of its outcomes."""
    results = root / name / "results"
    profile, long = [], []
    for row in rows:
        values = np.asarray(row["values"], dtype=float)
        items = tuple(f"{items_prefix}{i}" for i in range(values.size))
        gold = row.get("gold")
        outcomes_of_row = Outcomes(row["statistic"], "", items, ("",), values[None], ("all",) * values.size, gold=gold)
        cells = {column: "" for column in PROFILE_COLUMNS}
        cells.update(
            model=name, family=row["family"], measure=row["measure"], setting=row["setting"], unit=row["unit"],
            direction=row["direction"], scale="demo", n=1, value=value(outcomes_of_row),
        )  # fmt: skip
        profile.append(cells)
        for index, item in enumerate(items):
            long.append(
                {
                    "model": name, "family": row["family"], "measure": row["measure"], "setting": row["setting"],
                    "statistic": row["statistic"], "seed_kind": "", "seed": "", "stratum": "all", "item": item,
                    "outcome": values[index], "gold": "" if gold is None else gold[index], "covariate": "",
                }
            )  # fmt: skip
    write_tsv(results / "profile.tsv", pd.DataFrame(profile), list(PROFILE_COLUMNS), float_format="%.6g")
    if outcomes:
        write_tsv(results / "item_outcomes.tsv", pd.DataFrame(long), list(OUTCOME_COLUMNS), float_format="%.6g")
    return root / name


def rows_of(rng, *, gain: float = 0.0, gold=None, truth=None) -> list[dict]:
    """Three rows: a share where ``gain`` of the items are planted right, one with nothing
    planted, and a TRE-like correlation (lower is more compositional) tied to ``truth``."""
    base = np.random.default_rng(0)
    share = (base.random(N) < 0.5).astype(float)
    if gain:
        share[rng.random(N) < gain] = 1.0
    other = (base.random(N) < 0.6).astype(float)
    noise = rng.normal(size=N) * (0.5 if gain else 2.0)
    return [
        {"family": "pss", "measure": "PSS", "setting": "linear FB", "unit": "%", "direction": HIGHER,
         "statistic": "percent", "values": share},
        {"family": "pss", "measure": "PSS", "setting": "dnn FB", "unit": "%", "direction": HIGHER,
         "statistic": "percent", "values": other},
        {"family": "tre", "measure": "Spearman rho of TRE with WNS", "setting": "paper", "unit": "rho",
         "direction": LOWER, "statistic": "spearman", "values": -truth + noise, "gold": truth},
    ]  # fmt: skip


@pytest.fixture
def runs(tmp_path) -> dict[str, Path]:
    rng = np.random.default_rng(1)
    truth = np.random.default_rng(2).normal(size=N)
    return {
        "weak": write_run(tmp_path, "weak", rows_of(rng, truth=truth)),
        "strong": write_run(tmp_path, "strong", rows_of(rng, gain=0.3, truth=truth)),
        "middle": write_run(tmp_path, "middle", rows_of(rng, gain=0.1, truth=truth)),
    }


def compare(*args, capsys) -> tuple[int, str]:
    status = main(["compare", *map(str, args)])
    return status, capsys.readouterr().err


def test_two_runs_get_a_paired_test_per_row_with_holm_and_a_verdict_in_the_rows_direction(runs, tmp_path, capsys):
    status, err = compare(runs["weak"], runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    table = read_tsv(tmp_path / "c.tsv")
    assert list(table.columns[-8:]) == [
        "difference (strong - weak)", "ci_low", "ci_high", "items", "test", "p_value", "p_holm", "verdict",
    ]  # fmt: skip
    by_setting = table.set_index("setting")
    planted = by_setting.loc["linear FB"]
    assert float(planted["difference (strong - weak)"]) > 10 and planted["verdict"] == "strong more compositional"
    assert planted["test"].startswith("exact McNemar") and planted["items"] == str(N)
    assert float(planted["ci_low"]) > 0 and float(planted["p_holm"]) >= float(planted["p_value"])
    same = by_setting.loc["dnn FB"]
    assert float(same["difference (strong - weak)"]) == 0 and same["verdict"] == "no difference detected"
    # TRE: a more negative rho is more compositional, and strong's rho is the more negative
    rho = by_setting.loc["paper"]
    assert float(rho["difference (strong - weak)"]) < 0 and rho["verdict"] == "strong more compositional"
    assert rho["test"].startswith("paired bootstrap over items")
    assert "pss PSS linear FB: strong more compositional" in err and "2 of 3 tested rows differ" in err
    # Holm: the smallest p times the rows tested, then never below the one before
    p = table["p_value"].astype(float).sort_values()
    assert float(table.loc[p.index[0], "p_holm"]) == pytest.approx(min(1.0, 3 * p.iloc[0]))


def test_a_run_compared_with_a_copy_of_itself_gives_zero_and_no_difference(runs, tmp_path, capsys):
    copy = tmp_path / "copy"
    for name in ("profile.tsv", "item_outcomes.tsv"):
        frame = read_tsv(runs["middle"] / "results" / name).assign(model="copy")
        write_tsv(copy / "results" / name, frame)
    status, err = compare(runs["middle"], copy, "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    table = read_tsv(tmp_path / "c.tsv")
    assert (table["difference (copy - middle)"].astype(float) == 0).all()
    assert (table["p_value"].astype(float) == 1).all() and set(table["verdict"]) == {"no difference detected"}


def test_runs_on_other_items_say_so_instead_of_a_p_value(runs, tmp_path, capsys):
    """A run of another config (its items' ids differ): every row says why, no p-value."""
    rng = np.random.default_rng(3)
    other = write_run(tmp_path, "paper-scale", rows_of(rng, truth=rng.normal(size=N)), items_prefix="paper")
    status, err = compare(runs["weak"], other, "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    table = read_tsv(tmp_path / "c.tsv")
    assert (table["p_value"] == "").all() and (table["verdict"] == "").all()
    assert (
        table["test"]
        .str.startswith("not compared: items differ: weak has 200, paper-scale 200, 0 shared (another config or scale)")
        .all()
    )
    assert (table["weak [demo]"] != "").all(), "the values still stand side by side"


def test_a_run_without_item_outcomes_compares_on_the_old_columns_and_says_why_the_new_are_empty(runs, tmp_path, capsys):
    rng = np.random.default_rng(4)
    old = write_run(tmp_path, "old", rows_of(rng, truth=rng.normal(size=N)), outcomes=False)
    status, err = compare(runs["weak"], old, "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    table = read_tsv(tmp_path / "c.tsv")
    assert {"old [demo]", "old sd", "old n", "weak [demo]"} <= set(table.columns)
    assert (table["old [demo]"] != "").all() and (table["p_value"] == "").all()
    expected = f"not compared: no item outcomes in {old / 'results' / 'item_outcomes.tsv'} (a profile written before"
    assert table["test"].str.startswith(expected).all()
    assert "re-run 'natcomp evaluate'" in table["test"].iloc[0]
    assert f"no item outcomes in {old / 'results' / 'item_outcomes.tsv'}" in err


def test_a_single_run_is_refused_in_one_line(runs, tmp_path, capsys):
    status, err = compare(runs["weak"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"natcomp: error: RUN: got one run ({runs['weak']}); expected two or more to compare")
    assert not (tmp_path / "c.tsv").exists()


def test_ranks_follow_the_rows_direction_and_ties_share_the_better_rank():
    values = {"a": 0.1, "b": -0.4, "c": 0.1}
    assert ranks(values, LOWER) == {"b": 1, "a": 2, "c": 2}
    assert ranks(values, HIGHER) == {"a": 1, "c": 1, "b": 3}


def test_models_a_test_cannot_tell_apart_share_a_letter():
    order = ["a", "b", "c", "d"]
    assert compact_letters(order, set()) == {"a": "a", "b": "a", "c": "a", "d": "a"}
    # a differs from c and d; b from d: {a, b}, {b, c}, {c, d}
    different = {frozenset("ac"), frozenset("ad"), frozenset("bd")}
    assert compact_letters(order, different) == {"a": "a", "b": "ab", "c": "bc", "d": "c"}
    everything = {frozenset(pair) for pair in ("ab", "ac", "ad", "bc", "bd", "cd")}
    assert compact_letters(order, everything) == {"a": "a", "b": "b", "c": "c", "d": "d"}


def test_three_runs_get_a_board_that_renders_sorts_and_groups_in_a_headless_browser(runs, tmp_path, capsys, chromium):
    from browser import Browser

    board = tmp_path / "out" / "board.html"
    status, err = compare(
        runs["weak"], runs["middle"], runs["strong"], "-o", tmp_path / "out" / "c.tsv", "--resamples", "400",
        capsys=capsys,
    )  # fmt: skip
    assert status == 0, err
    page = board.read_text()
    assert "http://" not in page and "https://" not in page and "<script src" not in page and "<link" not in page
    with Browser(chromium, tmp_path / "chromium") as browser:
        browser.open(board)
        assert browser.evaluate("document.title") == "Compositionality board: 3 models"
        models = "[...document.querySelectorAll('#board tbody tr')].map(row => row.dataset.model)"
        assert browser.evaluate(models) == ["weak", "middle", "strong"]
        header = "[...document.querySelectorAll('#board thead th')].map(th => th.textContent)"
        assert browser.evaluate(header)[:3] == ["model", "PSS", "TRE"]
        # the figures are decoded images (data URIs), one per family
        assert browser.evaluate("[...document.images].map(image => image.naturalWidth > 0)") == [True, True]
        png = browser.screenshot()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
        # PSS linear FB (column 0): strong first, weak last; a second click reverses
        browser.click('th[data-column="0"]')
        assert browser.evaluate(models) == ["strong", "middle", "weak"]
        assert browser.evaluate("document.querySelector('th[data-column=\"0\"]').dataset.order") == "asc"
        browser.click('th[data-column="0"]')
        assert browser.evaluate(models) == ["weak", "middle", "strong"]
        # by name
        browser.click('th[data-column="model"]')
        assert browser.evaluate(models) == ["middle", "strong", "weak"]
        cell = 'document.querySelector(\'tr[data-model="strong"] td[data-column="0"]\').textContent'
        assert "#1" in browser.evaluate(cell)
        assert browser.errors() == []
    data = browser_data(page)
    pss = data["columns"][0]
    assert pss["setting"] == "linear FB" and pss["ranks"] == {"strong": 1, "middle": 2, "weak": 3}
    assert pss["groups"]["strong"] != pss["groups"]["weak"], "a planted 30% gain is told apart"
    assert set(data["columns"][1]["groups"].values()) == {"a"}, "identical outcomes: one group"


def browser_data(page: str) -> dict:
    import html
    import json

    start = page.index('id="board-data">') + len('id="board-data">')
    return json.loads(html.unescape(page[start : page.index("</script>", start)]))


def test_a_row_without_item_outcomes_in_a_newer_profile_says_why(runs, tmp_path, capsys):
    """A profile whose family tables predate item outcomes has an item_outcomes.tsv without
    that family's rows: those rows say so, the others are tested."""
    path = runs["strong"] / "results" / "item_outcomes.tsv"
    outcomes = read_tsv(path)
    write_tsv(path, outcomes[outcomes["family"] != "tre"])
    status, err = compare(runs["weak"], runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    table = read_tsv(tmp_path / "c.tsv").set_index("family")
    assert table.loc["tre", "test"].startswith("not compared: strong has no item outcomes for this row (its family's")
    assert table.loc["tre", "p_value"] == "" and (table.loc["pss", "p_value"] != "").all()


def write_record(run: Path, **record) -> None:
    """The run record natcomp evaluate writes beside a profile (natcomp_profile.yaml)."""
    import yaml

    base = {"scale": "demo", "base": "config/config.yaml", "families": ["pss", "tre"], "dtype": "auto"}
    (run / "natcomp_profile.yaml").write_text(yaml.safe_dump({**base, **record}), encoding="utf-8")


def test_compare_says_which_settings_differ_in_the_headers_the_figure_and_the_terminal(runs, tmp_path, capsys):
    write_record(runs["weak"], dtype="fp32", fine_tuning={"pss": "full"})
    write_record(runs["strong"], dtype="bf16", fine_tuning={"pss": "LoRA r=8"})
    status, err = compare(runs["weak"], runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    header = (tmp_path / "c.tsv").read_text().splitlines()[0].split("\t")
    assert "weak [demo; dtype fp32; fine-tuning full]" in header
    assert "strong [demo; dtype bf16; fine-tuning LoRA r=8]" in header
    note = next(line for line in err.splitlines() if "differ in" in line)
    assert "dtype (weak: fp32, strong: bf16); fine-tuning (weak: full, strong: LoRA r=8)" in note
    assert "same scale demo, base config config/config.yaml" in note and "target language" not in note


def test_compare_of_runs_with_the_same_settings_says_none_differ(runs, tmp_path, capsys):
    for name in ("weak", "strong"):
        write_record(runs[name], families=["mt", "pss"], target_lang="de")
    status, err = compare(runs["weak"], runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    assert "The runs differ in none of scale, base config, dtype" in err
    assert "target language de" in err, "what the runs share is named"
    assert "weak [demo]" in (tmp_path / "c.tsv").read_text().splitlines()[0].split("\t")


def test_a_profile_without_its_run_folder_has_unknown_settings_and_compare_says_so(runs, tmp_path, capsys):
    write_record(runs["strong"], dtype="bf16")
    bare = tmp_path / "bare.tsv"  # a profile.tsv copied out of its run folder: no record beside it
    bare.write_text((runs["weak"] / "results" / "profile.tsv").read_text())
    status, err = compare(bare, runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 0, err
    header = (tmp_path / "c.tsv").read_text().splitlines()[0].split("\t")
    assert header[5] == "weak [demo; settings unknown (no natcomp_profile.yaml)]" and "strong [demo]" in header
    assert "The runs differ in none of scale" in err, "the scale comes from the profile's rows"
    assert "Settings unknown for weak (no natcomp_profile.yaml beside the profile)" in err


def test_run_settings_reads_each_setting_from_the_record_and_the_config():
    from natcomp.profile.compare import UNKNOWN, run_settings

    record = {
        "scale": "paper", "base": "config/paper.yaml", "families": ["mt", "plane"], "dtype": "auto",
        "checkpoint_dtype": "bf16", "fine_tuning": {"plane": "LoRA r=16", "mt": "full"},
        "chat_template": {"plane": True, "mt": False}, "served": {"server": "vLLM", "api_base": "http://h:8000/v1"},
    }  # fmt: skip
    settings = run_settings(record, {"mt": {"target_lang": "de"}})
    assert settings == {
        "scale": "paper", "base config": "config/paper.yaml", "dtype": "auto (checkpoint bf16)",
        "fine-tuning": "plane LoRA r=16, mt full", "chat template": "plane on, mt off",
        "target language": "de", "served": "by vLLM at http://h:8000/v1",
    }  # fmt: skip
    # no MT family: no target language, whatever the config says; no record: unknown
    assert run_settings({**record, "families": ["plane"]}, {"mt": {"target_lang": "de"}})["target language"] == "-"
    assert set(run_settings(None, None).values()) == {UNKNOWN}


def test_a_run_record_that_is_not_yaml_is_refused_in_one_line(runs, tmp_path, capsys):
    (runs["strong"] / "natcomp_profile.yaml").write_text("scale: [demo\n")
    status, err = compare(runs["weak"], runs["strong"], "-o", tmp_path / "c.tsv", capsys=capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "natcomp_profile.yaml" in err and "not valid YAML" in err
    assert not (tmp_path / "c.tsv").exists()
