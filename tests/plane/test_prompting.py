from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane.prompting import (
    VERBALISERS,
    PromptSettings,
    build_prompts,
    build_zero_shot_prompts,
    conversion_ids,
    evaluate_prompting,
    evaluate_zero_shot,
    table4,
    verbaliser_ids,
)
from natcomp.plane.tables import table8
from natcomp.plane.scoring import f1

TRIPLETS = pd.DataFrame(
    [("big", "car", "vehicle", "S"), ("fake", "gun", "weapon", "O"), ("red", "car", "vehicle", "I")],
    columns=["adj", "noun", "hyp", "class"],
)


def test_internal_prompt_is_the_papers_example():
    prompts = build_prompts(TRIPLETS.iloc[:1], "internal", ("good", "poor"), "[MASK]")
    assert len(prompts) == 3 * 2
    first = prompts[(prompts["it"] == "IT2") & (prompts["premises"] == "IT1,IT3")].iloc[0]
    assert first["prompt"] == (
        "A big car is a good example of a car. A big car is a poor example of a big vehicle. "
        "A big car is a [MASK] example of a vehicle."
    )
    assert first["gold"] == 1
    swapped = prompts[(prompts["it"] == "IT2") & (prompts["premises"] == "IT3,IT1")].iloc[0]
    assert swapped["prompt"].startswith("A big car is a poor example of a big vehicle. A big car is a good")


def test_external_prompt():
    prompts = build_prompts(TRIPLETS.iloc[1:2], "external", ("true", "false"), "<mask>")
    row = prompts[(prompts["it"] == "IT3") & (prompts["premises"] == "IT1,IT2")].iloc[0]
    assert row["prompt"] == (
        "A fake gun is a type of gun:false. A fake gun is a type of weapon:false. A fake gun is a type of fake weapon:<mask>."
    )
    assert row["gold"] == 1


def test_f1_counts_non_verbaliser_answers_as_wrong():
    assert f1([1, 1, 1, 1], [1, 1, 1, 1]) == 100.0
    assert f1([0, 0], [0, 0]) == 100.0  # a negative cell: F1 of the negative label
    assert f1([1, 1, 1, 1], [1, 1, -1, -1]) == pytest.approx(100 * 2 * 0.5 / 1.5)
    assert f1([1, 1], [-1, -1]) == 0.0


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory):
    words = hf.words_for_vocabulary(
        ["A big fake red car gun is a good poor true false positive negative example of vehicle weapon type : ."]
    )
    return str(hf.build_tiny_model(tmp_path_factory.mktemp("mlm") / "model", words, kind="masked_lm", seed=3))


def test_prompting_runs_every_template_verbaliser_order(tiny_mlm):
    for answer in ("vocabulary", "verbalisers"):
        predictions = evaluate_prompting(tiny_mlm, TRIPLETS, PromptSettings(answer=answer, device="cpu"))
        assert len(predictions) == 3 * 3 * 2 * 2 * 3
        allowed = {-1, 0, 1} if answer == "vocabulary" else {0, 1}
        assert set(predictions["predicted"]) <= allowed
    table = table4(predictions)
    assert list(table["class"]) == ["I", "S", "O", "Average"]
    assert (table["cells"].iloc[:3] == 6).all() and np.isfinite(table["f1_mean"]).all()


def test_a_verbaliser_that_is_not_one_token_is_a_config_error(tiny_mlm):
    settings = PromptSettings(verbalisers={"GP": ["good", "unfathomable"]}, device="cpu")
    with pytest.raises(ConfigError, match="plane.prompting.verbalisers.GP: 'unfathomable' is not one token"):
        evaluate_prompting(tiny_mlm, TRIPLETS, settings)


def test_unknown_template_or_answer():
    with pytest.raises(ValueError, match="unknown template"):
        PromptSettings(templates=["inner"])
    with pytest.raises(ValueError, match="answer must be one of"):
        PromptSettings(answer="top5")


# ----------------------------------------------------------------------------------------
# verbalisers as the tokenizer sees them: byte-level BPE (RoBERTa family) and WordPiece


