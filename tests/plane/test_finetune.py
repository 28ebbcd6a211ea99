from __future__ import annotations

import pandas as pd
import pytest

from natcomp import hf
from natcomp.plane.finetune import accuracy_rows, fine_tune_and_test, table6


def test_accuracy_rows_and_table6():
    predictions = pd.DataFrame(
        {
            "test_set": ["own"] * 4,
            "class": ["I", "I", "O", "O"],
            "gold": [1, 1, 0, 1],
            "predicted": [1, 0, 0, 1],
        }
    )
    rows = pd.DataFrame(
        accuracy_rows(predictions, "good", 1) + accuracy_rows(predictions.assign(predicted=1), "good", 2)
    )
    overall = rows[rows["class"] == "all"]
    assert list(overall["accuracy"]) == [0.75, 0.75] and list(overall["chance"]) == [0.75, 0.75]
    assert rows[(rows["class"] == "I") & (rows["split"] == 1)]["accuracy"].item() == 0.5
    table = table6(rows)
    assert table.iloc[0][["setting", "test_set", "splits"]].tolist() == ["good", "own", 2]
    assert table.iloc[0]["accuracy_mean"] == 0.75 and table.iloc[0]["accuracy_sd"] == 0.0


def test_fine_tune_and_test_on_a_tiny_model(tmp_path, small_resource):
    _, items = small_resource
    sample = items.sample(n=96, random_state=1).reset_index(drop=True)
    model = hf.build_tiny_model(
        tmp_path / "base", hf.words_for_vocabulary(list(sample["sentence"])), kind="base", seed=1
    )
    settings = hf.FineTuneSettings(epochs=1, batch_size=16, learning_rate=1e-3, max_length=12, seed=1, device="cpu")
    predictions, result = fine_tune_and_test(str(model), sample.iloc[:64], {"own": sample.iloc[64:]}, settings)
    assert len(predictions) == 32 and set(predictions["predicted"]) <= {0, 1}
    assert len(result.history) == 1


def test_table6_sd_is_the_sample_sd_of_the_split_means():
    """Mean and sample sd (ddof=1) over splits, on two sets of skewed values where mean and
    median, and ddof 1 and 0, differ."""
    for accuracies, mean, sd in (
        ([0.80, 0.90, 0.85], 0.85, 0.05),  # ddof=0 would give 0.0408
        ([0.50, 0.90, 0.91, 0.93], 0.81, 0.2070),  # median 0.905; ddof=0 would give 0.1793
    ):
        rows = pd.DataFrame(
            {
                "setting": "good",
                "split": range(1, len(accuracies) + 1),
                "test_set": "own",
                "class": "all",
                "items": 100,
                "accuracy": accuracies,
                "chance": 0.5,
            }
        )
        table = table6(rows)
        assert table["splits"].item() == len(accuracies)
        assert abs(table["accuracy_mean"].item() - mean) < 1e-9
        assert abs(table["accuracy_sd"].item() - sd) < 1e-4


def test_table6_keeps_released_and_own_rows_apart_with_the_papers_numbers():
    rows = []
    for train_set, accuracies in (("released", [0.9, 0.8]), ("own", [0.6, 0.7])):
        for split, accuracy in enumerate(accuracies, start=1):
            rows.append(
                {
                    "train_set": train_set,
                    "setting": "one_it",
                    "split": split,
                    "test_set": "released" if train_set == "released" else "own",
                    "class": "all",
                    "items": 10,
                    "accuracy": accuracy,
                    "chance": 0.5,
                }
            )
    from natcomp.plane.pipeline import with_paper
    from natcomp.plane.tables import TABLE6_KEYS

    table = with_paper(table6(pd.DataFrame(rows)), "table6_finetune", TABLE6_KEYS)
    assert list(table.columns) == [
        "train_set",
        "setting",
        "test_set",
        "splits",
        "accuracy_mean",
        "paper_accuracy_mean",
        "accuracy_sd",
        "paper_accuracy_sd",
        "chance",
    ]
    table = table.set_index("train_set")
    assert table.loc["released", "accuracy_mean"] == pytest.approx(0.85)
    assert table.loc["own", "accuracy_mean"] == pytest.approx(0.65)
    assert (table.loc["released", "paper_accuracy_mean"], table.loc["released", "paper_accuracy_sd"]) == (0.86, 0.01)
    assert pd.isna(table.loc["own", "paper_accuracy_mean"])


