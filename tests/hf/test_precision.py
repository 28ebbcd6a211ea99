"""The precision policy (natcomp.hf.precision, issue 41): released bf16 and fp16 checkpoints
run through every family's library entry on a CPU, training keeps fp32 weights, and a dtype
the device cannot run is one line."""

from __future__ import annotations

import warnings
import numpy as np
import pandas as pd
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.finetuning import FineTuning
from natcomp.hf import precision

TEXTS = [f"the {a} sees the {b} ." for a in ("poet", "king", "baker", "mayor") for b in ("farmer", "judge", "cook")]
CPU = torch.device("cpu")
GPU = torch.device("cuda")


def _saved_in(folder, dtype: torch.dtype):
    """The model of ``folder`` saved again with its weights (and its config) in ``dtype``,
    as the released checkpoints are."""
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification

    from natcomp.hf.kinds import is_causal_lm_config

    config = AutoConfig.from_pretrained(folder)
    architecture = (config.architectures or [""])[0]
    if is_causal_lm_config(config.to_dict()):
        loader = AutoModelForCausalLM
    elif architecture.endswith("ForSequenceClassification"):
        loader = AutoModelForSequenceClassification
    else:
        loader = AutoModel
    loader.from_pretrained(folder, dtype=torch.float32).to(dtype).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """Tiny models saved as LLMs are released: a Llama in bf16, a GPT-2 in fp16, and a BERT
    NLI classifier in bf16 (with an fp32 copy of the Llama to compare with)."""
    root = tmp_path_factory.mktemp("released")
    sizes = dict(vocab_size=260, d_model=32, layers=2, heads=4, max_positions=64)
    models = {
        "llama_fp32": hf.build_tiny_causal_lm(root / "llama_fp32", TEXTS, kind="llama", **sizes),
        "llama_bf16": hf.build_tiny_causal_lm(root / "llama_bf16", TEXTS, kind="llama", **sizes),
        "gpt2_fp16": hf.build_tiny_causal_lm(root / "gpt2_fp16", TEXTS, kind="gpt2", **sizes),
        "nli_bf16": hf.build_tiny_model(
            root / "nli_bf16",
            hf.words_for_vocabulary(TEXTS),
            kind="sequence_classification",
            id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        ),
    }
    _saved_in(models["llama_bf16"], torch.bfloat16)
    _saved_in(models["gpt2_fp16"], torch.float16)
    _saved_in(models["nli_bf16"], torch.bfloat16)
    return {name: str(path) for name, path in models.items()}


# ---------------------------------------------------------------- the policy


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"dtype": "bfloat16"}, "bf16"),
        ({"torch_dtype": "float16"}, "fp16"),
        ({"torch_dtype": "torch.bfloat16"}, "bf16"),
        ({"dtype": "float32"}, "fp32"),
        ({}, "fp32"),
    ],
)
def test_the_checkpoints_dtype_is_read_from_either_config_key(config, expected):
    assert precision.checkpoint_dtype(config) == expected


def test_auto_is_the_checkpoints_dtype_on_a_gpu_and_fp32_on_a_cpu(fake_gpus):
    fake_gpus(8)
    assert precision.inference_dtype("auto", GPU, "bf16") == "bf16"
    assert precision.inference_dtype("auto", GPU, "fp16") == "fp16"
    assert precision.inference_dtype("auto", CPU, "bf16") == "fp32"
    assert precision.inference_dtype("auto", CPU, "fp16") == "fp32"
    assert precision.inference_dtype("bf16", GPU, "fp32") == "bf16"
    assert precision.inference_dtype("fp32", GPU, "bf16") == "fp32"


def test_a_bf16_checkpoint_on_a_gpu_without_bf16_runs_fp32_and_bf16_asked_there_is_one_line(fake_gpus):
    fake_gpus(7)
    assert precision.inference_dtype("auto", GPU, "bf16") == "fp32"
    with pytest.raises(ConfigError, match=r"^config dtype: bf16 was asked for but the GPU cuda cannot run it"):
        precision.inference_dtype("bf16", GPU, "bf16")


@pytest.mark.parametrize("asked", ["fp16", "bf16"])
def test_half_precision_asked_for_on_a_cpu_is_one_line_naming_the_key(asked):
    with pytest.raises(ConfigError, match=rf"^config pss\.dtype: {asked} was asked for but this job runs on the CPU"):
        precision.inference_dtype(asked, CPU, "bf16", "pss.dtype")
    assert precision.inference_dtype("fp32", CPU, "bf16") == "fp32"


def test_a_dtype_that_is_not_one_is_one_line():
    with pytest.raises(ConfigError, match=r"'fp8' is not a dtype; expected one of auto, fp32, fp16, bf16"):
        precision.inference_dtype("fp8", CPU, "fp32")


