"""Every tiny architecture of natcomp.hf.tiny_architectures through every family it fits
(issue 41.2), at CI scale: each (architecture, family) cell runs the family's library entry
point (not Snakemake) on a few items and checks that what comes out has values: finite
numbers, the right shapes, the right columns. A cell either runs or asserts a deliberate
one-line refusal (a :class:`ConfigError`); see docs/design/hf.md, "Architecture x family".

The families and their entry points:

- MT: :func:`natcomp.mt.systems.system_translator` (a decoder prompted through
  :class:`~natcomp.mt.prompted_translation.PromptedTranslator`, a translation model through
  :class:`~natcomp.mt.hf_translation.HFTranslator`), en -> nl, 3 sentences, 8 new tokens,
  greedy and 2-best beam (a decoder: also one example, and its chat template where it has one);
- NonCompSST: :func:`natcomp.noncompsst.models.train_and_predict` (the released head,
  :func:`natcomp.noncompsst.head.load_sentiment_head_classifier`, fine-tuned 1 epoch on 8
  texts of labels 0..6, the best epoch kept, then :func:`natcomp.hf.predict_logits`);
- PLANE fine-tuning: :func:`natcomp.plane.finetune.fine_tune_and_test`, then Table 6's
  accuracy rows and Figures 2-3's subword shares;
- PLANE prompting: :func:`natcomp.plane.prompting.evaluate_prompting` (two-shot, both
  answers; a decoder with a chat template also through it) and
  :func:`~natcomp.plane.prompting.evaluate_zero_shot` on one triplet, a masked LM's and a
  causal LM's alike (they dispatch on the config);
- PLANE NLI (the NLI classifier): :func:`natcomp.plane.nli.evaluate_nli`;
- PSS: FB (:func:`natcomp.pss.classifiers.embed_sentences`, then a head) and FT
  (:func:`~natcomp.pss.classifiers.fine_tune_encoder`), mean pooling;
- TRE: :func:`natcomp.hf.embed_texts` (mean pooling) and
  :func:`natcomp.tre.experiment.fit_scores` over 4 tiny trees.

The numbers a family reduces to labels (PLANE's probabilities and log-likelihoods) are
checked where the family computes them, by wrapping the function it calls. Each model is
built once per module (a fraction of a second), on texts that make PLANE's verbalisers one
token of every masked LM's tokenizer, in both templates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf.tiny_architectures import ARCHITECTURES, HIDDEN, build_tiny
from natcomp.plane.prompting import TEMPLATES, VERBALISERS

NOUNS = ["poet", "king", "baker", "mayor", "farmer"]
VERBS = ["sees", "admires", "forgets"]
#: PLANE's triplet (adjective, noun, hypernym, class) and the verbalisers of its two-shot prompts
TRIPLET = ("red", "car", "vehicle", "I")
PLANE_WORDS = [word for pair in VERBALISERS.values() for word in pair]


def _texts() -> list[str]:
    """What the tiny tokenizers learn: the sentences of the MT, NonCompSST, PSS and TRE
    cells and PLANE's templates filled with each verbaliser (after a space in the internal
    template, after ":" in the external one), the verbalisers also as ordinary words, so
    that a byte-level BPE of 400 tokens and a SentencePiece unigram of 70 pieces each
    make every verbaliser one token where the templates put it."""
    texts = [f"The {a} {verb} the {b}." for a in NOUNS for verb in VERBS for b in NOUNS if a != b]
    texts += [
        "English: The poet sees the king.\nDutch: De dichter ziet de koning.",
        "De bakker vergeet de burgemeester.",
    ]
    triplets = [TRIPLET[:3], ("fake", "gun", "weapon"), ("big", "car", "vehicle")]
    for word in PLANE_WORDS:
        for adj, noun, hyp in triplets:
            texts += [
                TEMPLATES["internal"][0].format(c1=f"{adj} {noun}", c2=hyp, v=word),
                TEMPLATES["external"][0].format(c1=f"{adj} {noun}", c2=hyp, v=word),
            ]
        texts += [f"The {noun} is {word}." for noun in NOUNS]
    return texts


TEXTS = _texts()
SOURCES = ["The poet sees the king.", "The baker forgets the mayor.", "The farmer admires the poet."]
#: NonCompSST's 8 texts with SST-7's labels 0..6; PSS's with 2 labels
SENTIMENT = [(text, label % 7) for label, text in enumerate(TEXTS[:8])]
#: TRE's trees (SST PTB format), of the texts' words
TREES = (
    "(3 (2 (2 The) (2 poet)) (3 (3 (3 admires) (2 (2 the) (2 king))) (2 .)))\n"
    "(1 (2 (2 The) (2 baker)) (1 (1 (1 forgets) (2 (2 the) (2 mayor))) (2 .)))\n"
    "(2 (2 (2 The) (2 farmer)) (2 (2 (2 sees) (2 (2 the) (2 poet))) (2 .)))\n"
    "(4 (2 (2 The) (2 king)) (4 (4 (2 is) (4 good)) (2 .)))\n"
)

# ------------------------------------------------------------------ the cells

#: the columns of docs/design/hf.md's table: the families, PLANE's three parts apart
FAMILIES = ("mt", "noncompsst", "plane-finetune", "plane-prompting", "plane-nli", "pss", "tre")


def fits(name: str, family: str) -> bool:
    """Whether ``natcomp evaluate`` runs ``family`` for architecture ``name``: MT for decoders
    and translation models, the others for decoders and encoders; PLANE prompting for
    language models (not the NLI classifier), PLANE NLI for the NLI classifier only."""
    spec = ARCHITECTURES[name]
    if family == "mt":
        return spec.kind in ("decoder", "translation")
    if spec.kind == "translation":
        return False
    if family == "plane-prompting":
        return not spec.nli
    if family == "plane-nli":
        return spec.nli
    return True


#: (architecture, family) -> what its deliberate one-line refusal says. T5, mT5 and mBART-50
#: are encoder-decoders the MT family does not decode with (natcomp.hf.kinds.TRANSLATION_MODEL_TYPES):
#: ``natcomp evaluate`` refuses them when it plans (tests/hf/test_architectures.py), the
#: translator when it is made (here).
REFUSED = {
    (name, "mt"): f"has model_type '{model_type}'; natcomp translates with Marian (marian), M2M100 and NLLB-200"
    for name, model_type in (("t5", "t5"), ("mt5", "mt5"), ("mbart50", "mbart"))
}
#: (architecture, family) -> (error type, reason): cells that crash; none now
CRASHES: dict[tuple[str, str], tuple[type[BaseException], str]] = {}


def _cells():
    for name in ARCHITECTURES:
        for family in FAMILIES:
            if not fits(name, family):
                continue
            marks = []
            if (name, family) in CRASHES:
                error, reason = CRASHES[name, family]
                marks.append(pytest.mark.xfail(strict=True, raises=error, reason=reason))
            yield pytest.param(name, family, id=f"{name}-{family}", marks=marks)


CELLS = list(_cells())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``built(name)``: the folder (a string, as config names it) of the tiny model of ``name``."""
    root = tmp_path_factory.mktemp("families")
    folders: dict[str, str] = {}

    def folder(name: str) -> str:
        if name not in folders:
            folders[name] = str(build_tiny(name, root / name, TEXTS, seed=0))
        return folders[name]

    return folder


