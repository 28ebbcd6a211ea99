"""The NonCompSST stages as functions of paths and settings: what each workflow script calls.

Each function reads its inputs with the family's readers, calls the library and writes its
outputs atomically; the workflow scripts only unpack ``snakemake`` and call one of them.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import ConfigError
from natcomp.files import atomic_open
from natcomp.noncompsst import annotation, candidates, controls, ratings, sst7, studies
from natcomp.noncompsst.stimuli import read_stimuli, write_stimuli
from natcomp.sst import (
    PTB_MEMBERS,
    read_dictionary,
    read_ptb_trees,
    read_raw_scores,
    read_sentiment_labels,
)
from natcomp.published import add_paper_columns, published_path, read_published
from natcomp.runs import workflow_built
from natcomp.tsv import read_tsv, write_tsv

log = logging.getLogger("natcomp.noncompsst")


# ----------------------------------------------------------------------------- SST access
def read_trees(ptb: str | Path) -> dict[str, list]:
    """The SST trees of every split from ``trainDevTestTrees_PTB.zip``."""
    return {split: read_ptb_trees(ptb, split) for split in PTB_MEMBERS}


def value_lookup(sst: str | Path):
    """Phrase tokens -> SST value, from stanfordSentimentTreebank.zip."""
    return candidates.sentiment_lookup(read_dictionary(sst), read_sentiment_labels(sst))


def raw_lookup(sst: str | Path, raw: str | Path):
    """Phrase tokens -> raw 1-25 scores, from stanfordSentimentTreebank.zip and the raw archive."""
    return candidates.raw_score_lookup(read_dictionary(sst), read_raw_scores(raw))


# ----------------------------------------------------------------------------- demo
def make_demo_release(
    directory: str | Path,
    planted_out: str | Path,
    *,
    sentences: int,
    seed: int,
    planted_occurrences: int,
    short_share: float,
    raw_score_noise: float,
) -> dict[str, Path]:
    """Generate the demo treebank's archives and side files; write the planted phrases (clean form)."""
    from natcomp.noncompsst.stimuli import clean_form
    from natcomp.sst_demo import generate_treebank, write_release

    treebank = generate_treebank(
        sentences,
        seed=seed,
        planted_occurrences=planted_occurrences,
        short_share=short_share,
        raw_score_noise=raw_score_noise,
    )
    paths = write_release(treebank, directory)
    write_tsv(
        planted_out,
        [{"phrase": f"{clean_form(p.left)} {clean_form(p.right)}", "kind": p.kind} for p in treebank.world.planted],
        ["phrase", "kind"],
    )
    log.info(
        "demo treebank: %d sentences, %d phrases, %d planted non-compositional phrases",
        len(treebank.sentences),
        len(treebank.raw_scores),
        len(treebank.world.planted),
    )
    return paths


def demo_truth():
    """Stimulus text -> SST value in the demo world (what the simulated participants perceive)."""
    from natcomp.sst_demo import DemoWorld

    world = DemoWorld()
    return lambda text: world.value(text.split())


# ----------------------------------------------------------------------------- candidates
def run_candidates(
    out: str | Path,
    *,
    ptb: str | Path,
    sst: str | Path | None,
    raw: str | Path | None,
    settings: candidates.CandidateSettings,
    stanza_dir: str | Path | None = None,
    phrase_types: str | Path | None = None,
    entities: str | Path | None = None,
) -> dict[str, int]:
    trees = read_trees(ptb)
    analyser = None
    if (settings.parser and not phrase_types) or (settings.ner and not entities):
        analyser = candidates.StanzaAnalyser(
            stanza_dir or "stanza_resources",
            parser=settings.parser and not phrase_types,
            ner=settings.ner and not entities,
        )
    types = None
    if phrase_types:
        table = read_tsv(phrase_types, ("phrase", "type"))
        types = dict(zip(table["phrase"], table["type"]))
        log.info("phrase types from %s (the demo generator's categories, not stanza's parser)", phrase_types)
    names = []
    if entities:
        from natcomp.files import read_lines

        names = read_lines(entities)
        log.info("named entities from the lexicon %s (not stanza's NER)", entities)
    table, counts = candidates.select_candidates(
        trees,
        settings,
        values=value_lookup(sst) if sst else None,
        raw_scores=raw_lookup(sst, raw) if raw and sst else None,
        analyser=analyser,
        phrase_types=types,
        entities=names,
        logger=log,
    )
    write_tsv(out, table, candidates.CANDIDATE_COLUMNS, float_format="%.5g")
    return counts


