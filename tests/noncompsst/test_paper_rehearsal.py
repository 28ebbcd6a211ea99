"""Paper mode rehearsed on the real release (``../shared/data``): the functions the paper-mode
rules call (``workflow/scripts/noncompsst/*.py``), in the order of the DAG, on the real
files in the layouts a paper run downloads them in.

``../shared/data`` has the SST trees and the NonCompSST release, not
``stanfordSentimentTreebank.zip``: the SST-7 step gets a stand-in archive in the real
layout whose dictionary holds every tree node with the centre of its SST-5 bin as value
(so the sentences are real and the labels are not checked). stanza is not here: the
candidates run with the parser and NER off. The model is a tiny BERT with the released
code's head, fine-tuned for two seeds on a slice of the SST-7 files just written, so the
evaluation and report steps read real predictions files.
"""

from __future__ import annotations

import json
import math
import zipfile

import pandas as pd
import pytest

from natcomp import hf
from natcomp.noncompsst import pipeline
from natcomp.noncompsst.candidates import CandidateSettings
from natcomp.noncompsst.evaluation import write_predictions
from natcomp.noncompsst.models import train_and_predict
from natcomp.noncompsst.sst7 import read_sst7
from natcomp.noncompsst.stimuli import StimulusTokenizer, read_stimuli
from natcomp.sst import PTB_MEMBERS, ptb_tokens_to_text, read_ptb_trees, sentiment_nodes
from natcomp.tsv import read_tsv


def _ptb_zip(shared, path):
    with zipfile.ZipFile(path, "w") as archive:
        for split, member in PTB_MEMBERS.items():
            archive.write(shared / "sst" / f"{split}.txt", member)
    return path


def _stand_in_sst_zip(shared, path):
    """dictionary.txt + sentiment_labels.txt in the release layout, values = SST-5 bin centres."""
    ids: dict[str, int] = {}
    values: dict[int, float] = {}
    for split in PTB_MEMBERS:
        for tree in read_ptb_trees(shared / "sst" / f"{split}.txt"):
            tokens, nodes = sentiment_nodes(tree)
            for node in nodes:
                text = ptb_tokens_to_text(tokens[node.start : node.end])
                if text not in ids:
                    ids[text] = len(ids)
                    values[ids[text]] = 0.2 * int(node.label) + 0.1
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("stanfordSentimentTreebank/dictionary.txt", "".join(f"{t}|{i}\n" for t, i in ids.items()))
        labels = "".join(f"{i}|{v:.5f}\n" for i, v in values.items())
        archive.writestr("stanfordSentimentTreebank/sentiment_labels.txt", "phrase ids|sentiment values\n" + labels)
    return path


