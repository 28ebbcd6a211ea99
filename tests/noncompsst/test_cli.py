"""``natcomp noncompsst candidates | ratings | evaluate`` and the demo's stages end to end."""

from __future__ import annotations

import pytest

from natcomp.cli import main
from natcomp.noncompsst.pipeline import (
    make_demo_release,
    planted_share,
    run_analysis,
    run_candidates,
    run_controls,
    run_export,
    run_ratings,
    run_sentiment,
    run_simulation,
    run_study1_filter,
)
from natcomp.noncompsst.candidates import CandidateSettings
from natcomp.noncompsst.ratings import read_ratings
from natcomp.tsv import read_tsv


def test_candidates_cli_on_real_trees_without_stanza(shared_data, tmp_path, capsys):
    out = tmp_path / "candidates.tsv"
    status = main(
        ["noncompsst", "candidates", str(shared_data / "sst" / "dev.txt"), "--no-parser", "--no-ner", "--out", str(out)]
    )
    assert status == 0
    table = read_tsv(out)
    assert list(table.columns) == ["phrase", "left", "right", "left_type", "right_type", "sentiment", "source"]
    assert table["source"].str.startswith("dev:").all()
    assert "spread filter is off" in capsys.readouterr().err


def test_candidates_cli_fails_clearly_without_stanza_models(shared_data, tmp_path, capsys):
    out = tmp_path / "candidates.tsv"
    status = main(
        [
            "noncompsst",
            "candidates",
            str(shared_data / "sst" / "dev.txt"),
            "--stanza-dir",
            str(tmp_path),
            "--out",
            str(out),
        ]
    )
    assert status == 2 and not out.exists()
    assert "stanza's English models are not in" in capsys.readouterr().err


def test_ratings_and_evaluate_cli(tmp_path, capsys):
    stimuli = tmp_path / "study2.tsv"
    stimuli.write_text(
        "phrase 1\tphrase 1 clean\tphrase 2\tphrase 2 clean\tside to be replaced\tSST replacement 1\tSST replacement 2\tSST replacement 3\n"
        + "".join(
            f"a{i} x\ta{i} x\tb{i} y\tb{i} y\t{side}\t{side}{i} one\t{side}{i} two\t{side}{i} thr+AC0-ee\n"
            for i in range(5)
            for side in ("left", "right")
        ),
        encoding="utf-8",
    )
    lines = ["stimulus\tsentiment"]
    for i in range(5):
        lines.append(f"a{i} x b{i} y\t{i}")
        lines += [f"left{i} {w} b{i} y\t3" for w in ("one", "two", "thr-ee")] + [
            f"a{i} x right{i} {w}\t2" for w in ("one", "two", "thr-ee")
        ]
    sentiment = tmp_path / "sent.tsv"
    sentiment.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "ratings.tsv"
    assert (
        main(["noncompsst", "ratings", "--stimuli", str(stimuli), "--sentiment", str(sentiment), "--out", str(out)])
        == 0
    )
    ratings = read_ratings(out)
    assert set(ratings["variant"]) == {"ALL", "ALLABS", "MAX", "MAXABS", "ALLCLEAN"}
    assert ratings[(ratings["variant"] == "MAXABS") & (ratings["phrase"] == "a0 x b0 y")][
        "rating"
    ].item() == pytest.approx(3)
    predictions = tmp_path / "P.tsv"
    predictions.write_text(
        "stimulus\tprediction\n" + "".join(line.replace("\t", "\t", 1) + "\n" for line in lines[1:]), encoding="utf-8"
    )
    assert (
        main(
            [
                "noncompsst",
                "evaluate",
                "--predictions",
                str(predictions),
                "--human",
                str(out),
                "--stimuli",
                str(stimuli),
                "--sentiment",
                str(sentiment),
                "--top-k",
                "2",
            ]
        )
        == 0
    )
    printed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines() if "\t" in line)
    assert float(printed["r_MAXABS"]) == pytest.approx(1.0) and float(printed["f1_top2"]) == pytest.approx(1.0)
    # a sentiment file missing a stimulus: error naming it, nothing written
    sentiment.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    out.unlink()
    assert (
        main(["noncompsst", "ratings", "--stimuli", str(stimuli), "--sentiment", str(sentiment), "--out", str(out)])
        == 2
    )
    assert (
        "sent.tsv: no sentiment for the stimulus 'a4 x right4 thr-ee'" in capsys.readouterr().err and not out.exists()
    )