def _wordpiece_with_vocabulary(words):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])}
    tokenizer = Tokenizer(models.WordPiece(vocab=vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]")


def test_subword_share_counts_adjective_noun_and_hypernym():
    """'weapon' (we ##apon), 'fake' (fa ##ke) and 'rifles' (rifle ##s) split; every other
    word is one piece. Each class has items with a split word in only one of the three slots."""
    from natcomp.plane.finetune import splits_into_subwords, subword_table

    tokenizer = _wordpiece_with_vocabulary(
        ["red", "car", "vehicle", "gun", "big", "we", "##apon", "fa", "##ke", "rifle", "##s", "A", "is", "a"]
    )
    assert splits_into_subwords(tokenizer, "weapon") and not splits_into_subwords(tokenizer, "vehicle")
    rows = [
        # class I: 1 of 4 items has a split hypernym; 3 of 4 right
        ("I", "red", "car", "vehicle", 1, 1),
        ("I", "red", "car", "vehicle", 1, 0),
        ("I", "red", "gun", "weapon", 1, 1),
        ("I", "big", "car", "vehicle", 0, 0),
        # class O: split adjective in 1, split noun in 1, of 3 items; 1 of 3 right
        ("O", "fake", "car", "vehicle", 0, 1),
        ("O", "red", "rifles", "gun", 1, 1),
        ("O", "big", "car", "vehicle", 1, 0),
    ]
    predictions = pd.DataFrame(rows, columns=["class", "adj", "noun", "hyp", "gold", "predicted"]).assign(
        train_set="released", setting="good", split=1, test_set="released"
    )
    table = subword_table(predictions, tokenizer).set_index("class")
    assert table.loc["I", "items"] == 4 and table.loc["I", "accuracy"] == 0.75
    assert table.loc["I", "subword_share"] == 0.25
    assert table.loc["O", "accuracy"] == pytest.approx(1 / 3)
    assert table.loc["O", "subword_share"] == pytest.approx(2 / 3)


def test_subword_figure_is_written(tmp_path):
    from natcomp.plane.report import plot_subword_analysis

    table = pd.DataFrame(
        [
            ("released", "good", split, "released", cls, 100, 0.5 + 0.1 * split, 0.1 * split)
            for split in (1, 2, 3)
            for cls in ("I", "S", "O")
        ],
        columns=["train_set", "setting", "split", "test_set", "class", "items", "accuracy", "subword_share"],
    )
    plot_subword_analysis(table, tmp_path / "figure.png")
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_fine_tune_a_causal_lm_on_real_released_rows(tmp_path, shared_plane, kind):
    """Table 6 with a causal LM: transformers' sequence-classification head on a tiny GPT-2
    or Llama (byte-level BPE, no pad token of its own), 1 epoch on 72 rows of released OoD
    test split 1, a prediction for each of the next 36; the subword analysis reads its tokenizer."""
    from natcomp.plane.finetune import subword_table
    from natcomp.plane.released import read_released

    rows = read_released(shared_plane / "OoD_OOV_test_1.tsv")
    train, test = rows.iloc[:72], rows.iloc[72:108]
    model = hf.build_tiny_causal_lm(
        tmp_path / kind, list(rows["sentence"]), kind=kind, vocab_size=300, d_model=32, layers=1, heads=2
    )
    settings = hf.FineTuneSettings(epochs=1, batch_size=16, learning_rate=1e-3, max_length=12, seed=1, device="cpu")
    predictions, result = fine_tune_and_test(str(model), train, {"released": test}, settings)
    assert len(predictions) == 36 and list(predictions["sentence"]) == list(test["sentence"])
    assert set(predictions["predicted"]) <= {0, 1} and len(result.history) == 1
    assert result.model.config.pad_token_id is not None  # the head finds each text's last real token
    table = subword_table(
        predictions.assign(train_set="released", setting="good", split=1), hf.load_tokenizer(str(model))
    )
    assert table["items"].sum() == 36 and table["subword_share"].between(0, 1).all()


def test_a_sentencepiece_word_after_a_space_is_not_counted_as_split():
    """A Llama-2-style tokenizer (SentencePiece: "▁" before the text, spaces as "▁") writes
    " good" as a lone "▁" and "▁good": the word itself is one token ("A good": ▁A ▁good)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from natcomp.plane.finetune import splits_into_subwords

    backend = Tokenizer(models.BPE(unk_token="<unk>"))
    backend.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    backend.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never", split=True)
    backend.train_from_iterator(
        ["A weekly load is a weight", "A good car is a vehicle"] * 50,
        trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False),
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>")
    assert tokenizer.tokenize(" good") == ["▁", "▁good"]
    assert not splits_into_subwords(tokenizer, "good") and not splits_into_subwords(tokenizer, "weight")
    assert splits_into_subwords(tokenizer, "goodweight")