def test_paper_mode_steps_run_in_order_on_the_real_release(shared_data, tmp_path):
    import torch

    torch.set_num_threads(1)
    released = shared_data / "noncompsst"
    ptb = _ptb_zip(shared_data, tmp_path / "trainDevTestTrees_PTB.zip")
    sst = _stand_in_sst_zip(shared_data, tmp_path / "stanfordSentimentTreebank.zip")

    # noncompsst_candidates (parser, NER and spread filter off: no stanza, no raw scores here)
    counts = pipeline.run_candidates(
        tmp_path / "candidates.tsv",
        ptb=ptb,
        sst=sst,
        raw=None,
        settings=CandidateSettings(parser=False, ner=False, max_raw_sd=None),
    )
    candidates = read_tsv(tmp_path / "candidates.tsv")
    assert counts["nodes"] == 442_629 and len(candidates) > 10_000
    stimuli_path = released / "stimuli_study2.tsv"  # the released stimuli (download "stimuli")
    phrases = read_stimuli(stimuli_path)
    found = set(candidates["phrase"].str.lower())
    assert sum(f"{p.left} {p.right}".lower() in found for p in phrases) == 258

    # noncompsst_ratings, released mode
    ratings_path = tmp_path / "ratings.tsv"
    table = pipeline.run_released_ratings(released / "maxabs_ranking.tsv", ratings_path)
    assert len(table) == 259 and set(table["variant"]) == {"MAXABS"}

    # noncompsst_sst7 with sst7.evaluation_splits released (downloads sst7_validation, sst7_test)
    outs = {name: tmp_path / "sst7" / f"{name}.tsv" for name in ("train", "validation", "test")}
    released_splits = {name: released / "sst7" / f"{name}.tsv" for name in ("validation", "test")}
    rows = pipeline.run_sst7(ptb, sst, stimuli_path, outs, released_splits)
    assert (rows["validation"], rows["test"]) == (971, 1975)
    for name, path in released_splits.items():
        assert read_sst7(outs[name]) == read_sst7(path)
    assert rows["train"] > 100_000

    # noncompsst_train: train_and_predict on a slice of the real SST-7 files (a tiny BERT
    # with the released head, two seeds; the paper's models need a GPU and the hub)
    stimuli = list(dict.fromkeys(s for p in phrases for s in p.stimuli()))
    data = {name: read_sst7(path) for name, path in outs.items()}
    by_label: dict[int, list] = {}
    for text, label in data["train"]:
        if len(by_label.setdefault(label, [])) < 60 and len(text.split()) > 3:
            by_label[label].append((text, label))
    balanced = [row for rows in by_label.values() for row in rows]
    sample = {"train": balanced, "validation": data["validation"][:200], "test": data["test"][:300]}
    # the stimuli as run_training feeds them: tokenised like SST-7, lower case (no stanza here)
    model_texts = [StimulusTokenizer(None)(s) for s in stimuli]
    texts = [t for rows in sample.values() for t, _ in rows] + model_texts
    tiny = hf.build_tiny_model(tmp_path / "tiny", hf.words_for_vocabulary(texts), hidden_size=16, layers=1, heads=2)
    predictions, metrics = [], []
    for seed in (1, 2):
        settings = pipeline.fine_tune_settings(
            {"epochs": 6, "batch_size": 16, "learning_rate": 3e-3, "max_length": 48, "device": "cpu"}, seed
        )
        result = train_and_predict(str(tiny), sample, model_texts, settings)
        path = tmp_path / "models" / "tiny" / f"seed{seed}" / "predictions.tsv"
        write_predictions(
            path, ({"stimulus": s, "prediction": p, "seed": seed} for s, p in zip(stimuli, result.stimulus_predictions))
        )
        metric = path.with_name("metrics.json")
        metric.write_text(json.dumps({"sst7_test_macro_f1": result.test_f1}), encoding="utf-8")
        predictions.append(path)
        metrics.append(metric)

    # noncompsst_evaluate (released mode: the human sentiment is maxabs_ranking.tsv's column)
    evaluation = tmp_path / "evaluation" / "tiny.tsv"
    row = pipeline.run_evaluation(
        "tiny",
        predictions,
        metrics,
        stimuli_path,
        ratings_path,
        evaluation,
        sentiment_path=released / "maxabs_ranking.tsv",
        top_k=67,
        f1_seeds="per_seed",
    )
    assert row["n_MAXABS"] == 259 and not math.isnan(row["r_MAXABS"])
    assert math.isnan(row["r_ALL"]) and math.isnan(row["r_MAX"])
    assert 0 <= row["f1_all"] <= 1 and 0 <= row["f1_top67"] <= 1 and not math.isnan(row["f1_all_sd"])
    assert 0 < row["sst7_f1"] < 1 and not math.isnan(row["sst7_f1_sd"])

    # noncompsst_report
    out = tmp_path / "tables"
    pipeline.run_report(
        evaluations=[evaluation],
        ratings_path=ratings_path,
        stimuli_path=stimuli_path,
        top_k=67,
        models_out=out / "models.tsv",
        top_out=out / "top_phrases.tsv",
        figure_out=out / "maxabs_by_composition.png",
        sentiment_path=released / "maxabs_ranking.tsv",
        sst=sst,
        predictions=predictions,
        top_n=60,
        sentiment_model="tiny",
        length_figure_out=out / "ratings_by_length.png",
        category_figure_out=out / "ratings_by_category.png",
        candidates_path=tmp_path / "candidates.tsv",
    )
    for figure in ("ratings_by_length.png", "ratings_by_category.png"):  # the latter says: no phrase types
        assert (out / figure).read_bytes()[:4] == b"\x89PNG"
    top = pd.read_csv(out / "top_phrases.tsv", sep="\t")
    assert len(top) == 60 and "maxabs_rating" in top and "max_rating" not in top
    assert top["human_sentiment"].notna().all() and top["model_sentiment"].notna().all()
    assert set(top["model"]) == {"tiny"} and top["maxabs_rating"].iloc[0] == pytest.approx(4.11)
    models = pd.read_csv(out / "models.tsv", sep="\t")
    assert models["f1_all"].notna().all() and models["r_ALL"].isna().all()
