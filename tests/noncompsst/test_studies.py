"""The studies: lists, export, responses, exclusion, agreement, the Study 1 filter."""

from __future__ import annotations

import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.noncompsst.annotation import (
    exclude_participants,
    item_means,
    ordinal_alpha,
    stimulus_sentiment,
    study1_filter,
)
from natcomp.noncompsst.practice import practice_check
from natcomp.noncompsst.stimuli import Phrase
from natcomp.noncompsst.studies import (
    Study,
    choose_practice_items,
    export_survey,
    make_lists,
    read_responses,
    read_survey,
    simulate_responses,
    study1,
    study2,
    write_responses,
)

PRACTICE = {f"practice-{k + 1}": (f"practice phrase {k}", k) for k in range(7)}


def phrases(n: int = 10) -> list[Phrase]:
    return [
        Phrase(
            f"a{i} x",
            f"a{i} x",
            f"b{i} y",
            f"b{i} y",
            tuple(f"c{i}{k} l" for k in range(4)),
            tuple(f"d{i}{k} r" for k in range(4)),
            i + 2,
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(("items", "size", "expected"), [(1813, 61, {60, 61}), (1777, 94, {93, 94}), (10, 94, {10})])
def test_lists_have_the_paper_sizes_and_no_repeats(items, size, expected):
    ids = [f"i{k}" for k in range(items)]
    lists = make_lists(ids, size, annotations=3, seed=1)
    assert {len(x) for x in lists} == expected
    assert all(len(set(x)) == len(x) for x in lists)
    counts = pd.Series([i for x in lists for i in x]).value_counts()
    assert (counts == 3).all() and len(counts) == items


def test_paper_study2_gives_ninety_lists():
    assert len(make_lists([f"i{k}" for k in range(1813)], 61)) == 90


def test_study_items_and_survey_round_trip(tmp_path):
    s1 = study1(phrases(), PRACTICE, max_list_size=20)
    assert len(s1.items) == 10 * 10
    s2 = study2(phrases(), PRACTICE, max_list_size=20)
    assert len(s2.items) == 10 * 9  # natural + 4 + 4 per phrase here (Study 2 normally has 3 per side)
    assert ("a0 x b0 y", "a0 x", "b0 y") in s2.items.values()
    path = tmp_path / "survey.csv"
    export_survey(s2, path)
    back = read_survey(path, {k: v[1] for k, v in PRACTICE.items()}, "study2")
    assert back.items == s2.items and back.lists == s2.lists and back.practice == PRACTICE


def study_and_truth():
    study = study2(phrases(20), PRACTICE, max_list_size=30)
    truth = {text: ((i * 7) % 10) / 10 for i, (text, _, _) in enumerate(study.items.values())}
    truth.update({text: (label + 0.5) / 7 for text, label in PRACTICE.values()})
    return study, truth.__getitem__


def test_simulated_failing_participants_are_excluded_and_replaced():
    study, truth = study_and_truth()
    responses = simulate_responses(study, truth, seed=4, failing_share=0.3)
    exclusion = exclude_participants(responses, study)
    assert exclusion["excluded"].any()
    kept = exclusion[~exclusion["excluded"]]
    assert sorted(kept["list"]) == list(range(1, len(study.lists) + 1))  # each list answered by one kept participant
    alpha = ordinal_alpha(responses, exclusion, study)
    assert 0.5 < alpha < 1.0
    means = item_means(responses, exclusion, study)
    assert (means["annotations"] == 3).all()
    sentiment, flagged = stimulus_sentiment(means)
    assert len(sentiment) == len(study.items)


def test_exclusion_rules_by_hand():
    study = Study("s", {"x": ("x", "x", "")}, PRACTICE, [["x"]])
    rows = []
    answers = {
        "good": [0, 1, 2, 3, 4, 5, 6],
        "off": [2, 3, 4, 5, 6, 6, 6],
        "flat": [3] * 7,
        "shuffled": [1, 0, 3, 2, 5, 4, 6],
    }
    for participant, given in answers.items():
        rows += [
            {"participant": participant, "list": 1, "item": f"practice-{k + 1}", "rating": r, "ungrammatical": False}
            for k, r in enumerate(given)
        ]
    table = exclude_participants(pd.DataFrame(rows), study).set_index("participant")
    assert not table.loc["good", "excluded"]
    assert table.loc["off", "excluded"] and "points off" in table.loc["off", "reason"]  # mean error 9/7 > 1
    assert table.loc["flat", "excluded"] and "undefined" in table.loc["flat", "reason"]
    assert not table.loc["shuffled", "excluded"]  # error 6/7, Spearman 0.89


def test_alpha_matches_perfect_and_chance_agreement():
    study = Study("s", {f"i{k}": (f"t{k}", "", "") for k in range(30)}, PRACTICE, [[f"i{k}" for k in range(30)]])
    same = [
        {"participant": p, "list": 1, "item": f"i{k}", "rating": k % 7, "ungrammatical": False}
        for p in "abc"
        for k in range(30)
    ]
    exclusion = pd.DataFrame({"participant": list("abc"), "excluded": [False] * 3})
    assert ordinal_alpha(pd.DataFrame(same), exclusion, study) == pytest.approx(1.0)


def test_responses_are_checked(tmp_path):
    study, truth = study_and_truth()
    path = tmp_path / "responses.csv"
    write_responses(path, simulate_responses(study, truth, seed=1, failing_share=0.0))
    assert len(read_responses(path, study)) > 0
    lines = path.read_text().splitlines()
    first_item = study.lists[0][0]
    cases = {
        "unknown item": lines[:2] + ["study2-p0001,1,NOPE,3,0"],
        "rating 0-6": lines[:2] + [f"study2-p0001,1,{study.lists[0][1]},7,0"],
        "unknown list": lines[:2] + [f"study2-p0001,99,{first_item},3,0"],
        "answers list 2 but earlier list 1": lines[:2] + [f"study2-p0001,2,{study.lists[1][0]},3,0"],
    }
    for message, content in cases.items():
        path.write_text("\n".join(content) + "\n")
        with pytest.raises(InputError, match=f"line 3.*{message}"):
            read_responses(path, study)
    path.write_text("\n".join(lines[:2]) + "\n")
    with pytest.raises(InputError, match="line 2: unknown participant"):
        read_responses(path, study, roster={"someone-else"})


def test_study1_filter_keeps_phrases_with_enough_close_controls():
    p = phrases(1)[0]
    means = {p.left_clean: 3.0, p.right_clean: 5.0}
    means.update(zip(p.left_controls, (3.0, 3.5, 2.2, 3.9)))
    means.update(zip(p.right_controls, (5.0, 4.1, 6.0, 4.5)))
    [kept] = study1_filter([p], means)
    assert kept.left_controls == (p.left_controls[0], p.left_controls[1], p.left_controls[2])
    assert kept.right_controls == (p.right_controls[0], p.right_controls[3], p.right_controls[1])
    means[p.right_controls[2]] = 6.5
    assert study1_filter([p], means) == []
    assert len(study1_filter([p], means, min_within=3)) == 1


def test_practice_items_cover_every_label():
    values = {f"phrase number {k}": k / 20 for k in range(21)}
    practice = choose_practice_items(values, seed=1)
    assert sorted(label for _, label in practice.values()) == list(range(7))
    with pytest.raises(ValueError, match="SST-7 label"):
        choose_practice_items({"only one phrase": 0.5})


def _practice_rows(answers: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"participant": participant, "list": 1, "item": f"practice-{k + 1}", "rating": r, "ungrammatical": False}
            for participant, given in answers.items()
            for k, r in enumerate(given)
        ]
    )