# ----------------------------------------------------------------------------- controls
def candidate_draws(section: Mapping) -> dict[str, object]:
    """``n_candidates`` and ``per_phrase`` of :func:`run_controls` from the ``controls``
    section: ``candidates_per_side`` (when set) draws that many per side, otherwise
    ``candidates_per_phrase`` (32, the paper) per phrase, split between the sides."""
    if section.get("candidates_per_side") is not None:
        return {"n_candidates": section["candidates_per_side"], "per_phrase": False}
    return {"n_candidates": section.get("candidates_per_phrase", 32), "per_phrase": True}


def run_controls(
    candidates_path,
    sst,
    sheet_out,
    stimuli_out,
    *,
    n_candidates: int,
    per_side: int,
    max_phrases: int | None,
    seed: int,
    edited_sheet: str | Path | None = None,
    per_phrase: bool = True,
) -> int:
    table = read_tsv(candidates_path, candidates.CANDIDATE_COLUMNS)
    phrases, sheet = controls.select_controls(
        table,
        value_lookup(sst),
        n_candidates=n_candidates,
        per_phrase=per_phrase,
        per_side=per_side,
        max_phrases=max_phrases,
        seed=seed,
        logger=log,
    )
    controls.write_sheet(sheet_out, sheet)
    if edited_sheet:
        log.info("controls: the hand-edited sheet %s overrides the automatic choice", edited_sheet)
        phrases = controls.phrases_from_sheet(edited_sheet, per_side, logger=log)
    return write_stimuli(stimuli_out, phrases)


# ----------------------------------------------------------------------------- studies
def run_export(
    study_name: str, stimuli_path, sst, survey_out, practice_out, *, max_list_size: int, annotations: int, seed: int
) -> None:
    phrases = read_stimuli(stimuli_path)
    dictionary, labels = read_dictionary(sst), read_sentiment_labels(sst)
    texts = {text: labels[ident] for text, ident in dictionary.items() if ident in labels}
    used = {t.lower() for p in phrases for t in p.subphrases() + p.stimuli()}
    practice = studies.choose_practice_items(texts, exclude=used, seed=seed)
    if study_name == "study1":
        study = studies.study1(phrases, practice, max_list_size=max_list_size, annotations=annotations, seed=seed)
    else:
        combinations = studies.choose_combination_practice(texts, exclude=used, seed=seed)
        study = studies.study2(
            phrases,
            practice,
            max_list_size=max_list_size,
            annotations=annotations,
            seed=seed,
            combination_practice=combinations,
        )
    write_tsv(
        practice_out,
        [
            {
                "item": k,
                "text": t,
                "label": label,
                "left": study.practice_parts.get(k, (t, ""))[0],
                "right": study.practice_parts.get(k, (t, ""))[1],
            }
            for k, (t, label) in study.practice.items()
        ],
        ["item", "text", "label", "left", "right"],
    )
    studies.export_survey(study, survey_out)
    sizes = sorted({len(items) for items in study.lists})
    log.info(
        "%s: %d items, %d participant lists of %s items (+%d practice items), %d annotations each",
        study_name,
        len(study.items),
        len(study.lists),
        "/".join(map(str, sizes)),
        len(study.practice),
        annotations,
    )


def load_study(study_name: str, survey, practice) -> studies.Study:
    table = read_tsv(practice, ("item", "text", "label"))
    labels = {row.item: int(row.label) for row in table.itertuples(index=False)}
    return studies.read_survey(survey, labels, study_name)


