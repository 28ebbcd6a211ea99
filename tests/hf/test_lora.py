"""LoRA and gradient checkpointing in the one fine-tuning loop (natcomp.hf.lora,
natcomp.hf.training, issue 43), on a tiny BERT and a tiny Llama sequence classifier."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.finetuning import FineTuning
from natcomp.hf import lora, precision, training

TEXTS = [f"the {a} sees the {b} ." for a in ("poet", "king", "baker", "mayor") for b in ("farmer", "judge", "cook")]
LABELS = [index % 2 for index in range(len(TEXTS))]
LORA = FineTuning(method="lora", rank=4, alpha=8, dropout=0.0, gradient_checkpointing=False, learning_rate=1e-2)
SETTINGS = hf.FineTuneSettings(epochs=2, batch_size=4, learning_rate=1e-2, seed=3, device="cpu", fine_tuning=LORA)
CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny BERT sequence classifier and a tiny Llama (a sequence-classification head is
    put on it when loaded), without dropout: checkpointing is compared step by step."""
    root = tmp_path_factory.mktemp("lora")
    bert = hf.build_tiny_model(root / "bert", hf.words_for_vocabulary(TEXTS), kind="sequence_classification")
    llama = hf.build_tiny_causal_lm(
        root / "llama", TEXTS, kind="llama", vocab_size=260, d_model=32, layers=2, heads=4, max_positions=64
    )
    return {"bert": str(bert), "llama": str(llama)}


def _classifier(folder: str):
    model = hf.load_sequence_classifier(folder, num_labels=2, seed=0)
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    return model, hf.load_tokenizer(folder)


def _original_name(name: str) -> str:
    """A weight's name before peft wrapped its layer (``query.base_layer.weight`` -> ``query.weight``)."""
    return name.replace(".base_layer.", ".")


@pytest.mark.parametrize("architecture", ["bert", "llama"])
def test_lora_changes_only_the_adapters_and_the_head_and_the_predictions(tiny, architecture):
    model, tokenizer = _classifier(tiny[architecture])
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    logits_before = hf.predict_logits(model, tokenizer, TEXTS)
    result = hf.fine_tune_classifier(model, tokenizer, TEXTS, LABELS, settings=SETTINGS)
    head = {"bert": "classifier.", "llama": "score."}[architecture]
    after = result.model.state_dict()
    adapters = [name for name in after if "lora_" in name]
    assert len(adapters) == 2 * 4 * 2, "lora_A and lora_B on q, k, v and o of both layers"
    assert all(not torch.equal(after[name], torch.zeros_like(after[name])) for name in adapters if "lora_B" in name)
    for name, tensor in after.items():
        if "lora_" in name:
            continue
        original = before[_original_name(name)]
        if name.startswith(head):
            assert not torch.equal(tensor, original), f"the head {name} is trained in full"
        else:
            assert torch.equal(tensor, original), f"{name} is frozen: bit-identical"
    assert result.fine_tuning == "LoRA r=4, alpha=8 on q,k,v,o, lr 1e-2"
    logits_after = hf.predict_logits(result.model, tokenizer, TEXTS)
    assert not np.allclose(logits_after, logits_before)


def test_the_optimiser_sees_only_the_trainable_parameters(tiny, caplog):
    model, tokenizer = _classifier(tiny["bert"])
    applied = lora.apply_fine_tuning(model, LORA)
    trainable = {name for name, parameter in model.named_parameters() if parameter.requires_grad}
    assert trainable == {name for name in trainable if "lora_" in name or name.startswith("classifier.")}
    assert applied.trainable == sum(p.numel() for p in model.parameters() if p.requires_grad) < applied.total
    groups = training._parameter_groups(model, 0.01)
    assert sum(len(group["params"]) for group in groups) == len(trainable)


def test_full_fine_tuning_still_changes_the_backbone(tiny):
    model, tokenizer = _classifier(tiny["llama"])
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    settings = dataclasses.replace(SETTINGS, fine_tuning=FineTuning(method="full"))
    result = hf.fine_tune_classifier(model, tokenizer, TEXTS, LABELS, settings=settings)
    after = result.model.state_dict()
    assert set(after) == set(before), "no adapters in full fine-tuning"
    assert not torch.equal(
        after["model.layers.0.self_attn.q_proj.weight"], before["model.layers.0.self_attn.q_proj.weight"]
    )
    assert all(parameter.requires_grad for parameter in result.model.parameters())
    assert result.fine_tuning == "full"