def _finite(values) -> bool:
    return bool(np.isfinite(np.asarray(values, dtype=np.float64)).all())


def _one_line(error: ConfigError) -> str:
    (line,) = str(error).strip().splitlines()
    return line


# ------------------------------------------------------------------ the families


def _spy(monkeypatch, owner, attribute: str, seen: list):
    """Wrap ``owner.attribute`` so that what it returns is also appended to ``seen``."""
    original = getattr(owner, attribute)

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(owner, attribute, spy)


def _mt(folder: str, name: str, monkeypatch) -> None:
    from natcomp.mt.prompting import FewShotExample
    from natcomp.mt.systems import STATUSES, is_causal, system_entry, system_translator

    key = f"mt.systems.{name}"

    def translator(nbest: int = 1, examples=(), **settings):
        entry = {"model": folder, "max_new_tokens": 8, "beam": 2, "device": "cpu", **settings}
        system = system_entry({"systems": {name: entry}}, name)
        made = system_translator(system, source_lang="en", target_lang="nl", key=key, nbest=nbest, examples=examples)
        return made, is_causal(system)

    greedy, causal = translator()
    languages = "eng_Latn-nld_Latn" if name == "nllb" else "en-nl"
    assert greedy.signature.endswith(f"|lang:{languages}|prec:fp32"), greedy.signature
    if not causal:
        written = []
        _spy(monkeypatch, greedy.model, "generate", written)
        translations = greedy.translate(SOURCES)
        assert len(translations) == 3 and all(isinstance(text, str) for text in translations)
        (output,) = written  # one batch: decoder start, (language token,) at most 8 tokens
        assert output.shape[0] == 3 and 2 <= output.shape[1] <= 9
        forced = ARCHITECTURES[name].forced_bos
        if forced is not None:
            assert greedy.tokenizer.convert_ids_to_tokens(output[:, 1].tolist()) == [forced] * 3
            assert not any(forced in text for text in translations), "the language token is dropped"
        assert [len(texts) for texts in translator(nbest=2)[0].translate_nbest(SOURCES, 2)] == [2, 2, 2]
        return
    # a decoder: greedy, zero-shot, as plain text (chat_template off, the default)
    assert greedy.prompts(SOURCES[:1]) == ["English: The poet sees the king.\nDutch:"]
    translations, statuses = greedy.translate_with_status(SOURCES)
    assert [len(hypotheses) for hypotheses in translations] == [1, 1, 1]
    assert all(isinstance(text, str) and "\n" not in text for (text,) in translations)
    assert set(statuses) <= set(STATUSES)
    scores = greedy.generator.loglikelihoods(SOURCES[:2], [" De dichter.", " De koning."])
    assert _finite([score for score, _ in scores])
    # beam search, 2-best (the synonym probes'), one example, through the chat template where there is one
    chat = hf.has_chat_template(folder)
    example = FewShotExample(0, "The king sees the poet.", "De koning ziet de dichter.")
    beam, _ = translator(nbest=2, examples=[example], decoding="beam", chat_template="on" if chat else "off")
    (prompt,) = beam.prompts(SOURCES[:1])
    assert "English: The king sees the poet.\nDutch: De koning ziet de dichter." in prompt
    assert prompt.endswith("Dutch:") != chat, "the chat template adds the assistant's turn"
    assert [len(texts) for texts in beam.translate_nbest(SOURCES, 2)] == [2, 2, 2]
    if not chat:
        with pytest.raises(ConfigError) as refused:
            translator(chat_template="on")
        assert f"config {key}.chat_template: is on but" in _one_line(refused.value)


