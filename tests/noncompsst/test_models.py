"""SST-7 files, fine-tuning a tiny model, evaluation of predictions, tables and figure."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from natcomp import hf
from natcomp.errors import ConfigError, InputError
from natcomp.noncompsst.evaluation import (
    chance_phrase_f1,
    evaluate,
    phrase_f1,
    read_predictions,
    round_half_up,
    seed_f1,
)
from natcomp.noncompsst.models import check_models, macro_f1, train_and_predict
from natcomp.noncompsst.ratings import compute_ratings
from natcomp.noncompsst.report import composition_type, maxabs_figure, models_table, top_phrases
from natcomp.noncompsst.sst7 import MATCH_MODES, StimulusFilter, build_sst7, read_sst7, use_released, write_sst7
from natcomp.noncompsst.stimuli import Phrase
from natcomp.sst import parse_sst_tree, sentiment_nodes


def test_sst7_unrolls_train_and_removes_stimulus_sentences(tmp_path):
    trees = {
        "train": [parse_sst_tree("(3 (2 (2 The) (2 plot)) (4 (2 is) (4 great)))"), parse_sst_tree("(1 (2 a) (1 dud))")],
        "dev": [parse_sst_tree("(3 (2 (2 the) (2 plot)) (2 works))"), parse_sst_tree("(2 (2 so) (2 so))")],
        "test": [parse_sst_tree("(4 (2 very) (4 good))")],
    }
    values = {
        "The plot is great": 0.9,
        "The plot": 0.5,
        "is great": 0.8,
        "The": 0.5,
        "plot": 0.5,
        "is": 0.5,
        "great": 0.85,
        "a dud": 0.1,
        "a": 0.5,
        "dud": 0.15,
        "the plot works": 0.6,
        "so so": 0.45,
        "very good": 1.0,
    }
    excluded = StimulusFilter([Phrase("THE PLOT", "the plot", "x", "x", ("nothing",), ("y",))])
    built = build_sst7(trees, lambda tokens: values.get(" ".join(tokens)), excluded)
    assert dict(built["train"]) == {"a dud": 0, "a": 3, "dud": 1}
    assert built["validation"] == [("so so", 3)]
    assert built["test"] == [("very good", 6)]
    path = tmp_path / "train.tsv"
    write_sst7(path, built["train"])
    assert read_sst7(path) == built["train"]


def test_released_sst7_files_read(shared_data):
    test = read_sst7(shared_data / "noncompsst" / "sst7" / "test.tsv")
    assert len(test) == 1975
    assert [sum(1 for _, label in test if label == k) for k in range(7)] == [102, 413, 352, 267, 256, 403, 182]


def _found(control: str, sentence: str, match: str = "lemmas") -> bool:
    return StimulusFilter([Phrase("x", "x", "y", "y", (control,), ())], match=match).found_in(sentence.split())


@pytest.mark.parametrize(
    "control, sentence",
    [
        ("the actor", "The actors are appealing ."),  # edited to the singular; sentence-initial capital
        ("decent glimpses", "It 's a decent glimpse into a time period"),  # edited to the plural
        ("of this film", "the most comprehensive of these films and"),  # two words edited
        ("are certainly not earthshaking", "the scenario is certainly not earthshaking ,"),  # is/are
        ("young women", "from awkward young woman to strong"),  # irregular plural
        ("significant character studies", "develops into a significant character study that"),
        ("make you nervous", "a film that makes you nervous"),  # verb agreement
        ("the film's message", "the film 's messages are clear"),  # clean form, tokenised SST-style
        ("ghost stories", "film is a ghost story , an account"),
    ],
)
def test_edited_controls_are_found_by_their_lemmas_not_by_their_tokens(control, sentence):
    assert _found(control, sentence)
    assert not _found(control, sentence, match="tokens")


@pytest.mark.parametrize(
    "control, sentence",
    [
        ("a teen movie", "As teen movies go , Orange County is a refreshing change"),  # as != a
        ("ghost stories", "Half Submarine flick , Half Ghost Story , All in one"),  # a proper noun
        ("the actor", "she trained at The Actors Studio in New York"),  # capitalised inside: a name
    ],
)
def test_lemmas_do_not_match_other_words_or_proper_nouns(control, sentence):
    assert not _found(control, sentence)


def test_lemmas_of_closed_class_words_and_wordnet_nouns_and_verbs():
    from natcomp.noncompsst.sst7 import lemma

    words = ("am", "is", "are", "was", "were", "has", "does", "these", "those", "men")
    assert [lemma(w) for w in words] == ["be", "be", "be", "be", "be", "have", "do", "this", "that", "man"]
    # noun before verb: "leaves" is the plural of "leaf" before it is "leave"; "as" stays "as"
    assert [lemma(w) for w in ("actors", "stories", "women", "needs", "leaves", "as", "its", "'s")] == [
        "actor", "story", "woman", "need", "leaf", "as", "it", "'s"
    ]  # fmt: skip


def test_unknown_stimulus_match_is_refused():
    with pytest.raises(ValueError, match="unknown stimulus match 'stems'"):
        StimulusFilter([], match="stems")


# The released test file lacks three sentences that no released subphrase explains, in
# tokens, lemmas or number variants (docs/noncompsst.md, SST-7); everything else agrees.
RELEASE_REMOVES_BUT_RULE_KEEPS = {
    "validation": [],
    "test": [
        "Eastwood is an icon of moviemaking , one of the best actors , directors and producers around , "
        "responsible for some excellent work .",
        "Every good actor needs to do his or her own Hamlet .",
        "The inherent strength of the material as well as the integrity of the filmmakers gives this coming-of-age "
        "story restraint as well as warmth .",
    ],
}


def test_sst7_removal_on_the_real_trees_reproduces_the_released_sentences(shared_data):
    """The real dev/test trees minus the sentences with a released Study 2 subphrase (matched on
    lemmas) give the released validation.tsv sentence for sentence and test.tsv up to the three
    listed sentences (duplicates kept, order kept); labels aside (no sentiment_labels.txt in
    ../shared/data: every value 0.5)."""
    from natcomp.noncompsst.stimuli import read_stimuli
    from natcomp.sst import read_ptb_trees

    trees = {split: read_ptb_trees(shared_data / "sst" / f"{split}.txt") for split in ("dev", "test")}
    trees["train"] = []
    phrases = read_stimuli(shared_data / "noncompsst" / "stimuli_study2.tsv")
    built = build_sst7(trees, lambda tokens: 0.5, StimulusFilter(phrases))
    counts = {}
    for name, released_rows in (("validation", 971), ("test", 1975)):
        released = [text for text, _ in read_sst7(shared_data / "noncompsst" / "sst7" / f"{name}.tsv")]
        assert len(released) == released_rows
        ours = [text for text, _ in built[name]]
        assert [t for t in ours if t not in RELEASE_REMOVES_BUT_RULE_KEEPS[name]] == released
        assert sorted(set(ours) - set(released)) == sorted(RELEASE_REMOVES_BUT_RULE_KEEPS[name])
        counts[name] = len(ours)
    assert counts == {"validation": 971, "test": 1978}
    # on plain tokens the rule keeps 26 sentences more (979 / 1,993 rows)
    exact = build_sst7(trees, lambda tokens: 0.5, StimulusFilter(phrases, match="tokens"))
    assert (len(exact["validation"]), len(exact["test"])) == (979, 1993)
    # the training sentences removed (docs/noncompsst.md; the released train.tsv is not here);
    # the controls "of its characters' lives" and "of the girls' environment" are SST nodes
    # ("characters ' lives") of train lines 214 and 877, found since they are tokenised as SST
    train = [sentiment_nodes(tree)[0] for tree in read_ptb_trees(shared_data / "sst" / "train.txt")]
    filters = {match: StimulusFilter(phrases, match=match) for match in MATCH_MODES}
    removed = {match: sum(map(found.found_in, train)) for match, found in filters.items()}
    assert (len(train), removed) == (8544, {"lemmas": 877, "tokens": 829})


def test_released_splits_replace_the_rebuilt_ones_on_the_real_release(shared_data, caplog):
    """sst7.evaluation_splits released (the paper config): the released validation/test rows are
    written as they are, and the log names how the rebuilt splits differ from them."""
    import logging

    from natcomp.noncompsst.stimuli import read_stimuli
    from natcomp.sst import read_ptb_trees

    trees = {split: read_ptb_trees(shared_data / "sst" / f"{split}.txt") for split in ("dev", "test")}
    trees["train"] = []
    excluded = StimulusFilter(read_stimuli(shared_data / "noncompsst" / "stimuli_study2.tsv"))
    built = build_sst7(trees, lambda tokens: 0.5, excluded)
    logger = logging.getLogger("test.sst7.released")
    with caplog.at_level(logging.INFO, logger=logger.name):
        for name in ("validation", "test"):
            path = shared_data / "noncompsst" / "sst7" / f"{name}.tsv"
            assert use_released(name, built[name], read_sst7(path), path, logger=logger) == read_sst7(path)
    text = caplog.text
    assert "validation: the released 971 rows are used; 0 sentences only in the release, 0 only rebuilt" in text
    assert "test: the released 1975 rows are used; 0 sentences only in the release, 3 only rebuilt" in text
    assert "only rebuilt: Every good actor needs to do his or her own Hamlet ." in text
    # the stand-in value 0.5 is label 3: every shared sentence of another label is counted
    released_test = read_sst7(shared_data / "noncompsst" / "sst7" / "test.tsv")
    assert f"{sum(label != 3 for _, label in released_test)} shared sentences labelled differently" in text


def test_a_released_file_of_another_split_is_refused(shared_data):
    from natcomp.sst import read_ptb_trees

    trees = {"train": [], "dev": read_ptb_trees(shared_data / "sst" / "dev.txt"), "test": []}
    built = build_sst7(trees, lambda tokens: 0.5)
    path = shared_data / "noncompsst" / "sst7" / "test.tsv"
    with pytest.raises(InputError, match=r"test\.tsv: expected the released SST-7 validation split: only 0 of its"):
        use_released("validation", built["validation"], read_sst7(path), path)


def test_released_split_needs_nine_in_ten_sentences_rebuilt():
    rebuilt = [(f"s{i}", 3) for i in range(10)]
    nine = [(f"s{i}", 3) for i in range(9)] + [("other", 2)]
    assert use_released("test", rebuilt, nine, "test.tsv") == nine
    eight = [(f"s{i}", 3) for i in range(8)] + [("other", 2), ("another", 1)]
    with pytest.raises(InputError, match="only 8 of its 10 sentences are sentences of SST's test trees"):
        use_released("test", rebuilt, eight, "test.tsv")


def test_released_evaluation_splits_need_their_downloads():
    import yaml

    from natcomp.configcheck import check_config

    repo = Path(__file__).resolve().parents[2]
    schema = yaml.safe_load((repo / "config" / "schema" / "noncompsst.yaml").read_text(encoding="utf-8"))
    paper = yaml.safe_load((repo / "config" / "paper.yaml").read_text(encoding="utf-8"))["noncompsst"]
    assert paper["sst7"]["evaluation_splits"] == "released"
    check_config(paper, schema, "noncompsst")
    del paper["downloads"]["sst7_test"]
    with pytest.raises(ConfigError, match="noncompsst.downloads.sst7_test: missing"):
        check_config(paper, schema, "noncompsst")
    paper["sst7"]["evaluation_splits"] = "rebuilt"
    check_config(paper, schema, "noncompsst")


def test_only_the_demo_tiny_model_gets_its_own_training():
    from natcomp.noncompsst.pipeline import model_training

    section = {
        "training": {"epochs": 5, "learning_rate": 5e-6, "batch_size": 32, "seeds": [1, 2]},
        "demo": {"tiny_model": {"hidden_size": 64, "training": {"epochs": 25, "learning_rate": 3e-3}}},
    }
    tiny = model_training(section, "results/noncompsst/demo/tiny_model")
    assert tiny == {"epochs": 25, "learning_rate": 3e-3, "batch_size": 32, "seeds": [1, 2]}
    assert model_training(section, "all-MiniLM-L6-v2") == section["training"]
    assert section["training"]["epochs"] == 5, "the family's settings are not changed in place"
    assert model_training({"training": {"epochs": 5}}, "results/noncompsst/demo/tiny_model") == {"epochs": 5}


def test_demo_config_trains_pretrained_models_as_appendix_d_and_the_tiny_bert_its_own_way():
    import yaml

    from natcomp.noncompsst.pipeline import model_training

    repo = Path(__file__).resolve().parents[2]
    demo = yaml.safe_load((repo / "config" / "config.yaml").read_text(encoding="utf-8"))["noncompsst"]
    keys = ("epochs", "batch_size", "learning_rate", "warmup_ratio", "scheduler")
    pretrained = model_training(demo, "all-MiniLM-L6-v2")
    assert tuple(pretrained[k] for k in keys) == (5, 32, 5e-6, 0.2, "cosine")
    tiny = model_training(demo, demo["models"]["tiny"])
    # its own epochs and learning rate (docs/design/noncompsst.md, "Demo training"), appendix D's rest
    assert tuple(tiny[k] for k in keys) == (8, 32, 3e-3, 0.2, "cosine") and tiny["max_length"] == 64


def test_unknown_model_fails_before_any_training(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="noncompsst.models.mystery"):
        check_models({"mystery": "no-such-org/no-such-model-xyz"})


@pytest.fixture(scope="module")
def tiny_setup(tmp_path_factory):
    import torch

    # one thread: torch's default of one per core spins idle threads when tests share cores
    torch.set_num_threads(1)
    words = ["good", "great", "fine", "bad", "awful", "poor", "film", "plot", "the", "is", "not"]
    positive, negative = ["good", "great", "fine"], ["bad", "awful", "poor"]
    train = [
        (f"the {noun} is {w}", 6 if w in positive else 0) for w in positive + negative for noun in ("film", "plot")
    ] * 4
    train += [(w, 6 if w in positive else 0) for w in positive + negative] * 8
    sst7 = {"train": train, "validation": train[:12], "test": train[:12]}
    path = hf.build_tiny_model(
        tmp_path_factory.mktemp("tiny") / "model",
        words,
        kind="sequence_classification",
        num_labels=7,
        hidden_size=32,
        layers=2,
        heads=2,
    )
    return path, sst7


def test_tiny_model_learns_sst7_and_predicts_stimuli(tiny_setup):
    path, sst7 = tiny_setup
    settings = hf.FineTuneSettings(
        epochs=20,
        batch_size=8,
        learning_rate=3e-3,
        warmup_ratio=0.1,
        scheduler="cosine",
        seed=1,
        select_best=True,
        device="cpu",
    )
    result = train_and_predict(str(path), sst7, ["The Film Is Great", "the plot is awful"], settings)
    assert result.test_f1 > 0.5
    assert result.stimulus_predictions == [6, 0]
    again = train_and_predict(str(path), sst7, ["The Film Is Great", "the plot is awful"], settings)
    assert again.history == result.history


def test_every_model_gets_a_fresh_cls_mlp_head_and_no_checkpoint_head_survives(tmp_path):
    """A sentiment-fine-tuned RoBERTa-style checkpoint: its classifier.dense and out_proj are not loaded."""
    import torch
    from transformers import RobertaConfig, RobertaForSequenceClassification

    from natcomp.noncompsst.head import SentimentHeadClassifier, load_sentiment_head_classifier

    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=50, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, num_labels=7
    )
    checkpoint = RobertaForSequenceClassification(config).eval()
    checkpoint.save_pretrained(tmp_path / "sentiment-roberta")
    saved = checkpoint.state_dict()
    head_keys = [k for k in saved if k.startswith("classifier.")]
    assert {"classifier.dense.weight", "classifier.out_proj.weight"} <= set(head_keys)

    model = load_sentiment_head_classifier(str(tmp_path / "sentiment-roberta"), 7, seed=1)
    assert isinstance(model, SentimentHeadClassifier)
    ours = model.state_dict()
    assert not any("classifier" in k for k in ours)
    old_head = [saved[k] for k in head_keys]
    for tensor in model.head.state_dict().values():
        assert not any(tensor.shape == t.shape and torch.equal(tensor, t) for t in old_head)
    old_weights = [saved["classifier.dense.weight"], saved["classifier.out_proj.weight"]]
    for tensor in ours.values():  # no trained head matrix anywhere (biases start at 0 everywhere)
        assert not any(tensor.shape == t.shape and torch.equal(tensor, t) for t in old_weights)
    # the encoder is the checkpoint's
    assert torch.equal(
        ours["encoder.embeddings.word_embeddings.weight"], saved["roberta.embeddings.word_embeddings.weight"]
    )
    # the released head: Linear(h, 100), dropout 0.1, ReLU, Linear(100, 7)
    first, dropout, relu, last = model.head
    assert (first.in_features, first.out_features, last.in_features, last.out_features) == (32, 100, 100, 7)
    assert dropout.p == 0.1 and isinstance(relu, torch.nn.ReLU)
    # the head is seeded
    again = load_sentiment_head_classifier(str(tmp_path / "sentiment-roberta"), 7, seed=1)
    assert torch.equal(again.head[0].weight, first.weight)
    # loss = NLL of the log-softmax of the logits
    model.train(False)
    with torch.no_grad():
        output = model(torch.tensor([[0, 5, 6, 2]]), torch.ones(1, 4, dtype=torch.long), labels=torch.tensor([3]))
        expected = -torch.log_softmax(output["logits"], dim=-1)[0, 3]
    assert float(output["loss"]) == pytest.approx(float(expected), rel=1e-6)
    # the head reads the first (CLS) token's final state, not a pooled one
    assert model.pooling == "cls"
    with torch.no_grad():
        ids = torch.tensor([[0, 5, 6, 2]])
        states = model.encoder(input_ids=ids).last_hidden_state
        assert not torch.allclose(model.head(states[:, 0]), model.head(states.mean(dim=1)))
        assert torch.allclose(model(ids)["logits"], model.head(states[:, 0]))


def test_gradient_clipping_is_off_unless_configured():
    from natcomp.noncompsst.pipeline import fine_tune_settings

    training = {"epochs": 5, "batch_size": 32, "learning_rate": 5e-6, "warmup_ratio": 0.2, "seeds": [1]}
    settings = fine_tune_settings(training, seed=2)
    assert settings.gradient_clip is None and settings.warmup_ratio == 0.2 and settings.select_best
    assert settings.seed == 2
    assert fine_tune_settings({**training, "gradient_clip": 1.0}, seed=2).gradient_clip == 1.0


def test_macro_f1():
    assert macro_f1([0, 1, 1], [0, 1, 1]) == 1.0
    assert macro_f1([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.5)


def test_macro_f1_weighs_every_class_alike_whatever_its_support():
    """Unequal supports (4 of class 0, 2 of class 1): per-class F1 8/9 and 2/3, so macro 7/9,
    while support-weighted would give 22/27 and micro (accuracy) 5/6."""
    gold, guess = [0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]
    assert macro_f1(gold, guess) == pytest.approx(7 / 9)
    assert macro_f1(gold, guess) != pytest.approx(22 / 27) and macro_f1(gold, guess) != pytest.approx(5 / 6)


def _phrases_and_human():
    phrases = [
        Phrase(
            f"a{i} x", f"a{i} x", f"b{i} y", f"b{i} y", (f"c{i}1", f"c{i}2", f"c{i}3"), (f"d{i}1", f"d{i}2", f"d{i}3")
        )
        for i in range(6)
    ]
    human = {}
    for i, p in enumerate(phrases):
        human[p.natural] = float(i)
        for s in p.control_stimuli("left") + p.control_stimuli("right"):
            human[s] = 3.0
    return phrases, human


def test_evaluate_perfect_and_flipped_systems():
    phrases, human = _phrases_and_human()
    ratings = compute_ratings(phrases, human)
    scores, model_ratings = evaluate(phrases, human, ratings, human_sentiment=human, top_k=3)
    assert scores["r_MAX"] == pytest.approx(1.0) and scores["r_ALL"] == pytest.approx(1.0)
    assert scores["f1_all"] == 1.0 and scores["f1_top3"] == 1.0
    flipped = {s: 6.0 - v for s, v in human.items()}
    scores, _ = evaluate(phrases, flipped, ratings, human_sentiment=human, top_k=3)
    assert scores["r_MAX"] == pytest.approx(-1.0)


def _ranked_phrases():
    """Six phrases; human MAXABS (by hand) 0.5, 3.0, 1.0, 2.5, 0.2, 2.0: the top 3 are p1, p3, p5."""
    phrases = [Phrase(f"p{i}", f"p{i}", "x", "x", (f"l{i}",), (f"r{i}",)) for i in range(6)]
    maxabs = [0.5, 3.0, 1.0, 2.5, 0.2, 2.0]
    human = pd.DataFrame({"phrase": [p.natural for p in phrases], "variant": "MAXABS", "side": "max", "rating": maxabs})
    gold = dict(zip((p.natural for p in phrases), [0.0, 6.0, 6.0, 0.0, 3.0, 3.0]))
    controls = {s: 3.0 for p in phrases for s in p.control_stimuli("left") + p.control_stimuli("right")}
    return phrases, human, gold, controls


def test_top_k_f1_takes_the_k_highest_maxabs_phrases():
    """A system right on p1, p3 and wrong on p5 (third) and on every low-MAXABS phrase."""
    phrases, human, gold, controls = _ranked_phrases()
    predicted = dict(zip(gold, [6.0, 6.0, 0.0, 0.0, 0.0, 0.0]))
    scores, _ = evaluate(phrases, {**controls, **predicted}, human, human_sentiment=gold, top_k=3)
    # top 3 = p1, p3, p5: gold 6, 0, 3, predicted 6, 0, 0: F1 per class 1, 2/3, 0
    assert scores["f1_top3"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert scores["f1_top3"] == pytest.approx(macro_f1([6, 0, 3], [6, 0, 0]))
    # the lowest three (p4, p0, p2) would give 1/3: gold 3, 0, 6, predicted 0, 6, 0
    assert macro_f1([3, 0, 6], [0, 6, 0]) == 0
    right_on_top = dict(zip(gold, [6.0, 6.0, 0.0, 0.0, 0.0, 3.0]))
    scores, _ = evaluate(phrases, {**controls, **right_on_top}, human, human_sentiment=gold, top_k=3)
    assert scores["f1_top3"] == 1.0 and scores["f1_all"] < 1.0


def test_per_seed_f1_is_the_mean_and_sd_of_each_seeds_f1():
    phrases, human, gold, controls = _ranked_phrases()
    right = {**controls, **gold}
    wrong = {**controls, **{n: 6.0 - v for n, v in gold.items()}}
    scores = seed_f1(phrases, [right, wrong], human, gold, top_k=3)
    wrong_f1 = macro_f1([0, 6, 6, 0, 3, 3], [6, 0, 0, 6, 3, 3])
    assert scores["f1_all"] == pytest.approx((1.0 + wrong_f1) / 2)
    assert scores["f1_all_sd"] == pytest.approx(abs(1.0 - wrong_f1) / math.sqrt(2))
    # the seed-averaged classes (all 3) give another number
    averaged, _ = evaluate(phrases, {s: 3.0 for s in right}, human, human_sentiment=gold, top_k=3)
    assert averaged["f1_all"] == pytest.approx(macro_f1([0, 6, 6, 0, 3, 3], [3] * 6))
    assert averaged["f1_all"] != pytest.approx(scores["f1_all"])
    single = seed_f1(phrases, [right], human, gold, top_k=3)
    assert single["f1_all"] == 1.0 and math.isnan(single["f1_all_sd"])


def test_left_and_right_ratings_are_joined_side_by_side():
    """Left and right controls differ, so crossing the sides in the merge breaks r = 1."""
    phrases = [Phrase(f"p{i}", f"p{i}", "x", "x", (f"l{i}",), (f"r{i}",)) for i in range(6)]
    values = {}
    for i, p in enumerate(phrases):
        values[p.natural] = float(i)
        values[p.control_stimuli("left")[0]] = 3.0
        values[p.control_stimuli("right")[0]] = float((2 * i) % 5)
    human = compute_ratings(phrases, values)
    sides = human[human["variant"] == "ALL"].pivot(index="phrase", columns="side", values="rating")
    assert (sides["left"] != sides["right"]).sum() >= 4
    scores, _ = evaluate(phrases, values, human)
    assert scores["r_ALL"] == pytest.approx(1.0) and scores["r_ALLABS"] == pytest.approx(1.0)
    assert scores["n_ALL"] == 12


def test_evaluate_against_released_maxabs_only_scores_maxabs():
    phrases, human = _phrases_and_human()
    released = compute_ratings(phrases, human, variants=("MAXABS",))
    scores, _ = evaluate(phrases, human, released, human_sentiment=None)
    assert scores["r_MAXABS"] == pytest.approx(1.0)
    assert math.isnan(scores["r_ALL"]) and math.isnan(scores["f1_all"])


def test_predictions_missing_a_stimulus_name_the_file(tmp_path):
    phrases, human = _phrases_and_human()
    path = tmp_path / "P.tsv"
    rows = [f"{s}\t{v}" for s, v in human.items() if s != phrases[2].control_stimuli("right")[0]]
    path.write_text("stimulus\tprediction\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="P.tsv: no sentiment for the stimulus 'a2 x d21'"):
        evaluate(phrases, read_predictions(path), compute_ratings(phrases, human), predictions_source=path)
    path.write_text("stimulus\tprediction\nx\t1\nx\t2\ny\t9\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 4.*0-6"):
        read_predictions(path)
    path.write_text("stimulus\tprediction\nx\t1\nx\t2\n", encoding="utf-8")
    assert read_predictions(path) == {"x": 1.5}


def test_round_half_up():
    assert [round_half_up(v) for v in (0.5, 1.5, 2.49, 3 + 1 / 3)] == [1, 2, 2, 3]


def test_phrase_f1_rounds_gold_and_guess_half_up():
    """Human sentiment comes in thirds (4.67 is class 5, not 4 as truncation gives) and a
    mean can end in .5 (2.5 and 0.5 are classes 3 and 1; Python's round gives 2 and 0)."""
    phrases = [Phrase(f"p{i}", f"p{i}", "x", "x", (f"l{i}",), (f"r{i}",)) for i in range(5)]
    naturals = [p.natural for p in phrases]
    human = pd.DataFrame({"phrase": naturals, "variant": "MAXABS", "side": "max", "rating": [1.0] * 5})
    unrounded = dict(zip(naturals, [4 + 2 / 3, 2.5, 0.5, 1 / 3, 3 + 1 / 3]))
    classes = dict(zip(naturals, [5.0, 3.0, 1.0, 0.0, 3.0]))
    # gold unrounded, guess whole classes; then the other way round: half up, both agree
    assert phrase_f1(phrases, classes, human, unrounded, top_k=5) == (1.0, 1.0)
    assert phrase_f1(phrases, unrounded, human, classes, top_k=5) == (1.0, 1.0)


def test_chance_f1_is_the_best_constant_class_on_the_same_gold_classes():
    """Gold classes 0, 0, 0, 1, 2 (unequal): answering 0 everywhere gives F1 0.75 on class 0
    and 0 on the two others, macro 0.25; answering 1 gives 1/9. The top 2 by MAXABS hold
    classes 1 and 2 only: the best constant scores (2/3) / 2 = 1/3 there."""
    phrases = [Phrase(f"p{i}", f"p{i}", "x", "x", (f"l{i}",), (f"r{i}",)) for i in range(5)]
    naturals = [p.natural for p in phrases]
    maxabs = [0.1, 0.2, 0.3, 2.0, 1.5]
    human = pd.DataFrame({"phrase": naturals, "variant": "MAXABS", "side": "max", "rating": maxabs})
    sentiment = dict(zip(naturals, [0.0, 0.4, 1 / 3, 1.0, 2.0]))
    chance_all, chance_top = chance_phrase_f1(phrases, human, sentiment, top_k=2)
    assert chance_all == pytest.approx(0.25) and chance_top == pytest.approx(1 / 3)
    assert all(math.isnan(value) for value in chance_phrase_f1(phrases, human, None, top_k=2))


def test_tables_and_figure(tmp_path):
    phrases, human = _phrases_and_human()
    ratings = compute_ratings(phrases, human)
    table = models_table([{"model": "m", "sst7_f1": 0.4, "r_MAX": 0.3}], top_k=67)
    assert list(table.columns)[-5:-2] == ["f1_top67", "f1_top67_sd", "f1_top67_chance"]
    assert math.isnan(table["r_ALL"][0])
    top = top_phrases(phrases, ratings, human, n=2)
    assert list(top["subphrase_a"]) == ["a0 x", "a5 x"] or list(top["max_rating"].abs()) == sorted(
        top["max_rating"].abs(), reverse=True
    )
    assert composition_type(1.0, 5.0) == "- +" and composition_type(3.2, 2.0) == "~ -"
    sentiments = {p.left_clean: 1.0 for p in phrases} | {p.right_clean: 5.0 for p in phrases}
    data = maxabs_figure(phrases, ratings, sentiments, tmp_path / "figure.png")
    assert len(data) == 6 and (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"


def test_the_models_table_counts_the_seeds_and_the_phrases_r_is_over():
    """The profile's n (seeds) and r's Fisher-z interval (phrases) are read from these columns."""
    rows = [
        {"model": "a", "r_MAXABS": 0.3, "seeds": 3.0, "n_MAXABS": 259.0},
        {"model": "b", "r_MAXABS": 0.1, "seeds": 2.0, "n_MAXABS": 40.0},
    ]
    table = models_table(rows, top_k=40)
    assert list(table.columns)[-2:] == ["seeds", "n_MAXABS"]
    assert table["seeds"].tolist() == [3, 2] and table["n_MAXABS"].tolist() == [259, 40]
    assert str(table["seeds"].dtype) == "Int64", "written as whole numbers"


def test_top_phrases_name_the_sentiment_model_and_say_when_only_maxabs_exists():
    from natcomp.noncompsst.pipeline import sentiment_model_key

    phrases, human = _phrases_and_human()
    full = compute_ratings(phrases, human)
    top = top_phrases(phrases, full, human, {p.natural: 2.0 for p in phrases}, n=3, model="roberta-large")
    assert list(top.columns) == [
        "subphrase_a",
        "subphrase_b",
        "max_rating",
        "human_sentiment",
        "model",
        "model_sentiment",
    ]
    assert set(top["model"]) == {"roberta-large"}
    # phrases 0, 1, 5 (MAXABS 3, 2, 2; stable order): MAX signed, not MAXABS
    assert list(top["subphrase_a"]) == ["a0 x", "a1 x", "a5 x"]
    assert list(top["max_rating"]) == [-3.0, -2.0, 2.0]
    released = compute_ratings(phrases, human, variants=("MAXABS",))
    only = top_phrases(phrases, released, human, n=3, model="roberta-large")
    assert "max_rating" not in only and list(only["maxabs_rating"]) == [3.0, 2.0, 2.0]

    paper = {"models": {"roberta-base": "roberta-base", "roberta-large": "roberta-large"}}
    assert sentiment_model_key({**paper, "tables": {"sentiment_model": "roberta-large"}}) == "roberta-large"
    assert sentiment_model_key({**paper, "tables": {"sentiment_model": None}}) == "roberta-base"
    with pytest.raises(ConfigError, match="noncompsst.tables.sentiment_model.*'roberta-xl'"):
        sentiment_model_key({**paper, "tables": {"sentiment_model": "roberta-xl"}})


def test_figures_6_and_7_by_length_and_category(tmp_path):
    from natcomp.noncompsst.report import category_combination, factor_figure, length_combination

    phrases = [
        Phrase("a b c", "a b c", "d e f g", "d e f g", ("x",), ("y",)),
        Phrase("h i j", "h i j", "k l m", "k l m", ("x2",), ("y2",)),
    ]
    values = {
        "a b c d e f g": 5.0,
        "x d e f g": 3.0,
        "a b c y": 1.0,
        "h i j k l m": 2.0,
        "x2 k l m": 3.0,
        "h i j y2": 2.0,
    }
    ratings = compute_ratings(phrases, values)
    assert [length_combination(p) for p in phrases] == ["3+4", "3+3"]
    data = factor_figure(ratings, {p.natural: length_combination(p) for p in phrases}, tmp_path / "len.png", label="t")
    assert (tmp_path / "len.png").read_bytes()[:4] == b"\x89PNG"
    maxabs = data[data["variant"] == "MAXABS"].set_index("factor")["rating"]
    assert maxabs["3+4"] == pytest.approx(4.0) and maxabs["3+3"] == pytest.approx(1.0)
    abs_rows = data[data["variant"] == "ABS"]
    assert sorted(abs_rows[abs_rows["factor"] == "3+4"]["rating"]) == pytest.approx([2.0, 4.0])
    candidates = pd.DataFrame(
        {
            "left": ["a b c", "h i j"],
            "right": ["d e f g", "k l m"],
            "left_type": ["NP", ""],
            "right_type": ["VP", ""],
        }
    )
    categories = category_combination(phrases, candidates)
    assert categories == {"a b c d e f g": "NP+VP"}
    empty = factor_figure(ratings, {}, tmp_path / "cat.png", label="c", note="no phrase types")
    assert empty.empty and (tmp_path / "cat.png").read_bytes()[:4] == b"\x89PNG"


def test_figure_5_stimulus_means_and_sample_sd(tmp_path):
    from natcomp.noncompsst.annotation import item_means
    from natcomp.noncompsst.report import stimulus_figure
    from natcomp.noncompsst.studies import Study

    study = Study("s", {"i1": ("one", "one", ""), "i2": ("two", "two", "")}, {}, [["i1", "i2"]])
    responses = pd.DataFrame(
        [
            {"participant": p, "list": 1, "item": item, "rating": r, "ungrammatical": False}
            for item, ratings in (("i1", (0, 0, 3)), ("i2", (4, 4, 4)))
            for p, r in zip("abc", ratings)
        ]
    )
    exclusion = pd.DataFrame({"participant": list("abc"), "excluded": [False] * 3})
    means = item_means(responses, exclusion, study).set_index("item")
    assert means.loc["i1", "mean"] == pytest.approx(1.0) and means.loc["i1", "sd"] == pytest.approx(math.sqrt(3))
    assert means.loc["i2", "sd"] == 0
    data = stimulus_figure({"study2": means.reset_index()}, tmp_path / "fig5.png")
    assert len(data) == 2 and (tmp_path / "fig5.png").read_bytes()[:4] == b"\x89PNG"


def test_model_ratings_come_from_the_seed_mean_predictions(tmp_path):
    """Section 5: "we average sentiment predictions from the three model seeds and apply the
    same postprocessing". Two seeds that disagree (natural, left control, right control):
    p0 (6, 0, 6) and (0, 0, 6): mean (3, 0, 6), MAXABS 3, while each seed alone has 6;
    p3 (5, 1, 5) and (1, 1, 5): mean MAXABS 2, each seed 4. The human MAXABS are the
    seed-mean ones, so only mean-then-rate gives r = 1 (rating each seed and averaging, or
    taking one seed, gives 6, 0, 2, 4)."""
    from natcomp.noncompsst.evaluation import write_predictions
    from natcomp.noncompsst.pipeline import run_evaluation
    from natcomp.noncompsst.ratings import write_ratings
    from natcomp.noncompsst.stimuli import write_stimuli

    phrases = [Phrase(f"a{i}", f"a{i}", f"b{i}", f"b{i}", (f"l{i}",), (f"r{i}",)) for i in range(4)]
    seeds = {
        1: [(6, 0, 6), (3, 3, 3), (4, 2, 4), (5, 1, 5)],
        2: [(0, 0, 6), (3, 3, 3), (4, 2, 4), (1, 1, 5)],
    }
    prediction_paths, metric_paths = [], []
    for seed, classes in seeds.items():
        rows = [
            {"stimulus": stimulus, "prediction": value, "seed": seed}
            for p, values in zip(phrases, classes)
            for stimulus, value in zip(p.stimuli(), values)
        ]
        prediction_paths.append(tmp_path / f"seed{seed}.tsv")
        write_predictions(prediction_paths[-1], rows)
        metric_paths.append(tmp_path / f"seed{seed}.json")
        metric_paths[-1].write_text('{"sst7_test_macro_f1": 0.5}', encoding="utf-8")
    human = pd.DataFrame(
        {"phrase": [p.natural for p in phrases], "variant": "MAXABS", "side": "max", "rating": [3.0, 0.0, 2.0, 2.0]}
    )
    write_ratings(tmp_path / "human.tsv", human)
    write_stimuli(tmp_path / "stimuli.tsv", phrases)
    row = run_evaluation(
        "m",
        prediction_paths,
        metric_paths,
        tmp_path / "stimuli.tsv",
        tmp_path / "human.tsv",
        tmp_path / "out.tsv",
        top_k=2,
    )
    assert row["r_MAXABS"] == pytest.approx(1.0)
    assert row["seeds"] == 2
    # the other orders would be read as a worse model
    assert np.corrcoef([3.0, 0.0, 2.0, 2.0], [6.0, 0.0, 2.0, 4.0])[0, 1] < 0.95


def test_stimuli_reach_the_model_tokenised_like_sst7_and_lower_cased(tmp_path, monkeypatch):
    """SST-7's text is SST's tokens ("The movie 's messages", "does n't"): a stimulus in
    clean form ("the movie's messages") goes to the model tokenised the same way, lower case
    as the released code; predictions stay keyed by the clean form (the ratings' key)."""
    import json

    from natcomp.noncompsst import models
    from natcomp.noncompsst.evaluation import read_predictions
    from natcomp.noncompsst.pipeline import run_training
    from natcomp.noncompsst.stimuli import write_stimuli

    seen = []

    def fake_train_and_predict(model, sst7, stimuli, settings, *, logger):
        seen.extend(stimuli)
        return models.SeedResult(settings.seed, 0.5, 1, [], [3] * len(stimuli), 0.0)

    monkeypatch.setattr(models, "train_and_predict", fake_train_and_predict)
    phrase = Phrase(
        "The movie 's messages",
        "the movie's messages",
        "do n't work",
        "don't work",
        ("the Characters' moves",),
        ("is (sort of) fine",),
    )
    write_stimuli(tmp_path / "stimuli.tsv", [phrase])
    training = {"epochs": 1, "batch_size": 2, "learning_rate": 1e-3}
    sst7 = {}
    for name in ("train", "validation", "test"):
        sst7[name] = tmp_path / f"{name}.tsv"
        write_sst7(sst7[name], [("The movie 's messages do n't work", 1)])
    paths = (tmp_path / "stimuli.tsv", tmp_path / "predictions.tsv", tmp_path / "metrics.json")
    run_training("model", sst7, *paths, training=training, seed=1, stanza_dir=tmp_path / "no_stanza_here")
    assert seen == [
        "the movie 's messages do n't work",
        "the characters ' moves do n't work",
        "the movie 's messages is -LRB- sort of -RRB- fine",
    ]
    assert set(read_predictions(tmp_path / "predictions.tsv")) == set(phrase.stimuli())
    assert json.loads((tmp_path / "metrics.json").read_text())["stimulus_tokenizer"] == "ptb"
    run_training("model", sst7, *paths, training={**training, "lowercase_stimuli": False}, seed=1)
    assert seen[-2] == "the Characters ' moves do n't work"


def test_stanza_tokenises_the_stimuli_where_its_english_tokenizer_is_installed(tmp_path, monkeypatch):
    """As the released dataset.py: stanza's words of every sentence, joined, lower-cased;
    brackets as SST-7 writes them. stanza itself is faked (no models here): what is checked
    is that an installed tokenizer model is found and its words are used."""
    import sys
    import types

    from natcomp.noncompsst.stimuli import StimulusTokenizer, stanza_tokenizer_installed

    assert not stanza_tokenizer_installed(None) and not stanza_tokenizer_installed(tmp_path)
    (tmp_path / "en" / "tokenize").mkdir(parents=True)
    (tmp_path / "resources.json").write_text("{}", encoding="utf-8")
    assert not stanza_tokenizer_installed(tmp_path)
    (tmp_path / "en" / "tokenize" / "combined.pt").write_bytes(b"")
    assert stanza_tokenizer_installed(tmp_path)

    def pipeline(lang, *, dir, processors, **options):
        assert (lang, dir, processors) == ("en", str(tmp_path), "tokenize")

        def run(text):
            word = types.SimpleNamespace
            return types.SimpleNamespace(
                sentences=[
                    types.SimpleNamespace(words=[word(text="It"), word(text="'s"), word(text="(")]),
                    types.SimpleNamespace(words=[word(text="Good"), word(text=")")]),
                ]
            )

        return run

    monkeypatch.setitem(sys.modules, "stanza", types.SimpleNamespace(Pipeline=pipeline))
    tokenizer = StimulusTokenizer(tmp_path)
    assert tokenizer.name == "stanza"
    assert tokenizer("any text") == "it 's -LRB- good -RRB-"
    assert StimulusTokenizer(tmp_path.parent / "elsewhere").name == "ptb"

    def broken(*args, **options):
        raise RuntimeError("truncated model file")

    monkeypatch.setitem(sys.modules, "stanza", types.SimpleNamespace(Pipeline=broken))
    with pytest.raises(ConfigError, match="stanza_dir.*could not load its tokenizer.*truncated model file"):
        StimulusTokenizer(tmp_path)


@pytest.mark.workflow
def test_paper_training_waits_for_the_stanza_models_the_run_fetches():
    """At paper scale the MT family fetches stanza's models into candidates.stanza_dir, so a
    training job waits for them: whether its stimuli are tokenised by stanza or the Penn
    Treebank rules does not hang on the order of jobs. The demo fetches none."""
    from test_workflow import dry_run_jobs

    paper = dry_run_jobs(
        "--configfile", "config/paper.yaml", "--", "results/noncompsst/models/timelm/seed1/metrics.json"
    )
    assert paper["noncompsst_train"] == 1 and paper["mt_stanza_models"] == 1
    demo = dry_run_jobs("--", "results/noncompsst/models/tiny/seed1/metrics.json")
    assert demo["noncompsst_train"] == 1 and "mt_stanza_models" not in demo
