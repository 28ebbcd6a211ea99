"""One row of the paper's Table 1: an encoder, a head and a mode, scored by accuracy and PSS.

Data (section 3.1): heads are trained on the Yelp training sentences; test accuracy is taken
on the dev and test sentences together (as the paper does); PSS on the cleaned pairs of
``reference.0`` (negative originals) and ``reference.1`` (positive originals).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.pss.encoders import MODES
from natcomp.pss.pairs import Pair, prepare_sentence
from natcomp.pss.scoring import polarity_sensitivity, relative_pss

if TYPE_CHECKING:  # torch is imported by the heads' training only, not by the sets and tables
    from natcomp.pss.classifiers import HeadSettings

__all__ = [
    "DIRECTIONS",
    "READING_COLUMNS",
    "SCORE_COLUMNS",
    "SET_COLUMNS",
    "TABLE_COLUMNS",
    "LabelledSentences",
    "PairSentences",
    "evaluate_fine_tuned",
    "evaluate_frozen",
    "item_outcomes",
    "ITEM_COLUMNS",
    "read_labelled",
    "read_labelled_set",
    "read_pair_set",
    "score_predictions",
    "score_rows",
    "set_sentences",
    "write_sets",
]

#: How a mode reads the sentences: the layer pooled, the tokens kept per sentence (special
#: tokens included) and how many sentences of the train, test and pair sets that limit cuts.
READING_COLUMNS = ("layer", "max_length", "cut_sentences")
#: Columns of one score file (encoder x head x mode), one row per pair direction.
SCORE_COLUMNS = (
    ("encoder", "head", "mode")
    + READING_COLUMNS
    + ("direction", "accuracy", "pss", "relative_pss", "pairs", "test_sentences")
)
#: Columns of the PSS tables: a score row and the paper's figures of the encoder it stands in for.
TABLE_COLUMNS = SCORE_COLUMNS + ("paper_encoder", "paper_accuracy", "paper_pss", "paper_relative_pss")


@dataclass
class LabelledSentences:
    texts: list[str]
    labels: np.ndarray


def read_labelled(paths_by_label: Sequence[tuple[str | Path, int]]) -> LabelledSentences:
    """Sentences of files with one sentence per line, each file's sentences with its label."""
    texts: list[str] = []
    labels: list[int] = []
    for path, label in paths_by_label:
        lines = read_lines(path)
        if not lines:
            raise InputError(path, "no sentences; expected one sentence per line")
        texts.extend(line.strip() for line in lines)
        labels.extend([label] * len(lines))
    return LabelledSentences(texts, np.asarray(labels, dtype=int))


@dataclass
class PairSentences:
    """Cleaned pairs flattened for embedding: originals then rewrites, and the originals' labels."""

    originals: list[str]
    rewrites: list[str]
    original_labels: np.ndarray

    @classmethod
    def of(cls, groups: Sequence[tuple[Sequence[Pair], int]]) -> PairSentences:
        originals, rewrites, labels = [], [], []
        for pairs, label in groups:
            originals.extend(pair.original for pair in pairs)
            rewrites.extend(pair.rewrite for pair in pairs)
            labels.extend([label] * len(pairs))
        return cls(originals, rewrites, np.asarray(labels, dtype=int))

    @property
    def sentences(self) -> list[str]:
        return self.originals + self.rewrites


#: Pair directions by the label of the originals: reference.0 holds negative originals
#: rewritten positive (the paper's direction, Table 3), reference.1 the reverse.
DIRECTIONS = {0: "neg_to_pos", 1: "pos_to_neg"}


def score_predictions(
    test_labels: np.ndarray,
    test_predictions: np.ndarray,
    pairs: PairSentences,
    original_predictions: np.ndarray,
    rewrite_predictions: np.ndarray,
) -> list[dict[str, object]]:
    """Accuracy, PSS and relative PSS (percent) of one classifier, one row per pair direction.

    PSS is taken separately on the pairs of each direction (:data:`DIRECTIONS`, in that
    order; a direction without pairs has no row); the accuracy is the same in both rows.
    """
    accuracy = 100.0 * float(np.mean(np.asarray(test_predictions) == np.asarray(test_labels)))
    labels = np.asarray(pairs.original_labels)
    originals, rewrites = np.asarray(original_predictions), np.asarray(rewrite_predictions)
    if not set(labels.tolist()) <= set(DIRECTIONS):
        raise ValueError(f"original labels must be 0 or 1, got {sorted(set(labels.tolist()))}")
    rows = []
    for label, direction in DIRECTIONS.items():
        chosen = labels == label
        if not chosen.any():
            continue
        score = polarity_sensitivity(labels[chosen], originals[chosen], rewrites[chosen])
        rows.append(
            {
                "direction": direction,
                "accuracy": accuracy,
                "pss": score.pss,
                "relative_pss": relative_pss(score.pss, accuracy),
                "pairs": score.pairs,
                "test_sentences": len(test_labels),
            }
        )
    return rows


