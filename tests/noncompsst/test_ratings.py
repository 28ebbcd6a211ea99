"""Stimuli files, UTF-7 repair and the five rating variants (section 3.3)."""

from __future__ import annotations

import math

import pytest

from natcomp.errors import InputError
from natcomp.noncompsst.ratings import (
    compute_ratings,
    read_ratings,
    read_sentiment,
    read_ungrammatical,
    released_sentiment,
)
from natcomp.noncompsst.stimuli import Phrase, clean_form, decode_utf7, read_flat_stimuli, read_stimuli, write_stimuli

HEADER = "phrase 1\tphrase 1 clean\tphrase 2\tphrase 2 clean\tside to be replaced\tSST replacement 1\tSST replacement 2\tSST replacement 3\n"


def phrase() -> Phrase:
    return Phrase("the plot", "the plot", "is thin", "is thin", ("a1", "a2", "a3"), ("b1", "b2", "b3"), 2)


def sentiment(natural=1.0, left=(3.0, 3.0, 3.0), right=(1.0, 2.0, 0.0)) -> dict[str, float]:
    p = phrase()
    values = {p.natural: natural}
    values.update(zip(p.control_stimuli("left"), left))
    values.update(zip(p.control_stimuli("right"), right))
    return values


def test_decode_utf7_repairs_the_released_damage_only():
    assert decode_utf7("a no+AC0-surprise series") == "a no-surprise series"
    assert decode_utf7("flourishes +AC0ALQ- artsy") == "flourishes -- artsy"
    assert decode_utf7("maxabs+AF8-rating") == "maxabs_rating"
    assert decode_utf7("1 + 1 = 2") == "1 + 1 = 2"


def test_clean_form_detokenises_like_the_released_files():
    assert clean_form("her son 's discovery") == "her son's discovery"
    assert clean_form(["it", "does", "n't", "work", ","]) == "it doesn't work,"
    assert clean_form("The movie -LRB- sadly -RRB-") == "the movie (sadly)"


def test_all_variants_by_hand():
    table = compute_ratings([phrase()], sentiment())
    get = {(r.variant, r.side): r.rating for r in table.itertuples()}
    assert get[("ALL", "left")] == pytest.approx(1.0 - 3.0)
    assert get[("ALL", "right")] == pytest.approx(1.0 - 1.0)
    assert get[("ALLABS", "left")] == pytest.approx(2.0)
    assert get[("MAX", "max")] == pytest.approx(-2.0)
    assert get[("MAXABS", "max")] == pytest.approx(2.0)
    assert get[("ALLCLEAN", "left")] == pytest.approx(-2.0)
    assert list(table.columns) == ["phrase", "variant", "side", "rating"]


def _get(table):
    return {(r.variant, r.side): r.rating for r in table.itertuples()}


def test_max_keeps_the_sign_of_the_larger_side():
    assert _get(compute_ratings([phrase()], sentiment(5.0, (3.0,) * 3, (2.0,) * 3)))[("MAX", "max")] == pytest.approx(
        3.0
    )
    assert _get(compute_ratings([phrase()], sentiment(3.0, (2.0,) * 3, (4.0,) * 3)))[("MAX", "max")] == pytest.approx(
        -1.0
    )


@pytest.mark.parametrize(("left", "right", "expected"), [((2.0,) * 3, (4.0,) * 3, -1.0), ((4.0,) * 3, (2.0,) * 3, 1.0)])
def test_max_on_a_tie_of_absolute_values_takes_the_right_side_as_the_released_code(left, right, expected):
    """create_ranking.py: ``diff1 if abs(diff1) > abs(diff2) else diff2`` (diff1 = left): a tie gives the right."""
    table = _get(compute_ratings([phrase()], sentiment(3.0, left, right)))
    assert table[("ALL", "left")] == pytest.approx(-expected)
    assert table[("MAX", "max")] == pytest.approx(expected)
    assert table[("MAXABS", "max")] == pytest.approx(1.0)


def test_control_means_are_means_not_medians():
    """Skewed controls 0, 0, 3: mean 1 (median would be 0)."""
    table = _get(compute_ratings([phrase()], sentiment(4.0, (0.0, 0.0, 3.0), (4.0, 4.0, 4.0))))
    assert table[("ALL", "left")] == pytest.approx(3.0)
    assert table[("ALL", "right")] == pytest.approx(0.0)