def _corpus():
    lines = []
    for positive, negative in VERBALISERS.values():
        for word in (positive, negative):
            lines += [
                f"A red car is a {word} example of a vehicle.",
                f"A big gun is a type of weapon:{word}.",
                f"A fake car is a type of fake vehicle:{word}.",
            ]
    return lines * 10


def byte_level_bpe():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(_corpus(), trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
    )


def wordpiece():
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tokenizer.train_from_iterator(_corpus(), trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def test_byte_level_bpe_verbalisers_follow_the_template():
    """After ":" (external) a byte-level BPE encodes the bare word, after a space (internal)
    the word with its space marker Ġ: the id looked up for the spaced form alone is wrong
    in the 3 external cells of the 6 template x verbaliser cells."""
    tokenizer = byte_level_bpe()
    spaced = {name: tuple(hf.single_token_id(tokenizer, w, "k") for w in words) for name, words in VERBALISERS.items()}
    changed = 0
    for template, marker in (("internal", "Ġ"), ("external", "")):
        ids = verbaliser_ids(tokenizer, VERBALISERS, template)
        for name, words in VERBALISERS.items():
            assert tokenizer.convert_ids_to_tokens(list(ids[name])) == [marker + w for w in words]
            changed += ids[name] != spaced[name]
    assert changed == 3


def test_wordpiece_verbalisers_are_the_same_in_both_templates():
    tokenizer = wordpiece()
    internal = verbaliser_ids(tokenizer, VERBALISERS, "internal")
    external = verbaliser_ids(tokenizer, VERBALISERS, "external")
    assert internal == external
    for name, words in VERBALISERS.items():
        assert tokenizer.convert_ids_to_tokens(list(internal[name])) == list(words)


def test_a_verbaliser_split_or_merged_in_its_template_is_a_config_error():
    tokenizer = byte_level_bpe()
    with pytest.raises(ConfigError, match=r"GP: 'goodish' is not one token of .* where the external template"):
        verbaliser_ids(tokenizer, {"GP": ["goodish", "poor"]}, "external")
    with pytest.raises(ConfigError, match="'unfathomable' is not one token"):
        verbaliser_ids(wordpiece(), {"GP": ["good", "unfathomable"]}, "internal")


def biased_tiny_roberta(directory, token: str) -> str:
    """A tiny RoBERTa-style masked LM over the byte-level BPE whose top answer at every
    mask is ``token`` (its output bias is raised)."""
    import torch
    from transformers import RobertaConfig, RobertaForMaskedLM

    tokenizer = byte_level_bpe()
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=260,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = RobertaForMaskedLM(config)
    with torch.no_grad():
        model.lm_head.bias[tokenizer.convert_tokens_to_ids(token)] = 1000.0
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


def test_a_right_answer_after_the_colon_scores_as_right(tmp_path):
    """End to end with a tiny RoBERTa-style masked LM biased to answer the bare token
    ``good`` at every mask: in the external template that is the positive verbaliser
    (predicted 1, not -1); in the internal one it is no verbaliser (``Ġgood`` is), so -1."""
    model = biased_tiny_roberta(tmp_path / "tiny_roberta", "good")
    settings = PromptSettings(verbalisers={"GP": ["good", "poor"]}, max_length=256, device="cpu")
    predictions = evaluate_prompting(model, TRIPLETS, settings)
    by_template = predictions.groupby("template")["predicted"].agg(set).to_dict()
    assert by_template == {"external": {1}, "internal": {-1}}


# ----------------------------------------------------------------------------------------
# zero-shot (appendix B.1, Tables 7 and 8)


def test_zero_shot_prompts_have_no_demonstration():
    prompts = build_zero_shot_prompts(TRIPLETS.iloc[1:2], "external", "<mask>")
    assert list(prompts["prompt"]) == [
        "A fake gun is a type of gun:<mask>.",
        "A fake gun is a type of weapon:<mask>.",
        "A fake gun is a type of fake weapon:<mask>.",
    ]
    assert list(prompts["gold"]) == [0, 0, 1]


def test_zero_shot_conversion_table_as_the_tokenizer_sees_it(caplog):
    import logging

    tokenizer = byte_level_bpe()
    log = logging.getLogger("zero-shot-test")
    pairs = [("good", "poor"), ("true", "false"), ("great", "bad")]  # great/bad: not one token here
    with caplog.at_level(logging.WARNING, logger="zero-shot-test"):
        positive, negative = conversion_ids(tokenizer, pairs, "external", log)
    assert sorted(tokenizer.convert_ids_to_tokens(sorted(positive))) == ["good", "true"]
    assert sorted(tokenizer.convert_ids_to_tokens(sorted(negative))) == ["false", "poor"]
    assert "'great' is not one token" in caplog.text and "'bad' is not one token" in caplog.text
    with pytest.raises(ConfigError, match="no negative word of V is one token in the internal template"):
        conversion_ids(tokenizer, [("good", "bad")], "internal")


def test_zero_shot_end_to_end_maps_the_top_token_through_v(tmp_path):
    model = biased_tiny_roberta(tmp_path / "tiny_roberta", "false")  # the bare token: after ":"
    settings = PromptSettings(max_length=256, device="cpu")
    predictions = evaluate_zero_shot(model, TRIPLETS, settings, pairs=[("good", "poor"), ("true", "false")])
    assert len(predictions) == 3 * 3 * 2
    by_template = predictions.groupby("template")["predicted"].agg(set).to_dict()
    assert by_template == {"external": {0}, "internal": {-1}}
    assert set(predictions["verbaliser"]) == {"V"} and set(predictions["premises"]) == {""}


def test_table8_mean_and_sd_over_templates_and_the_average_row():
    """Per class: F1 of each template over its items, mean and sample sd over templates;
    Average: the mean of the class means and of the class sds (the paper's rows)."""
    rows = []
    # I: internal all right (100), external all wrong (0); S: 100 / 50; O: 0 / 0
    for template, outcomes in (
        ("internal", {"I": [1, 1], "S": [1, 1], "O": [0, 0]}),
        ("external", {"I": [0, 0], "S": [1, 0], "O": [0, 0]}),
    ):
        for cls, right in outcomes.items():
            for ok in right:
                rows.append({"model": "m", "template": template, "class": cls, "gold": 1, "predicted": 1 if ok else -1})
    table = table8(pd.DataFrame(rows)).set_index("class")
    assert table.loc["I", "f1_mean"] == pytest.approx(50.0) and table.loc["I", "f1_sd"] == pytest.approx(
        70.7107, abs=1e-3
    )
    assert table.loc["S", "f1_mean"] == pytest.approx((100 + 200 / 3) / 2)
    assert table.loc["O", "f1_mean"] == 0.0 and table.loc["O", "f1_sd"] == 0.0
    means = table.loc[["I", "S", "O"], "f1_mean"]
    sds = table.loc[["I", "S", "O"], "f1_sd"]
    assert table.loc["Average", "f1_mean"] == pytest.approx(means.mean())
    assert table.loc["Average", "f1_sd"] == pytest.approx(sds.mean())
    # every gold label is "yes": the constant answer "yes" scores 100 in each class
    assert list(table["chance_f1"]) == [100.0] * 4


def test_a_merged_verbaliser_of_a_tokenizer_without_an_unknown_token_is_one_line(tmp_path):
    """Llama 3's split keeps ":good" together and its tokenizer has no unknown token: the
    check crashed on None (int() of NoneType) instead of naming the verbaliser (issue 41)."""
    from natcomp.hf.tiny_architectures import build_tiny

    texts = [f"The poet is {word}. Is it:{word}?" for words in VERBALISERS.values() for word in words] * 5
    tokenizer = hf.load_tokenizer(build_tiny("llama3", tmp_path / "llama3", texts))
    assert tokenizer.unk_token_id is None
    with pytest.raises(ConfigError, match=r"is not one token of .* where the external template puts it"):
        verbaliser_ids(tokenizer, VERBALISERS, "external")