def score_rows(
    encoder: str, head: str, mode: str, layer: int, lengths, rows: Sequence[dict[str, object]]
) -> list[dict[str, object]]:
    """The rows of one score file (:data:`SCORE_COLUMNS`): ``rows`` of :func:`score_predictions`
    with the encoder, head and mode, and how the mode read the sentences: ``layer`` and
    ``lengths`` (:class:`natcomp.pss.lengths.SentenceLengths` of the train, test and pair sentences)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    reading = {"layer": int(layer), "max_length": lengths.max_length, "cut_sentences": lengths.cut}
    return [{"encoder": encoder, "head": head, "mode": mode, **reading, **row} for row in rows]


def evaluate_frozen(
    head: str,
    train_embeddings: np.ndarray,
    train_labels: np.ndarray,
    test_embeddings: np.ndarray,
    test_labels: np.ndarray,
    pairs: PairSentences,
    pair_embeddings: np.ndarray,
    settings: HeadSettings,
    *,
    log: logging.Logger | None = None,
    predicted: dict | None = None,
) -> list[dict[str, object]]:
    """FB mode: train ``head`` on frozen embeddings; score it on the test set and the pairs.

    ``pair_embeddings`` are those of ``pairs.sentences`` (originals, then rewrites). A
    ``predicted`` dict gets the predictions (``test``, ``pairs``: originals then rewrites),
    for :func:`item_outcomes`.
    """
    from natcomp.pss.classifiers import predict_head, train_head

    n = len(pairs.originals)
    if len(pair_embeddings) != 2 * n:
        raise ValueError(f"{len(pair_embeddings)} pair embeddings for {n} pairs; expected originals then rewrites")
    classifier = train_head(train_embeddings, train_labels, head, settings, log=log)
    predictions = predict_head(classifier, pair_embeddings)
    test_predictions = predict_head(classifier, test_embeddings)
    if predicted is not None:
        predicted.update(test=test_predictions, pairs=predictions)
    return score_predictions(test_labels, test_predictions, pairs, predictions[:n], predictions[n:])


def evaluate_fine_tuned(
    model: str,
    head: str,
    train: LabelledSentences,
    test: LabelledSentences,
    pairs: PairSentences,
    settings,
    *,
    pooling: str,
    normalize: bool = False,
    layer: int = -1,
    key: str = "model",
    pooling_key: str = "pooling",
    log: logging.Logger | None = None,
    predicted: dict | None = None,
) -> list[dict[str, object]]:
    """FT mode: fine-tune ``model`` with a fresh ``head`` (``settings``: :class:`natcomp.hf.FineTuneSettings`); score it.

    ``key`` and ``pooling_key`` name the encoder's model and pooling in errors; ``predicted``
    as in :func:`evaluate_frozen`."""
    from natcomp.pss.classifiers import fine_tune_encoder, predict_texts

    classifier, tokenizer = fine_tune_encoder(
        model,
        head,
        train.texts,
        train.labels.tolist(),
        settings,
        pooling=pooling,
        normalize=normalize,
        layer=layer,
        key=key,
        pooling_key=pooling_key,
        log=log,
    )
    batch = {"batch_size": settings.batch_size, "max_length": settings.max_length}
    n = len(pairs.originals)
    predictions = predict_texts(classifier, tokenizer, pairs.sentences, **batch)
    test_predictions = predict_texts(classifier, tokenizer, test.texts, **batch)
    if predicted is not None:
        predicted.update(test=test_predictions, pairs=predictions)
    return score_predictions(test.labels, test_predictions, pairs, predictions[:n], predictions[n:])


#: the columns of a classifier's item outcomes: per encoder, head and mode, a pair of the
#: paper's direction or the other (``pair``, both sentences right) or a test sentence (``test``, right)
ITEM_COLUMNS = ("encoder", "head", "mode", "kind", "direction", "item", "outcome")


def item_outcomes(
    encoder: str, head: str, mode: str, test: LabelledSentences, pairs: PairSentences, predicted: dict
) -> list[dict[str, object]]:
    """What accuracy, PSS and relative PSS are computed from (:func:`score_predictions`):
    per pair whether both sentences were classified right, per test sentence whether it was;
    each with a stable id (:func:`natcomp.paired.item_id` of its sentences and label)."""
    from natcomp.paired import item_id

    model = {"encoder": encoder, "head": head, "mode": mode}
    n = len(pairs.originals)
    pair_predictions = np.asarray(predicted["pairs"])
    labels = np.asarray(pairs.original_labels)
    both = (pair_predictions[:n] == labels) & (pair_predictions[n:] == 1 - labels)
    rows = [
        {
            **model,
            "kind": "pair",
            "direction": DIRECTIONS[int(label)],
            "item": item_id(f"pair {index + 1}", original, rewrite, int(label)),
            "outcome": int(right),
        }
        for index, (original, rewrite, label, right) in enumerate(zip(pairs.originals, pairs.rewrites, labels, both))
    ]
    right = np.asarray(predicted["test"]) == np.asarray(test.labels)
    rows += [
        {
            **model,
            "kind": "test",
            "direction": "",
            "item": item_id(f"test {index + 1}", text, int(label)),
            "outcome": int(ok),
        }
        for index, (text, label, ok) in enumerate(zip(test.texts, test.labels, right))
    ]
    return rows


# --------------------------------------------------------------------------------------
# the sentence sets the workflow embeds once per encoder and pooling

SET_COLUMNS = {
    "train": ("sentence", "label"),
    "test": ("sentence", "label"),
    "pairs": ("original", "rewrite", "original_label"),
}


def _subsample(sentences: LabelledSentences, per_label: int | None, seed: int) -> LabelledSentences:
    if per_label is None:
        return sentences
    rng = np.random.default_rng(seed)
    keep: list[int] = []
    for label in sorted(set(sentences.labels.tolist())):
        indices = np.flatnonzero(sentences.labels == label)
        keep.extend(sorted(rng.choice(indices, size=min(per_label, len(indices)), replace=False).tolist()))
    return LabelledSentences([sentences.texts[i] for i in keep], sentences.labels[keep])


def _prepared(sentences: LabelledSentences) -> LabelledSentences:
    return LabelledSentences([prepare_sentence(text) for text in sentences.texts], sentences.labels)


def write_sets(
    train: Sequence[tuple[str | Path, int]],
    test: Sequence[tuple[str | Path, int]],
    pairs: Sequence[tuple[Sequence[Pair], int]],
    out: dict[str, str | Path],
    *,
    train_per_label: int | None = None,
    seed: int = 0,
) -> dict[str, int]:
    """Write the ``train``, ``test`` and ``pairs`` set TSVs (paths in ``out``); returns their sizes.

    ``train``/``test``: (file, label) of one-sentence-per-line files (the Yelp
    ``sentiment.*`` files); ``train_per_label`` draws that many training sentences per label
    (seeded; None: all). ``pairs``: cleaned pairs with their originals' label. Every
    sentence is prepared one way (:func:`natcomp.pss.pairs.prepare_sentence`: lower-cased
    Treebank tokens, as the Yelp training sentences and originals already are), so the
    cased, untokenised human rewrites reach the models like the sentences they were trained on.
    """
    from natcomp.tsv import write_tsv

    train_set = _prepared(_subsample(read_labelled(train), train_per_label, seed))
    test_set = _prepared(read_labelled(test))
    pair_set = PairSentences.of(pairs)
    pair_set = PairSentences(
        [prepare_sentence(text) for text in pair_set.originals],
        [prepare_sentence(text) for text in pair_set.rewrites],
        pair_set.original_labels,
    )
    sizes = {}
    for name, labelled in (("train", train_set), ("test", test_set)):
        rows = ({"sentence": text, "label": int(label)} for text, label in zip(labelled.texts, labelled.labels))
        sizes[name] = write_tsv(out[name], rows, SET_COLUMNS[name])
    rows = (
        {"original": o, "rewrite": r, "original_label": int(label)}
        for o, r, label in zip(pair_set.originals, pair_set.rewrites, pair_set.original_labels)
    )
    sizes["pairs"] = write_tsv(out["pairs"], rows, SET_COLUMNS["pairs"])
    return sizes


def _labels(path: str | Path, values: Sequence[str], column: str) -> np.ndarray:
    for number, value in enumerate(values, start=2):
        if value not in ("0", "1"):
            raise InputError(path, f"{column} {value!r} is not 0 or 1", number)
    return np.asarray([int(value) for value in values], dtype=int)


def read_labelled_set(path: str | Path) -> LabelledSentences:
    """A ``train``/``test`` set TSV (``sentence``, ``label``)."""
    from natcomp.tsv import read_tsv

    frame = read_tsv(path, SET_COLUMNS["train"])
    return LabelledSentences(frame["sentence"].tolist(), _labels(path, frame["label"].tolist(), "label"))


def read_pair_set(path: str | Path) -> PairSentences:
    """A ``pairs`` set TSV (``original``, ``rewrite``, ``original_label``)."""
    from natcomp.tsv import read_tsv

    frame = read_tsv(path, SET_COLUMNS["pairs"])
    labels = _labels(path, frame["original_label"].tolist(), "original_label")
    return PairSentences(frame["original"].tolist(), frame["rewrite"].tolist(), labels)


def set_sentences(path: str | Path, name: str) -> list[str]:
    """The sentences of a set TSV in embedding order (pairs: originals, then rewrites)."""
    if name == "pairs":
        return read_pair_set(path).sentences
    return read_labelled_set(path).texts