def test_a_mean_practice_error_of_exactly_one_is_kept_and_errors_count_both_ways():
    study = Study("s", {"x": ("x", "x", "")}, PRACTICE, [["x"]])
    answers = {
        "exactly_one": [1, 2, 3, 4, 5, 6, 5],  # |errors| all 1: mean 1.0, Spearman 0.94
        "both_ways": [1, 0, 3, 1, 5, 3, 6],  # errors +1 -1 +1 -2 +1 -2 0: mean |error| 8/7, signed -2/7; Spearman 0.80
    }
    table = exclude_participants(_practice_rows(answers), study).set_index("participant")
    assert table.loc["exactly_one", "practice_mean_error"] == pytest.approx(1.0)
    assert not table.loc["exactly_one", "excluded"]
    assert table.loc["both_ways", "practice_mean_error"] == pytest.approx(8 / 7)
    assert table.loc["both_ways", "practice_spearman"] >= 0.8
    assert table.loc["both_ways", "excluded"] and "points off" in table.loc["both_ways", "reason"]


def test_a_practice_spearman_of_exactly_the_minimum_is_kept():
    """Only a rho *below* 0.8 excludes: answers 1, 0, 2, 4, 3 to labels 0-4 have rho = 1 - 6 * 4 / 120
    = 0.8 exactly (0.7999999999999999 in floating point) and mean error 0.8; 2, 0, 1, 3, 4: rho 0.7."""
    error, rho, reasons = practice_check([1, 0, 2, 4, 3], [0, 1, 2, 3, 4])
    assert rho == pytest.approx(0.8) and error == pytest.approx(0.8)
    assert reasons == []
    error, rho, reasons = practice_check([2, 0, 1, 3, 4], [0, 1, 2, 3, 4])
    assert rho == pytest.approx(0.7) and error <= 1
    assert reasons == ["practice Spearman 0.70 < 0.8"]