def _noncompsst(folder: str, name: str, monkeypatch) -> None:
    from natcomp.noncompsst.models import train_and_predict

    logits = []
    _spy(monkeypatch, hf, "predict_logits", logits)
    # SST-7's splits, the best epoch kept by validation accuracy (appendix D's select_best)
    sst7 = {"train": SENTIMENT, "validation": SENTIMENT[:4], "test": SENTIMENT[4:]}
    settings = hf.FineTuneSettings(
        epochs=1, batch_size=4, learning_rate=1e-3, device="cpu", max_length=32, seed=1, select_best=True
    )
    result = train_and_predict(folder, sst7, ["the poet sees the king ."], settings)
    assert result.best_epoch == 1 and _finite([result.history[0]["train_loss"], result.history[0]["valid_metric"]])
    assert 0 <= result.test_f1 <= 1 and len(result.stimulus_predictions) == 1
    assert set(result.stimulus_predictions) <= set(range(7))
    test, stimuli = logits  # the head's 7 logits of the test sentences and of the stimulus
    assert test.shape == (4, 7) and stimuli.shape == (1, 7) and _finite(test) and _finite(stimuli)


def _plane_finetune(folder: str, name: str, monkeypatch) -> None:
    from natcomp.plane.finetune import (
        RESULT_COLUMNS,
        SUBWORD_COLUMNS,
        accuracy_rows,
        fine_tune_and_test,
        subword_table,
    )

    probabilities = []
    _spy(monkeypatch, hf, "classify", probabilities)
    sentences = [f"A {adj} car is a vehicle." for adj in ("red", "fake", "big", "good")]
    train = pd.DataFrame({"sentence": sentences * 2, "label": [1, 0, 1, 0] * 2})
    test = pd.DataFrame({"sentence": sentences, "label": [1, 0, 1, 0]}).assign(
        **{"class": "I", "it": "IT2", "adj": "red", "noun": "car", "hyp": "vehicle"}
    )
    settings = hf.FineTuneSettings(epochs=1, batch_size=4, learning_rate=1e-3, device="cpu", max_length=32)
    predictions, result = fine_tune_and_test(folder, train, {"test": test}, settings)
    assert list(predictions.columns) == [
        "test_set", "class", "it", "adj", "noun", "hyp", "sentence", "gold", "predicted",
    ]  # fmt: skip
    assert len(predictions) == 4 and set(predictions["predicted"]) <= {0, 1}
    assert _finite([result.history[0]["train_loss"]])
    (found,) = probabilities
    assert found.shape == (4, 2) and _finite(found) and np.allclose(found.sum(axis=1), 1.0)
    # Table 6's accuracy rows and Figures 2-3's subword shares (by the model's tokenizer)
    accuracy = pd.DataFrame(accuracy_rows(predictions, "ood", 1), columns=RESULT_COLUMNS)
    assert list(accuracy["class"]) == ["all", "I"] and _finite(accuracy[["accuracy", "chance"]])
    run = predictions.assign(train_set="own", setting="ood", split=1)
    subwords = subword_table(run, hf.load_tokenizer(folder))
    assert list(subwords.columns) == SUBWORD_COLUMNS and len(subwords) == 1
    assert 0 <= subwords["subword_share"].iloc[0] <= 1