def run_simulation(
    study_name: str,
    survey,
    practice,
    out,
    *,
    seed: int,
    noise: Sequence[float],
    failing_share: float,
    ungrammatical_rate: float,
    max_mean_error: float = 1.0,
    min_spearman: float = 0.8,
) -> None:
    study = load_study(study_name, survey, practice)
    responses = studies.simulate_responses(
        study,
        demo_truth(),
        seed=seed,
        noise=tuple(noise),
        failing_share=failing_share,
        ungrammatical_rate=ungrammatical_rate,
        max_mean_error=max_mean_error,
        min_spearman=min_spearman,
    )
    studies.write_responses(out, responses)
    log.info(
        "%s: simulated %d responses of %d participants (the demo's stand-in for a survey)",
        study_name,
        len(responses),
        responses["participant"].nunique(),
    )


def run_analysis(
    study_name: str,
    survey,
    practice,
    responses_path,
    *,
    exclusion_out,
    means_out,
    agreement_out,
    max_mean_error: float,
    min_spearman: float,
    roster: str | Path | None = None,
) -> float:
    study = load_study(study_name, survey, practice)
    names = None
    if roster:
        from natcomp.files import read_lines

        names = set(read_lines(roster))
    responses = studies.read_responses(responses_path, study, roster=names)
    exclusion = annotation.exclude_participants(
        responses, study, max_mean_error=max_mean_error, min_spearman=min_spearman
    )
    alpha = annotation.ordinal_alpha(responses, exclusion, study)
    means = annotation.item_means(responses, exclusion, study)
    write_tsv(exclusion_out, exclusion, annotation.EXCLUSION_COLUMNS, float_format="%.4g")
    write_tsv(means_out, means, ["item", "text", "mean", "sd", "annotations", "ungrammatical"], float_format="%.6g")
    kept = int((~exclusion["excluded"]).sum())
    write_tsv(
        agreement_out,
        [
            {
                "study": study_name,
                "participants": len(exclusion),
                "excluded": len(exclusion) - kept,
                "items": len(study.items),
                "krippendorff_alpha_ordinal": alpha,
            }
        ],
        float_format="%.4f",
    )
    log.info(
        "%s: %d participants, %d excluded by the practice check; Krippendorff's alpha (ordinal) %.3f",
        study_name,
        len(exclusion),
        len(exclusion) - kept,
        alpha,
    )
    return alpha


def run_study1_filter(stimuli_path, means_path, out, *, max_distance: float, min_within: int, keep: int) -> int:
    phrases = read_stimuli(stimuli_path)
    means = read_tsv(means_path, ("text", "mean"))
    kept = annotation.study1_filter(
        phrases,
        dict(zip(means["text"], means["mean"].astype(float))),
        max_distance=max_distance,
        min_within=min_within,
        keep=keep,
        logger=log,
    )
    return write_stimuli(out, kept)


def run_sentiment(means_path, sentiment_out, ungrammatical_out) -> None:
    """Study 2 item means -> the ratings CLI's inputs (``stimulus, sentiment`` and ``stimulus, ungrammatical``)."""
    means = read_tsv(means_path, ("text", "mean", "ungrammatical"))
    write_tsv(
        sentiment_out,
        [{"stimulus": t, "sentiment": float(m)} for t, m in zip(means["text"], means["mean"])],
        ["stimulus", "sentiment"],
        float_format="%.6g",
    )
    write_tsv(
        ungrammatical_out,
        [{"stimulus": t, "ungrammatical": int(int(u) > 0)} for t, u in zip(means["text"], means["ungrammatical"])],
        ["stimulus", "ungrammatical"],
    )


# ----------------------------------------------------------------------------- ratings
def run_ratings(stimuli_path, sentiment_path, out, *, ungrammatical_path=None) -> pd.DataFrame:
    phrases = read_stimuli(stimuli_path)
    sentiment = ratings.read_sentiment(sentiment_path)
    flagged = ratings.read_ungrammatical(ungrammatical_path) if ungrammatical_path else set()
    table = ratings.compute_ratings(
        phrases, sentiment, flagged, sentiment_source=sentiment_path, stimuli_source=stimuli_path
    )
    ratings.write_ratings(out, table)
    log.info(
        "ratings of %d phrases (%s)",
        len(phrases),
        ", ".join(f"{v}: {n}" for v, n in table["variant"].value_counts(sort=False).items()),
    )
    return table


