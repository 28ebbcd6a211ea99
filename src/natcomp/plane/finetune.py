"""Supervised fine-tuning on GOoD and One-IT splits (paper Section 6, Table 6).

Paper (Section 6.1): BERT-base, 1 epoch, input length 12, sentence classification of the
item text ``A {adj} {noun} is a {x}``, trained on each of the 5 released train splits and
tested on its paired released test split; accuracy mean and sd over the 5. natcomp runs that
(``train_set`` ``released``) and, as a second setting, the same on its own splits (``own``).
A model trained on an own split is scored on a released test split only when asked, and only
after the two are checked disjoint (:func:`natcomp.plane.pipeline.run_finetune`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from natcomp import hf
from natcomp.plane.adjectives import CLASSES
from natcomp.plane.tables import table6  # noqa: F401  (re-exported)

RESULT_COLUMNS = ["train_set", "setting", "split", "test_set", "class", "items", "accuracy", "chance"]
TRAIN_SETS = ("own", "released")  # the project's splits, the released splits


def fine_tune_and_test(
    model_name: str,
    train: pd.DataFrame,
    tests: Mapping[str, pd.DataFrame],
    settings: hf.FineTuneSettings,
    log=None,
) -> tuple[pd.DataFrame, object]:
    """Fine-tune a fresh 2-label classifier from ``model_name`` on ``train`` (columns
    sentence, label) and predict each test set. Returns predictions (test_set, class, it,
    adj, noun, hyp, sentence, gold, predicted) and the fine-tuning result (its ``fine_tuning``:
    the method in words). ``settings.fine_tuning`` ``auto`` is decided by the model's size."""
    from natcomp.finetuning import family_key

    key = "plane.finetune.model"
    hf.check_model_available(model_name, key)
    settings = settings.for_model(model_name, key=family_key("plane"))
    tokenizer = hf.load_tokenizer(model_name, key)
    dtype = hf.training_load_dtype(model_name, settings.fine_tuning, hf.device(settings.device), key)
    model = hf.load_sequence_classifier(model_name, num_labels=2, seed=settings.seed, key=key, dtype=dtype)
    result = hf.fine_tune_classifier(
        model,
        tokenizer,
        list(train["sentence"]),
        train["label"].astype(int).tolist(),
        settings=settings,
        log=log,
        fine_tuning_key=family_key("plane"),
    )
    frames = []
    for name, test in tests.items():
        probabilities = hf.classify(
            result.model,
            tokenizer,
            list(test["sentence"]),
            batch_size=max(settings.batch_size, 64),
            max_length=settings.max_length,
            device=hf.device(settings.device),
        )
        frames.append(
            pd.DataFrame(
                {
                    "test_set": name,
                    "class": test["class"].to_numpy(),
                    "it": test["it"].to_numpy(),
                    "adj": test["adj"].to_numpy(),
                    "noun": test["noun"].to_numpy(),
                    "hyp": test["hyp"].to_numpy(),
                    "sentence": test["sentence"].to_numpy(),
                    "gold": test["label"].astype(int).to_numpy(),
                    "predicted": probabilities.argmax(axis=1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True), result


def accuracy_rows(predictions: pd.DataFrame, setting: str, split: int, train_set: str = "own") -> list[dict]:
    """Accuracy per test set, overall and per class, with the majority-label chance level.
    ``train_set``: ``own`` (a split of this project) or ``released`` (a released train split)."""
    rows = []
    for name, group in predictions.groupby("test_set", sort=False):
        for cls in ["all", *CLASSES]:
            part = group if cls == "all" else group[group["class"] == cls]
            if part.empty:
                continue
            gold = part["gold"].to_numpy()
            chance = max(float(np.mean(gold == 1)), float(np.mean(gold == 0)))
            rows.append(
                {
                    "train_set": train_set,
                    "setting": setting,
                    "split": split,
                    "test_set": name,
                    "class": cls,
                    "items": len(part),
                    "accuracy": float(np.mean(gold == part["predicted"].to_numpy())),
                    "chance": chance,
                }
            )
    return rows


SUBWORD_COLUMNS = ["train_set", "setting", "split", "test_set", "class", "items", "accuracy", "subword_share"]


def splits_into_subwords(tokenizer, word: str) -> bool:
    """Whether the tokenizer cuts ``word``, as it stands after a space in an item, into
    several tokens (WordPiece ``##`` pieces, several BPE tokens). The word's tokens are
    those covering it in ``A {word}``: a SentencePiece tokenizer that writes a lone ``▁``
    before a text starting with a space (Llama 2, Mistral) would make " word" two tokens."""
    from natcomp.plane.prompting import _word_tokens

    return len(_word_tokens(tokenizer, f"A {word}", 2, 2 + len(word))) > 1


def subword_table(predictions: pd.DataFrame, tokenizer) -> pd.DataFrame:
    """Figures 2 and 3 data: per fine-tuning run (train set, setting, split), test set and
    adjective class, the accuracy and the share of test items whose adjective, noun or
    hypernym the tokenizer splits into several subwords."""
    words = set(predictions["adj"]) | set(predictions["noun"]) | set(predictions["hyp"])
    split_words = {w for w in words if w and splits_into_subwords(tokenizer, w)}
    has_subwords = (
        predictions["adj"].isin(split_words)
        | predictions["noun"].isin(split_words)
        | predictions["hyp"].isin(split_words)
    )
    correct = predictions["gold"].astype(int) == predictions["predicted"].astype(int)
    frame = predictions.assign(_sw=has_subwords.to_numpy(), _ok=correct.to_numpy())
    rows = []
    keys = ["train_set", "setting", "split", "test_set", "class"]
    for key, group in frame.groupby(keys, sort=True):
        rows.append(
            {
                **dict(zip(keys, key)),
                "items": len(group),
                "accuracy": float(group["_ok"].mean()),
                "subword_share": float(group["_sw"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=SUBWORD_COLUMNS)