def test_allclean_drops_flagged_stimuli_and_phrases():
    p = phrase()
    flagged = {p.control_stimuli("left")[0]}
    table = compute_ratings([p], sentiment(1.0, (5.0, 3.0, 3.0)), flagged)
    clean = table[table["variant"] == "ALLCLEAN"].set_index("side")["rating"]
    assert clean["left"] == pytest.approx(1.0 - 3.0)
    assert compute_ratings([p], sentiment(), {p.natural})["variant"].eq("ALLCLEAN").sum() == 0
    assert compute_ratings([p], sentiment(), set(p.control_stimuli("right")))["variant"].eq("ALLCLEAN").sum() == 0


def test_a_missing_stimulus_names_the_sentiment_file_and_the_stimuli_line():
    values = sentiment()
    del values[phrase().control_stimuli("right")[1]]
    with pytest.raises(
        InputError, match=r"SENT.tsv: no sentiment for the stimulus 'the plot b2' \(the phrase of S.tsv, line 2\)"
    ):
        compute_ratings([phrase()], values, sentiment_source="SENT.tsv", stimuli_source="S.tsv")


def test_stimuli_round_trip_and_pairing_errors(tmp_path):
    path = tmp_path / "stimuli.tsv"
    write_stimuli(path, [phrase()])
    back = read_stimuli(path)
    assert back[0].stimuli() == phrase().stimuli()
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        HEADER + "a b c\ta b c\td e f\td e f\tleft\tx\ty\tz\na b c\ta b c\tOTHER\tother\tright\tx\ty\tz\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="line 3.*does not pair up"):
        read_stimuli(bad)
    bad.write_text(HEADER + "a b c\ta b c\td e f\td e f\tright\tx\ty\tz\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2.*without the 'left' row"):
        read_stimuli(bad)
    bad.write_text(HEADER + "a b c\ta b c\td e f\td e f\tleft\tx\ty\tz\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2.*no 'right' row"):
        read_stimuli(bad)


def test_sentiment_file_checks(tmp_path):
    path = tmp_path / "sent.tsv"
    path.write_text("stimulus\tsentiment\na\t3.5\nb\t7\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3.*0-6"):
        read_sentiment(path)
    path.write_text("stimulus\tsentiment\na\t3.5\na\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3.*twice"):
        read_sentiment(path)


def test_released_files_read_with_the_family_readers(shared_data):
    folder = shared_data / "noncompsst"
    study2, study1 = read_stimuli(folder / "stimuli_study2.tsv"), read_stimuli(folder / "stimuli_study1.tsv")
    assert len(study2) == 259 and len(study1) == 500
    assert [s for p in study2 for s in p.stimuli()] == read_flat_stimuli(folder / "stimuli_flat.txt")
    released = read_ratings(folder / "maxabs_ranking.tsv")
    assert len(released) == 259 and set(released["phrase"]) == {p.natural for p in study2}
    assert released["rating"].min() == pytest.approx(0.11) and released["rating"].max() == pytest.approx(4.11)
    assert len(read_ungrammatical(folder / "ungrammaticality.tsv")) == 109
    assert len(released_sentiment(folder / "maxabs_ranking.tsv")) == 259
    # Study 2's controls are a subset of Study 1's
    by_phrase = {p.natural: p for p in study1}
    assert all(set(p.left_controls) <= set(by_phrase[p.natural].left_controls) for p in study2)


def test_ratings_of_released_stimuli_reproduce_maxabs_from_consistent_sentiments(shared_data):
    """With every control rated like the natural phrase except a planted shift, MAXABS equals the shift."""
    study2 = read_stimuli(shared_data / "noncompsst" / "stimuli_study2.tsv")
    values = {}
    for i, p in enumerate(study2):
        values[p.natural] = 3.0 + (i % 3)
        for s in p.control_stimuli("left") + p.control_stimuli("right"):
            values.setdefault(s, 3.0)
    table = compute_ratings(study2, values, variants=("MAXABS",))
    assert len(table) == 259
    assert all(math.isclose(r, i % 3) for i, r in enumerate(table["rating"]))


def test_human_sentiment_from_study_means_or_the_released_ranking(tmp_path):
    from natcomp.noncompsst.ratings import read_human_sentiment

    means = tmp_path / "sentiment.tsv"
    means.write_text("stimulus\tsentiment\nthe plot is thin\t1.5\n", encoding="utf-8")
    released = tmp_path / "maxabs_ranking.tsv"
    released.write_text(
        "phrase\tmaxabs+AF8-rating\tsentiment\na no+AC0-surprise series\t2.22\t0.67\n", encoding="utf-8"
    )
    assert read_human_sentiment(means) == {"the plot is thin": 1.5}
    assert read_human_sentiment(released) == {"a no-surprise series": 0.67}
    other = tmp_path / "other.tsv"
    other.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match="other.tsv, line 1: expected the columns"):
        read_human_sentiment(other)