def run_released_ratings(released, out) -> pd.DataFrame:
    """The released ``maxabs_ranking.tsv`` in the ratings layout (only MAXABS is released)."""
    table = ratings.read_ratings(released)
    ratings.write_ratings(out, table)
    log.info("released ratings: %d phrases (MAXABS only; the per-stimulus human ratings are not released)", len(table))
    return table


# ----------------------------------------------------------------------------- SST-7
def run_sst7(
    ptb,
    sst,
    stimuli_path,
    outs: Mapping[str, str | Path],
    released: Mapping[str, str | Path] | None = None,
    *,
    stimulus_match: str = "lemmas",
) -> dict[str, int]:
    """SST-7 rebuilt from the trees without the sentences that contain a stimulus
    subphrase (found by ``stimulus_match``: ``lemmas`` or ``tokens``); with ``released``
    ({"validation" | "test": path}) those splits are the released files instead."""
    excluded = sst7.StimulusFilter(read_stimuli(stimuli_path), match=stimulus_match)
    built = sst7.build_sst7(read_trees(ptb), value_lookup(sst), excluded, logger=log)
    for name, path in (released or {}).items():
        built[name] = sst7.use_released(name, built[name], sst7.read_sst7(path), path, logger=log)
    return {name: sst7.write_sst7(outs[name], rows) for name, rows in built.items()}


# ----------------------------------------------------------------------------- models
def run_tiny_model(
    sst7_train, stimuli_path, directory, *, hidden_size: int, layers: int, heads: int, seed: int
) -> None:
    """A tiny BERT whose vocabulary covers the demo's SST-7 and stimuli (the demo's model)."""
    from natcomp import hf

    texts = [text for text, _ in sst7.read_sst7(sst7_train)] + [
        s for p in read_stimuli(stimuli_path) for s in p.stimuli()
    ]
    hf.build_tiny_model(
        directory,
        hf.words_for_vocabulary(texts),
        kind="sequence_classification",
        num_labels=7,
        hidden_size=hidden_size,
        layers=layers,
        heads=heads,
        seed=seed,
    )
    log.info("tiny BERT (hidden %d, %d layers) built in %s", hidden_size, layers, directory)


_SETTINGS_KEYS = (
    "epochs",
    "batch_size",
    "learning_rate",
    "warmup_ratio",
    "scheduler",
    "max_length",
    "device",
    "weight_decay",
    "gradient_clip",
)


def model_training(section: Mapping, location: str) -> dict:
    """The fine-tuning settings of the model at ``location``: the family's ``training``
    (appendix D's, for pretrained models), and for a model the workflow builds (the demo's
    random tiny BERT, :func:`natcomp.runs.workflow_built`) ``demo.tiny_model.training``
    over them, since appendix D's learning rate and epochs are far too small to train a
    model from random weights."""
    training = dict(section.get("training") or {})
    if workflow_built(location):
        training.update(((section.get("demo") or {}).get("tiny_model") or {}).get("training") or {})
    return training


def fine_tune_settings(training: Mapping, seed: int):
    """The ``training`` section as :class:`natcomp.hf.FineTuneSettings` for one seed: the
    best epoch on validation kept; gradient clipping (in neither the paper nor the released
    code) only where ``gradient_clip`` is set; ``fine_tuning`` as the section says it
    (the workflow resolves ``auto`` per model: :func:`natcomp.model_description.job_setting`),
    full where it says nothing (the paper's)."""
    from natcomp import hf
    from natcomp.finetuning import FineTuning, family_key

    chosen = {"gradient_clip": None, **{k: training[k] for k in _SETTINGS_KEYS if k in training}}
    if "fine_tuning" in training:
        chosen["fine_tuning"] = FineTuning.from_config(training["fine_tuning"], family_key("noncompsst"))
    return hf.FineTuneSettings(**chosen, seed=seed, select_best=True)