def _plane_prompting(folder: str, name: str, monkeypatch) -> None:
    from natcomp.hf.causal import CausalGenerator
    from natcomp.plane.prompting import PREDICTION_COLUMNS, PromptSettings, evaluate_prompting, evaluate_zero_shot

    numbers = []
    _spy(monkeypatch, hf, "masked_token_probabilities", numbers)  # a masked LM's verbaliser probabilities
    _spy(monkeypatch, CausalGenerator, "loglikelihoods", numbers)  # a causal LM's filled sentences
    triplets = pd.DataFrame([TRIPLET], columns=["adj", "noun", "hyp", "class"])
    for answer, answers in (("vocabulary", {-1, 0, 1}), ("verbalisers", {0, 1})):
        two_shot = evaluate_prompting(folder, triplets, PromptSettings(answer=answer, device="cpu"), name=name)
        assert list(two_shot.columns) == PREDICTION_COLUMNS
        # 3 inference types x 2 premise orders x 3 verbalisers x 2 templates
        assert len(two_shot) == 36 and set(two_shot["predicted"]) <= answers and set(two_shot["model"]) == {name}
    assert numbers and all(
        _finite([score for score, _ in found] if isinstance(found, list) else found) for found in numbers
    )
    zero_shot = evaluate_zero_shot(folder, triplets, PromptSettings(device="cpu"), name=name)
    assert list(zero_shot.columns) == PREDICTION_COLUMNS
    assert len(zero_shot) == 3 * 2 and set(zero_shot["predicted"]) <= {-1, 0, 1}
    if ARCHITECTURES[name].kind == "decoder" and hf.has_chat_template(folder):
        chat = evaluate_prompting(folder, triplets, PromptSettings(device="cpu", chat_template="on"), name=name)
        assert len(chat) == 36 and set(chat["predicted"]) <= {-1, 0, 1}