def test_alpha_is_ordinal_by_hand():
    """Two coders, items (0, 0), (1, 2), (2, 2): value counts n0=2, n1=1, n2=3 (n=6);
    ordinal distances d01 = (3 - 1.5)^2, d12 = (4 - 2)^2, d02 = (6 - 2.5)^2; observed
    D_o = 2 * 4 / 6, expected D_e = 2 * (2 * 2.25 + 6 * 12.25 + 3 * 4) / 30 = 6, so alpha =
    1 - (8/6)/6 = 7/9 (interval: 0.828, nominal: 0.545)."""
    study = Study("s", {f"i{k}": (f"t{k}", "", "") for k in range(3)}, PRACTICE, [["i0", "i1", "i2"]])
    given = {"a": [0, 1, 2], "b": [0, 2, 2]}
    rows = [
        {"participant": p, "list": 1, "item": f"i{k}", "rating": r, "ungrammatical": False}
        for p, ratings in given.items()
        for k, r in enumerate(ratings)
    ]
    exclusion = pd.DataFrame({"participant": ["a", "b"], "excluded": [False, False]})
    assert ordinal_alpha(pd.DataFrame(rows), exclusion, study) == pytest.approx(7 / 9)


def test_the_family_modules_import_no_circle():
    """No module of natcomp.noncompsst imports, directly or through others, itself (imports
    inside functions count: annotation <-> studies was such a circle)."""
    import ast
    from pathlib import Path

    import natcomp.noncompsst as package

    folder = Path(package.__file__).parent
    graph = {}
    for path in folder.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            imported |= {n.split(".")[2] for n in names if n.startswith("natcomp.noncompsst.")}
        graph[path.stem] = imported & {p.stem for p in folder.glob("*.py")}

    def reaches(start, goal, seen):
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert "studies" in graph["annotation"] and "practice" in graph["studies"]  # the graph is read
    assert sorted(m for m in graph if reaches(m, m, {m})) == []


def test_study2_practices_subphrases_then_subphrase_combinations_with_the_answers(tmp_path):
    """Appendix B: Study 2 practises the seven labels on subphrases, then on subphrase
    combinations; the correct answers are shown (the survey's answer column)."""
    import csv

    from natcomp.noncompsst.studies import choose_combination_practice

    values = {}
    for label in range(7):
        v = (label + 0.5) / 7
        values[f"w{label} x{label}"] = v
        values[f"y{label} z{label}"] = v
        values[f"w{label} x{label} y{label} z{label}"] = v
        values[f"q{label} r{label} s{label} t{label}"] = v  # its parts are not SST phrases
    combos = choose_combination_practice(values, seed=3)
    assert [c[1] for c in combos.values()] == list(range(7))
    assert combos["practice-c1"] == ("w0 x0 y0 z0", 0, "w0 x0", "y0 z0")
    s2 = study2(phrases(), PRACTICE, max_list_size=20, combination_practice=combos)
    path = tmp_path / "survey.csv"
    export_survey(s2, path)
    with open(path, encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["list"] == "1"]
    practice = [r for r in rows if r["kind"] == "practice"]
    assert [r["item"] for r in practice] == [*PRACTICE, *combos]
    assert rows[: len(practice)] == practice  # practice first
    assert all(r["right"] == "" for r in practice[:7]) and all(r["right"] for r in practice[7:])
    assert practice[7]["left"] == "w0 x0" and practice[7]["right"] == "y0 z0"
    assert [int(r["answer"]) for r in practice] == [*range(7), *range(7)]
    assert all(r["answer"] == "" for r in rows if r["kind"] == "stimulus")
    back = read_survey(path, name="study2")  # the answers come from the file
    assert back.practice == s2.practice and back.practice_parts == s2.practice_parts
    s1 = study1(phrases(), PRACTICE, max_list_size=20)
    assert len(s1.practice) == 7 and not s1.practice_parts
    with pytest.raises(ValueError, match="SST-7 label"):
        choose_combination_practice({k: v for k, v in values.items() if not k.startswith("w6")})
