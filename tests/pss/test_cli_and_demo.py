"""``natcomp pss clean|score`` and the demo's Yelp-layout data."""

from __future__ import annotations

from pathlib import Path

import pytest

from natcomp.pss import clean_pairs, read_pairs
from natcomp.cli import main
from natcomp.pss.demo import YELP_FILES, generate_demo_yelp, write_demo_yelp
from natcomp.sst_demo import compose_polarity
from natcomp.tsv import read_tsv

YELP = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "yelp"


@pytest.mark.skipif(not (YELP / "reference.0").exists(), reason=f"real Yelp references not found at {YELP}")
def test_clean_command_on_real_references(tmp_path, capsys):
    out = tmp_path / "kept.0"
    assert main(["pss", "clean", "--pairs", str(YELP / "reference.0"), "--out", str(out)]) == 0
    assert "500 pairs; identical: 0 removed, deletion_only: 18 removed; 482 kept" in capsys.readouterr().err
    assert len(read_pairs(out)) == 482


def test_clean_command_bad_input_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "pairs"
    bad.write_text("good .\tBad.\nmissing tab\n", encoding="utf-8")
    assert main(["pss", "clean", "--pairs", str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert f"{bad}, line 2" in error and "tab" in error
    assert not (tmp_path / "out").exists()


def test_score_command(tmp_path, capsys):
    (tmp_path / "reference.0").write_text("bad food .\tGood food.\nawful .\tGreat.\n", encoding="utf-8")
    (tmp_path / "reference.1").write_text("nice .\tRude.\n", encoding="utf-8")
    predictions = tmp_path / "predictions.tsv"
    predictions.write_text(
        "sentence\tprediction\nbad food .\t0\nGood food.\t1\nawful .\t0\nGreat.\t0\nnice .\t1\nRude.\t0\n",
        encoding="utf-8",
    )
    out = tmp_path / "pss.tsv"
    argv = [
        "pss",
        "score",
        "--pairs",
        str(tmp_path / "reference.0"),
        "0",
        "--pairs",
        str(tmp_path / "reference.1"),
        "1",
    ]
    assert main(argv + ["--predictions", str(predictions), "--accuracy", "80", "--out", str(out)]) == 0
    assert "PSS 66.6667 over 3 pairs, relative PSS 83.3333" in capsys.readouterr().out
    row = read_tsv(out, ("pss", "relative_pss")).iloc[0]
    assert (row["pss"], row["relative_pss"]) == ("66.6667", "83.3333")
    assert main([*argv, "--predictions", str(predictions), "--accuracy", "100"]) == 0  # the largest accuracy
    assert "relative PSS 66.6667" in capsys.readouterr().out
    for refused in ("100.5", "0", "-3"):
        assert main([*argv, "--predictions", str(predictions), "--accuracy", refused]) == 2
        assert "--accuracy" in capsys.readouterr().err
    # a fraction for a percent (0.8 for 80) is a unit mistake, not a relative PSS of 8333
    for fraction in ("0.8", "1"):
        assert main([*argv, "--predictions", str(predictions), "--accuracy", fraction]) == 2
        error = capsys.readouterr().err
        assert "--accuracy" in error and "looks like a fraction" in error and "80 for 80 %" in error
    assert main([*argv, "--predictions", str(predictions), "--accuracy", "1.5"]) == 0, "just above 1 is a percent"
    assert main(["pss", "score", "--pairs", str(tmp_path / "reference.0"), "2", "--predictions", str(predictions)]) == 2
    assert "expected 0 (negative) or 1 (positive)" in capsys.readouterr().err


def test_demo_data_is_deterministic_labelled_by_the_lexicon_and_needs_cleaning(tmp_path):
    first = generate_demo_yelp(train_per_label=50, dev_per_label=10, test_per_label=40, seed=3)
    second = generate_demo_yelp(train_per_label=50, dev_per_label=10, test_per_label=40, seed=3)
    assert first.sentences == second.sentences and first.pairs == second.pairs
    for (split, label), sentences in first.sentences.items():
        for sentence in sentences:
            polarity = compose_polarity(sentence.split())
            assert (polarity > 0) == bool(label) and polarity != 0
    all_sentences = [s for sentences in first.sentences.values() for s in sentences]
    assert len(set(all_sentences)) == len(all_sentences)  # no sentence in two splits
    counts = clean_pairs(first.pairs[0] + first.pairs[1]).counts
    assert counts["identical"] > 0 and counts["deletion_only"] > 0 and counts["kept"] > 50
    # kept rewrites mostly switch polarity under the lexicon's rules
    kept = clean_pairs(first.pairs[1]).kept
    switched = sum(compose_polarity(pair.rewrite.lower().rstrip(".").split()) < 0 for pair in kept)
    assert switched / len(kept) > 0.8
    written = write_demo_yelp(first, tmp_path)
    assert sorted(written) == sorted(YELP_FILES)
    assert len(read_pairs(written["reference.0"])) == 40