def test_full_is_the_default_and_auto_is_decided_by_the_models_parameters(tiny):
    assert hf.FineTuneSettings(epochs=1, batch_size=2, learning_rate=1e-3).fine_tuning.method == "full"
    model, tokenizer = _classifier(tiny["bert"])
    settings = dataclasses.replace(SETTINGS, epochs=1, fine_tuning=FineTuning())  # auto: a tiny model is full
    assert hf.fine_tune_classifier(model, tokenizer, TEXTS[:4], LABELS[:4], settings=settings).fine_tuning == "full"


@pytest.mark.parametrize("architecture", ["bert", "llama"])
def test_gradient_checkpointing_is_on_and_trains_as_without(tiny, architecture):
    results = {}
    for checkpointing in (False, True):
        model, tokenizer = _classifier(tiny[architecture])
        settings = dataclasses.replace(
            SETTINGS, epochs=1, fine_tuning=dataclasses.replace(LORA, gradient_checkpointing=checkpointing)
        )
        result = hf.fine_tune_classifier(model, tokenizer, TEXTS[:8], LABELS[:8], settings=settings)
        assert model.base_model.is_activation_checkpointing is checkpointing
        results[checkpointing] = (result.history, hf.predict_logits(result.model, tokenizer, TEXTS))
    (history_off, logits_off), (history_on, logits_on) = results[False], results[True]
    assert history_on[0]["train_loss"] == pytest.approx(history_off[0]["train_loss"], rel=1e-5)
    np.testing.assert_allclose(logits_on, logits_off, rtol=1e-4, atol=1e-5)


def test_a_wrapper_module_adapts_its_one_transformers_model(tiny):
    from natcomp.noncompsst.head import SentimentHeadClassifier

    classifier = SentimentHeadClassifier(hf.load_encoder(tiny["llama"]), 2)
    assert lora.backbone(classifier) is classifier.encoder
    lora.apply_fine_tuning(classifier, LORA)
    trainable = {name for name, parameter in classifier.named_parameters() if parameter.requires_grad}
    assert {name for name in trainable if not name.startswith("head.")} == {
        name for name, _ in classifier.named_parameters() if "lora_" in name
    }
    assert {name for name, _ in classifier.named_parameters() if name.startswith("head.")} <= trainable


def test_a_module_without_or_with_two_transformers_models_is_refused(tiny):
    with pytest.raises(TypeError, match="holds 0 transformers models"):
        lora.backbone(torch.nn.Linear(2, 2))
    pair = torch.nn.ModuleDict({"a": hf.load_encoder(tiny["bert"]), "b": hf.load_encoder(tiny["bert"])})
    with pytest.raises(TypeError, match="holds 2 transformers models \\(a, b\\)"):
        lora.backbone(pair)


def test_bad_lora_settings_are_one_line_naming_the_key(tiny):
    model, _ = _classifier(tiny["bert"])
    missing = dataclasses.replace(LORA, target_modules=("no_such_proj",))
    with pytest.raises(
        ConfigError, match=r"^config pss.fine_tune.fine_tuning.target_modules: \['no_such_proj'\]"
    ) as error:
        lora.apply_fine_tuning(model, missing, "pss.fine_tune.fine_tuning")
    assert "\n" not in str(error.value)
    model, _ = _classifier(tiny["bert"])
    model.base_model.supports_gradient_checkpointing = False
    with pytest.raises(ConfigError, match=r"^config k.gradient_checkpointing: BertModel cannot checkpoint"):
        lora.apply_fine_tuning(model, dataclasses.replace(LORA, gradient_checkpointing=True), "k")
    with pytest.raises(ValueError, match="resolve the fine-tuning method first"):
        lora.apply_fine_tuning(model, FineTuning(), "k")


# ---------------------------------------------------------------- precision


