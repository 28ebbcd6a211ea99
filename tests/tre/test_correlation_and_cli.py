"""Spearman table, scatter figure and the ``natcomp tre`` commands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from natcomp.cli import main
from natcomp.tre.correlation import correlate, scatter_figure
from natcomp.tsv import read_tsv

SST = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "sst"


def test_correlate_sign_p_value_and_constant_column():
    tre = [0.1, 0.2, 0.3, 0.4, 0.5]
    rows = correlate("enc", tre, {"wns": [5, 4, 3, 2, 1], "ti": [1, 1, 1, 1, 1]})
    assert rows[0]["spearman_rho"] == pytest.approx(-1.0)
    assert rows[0]["p_value"] < 0.05
    assert rows[0]["mean_tre"] == pytest.approx(0.3)
    assert np.isnan(rows[1]["spearman_rho"])  # a constant score has no rank correlation


def test_correlate_is_spearman_not_pearson():
    # monotone but far from linear: ranks agree perfectly, Pearson's r would be about 0.73
    tre = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    (row,) = correlate("enc", tre, {"wns": [1.0, 2.0, 3.0, 4.0, 5.0, 1000.0]})
    assert row["spearman_rho"] == pytest.approx(1.0)


def test_mean_tre_is_the_mean_not_the_median():
    # skewed errors: mean 2.08, median 0.1
    (row,) = correlate("enc", [0.1, 0.1, 0.1, 0.1, 10.0], {"wns": [1.0, 2.0, 3.0, 4.0, 5.0]})
    assert row["mean_tre"] == pytest.approx(2.08)


def test_scatter_figure_is_a_png(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"tre": ["0.1", "0.3", "0.2"], "wns": ["1", "2", "3"]})
    scatter_figure({"a": frame, "b": frame}, tmp_path / "fig.png")
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


TREES = "(3 (3 Cool) (2 ?))\n(2 (2 Nothing) (2 (2 is) (2 black)))\n(4 (2 (2 A) (2 film)) (4 (4 great) (2 .)))\n"


def test_scores_command(tmp_path, capsys):
    trees = tmp_path / "dev.txt"
    trees.write_text(TREES, encoding="utf-8")
    assert main(["tre", "scores", "--trees", str(trees), "--out", str(tmp_path / "scores.tsv")]) == 0
    table = read_tsv(tmp_path / "scores.tsv", ("split", "index", "sentence", "ti", "wns"))
    assert table["sentence"].tolist() == ["Cool ?", "Nothing is black", "A film great ."]
    assert float(table["wns"][0]) == pytest.approx(2.5)
    assert set(table["split"]) == {"dev"}  # the workflow's split name, not the file name dev.txt


def test_fit_command_reports_spearman(tmp_path, capsys):
    trees = tmp_path / "dev.txt"
    trees.write_text(TREES, encoding="utf-8")
    np.save(tmp_path / "emb.npy", np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32))
    out = tmp_path / "tre.tsv"
    status = main(
        [
            "tre",
            "fit",
            "--trees",
            str(trees),
            "--embeddings",
            str(tmp_path / "emb.npy"),
            "--out",
            str(out),
            "--steps",
            "5",
        ]
    )
    assert status == 0
    assert "Spearman(TRE, WNS)" in capsys.readouterr().out
    assert len(read_tsv(out, ("tre",))) == 3


def test_fit_command_refuses_misaligned_embeddings(tmp_path, capsys):
    trees = tmp_path / "dev.txt"
    trees.write_text(TREES, encoding="utf-8")
    np.save(tmp_path / "emb.npy", np.zeros((2, 4), dtype=np.float32))
    status = main(
        [
            "tre",
            "fit",
            "--trees",
            str(trees),
            "--embeddings",
            str(tmp_path / "emb.npy"),
            "--out",
            str(tmp_path / "x.tsv"),
        ]
    )
    assert status == 2
    assert "emb.npy" in capsys.readouterr().err and not (tmp_path / "x.tsv").exists()


def test_scores_command_names_the_bad_line(tmp_path, capsys):
    trees = tmp_path / "dev.txt"
    trees.write_text("(3 (3 Cool) (2 ?))\n(3 (3 Cool) (5 ?))\n", encoding="utf-8")
    assert main(["tre", "scores", "--trees", str(trees), "--out", str(tmp_path / "s.tsv")]) == 2
    error = capsys.readouterr().err
    assert "dev.txt" in error and "line 2" in error and "0-4" in error


def test_scores_command_on_an_empty_file_says_what_it_expected(tmp_path, capsys):
    trees = tmp_path / "mytrees.txt"
    trees.write_text("", encoding="utf-8")
    assert main(["tre", "scores", "--trees", str(trees), "--out", str(tmp_path / "s.tsv")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith("mytrees.txt: no trees; expected SST PTB trees, one a line (as dev.txt of the release)")
    assert "split" not in error and not (tmp_path / "s.tsv").exists()


@pytest.mark.skipif(not (SST / "dev.txt").exists(), reason=f"real SST trees not found at {SST}")
def test_scores_command_on_real_sst_dev(tmp_path):
    assert main(["tre", "scores", "--trees", str(SST / "dev.txt"), "--out", str(tmp_path / "dev.tsv")]) == 0
    table = read_tsv(tmp_path / "dev.tsv", ("wns",))
    assert len(table) == 1101