def test_training_autocasts_to_bf16_only_on_a_gpu_that_has_it(fake_gpus):
    assert precision.training_precision(CPU) == "fp32"
    fake_gpus(8)
    assert precision.training_precision(GPU) == "fp32 weights, bf16 autocast"
    with precision.training_autocast(CPU):
        assert not torch.is_autocast_enabled("cuda")


def test_the_precision_note_names_inference_on_either_device_and_fp32_training():
    note = precision.precision_note("auto", "bf16")
    assert note.startswith("inference in bf16 on a GPU") and "fp32 on a CPU" in note
    assert "training in fp32 weights" in note
    assert precision.precision_note("fp32", "bf16").startswith("inference in fp32 (dtype fp32; a bf16 checkpoint)")


# ---------------------------------------------------------------- every family's entry on released dtypes


def test_the_loaders_give_the_dtype_asked_for_not_the_checkpoints(released):
    assert hf.load_encoder(released["llama_bf16"]).dtype == torch.float32
    assert hf.load_encoder(released["llama_bf16"], dtype="bf16").dtype == torch.bfloat16
    assert hf.load_sequence_classifier(released["nli_bf16"]).dtype == torch.float32
    _, model = hf.load_causal_lm(released["gpt2_fp16"])
    assert model.dtype == torch.float32


def test_embeddings_of_a_bf16_checkpoint_on_a_cpu_are_its_fp32_copys(released):
    """PSS FB and TRE: auto on a CPU is fp32, so a bf16 checkpoint embeds exactly as its
    weights cast to fp32 do (here: an fp32 model with the same bf16-rounded weights)."""
    from transformers import AutoModel

    spec = hf.EncoderSpec(released["llama_bf16"], pooling="mean")
    embedded = hf.embed_texts(spec, TEXTS, device="cpu")
    reference = AutoModel.from_pretrained(released["llama_bf16"], dtype=torch.float32)
    expected = hf.encode(reference, hf.load_tokenizer(released["llama_bf16"]), TEXTS, pooling="mean", device="cpu")
    assert embedded.dtype == np.float32
    np.testing.assert_array_equal(embedded, expected)
    with pytest.raises(ConfigError, match="bf16 was asked for but this job runs on the CPU"):
        hf.embed_texts(spec, TEXTS, device="cpu", dtype="bf16")


@pytest.mark.parametrize("model", ["llama_bf16", "gpt2_fp16"])
def test_noncompsst_trains_its_fp32_head_on_a_half_precision_checkpoint_in_fp32(released, model):
    """Before the policy: 'mat1 and mat2 must have the same dtype' (bf16 states, fp32
    head); an fp16 checkpoint fine-tuned in fp16 gave NaN weights after one AdamW step."""
    from natcomp.noncompsst.head import load_sentiment_head_classifier

    classifier = load_sentiment_head_classifier(released[model], seed=1)
    settings = hf.FineTuneSettings(epochs=1, batch_size=4, learning_rate=1e-3, device="cpu")
    labels = [index % 7 for index in range(len(TEXTS))]
    result = hf.fine_tune_classifier(classifier, hf.load_tokenizer(released[model]), TEXTS, labels, settings=settings)
    assert {parameter.dtype for parameter in result.model.parameters()} == {torch.float32}
    logits = hf.predict_logits(result.model, hf.load_tokenizer(released[model]), TEXTS, device="cpu")
    assert np.isfinite(logits).all()


def test_pss_fine_tuning_and_plane_fine_tuning_keep_fp32_weights(released, tmp_path):
    from natcomp.plane.finetune import fine_tune_and_test
    from natcomp.pss.classifiers import fine_tune_encoder

    settings = hf.FineTuneSettings(epochs=1, batch_size=4, learning_rate=1e-3, device="cpu")
    labels = [index % 2 for index in range(len(TEXTS))]
    model, _ = fine_tune_encoder(released["llama_bf16"], "linear", TEXTS, labels, settings, pooling="mean")
    assert {parameter.dtype for parameter in model.parameters()} == {torch.float32}

    frame = pd.DataFrame({"sentence": TEXTS, "label": labels})
    test = frame.assign(**{"class": "int", "it": 0, "adj": "a", "noun": "n", "hyp": "h"})
    predictions, result = fine_tune_and_test(released["gpt2_fp16"], frame, {"test": test}, settings)
    assert {parameter.dtype for parameter in result.model.parameters()} == {torch.float32}
    hf.save_model(result.model, None, tmp_path / "trained")
    from transformers import AutoConfig

    assert precision.checkpoint_dtype(AutoConfig.from_pretrained(tmp_path / "trained")) == "fp32"
    assert set(predictions["predicted"]) <= {0, 1}