@pytest.mark.parametrize(
    ("method", "checkpoint", "expected"),
    [("lora", "bf16", "bf16"), ("lora", "fp16", "fp16"), ("lora", "fp32", "fp32"), ("full", "bf16", "fp32")],
)
def test_lora_on_a_gpu_keeps_the_frozen_base_in_the_checkpoints_dtype(fake_gpus, method, checkpoint, expected):
    gpu = fake_gpus(8)
    assert precision.training_dtype(FineTuning(method=method), gpu, checkpoint) == expected


def test_on_a_cpu_or_a_gpu_without_bf16_every_weight_trains_in_fp32(fake_gpus):
    assert precision.training_dtype(FineTuning(method="lora"), CPU, "bf16") == "fp32"
    assert precision.training_dtype(FineTuning(method="full"), CPU, "bf16") == "fp32"
    gpu = fake_gpus(7)  # a V100: bf16 emulated
    assert precision.training_dtype(FineTuning(method="lora"), gpu, "bf16") == "fp32"
    assert precision.training_dtype(FineTuning(method="lora"), gpu, "fp16") == "fp16", "fp16 runs natively there"
    with pytest.raises(ValueError, match="resolve the fine-tuning method first"):
        precision.training_dtype(FineTuning(), CPU, "bf16")


def test_the_load_dtype_of_a_model_reads_its_checkpoint(fake_gpus, tiny, tmp_path):
    from transformers import AutoModelForCausalLM

    gpu = fake_gpus(8)
    folder = tmp_path / "llama_bf16"
    AutoModelForCausalLM.from_pretrained(tiny["llama"]).to(torch.bfloat16).save_pretrained(folder)
    assert hf.training_load_dtype(folder, FineTuning(method="lora"), gpu) == "bf16"
    assert hf.training_load_dtype(folder, FineTuning(method="full"), gpu) == "fp32"
    assert hf.training_load_dtype(folder, FineTuning(method="lora"), CPU) == "fp32"


def test_lora_trains_adapters_and_head_in_fp32_beside_a_bf16_base(tiny):
    model = hf.load_sequence_classifier(tiny["llama"], num_labels=2, seed=0, dtype="bf16")
    lora.apply_fine_tuning(model, LORA)
    lora.place_for_training(model, "lora", CPU)
    dtypes = {name: parameter.dtype for name, parameter in model.named_parameters()}
    assert {dtypes[name] for name in dtypes if "lora_" in name or name.startswith("score.")} == {torch.float32}
    assert {dtypes[name] for name in dtypes if "lora_" not in name and not name.startswith("score.")} == {
        torch.bfloat16
    }
    lora.finish_training(model, "lora")  # the head reads bf16 states at inference again
    assert model.score.weight.dtype == torch.bfloat16
    assert precision.training_precision(CPU, "bf16") == "frozen bf16 base, fp32 adapters and head"


def test_full_fine_tuning_puts_every_weight_in_fp32(tiny):
    model = hf.load_sequence_classifier(tiny["llama"], num_labels=2, seed=0, dtype="bf16")
    lora.place_for_training(model, "full", CPU)
    assert {parameter.dtype for parameter in model.parameters()} == {torch.float32}


def test_a_model_placed_across_devices_is_not_moved(tiny):
    model, _ = _classifier(tiny["bert"])
    model.hf_device_map = {"": "cpu"}  # one device: accelerate moved it whole, nothing spread
    assert not hf.is_placed(model)
    model.hf_device_map = {"bert": "cpu", "classifier": "disk"}  # spread: never moved again
    assert hf.is_placed(model)
    assert lora.place_for_training(model, "full", torch.device("meta")) == CPU
    assert {parameter.device for parameter in model.parameters()} == {CPU}