def _plane_nli(folder: str, name: str, monkeypatch) -> None:
    from natcomp.plane.nli import PREDICTION_COLUMNS, NliSettings, evaluate_nli

    probabilities = []
    _spy(monkeypatch, hf, "classify", probabilities)
    items = pd.DataFrame(
        {
            "class": "I",
            "it": ["IT1", "IT2", "IT3"],
            "adj": "red",
            "noun": "car",
            "hyp": "vehicle",
            "c1": "A red car",
            "c2": ["A car", "A vehicle", "A red vehicle"],
            "label": [1, 1, 1],
        }
    )
    predictions = evaluate_nli(folder, items, NliSettings(device="cpu"), name=name)
    assert list(predictions.columns) == PREDICTION_COLUMNS and len(predictions) == 3
    assert set(predictions["predicted"]) <= {-1, 0, 1}
    assert set(predictions["predicted_label"]) <= {"CONTRADICTION", "NEUTRAL", "ENTAILMENT"}
    (found,) = probabilities
    assert found.shape == (3, 3) and _finite(found) and np.allclose(found.sum(axis=1), 1.0)


def _pss(folder: str, name: str) -> None:
    from natcomp.pss.classifiers import HeadSettings, embed_sentences, fine_tune_encoder, predict_head, train_head

    texts, labels = [text for text, _ in SENTIMENT], [label % 2 for _, label in SENTIMENT]
    # FB: frozen embeddings, a head trained on them
    embeddings = embed_sentences(folder, texts, pooling="mean", device="cpu", max_length=32)
    assert embeddings.shape == (8, HIDDEN) and _finite(embeddings)
    head = train_head(embeddings, labels, "linear", HeadSettings(epochs=2, device="cpu"))
    assert set(predict_head(head, embeddings)) <= {0, 1}
    # FT: the encoder fine-tuned with the head
    settings = hf.FineTuneSettings(epochs=1, batch_size=4, learning_rate=1e-3, device="cpu", max_length=32)
    model, tokenizer = fine_tune_encoder(folder, "linear", texts, labels, settings, pooling="mean")
    logits = hf.predict_logits(model, tokenizer, texts, batch_size=8, max_length=32, device="cpu")
    assert logits.shape == (8, 2) and _finite(logits)


def _tre(folder: str, name: str, tmp_path) -> None:
    from natcomp.tre.experiment import SCORE_COLUMNS, fit_scores, load_trees, score_trees
    from natcomp.tre.reconstruction import TreSettings

    (tmp_path / "dev.txt").write_text(TREES, encoding="utf-8")
    trees = load_trees(tmp_path / "dev.txt", ["dev"])
    sentences = score_trees(trees)["sentence"].tolist()
    embeddings = hf.embed_texts(hf.EncoderSpec(folder, pooling="mean"), sentences, max_length=32, device="cpu")
    assert embeddings.shape == (4, HIDDEN) and embeddings.dtype == np.float32 and _finite(embeddings)
    table = fit_scores(trees, embeddings, TreSettings(steps=5, seed=0, device="cpu"), baseline=True)
    assert list(table.columns) == list(SCORE_COLUMNS) and len(table) == 4
    assert _finite(table[["tre", "tre_random", "tre_shuffled"]])