def run_training(
    model: str,
    sst7_paths: Mapping[str, str | Path],
    stimuli_path,
    predictions_out,
    metrics_out,
    *,
    training: Mapping,
    seed: int,
    stanza_dir: str | Path | None = None,
) -> None:
    """Fine-tune ``model`` for one ``seed`` and predict every stimulus, fed to the model
    tokenised as SST-7's text (stanza's tokenizer where its model is in ``stanza_dir``, the
    Penn Treebank tokeniser otherwise) and lower-cased (``lowercase_stimuli``); the
    predictions are keyed by the stimuli's clean form, as the ratings are."""
    from natcomp.noncompsst import models
    from natcomp.noncompsst.evaluation import write_predictions
    from natcomp.noncompsst.stimuli import StimulusTokenizer

    settings = fine_tune_settings(training, seed)
    data = {name: sst7.read_sst7(path) for name, path in sst7_paths.items()}
    stimuli = list(dict.fromkeys(s for p in read_stimuli(stimuli_path) for s in p.stimuli()))
    tokenizer = StimulusTokenizer(stanza_dir, lowercase=training.get("lowercase_stimuli", True))
    texts = [tokenizer(s) for s in stimuli]
    log.info(
        "stimuli tokenised by %s%s (e.g. %r)",
        tokenizer.name,
        ", lower-cased" if tokenizer.lowercase else "",
        texts[0] if texts else "",
    )
    result = models.train_and_predict(model, data, texts, settings, logger=log)
    write_predictions(
        predictions_out,
        ({"stimulus": s, "prediction": p, "seed": seed} for s, p in zip(stimuli, result.stimulus_predictions)),
    )
    with atomic_open(metrics_out) as handle:
        json.dump(
            {
                "seed": seed,
                "sst7_test_macro_f1": result.test_f1,
                "best_epoch": result.best_epoch,
                "stimulus_tokenizer": tokenizer.name,
                "fine_tuning": result.fine_tuning,
                "history": result.history,
                "seconds": result.seconds,
            },
            handle,
            indent=1,
        )


def run_evaluation(
    model_name: str,
    prediction_paths: Sequence[str | Path],
    metric_paths: Sequence[str | Path],
    stimuli_path,
    human_path,
    out,
    *,
    sentiment_path=None,
    ungrammatical_path=None,
    top_k: int,
    f1_seeds: str = "per_seed",
    items_out=None,
) -> dict[str, float]:
    """One model's row of Table 2 (``out``) and, with ``items_out``, the per-phrase outcomes
    its r and F1 are computed from (natcomp.noncompsst.evaluation.phrase_outcomes)."""
    from natcomp.noncompsst.evaluation import (
        F1_SEED_MODES,
        evaluate,
        mean_sd,
        phrase_outcomes,
        read_predictions,
        seed_f1,
    )

    if f1_seeds not in F1_SEED_MODES:
        raise ConfigError(
            "noncompsst.evaluation.f1_seeds", f"expected one of {', '.join(F1_SEED_MODES)}, got {f1_seeds!r}"
        )
    per_seed = [read_predictions(path) for path in prediction_paths]
    merged: dict[str, list[float]] = {}
    for seed_predictions in per_seed:
        for stimulus, value in seed_predictions.items():
            merged.setdefault(stimulus, []).append(value)
    predictions = {s: sum(v) / len(v) for s, v in merged.items()}
    phrases = read_stimuli(stimuli_path)
    human = ratings.read_ratings(human_path)
    # Study 2 means, or the released maxabs_ranking.tsv's sentiment column (released mode)
    sentiment = (
        ratings.read_human_sentiment(sentiment_path) if sentiment_path else ratings.released_sentiment(human_path)
    )
    flagged = ratings.read_ungrammatical(ungrammatical_path) if ungrammatical_path else set()
    scores, model_ratings = evaluate(
        phrases,
        predictions,
        human,
        human_sentiment=sentiment or None,
        ungrammatical=flagged,
        top_k=top_k,
        predictions_source=prediction_paths[0],
    )
    if items_out is not None:
        items = phrase_outcomes(
            model_name, phrases, per_seed, model_ratings, human, sentiment or None, top_k=top_k, f1_seeds=f1_seeds
        )
        write_tsv(items_out, items, float_format="%.6g")
    if f1_seeds == "per_seed":
        # the paper evaluates each seed: mean and sd of the per-seed F1 (the seed-mean
        # classes' F1 stays in the log)
        log.info(
            "%s: F1 of the seed-averaged classes: all %.4f, top %d %.4f",
            model_name,
            scores["f1_all"],
            top_k,
            scores[f"f1_top{top_k}"],
        )
        scores.update(seed_f1(phrases, per_seed, human, sentiment or None, top_k=top_k))
    f1s = []
    for path in metric_paths:
        with open(path, encoding="utf-8") as handle:
            f1s.append(json.load(handle)["sst7_test_macro_f1"])
    sst7_mean, sst7_sd = mean_sd(f1s)
    row = {
        "model": model_name,
        "sst7_f1": sst7_mean,
        "sst7_f1_sd": sst7_sd,
        "seeds": len(prediction_paths),
        "f1_seeds": f1_seeds,
        **scores,
    }
    write_tsv(out, [row], float_format="%.4f")
    log.info(
        "%s: %s",
        model_name,
        ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items() if k != "model"),
    )
    return row