def test_demo_stages_put_the_planted_phrases_on_top(tmp_path):
    """The demo's method, stage by stage on a small treebank: planted phrases lead MAXABS."""
    release = tmp_path / "releases"
    paths = make_demo_release(
        release,
        tmp_path / "planted.tsv",
        sentences=500,
        seed=1,
        planted_occurrences=2,
        short_share=0.6,
        raw_score_noise=1.5,
    )
    run_candidates(
        tmp_path / "candidates.tsv",
        ptb=paths["ptb"],
        sst=paths["sst"],
        raw=paths["raw"],
        settings=CandidateSettings(),
        phrase_types=paths["categories"],
        entities=paths["entities"],
    )
    run_controls(
        tmp_path / "candidates.tsv",
        paths["sst"],
        tmp_path / "sheet.tsv",
        tmp_path / "s1.tsv",
        n_candidates=32,
        per_side=4,
        max_phrases=None,
        seed=1,
    )
    folders = {}
    for study, stimuli in (("study1", tmp_path / "s1.tsv"), ("study2", tmp_path / "s2.tsv")):
        folder = tmp_path / study
        folders[study] = folder
        run_export(
            study,
            stimuli,
            paths["sst"],
            folder / "survey.csv",
            folder / "practice.tsv",
            max_list_size=94 if study == "study1" else 61,
            annotations=3,
            seed=1,
        )
        run_simulation(
            study,
            folder / "survey.csv",
            folder / "practice.tsv",
            folder / "responses.csv",
            seed=2,
            noise=(0.3, 0.8),
            failing_share=0.1,
            ungrammatical_rate=0.02,
        )
        alpha = run_analysis(
            study,
            folder / "survey.csv",
            folder / "practice.tsv",
            folder / "responses.csv",
            exclusion_out=folder / "exclusion.tsv",
            means_out=folder / "means.tsv",
            agreement_out=folder / "agreement.tsv",
            max_mean_error=1.0,
            min_spearman=0.8,
        )
        assert 0.5 < alpha < 1.0
        if study == "study1":
            run_study1_filter(
                stimuli, folder / "means.tsv", tmp_path / "s2.tsv", max_distance=1.0, min_within=4, keep=3
            )
    run_sentiment(folders["study2"] / "means.tsv", tmp_path / "sentiment.tsv", tmp_path / "ungrammatical.tsv")
    run_ratings(
        tmp_path / "s2.tsv",
        tmp_path / "sentiment.tsv",
        tmp_path / "ratings.tsv",
        ungrammatical_path=tmp_path / "ungrammatical.tsv",
    )
    share = planted_share(tmp_path / "ratings.tsv", tmp_path / "planted.tsv")
    assert share["planted_rated"] >= 2
    assert share["share_of_top_k"] >= 0.75


SPLIT_TREES = {
    "train": "(3 (2 (2 A) (2 film)) (3 (2 is) (3 (3 very) (3 good))))\n",
    "dev": "(1 (2 (2 The) (2 plot)) (1 (2 is) (1 (1 rather) (1 bad))))\n",
    "test": "(2 (2 (2 It) (2 is)) (2 (2 a) (2 film)))\n",
}


def _zip(path, members: dict[str, str]):
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_candidates_read_a_zip_without_its_suffix(tmp_path, capsys):
    """The workflow's own download (results/downloads/tre/sst_ptb) is the SST zip without '.zip':
    read as a zip by its content (before: a traceback, the zip read as one PTB file)."""
    download = _zip(tmp_path / "sst_ptb", {f"trees/{split}.txt": text for split, text in SPLIT_TREES.items()})
    suffixed = _zip(tmp_path / "sst_ptb.zip", {f"trees/{split}.txt": text for split, text in SPLIT_TREES.items()})
    tables = []
    for archive in (download, suffixed):
        out = tmp_path / f"{archive.name}.tsv"
        argv = ["noncompsst", "candidates", str(archive), "--no-parser", "--no-ner", "--quiet", "--out", str(out)]
        assert main([*argv, "--min-tokens", "1", "--max-tokens", "2"]) == 0, capsys.readouterr().err
        tables.append(read_tsv(out))
    assert len(tables[0]) > 0 and tables[0].equals(tables[1])
    assert {source.split(":")[0] for source in tables[0]["source"]} <= {"train", "dev", "test"}


def test_candidates_name_a_zip_that_is_not_the_sst_release(tmp_path, capsys):
    other = _zip(tmp_path / "sst_ptb", {"readme.txt": "not SST\n"})
    out = tmp_path / "c.tsv"
    argv = ["noncompsst", "candidates", str(other), "--no-parser", "--no-ner", "--quiet", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"natcomp: error: {other}: the archive has no member 'trees/train.txt'; expected the SST release layout\n"
    )
    assert not out.exists()
