"""Per-item outcomes behind PLANE's Tables 4, 5, 6 and 8, written by the jobs that make the
tables (``*_items.tsv`` beside each), so that ``natcomp compare`` can pair two models item by
item. An item's id is :func:`natcomp.paired.item_id` of its words (adjective, noun, hypernym,
the sentence or premises shown) and labels: the same for every model run on one config."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["FINETUNE_ITEM_COLUMNS", "PREDICTION_ITEM_COLUMNS", "finetune_items", "prediction_items"]

#: Tables 4, 5 and 8: per model, class and repetition (a prompt cell; empty for NLI) and item,
#: the predicted label (-1: neither) and the gold one
PREDICTION_ITEM_COLUMNS = ("model", "class", "seed", "item", "predicted", "gold")
#: Table 6: per train set, setting, test set, split seed and item, whether it was right
FINETUNE_ITEM_COLUMNS = ("train_set", "setting", "test_set", "split", "class", "item", "correct")


def _ids(frame: pd.DataFrame, content: Sequence[str], within: Sequence[str]) -> list[str]:
    """One id per row from its ``content`` columns; the n-th repeat of the same content
    within a group of ``within`` gets ``~n`` (a triplet may be drawn twice)."""
    from natcomp.paired import item_id

    label = frame["adj"].astype(str) + " " + frame["noun"].astype(str) + " / " + frame["hyp"].astype(str)
    ids = [
        item_id(name, *values) for name, values in zip(label, frame[list(content)].astype(str).itertuples(index=False))
    ]
    keys = frame[list(within)].astype(str).agg("\x1f".join, axis=1) if within else pd.Series("", index=frame.index)
    repeat = pd.Series(ids, index=frame.index).groupby([keys, pd.Series(ids, index=frame.index)]).cumcount()
    return [item if count == 0 else f"{item}~{count + 1}" for item, count in zip(ids, repeat)]


def prediction_items(predictions: pd.DataFrame, cell: Sequence[str], content: Sequence[str]) -> pd.DataFrame:
    """:data:`PREDICTION_ITEM_COLUMNS` of prompting or NLI predictions: ``cell`` the columns
    that make a repetition (Table 4: template and verbaliser; Table 8: template; Table 5: none),
    ``content`` those that make an item."""
    seed = predictions[list(cell)].astype(str).agg("|".join, axis=1) if cell else pd.Series("", index=predictions.index)
    return pd.DataFrame(
        {
            "model": predictions["model"].to_numpy(),
            "class": predictions["class"].to_numpy(),
            "seed": seed.to_numpy(),
            "item": _ids(predictions, content, ["model", *cell]),
            "predicted": predictions["predicted"].astype(int).to_numpy(),
            "gold": predictions["gold"].astype(int).to_numpy(),
        },
        columns=list(PREDICTION_ITEM_COLUMNS),
    )


def finetune_items(predictions: pd.DataFrame) -> pd.DataFrame:
    """:data:`FINETUNE_ITEM_COLUMNS` of the fine-tuning runs' test predictions."""
    if "train_set" not in predictions:
        predictions = predictions.assign(train_set="own")
    content = ["test_set", "class", "it", "adj", "noun", "hyp", "sentence", "gold"]
    within = ["train_set", "setting", "split", "test_set"]
    return pd.DataFrame(
        {
            **{column: predictions[column].to_numpy() for column in ("train_set", "setting", "test_set", "split")},
            "class": predictions["class"].to_numpy(),
            "item": _ids(predictions, content, within),
            "correct": (predictions["predicted"].astype(int) == predictions["gold"].astype(int)).astype(int).to_numpy(),
        },
        columns=list(FINETUNE_ITEM_COLUMNS),
    )