def planted_share(ratings_path, planted_path) -> dict[str, float]:
    """Share of the planted phrases among the MAXABS top k (k = planted phrases that reached the ratings)."""
    table = ratings.read_ratings(ratings_path)
    maxabs = table[table["variant"] == "MAXABS"].sort_values("rating", ascending=False, kind="stable")
    planted = set(read_tsv(planted_path, ("phrase",))["phrase"])
    rated = [p for p in maxabs["phrase"] if p in planted]
    k = len(rated)
    top = list(maxabs["phrase"].head(k))
    return {
        "planted": len(planted),
        "planted_rated": k,
        "planted_in_top_k": sum(p in planted for p in top),
        "share_of_top_k": (sum(p in planted for p in top) / k) if k else math.nan,
    }


__all__ = [name for name in dir() if name.startswith("run_")] + [
    "make_demo_release",
    "planted_share",
    "load_study",
    "read_trees",
    "value_lookup",
    "raw_lookup",
    "demo_truth",
]


# ----------------------------------------------------------------------------- report
def sentiment_model_key(section: Mapping) -> str:
    """The model of Tables 1 and 3 (``tables.sentiment_model``; the paper's is roberta-large;
    null: the first model of ``models``, "" where there is none); a name that is not a key of
    ``models`` is a ConfigError."""
    models = list(section.get("models") or {})
    chosen = (section.get("tables") or {}).get("sentiment_model")
    if chosen is None:
        return models[0] if models else ""
    if chosen not in models:
        raise ConfigError(
            "noncompsst.tables.sentiment_model", f"{chosen!r} is not a key of noncompsst.models ({', '.join(models)})"
        )
    return chosen