# ------------------------------------------------------------------ the test


def test_the_cells_cover_every_architecture_and_family():
    names = {cell.values[0] for cell in CELLS}
    families = {cell.values[1] for cell in CELLS}
    assert names == set(ARCHITECTURES) and families == set(FAMILIES)
    assert {key for key in REFUSED} | set(CRASHES) <= {tuple(cell.values) for cell in CELLS}


@pytest.mark.parametrize(("name", "family"), CELLS)
def test_the_architecture_runs_through_the_family(built, name, family, monkeypatch, tmp_path):
    folder = built(name)
    run = {
        "mt": lambda: _mt(folder, name, monkeypatch),
        "noncompsst": lambda: _noncompsst(folder, name, monkeypatch),
        "plane-finetune": lambda: _plane_finetune(folder, name, monkeypatch),
        "plane-prompting": lambda: _plane_prompting(folder, name, monkeypatch),
        "plane-nli": lambda: _plane_nli(folder, name, monkeypatch),
        "pss": lambda: _pss(folder, name),
        "tre": lambda: _tre(folder, name, tmp_path),
    }[family]
    if (name, family) in REFUSED:
        with pytest.raises(ConfigError) as refused:
            run()
        assert REFUSED[name, family] in _one_line(refused.value)
        assert refused.value.key.startswith(f"mt.systems.{name}"), "the refusal names the system's key"
    else:
        run()


#: LoRA's adapted projections of each architecture (natcomp.finetuning.ATTENTION_MODULES):
#: the last part of each adapted module's name
LORA_TARGETS = {
    **dict.fromkeys(
        ("llama3", "llama3-instruct", "mistral", "qwen2.5", "qwen2.5-instruct", "gemma2", "olmo2"),
        {"q_proj", "k_proj", "v_proj", "o_proj"},
    ),
    "phi3": {"qkv_proj", "o_proj"},
    "pythia": {"query_key_value", "dense"},
    "falcon": {"query_key_value", "dense"},
    "opt": {"q_proj", "k_proj", "v_proj", "out_proj"},
    "gpt2": {"c_attn", "c_proj"},
    **dict.fromkeys(("bert", "roberta", "roberta-mnli", "electra", "xlm-roberta"), {"query", "key", "value", "dense"}),
    "deberta-v3": {"query_proj", "key_proj", "value_proj", "dense"},
    "modernbert": {"Wqkv", "Wo"},
}


@pytest.mark.parametrize("name", [name for name, spec in ARCHITECTURES.items() if spec.kind != "translation"])
def test_lora_adapts_the_attention_projections_of_every_architecture(built, name):
    """Issue 43: LoRA's default targets exist in every architecture the fine-tuning families
    take, one adapter pair per projection and layer, and the adapted model trains with
    gradient checkpointing on (a backward pass reaches every adapter)."""
    import torch

    from natcomp.finetuning import FineTuning
    from natcomp.hf.lora import apply_fine_tuning

    folder = built(name)
    encoder = hf.load_encoder(folder)
    apply_fine_tuning(encoder, FineTuning(method="lora", rank=2, alpha=4, gradient_checkpointing=True))
    adapted = {key.split(".lora_")[0] for key, _ in encoder.named_parameters() if ".lora_" in key}
    assert {key.rsplit(".", 1)[-1] for key in adapted} == LORA_TARGETS[name]
    assert len(adapted) == len(LORA_TARGETS[name]) * encoder.config.num_hidden_layers
    batch = hf.load_tokenizer(folder)(["the poet sees the king"], return_tensors="pt")
    encoder.train()
    hf.hidden_states(encoder, batch["input_ids"], batch["attention_mask"]).float().square().sum().backward()
    gradients = [p.grad for key, p in encoder.named_parameters() if ".lora_A" in key]
    assert gradients and all(gradient is not None and torch.isfinite(gradient).all() for gradient in gradients)