def test_plane_nli_and_causal_scoring_run_a_bf16_checkpoint_in_fp32_on_a_cpu(released):
    from natcomp.plane.nli import NliSettings, evaluate_nli

    items = pd.DataFrame(
        {"class": "int", "it": 0, "adj": "a", "noun": "n", "hyp": "h", "c1": TEXTS[:4], "c2": TEXTS[4:8], "label": 1}
    )
    predictions = evaluate_nli(released["nli_bf16"], items, NliSettings(device="cpu"))
    assert len(predictions) == 4
    with pytest.raises(ConfigError, match="bf16 was asked for but this job runs on the CPU"):
        evaluate_nli(released["nli_bf16"], items, NliSettings(device="cpu", dtype="bf16"))

    generator = hf.CausalGenerator(released["llama_bf16"], hf.GenerationSettings(device="cpu", max_new_tokens=2))
    assert generator.precision == "fp32" and generator.model.dtype == torch.float32
    scores = generator.loglikelihoods(["the poet sees"], [" the king ."])
    assert np.isfinite(scores[0][0])


def test_bf16_is_native_bf16_on_the_jobs_own_gpu(fake_gpus):
    """A V100 or T4 (compute capability 7) emulates bf16, slowly, and torch.cuda.is_bf16_supported()
    says yes for it: natcomp takes the fp32 route there. It asks the job's GPU, not the current one."""
    fake_gpus(7, 8)  # cuda:0 a V100, the current device; cuda:1 an A100
    v100, a100 = torch.device("cuda:0"), torch.device("cuda:1")
    assert not precision.has_bf16(v100) and precision.has_bf16(a100)
    assert precision.inference_dtype("auto", v100, "bf16") == "fp32"
    assert precision.inference_dtype("auto", a100, "bf16") == "bf16"
    assert precision.training_precision(v100) == "fp32"
    assert precision.training_precision(a100) == "fp32 weights, bf16 autocast"
    with pytest.raises(ConfigError, match="bf16 was asked for but the GPU cuda:0 cannot run it"):
        precision.inference_dtype("bf16", v100, "bf16")


def test_lora_on_an_fp16_checkpoint_trains_in_fp16_with_a_gradient_scaler(fake_gpus):
    """One rule for the frozen base under training: it stays in the checkpoint's half dtype and
    the forward pass autocasts to that dtype, so no matmul re-rounds fp16 weights to bf16 and
    training computes as the fp16 inference that follows; fp16 needs a gradient scaler."""
    gpu = fake_gpus(8)
    base = precision.training_dtype(FineTuning(method="lora"), gpu, "fp16")
    assert base == "fp16" and precision.training_autocast_dtype(gpu, base) == "fp16"
    with warnings.catch_warnings():  # this torch has no CUDA: its scaler says it is disabled
        warnings.simplefilter("ignore")
        assert isinstance(precision.gradient_scaler(gpu, base), torch.amp.GradScaler)
    assert precision.training_autocast_dtype(gpu, "bf16") == "bf16" and precision.gradient_scaler(gpu, "bf16") is None
    assert precision.training_autocast_dtype(gpu) == "bf16", "full fine-tuning: fp32 weights under bf16 autocast"
    assert precision.training_precision(gpu, "fp16") == "frozen fp16 base, fp32 adapters and head, fp16 autocast"
    v100 = fake_gpus(7)  # no bf16, but fp16 natively: the fp16 base trains there too
    assert precision.training_dtype(FineTuning(method="lora"), v100, "fp16") == "fp16"
    assert precision.training_autocast_dtype(v100, "fp16") == "fp16"


def test_the_training_loop_autocasts_to_the_frozen_bases_dtype(monkeypatch, released):
    """fine_tune_classifier asks for the autocast of the base it trains: an fp16 LoRA base's.
    On the CPU the request is recorded and served by the CPU's own fp16 autocast, as a GPU's
    would be, so the fp16 base, the fp32 adapters and the fp32 head train together."""
    import contextlib

    from natcomp.hf import training

    asked = []

    @contextlib.contextmanager
    def recording(device, base="fp32"):
        asked.append(base)
        with torch.autocast(device_type="cpu", dtype=torch.float16, enabled=base == "fp16"):
            yield

    monkeypatch.setattr(training, "training_autocast", recording)
    model = hf.load_sequence_classifier(released["gpt2_fp16"], num_labels=2, seed=0, dtype="fp16")
    tokenizer = hf.load_tokenizer(released["gpt2_fp16"])
    lora = FineTuning(method="lora", rank=2, alpha=4, dropout=0.0, gradient_checkpointing=False, learning_rate=1e-3)
    settings = hf.FineTuneSettings(epochs=1, batch_size=2, learning_rate=1e-5, device="cpu", fine_tuning=lora)
    hf.fine_tune_classifier(model, tokenizer, ["a good film", "a dull plot"], [1, 0], settings=settings)
    assert asked == ["fp16"]