def run_report(
    *,
    evaluations: Sequence[str | Path],
    ratings_path,
    stimuli_path,
    top_k: int,
    models_out,
    top_out,
    figure_out,
    sentiment_path=None,
    study1_means=None,
    sst=None,
    predictions: Sequence[str | Path] = (),
    top_n: int = 60,
    sentiment_model: str = "",
    length_figure_out=None,
    category_figure_out=None,
    candidates_path=None,
    item_outcomes: Sequence[str | Path] = (),
    item_outcomes_out=None,
) -> None:
    """Table 2 (models x variants), Table 1/3 (top phrases, with the sentiment of
    ``sentiment_model`` from its ``predictions``) and Figure 3a; with ``item_outcomes_out``
    the models' per-phrase outcomes (``item_outcomes``, one file per model) in one table."""
    from natcomp.noncompsst import report
    from natcomp.noncompsst.evaluation import read_predictions
    from natcomp.noncompsst.stimuli import sst_tokenize

    rows = [read_tsv(path).iloc[0].to_dict() for path in evaluations]
    for row in rows:
        for key, value in row.items():
            if key not in ("model", "f1_seeds"):
                row[key] = float(value) if value != "" else math.nan
    # The paper's Table 2 beside the rows of the paper's models (paper_<column>).
    published = read_published(published_path("noncompsst"))
    models = add_paper_columns(report.models_table(rows, top_k), published, "models", ["model"])
    write_tsv(models_out, models, float_format="%.3f")
    if item_outcomes_out is not None:
        from natcomp.noncompsst.evaluation import ITEM_COLUMNS

        frames = [read_tsv(path, ITEM_COLUMNS) for path in item_outcomes]
        gathered = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(ITEM_COLUMNS))
        write_tsv(item_outcomes_out, gathered, list(ITEM_COLUMNS))
    phrases = read_stimuli(stimuli_path)
    table = ratings.read_ratings(ratings_path)
    human = ratings.read_human_sentiment(sentiment_path) if sentiment_path else ratings.released_sentiment(ratings_path)
    model_sentiment = {}
    if predictions:
        merged: dict[str, list[float]] = {}
        for path in predictions:
            for stimulus, value in read_predictions(path).items():
                merged.setdefault(stimulus, []).append(value)
        model_sentiment = {s: sum(v) / len(v) for s, v in merged.items()}
    top = report.top_phrases(phrases, table, human, model_sentiment, n=top_n, model=sentiment_model)
    write_tsv(top_out, top, float_format="%.2f")
    if study1_means:
        means = read_tsv(study1_means, ("text", "mean"))
        subphrase = dict(zip(means["text"], means["mean"].astype(float)))
        log.info("composition types from the Study 1 mean ratings")
    else:
        values = value_lookup(sst)
        subphrase = {}
        for p in phrases:
            for tokens, clean in ((p.left.split(), p.left_clean), (p.right.split(), p.right_clean)):
                value = values(tokens) or values(sst_tokenize(clean))
                if value is not None:
                    subphrase[clean] = 6 * value
        log.info("composition types from the SST values of the subphrases (no Study 1 ratings)")
    data = report.maxabs_figure(phrases, table, subphrase, figure_out)
    if length_figure_out:
        lengths = {p.natural: report.length_combination(p) for p in phrases}
        report.factor_figure(table, lengths, length_figure_out, label="tokens")
        log.info("Figure 6/7 by length: %d length combinations", len(set(lengths.values())))
    if category_figure_out:
        categories = {}
        if candidates_path:
            categories = report.category_combination(phrases, read_tsv(candidates_path))
        note = "" if categories else "no syntactic categories: the candidate step recorded no phrase types (parser off)"
        report.factor_figure(table, categories, category_figure_out, label="syntactic category", note=note)
        log.info(
            "Figure 6/7 by syntactic category: %s",
            f"{len(categories)} of {len(phrases)} phrases with types" if categories else note,
        )
    log.info(
        "Figure 3a: %d phrases; mean MAXABS per type: %s",
        len(data),
        data.groupby("composition")["MAXABS"].mean().round(2).to_dict(),
    )


def run_stimulus_figure(means: Mapping[str, str | Path], out) -> None:
    """Figure 5 analogue: per study, each stimulus' mean rating and its sd (kept participants)."""
    from natcomp.noncompsst import report

    tables = {study: read_tsv(path, ("text", "mean", "sd")) for study, path in means.items()}
    tables = {study: t.assign(mean=t["mean"].astype(float), sd=pd.to_numeric(t["sd"])) for study, t in tables.items()}
    report.stimulus_figure(tables, out)
    for study, table in tables.items():
        log.info(
            "%s: %d stimuli, mean rating %.2f, median sd %.2f",
            study,
            len(table),
            table["mean"].mean(),
            table["sd"].median(),
        )


def run_demo_summary(
    ratings_path, planted_path, agreements: Sequence[str | Path], evaluations: Sequence[str | Path], out
) -> dict[str, object]:
    """The demo's evidence: planted phrases in the MAXABS top k, alpha per study, model r and F1."""
    summary: dict[str, object] = planted_share(ratings_path, planted_path)
    for path in agreements:
        row = read_tsv(path).iloc[0]
        summary[f"alpha_{row['study']}"] = float(row["krippendorff_alpha_ordinal"])
        summary[f"excluded_{row['study']}"] = f"{row['excluded']}/{row['participants']}"
    for path in evaluations:
        row = read_tsv(path).iloc[0]
        for key in ("sst7_f1", "r_MAXABS", "r_ALL", "f1_all"):
            summary[f"{row['model']}_{key}"] = float(row[key]) if row[key] != "" else math.nan
    write_tsv(out, [{"measure": k, "value": v} for k, v in summary.items()], ["measure", "value"], float_format="%.4f")
    log.info("demo summary: %s", summary)
    return summary