def test_peft_is_imported_only_when_lora_is_applied():
    code = (
        "import sys; import natcomp.hf, natcomp.hf.lora, natcomp.finetuning, natcomp.profile.fit; "
        "assert 'peft' not in sys.modules, 'peft imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_plans_precision_sentence_names_lora_s_frozen_base():
    note = precision.precision_note("auto", "bf16", lora=True)
    assert note.endswith(
        "(LoRA: the frozen base in bf16, the forward pass autocast to bf16, the adapters and the head in fp32)"
    )
    assert "autocast to fp16 with a gradient scaler" in precision.precision_note("auto", "fp16", lora=True)
    assert "LoRA" not in precision.precision_note("auto", "bf16")
    assert "LoRA" not in precision.precision_note("auto", "fp32", lora=True), "an fp32 checkpoint trains in fp32"


def test_keeping_the_best_epoch_with_lora_copies_the_adapters_and_head_and_restores_them(tiny):
    """select_best under LoRA (NonCompSST's setting): the kept copy holds only the trained
    weights (an 8B model's frozen 16 GB stay put), and the best epoch's are restored."""
    model, tokenizer = _classifier(tiny["llama"])
    scores = iter([0.2, 0.9, 0.5])
    snapshots = []

    def scripted_metric(y_true, y_pred):
        snapshots.append({name: tensor.clone() for name, tensor in model.state_dict().items()})
        return next(scores)

    settings = dataclasses.replace(SETTINGS, epochs=3, select_best=True, scheduler="constant")
    result = hf.fine_tune_classifier(
        model,
        tokenizer,
        TEXTS,
        LABELS,
        settings=settings,
        valid_texts=TEXTS,
        valid_labels=LABELS,
        metric=scripted_metric,
    )
    assert result.best_epoch == 2
    kept = hf.trained_state(result.model)
    assert kept and all("lora_" in name or name.startswith("score.") for name in kept)
    state = result.model.state_dict()
    assert all(torch.equal(state[name], snapshots[1][name]) for name in state), "epoch 2's adapters and head"
    assert not all(torch.equal(state[name], snapshots[2][name]) for name in state)


def test_lora_trains_at_its_own_learning_rate_not_the_familys(tiny, monkeypatch):
    """The families' learning rates are full fine-tuning's (NonCompSST's 5e-6): LoRA's adapters,
    whose B starts at zero, would barely move at them. LoRA trains at its setting's own rate,
    QLoRA's 2e-4 where it names none; full fine-tuning at the family's."""
    rates = []

    class Recording(torch.optim.AdamW):
        def __init__(self, params, lr, **options):
            rates.append(lr)
            super().__init__(params, lr=lr, **options)

    monkeypatch.setattr(torch.optim, "AdamW", Recording)
    family = dataclasses.replace(SETTINGS, learning_rate=5e-6, epochs=1)
    described = []
    for setting in (dataclasses.replace(LORA, learning_rate=None), LORA, FineTuning(method="full")):
        model, tokenizer = _classifier(tiny["bert"])
        result = hf.fine_tune_classifier(
            model, tokenizer, TEXTS, LABELS, settings=dataclasses.replace(family, fine_tuning=setting)
        )
        described.append(result.fine_tuning)
    assert rates == [2e-4, 1e-2, 5e-6]
    assert described == ["LoRA r=4, alpha=8 on q,k,v,o, lr 2e-4", "LoRA r=4, alpha=8 on q,k,v,o, lr 1e-2", "full"]


def test_validation_predicts_as_the_final_predictions_do_without_autocast(tiny, monkeypatch):
    """The epoch select_best keeps is chosen on predictions computed as the final ones are
    (predict_logits, no autocast): only the training steps autocast."""
    import contextlib

    from natcomp.hf import training

    entered = []

    @contextlib.contextmanager
    def recording(device, base="fp32"):
        entered.append(base)
        yield

    monkeypatch.setattr(training, "training_autocast", recording)
    model, tokenizer = _classifier(tiny["bert"])
    settings = dataclasses.replace(SETTINGS, epochs=2, select_best=True)
    result = hf.fine_tune_classifier(
        model, tokenizer, TEXTS, LABELS, settings=settings, valid_texts=TEXTS[:5], valid_labels=LABELS[:5]
    )
    assert len(entered) == 2 * -(-len(TEXTS) // settings.batch_size), "one autocast per training step, none else"
    best = result.history[result.best_epoch - 1]["valid_metric"]
    final = hf.accuracy(LABELS[:5], hf.predict_logits(result.model, tokenizer, TEXTS[:5]).argmax(axis=1))
    assert best == final
