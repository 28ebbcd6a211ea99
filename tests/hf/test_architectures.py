"""Tiny offline models of every architecture researchers evaluate (natcomp.hf.tiny_architectures,
issue 41): saved in the released dtype and loaded in it, their tokenizers' special-token
habits, what ``natcomp evaluate -n`` plans for them, and natcomp's own loaders on them.

Each model is built once per module (well under a second each); ``pytest --durations``
shows the build in the first test of each architecture (the dtype test).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from natcomp import hf
from natcomp.hf import precision
from natcomp.hf.tiny_architectures import ARCHITECTURES, POSITIONS, build_tiny

REPO = Path(__file__).resolve().parents[2]

NOUNS = ["poet", "king", "baker", "mayor", "farmer"]
VERBS = ["sees", "admires", "forgets"]
#: English sentences, a few Dutch ones and one with accents, digits and a currency sign
#: (a byte-fallback or byte-level tokenizer must still cover it)
TEXTS = [f"The {a} {verb} the {b}." for a in NOUNS for verb in VERBS for b in NOUNS if a != b] + [
    "De dichter ziet de koning.",
    "De bakker vergeet de burgemeester.",
    "Ça coûte 3 €, naïve café!",
]
SHORT = "The poet sees the king."
LONG = "The farmer admires the baker, and the mayor forgets the poet."

NAMES = list(ARCHITECTURES)
DECODERS = [name for name, spec in ARCHITECTURES.items() if spec.kind == "decoder"]
ENCODERS = [name for name, spec in ARCHITECTURES.items() if spec.kind == "encoder"]
TRANSLATION = [name for name, spec in ARCHITECTURES.items() if spec.kind == "translation"]

FAMILIES_OF_KIND = {
    "decoder": ["mt", "noncompsst", "plane", "pss", "tre"],
    "encoder": ["noncompsst", "plane", "pss", "tre"],
    "translation": ["mt"],
}
AUTO_CLASSES = {"decoder": "AutoModelForCausalLM", "translation": "AutoModelForSeq2SeqLM"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``built(name)``: the folder of the tiny model of ``name``, built on first use."""
    root = tmp_path_factory.mktemp("architectures")
    folders: dict[str, Path] = {}

    def folder(name: str) -> Path:
        if name not in folders:
            folders[name] = build_tiny(name, root / name, TEXTS, seed=0)
        return folders[name]

    return folder


def _auto_class(spec):
    import transformers

    if spec.kind == "encoder":
        name = "AutoModelForSequenceClassification" if spec.nli else "AutoModelForMaskedLM"
    else:
        name = AUTO_CLASSES[spec.kind]
    return getattr(transformers, name)


def _tokenizer(folder: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, local_files_only=True)


# ------------------------------------------------------------------ the registry


def test_the_registry_covers_each_kind_and_the_tokenizer_kinds():
    assert {spec.kind for spec in ARCHITECTURES.values()} == {"decoder", "encoder", "translation"}
    assert {spec.tokenizer for spec in ARCHITECTURES.values()} == {"byte_bpe", "wordpiece", "spm_bpe", "spm_unigram"}
    assert [name for name, spec in ARCHITECTURES.items() if spec.nli] == ["roberta-mnli"]
    for spec in ARCHITECTURES.values():
        assert spec.dtype in ("float32", "float16", "bfloat16"), spec.name
        assert spec.builder == "registry" or spec.dtype == "float32", "natcomp's own builders save fp32"


def test_an_unknown_architecture_or_no_texts_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown architecture 'gpt5'; expected one of llama3"):
        build_tiny("gpt5", tmp_path / "m", TEXTS)
    with pytest.raises(ValueError, match="no texts"):
        build_tiny("llama3", tmp_path / "m", [])
    assert not (tmp_path / "m").exists()


def test_equal_seeds_give_equal_weights_and_others_differ(built, tmp_path):
    from safetensors.torch import load_file

    again = build_tiny("qwen2.5", tmp_path / "again", TEXTS, seed=0)
    other = build_tiny("qwen2.5", tmp_path / "other", TEXTS, seed=1)
    first, second, third = (load_file(folder / "model.safetensors") for folder in (built("qwen2.5"), again, other))
    assert all(torch.equal(first[name], second[name]) for name in first)
    assert not all(torch.equal(first[name], third[name]) for name in first)
    assert (built("qwen2.5") / "tokenizer.json").read_text() == (again / "tokenizer.json").read_text()


# ------------------------------------------------------------------ (a) the released dtype


@pytest.mark.parametrize("name", NAMES)
def test_saved_in_the_released_dtype_and_loaded_in_it(built, name):
    spec = ARCHITECTURES[name]
    folder = built(name)
    config = json.loads((folder / "config.json").read_text())
    assert config["dtype"] == spec.dtype, "transformers 5 writes `dtype` (no longer `torch_dtype`)"
    assert "torch_dtype" not in config
    assert config["architectures"] == [spec.model_class]
    model = _auto_class(spec).from_pretrained(folder, local_files_only=True)  # dtype "auto" by default
    assert model.dtype == getattr(torch, spec.dtype)
    assert type(model).__name__ == spec.model_class
    assert all(parameter.dtype == model.dtype for parameter in model.parameters())
    assert model.config.vocab_size >= len(_tokenizer(folder)), "every token id has an embedding row"


# ------------------------------------------------------------------ (b) special-token habits


@pytest.mark.parametrize("name", NAMES)
def test_the_tokenizer_has_the_releases_special_tokens_and_habits(built, name):
    spec = ARCHITECTURES[name]
    tokenizer = _tokenizer(built(name))
    saved = json.loads((built(name) / "tokenizer_config.json").read_text())["tokenizer_class"]
    assert saved == {"PreTrainedTokenizerFast": "TokenizersBackend"}.get(spec.tokenizer_class, spec.tokenizer_class)
    for role, token in spec.special_tokens.items():
        assert getattr(tokenizer, f"{role}_token") == token, role
    tokens = tokenizer.convert_ids_to_tokens(tokenizer(SHORT)["input_ids"])
    plain = tokenizer.convert_ids_to_tokens(tokenizer(SHORT, add_special_tokens=False)["input_ids"])
    expected = [token for token in (spec.first_token, *plain, spec.last_token) if token is not None]
    assert tokens == expected, "what the tokenizer puts before and after a text"
    assert not set(plain) & set(tokenizer.all_special_tokens), "a text alone has no special token"
    assert tokenizer.unk_token_id not in tokenizer(SHORT, add_special_tokens=False)["input_ids"]
    assert tokenizer.model_max_length == POSITIONS
    # natcomp's loader pads with the EOS (else UNK) token where the release has no pad token
    loaded = hf.load_tokenizer(built(name))
    assert loaded.pad_token == (spec.special_tokens.get("pad") or spec.special_tokens.get("eos"))


@pytest.mark.parametrize("name", DECODERS)
def test_a_decoders_config_and_generation_config_name_its_special_tokens(built, name):
    from transformers import AutoConfig, GenerationConfig

    spec = ARCHITECTURES[name]
    folder = built(name)
    tokenizer, config = _tokenizer(folder), AutoConfig.from_pretrained(folder, local_files_only=True)
    generation = GenerationConfig.from_pretrained(folder, local_files_only=True)
    for field_name, token in {**spec.token_ids, **spec.generation}.items():
        source = generation if field_name in spec.generation else config
        expected = None if token is None else tokenizer.convert_tokens_to_ids(token)
        assert getattr(source, field_name) == (list(expected) if isinstance(token, tuple) else expected), field_name


def test_llama3_puts_begin_of_text_first_and_its_instruct_model_ends_turns_with_eot(built):
    base, instruct = _tokenizer(built("llama3")), _tokenizer(built("llama3-instruct"))
    assert base("Hello")["input_ids"][0] == base.convert_tokens_to_ids("<|begin_of_text|>")
    assert base.pad_token is None and base.eos_token == "<|end_of_text|>"
    assert base.chat_template is None
    prompt = instruct.apply_chat_template(
        [{"role": "system", "content": "Translate."}, {"role": "user", "content": SHORT}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert prompt == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nTranslate.<|eot_id|>"
        f"<|start_header_id|>user<|end_header_id|>\n\n{SHORT}<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    # the template writes BOS itself: tokenized without special tokens it is there once
    ids = instruct(prompt, add_special_tokens=False)["input_ids"]
    assert ids.count(instruct.bos_token_id) == 1 and ids[0] == instruct.bos_token_id
    assert ids.count(instruct.convert_tokens_to_ids("<|start_header_id|>")) == 3
    assert instruct.decode(ids) == prompt
    assert hf.has_chat_template(built("llama3-instruct")) and not hf.has_chat_template(built("llama3"))


def test_qwen_adds_no_bos_pads_with_endoftext_and_its_base_model_has_a_chat_template(built):
    for name, eos in (("qwen2.5", "<|endoftext|>"), ("qwen2.5-instruct", "<|im_end|>")):
        tokenizer = _tokenizer(built(name))
        assert tokenizer.bos_token is None and tokenizer.pad_token == "<|endoftext|>" and tokenizer.eos_token == eos
        assert hf.has_chat_template(built(name)), "Qwen2.5 ships its chat template with the base model too"
        prompt = tokenizer.apply_chat_template(
            [{"role": "user", "content": SHORT}], tokenize=False, add_generation_prompt=True
        )
        assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
        assert f"<|im_start|>user\n{SHORT}<|im_end|>\n" in prompt


def test_phi3_adds_no_bos_pads_on_the_left_and_ends_turns_with_end(built):
    tokenizer = _tokenizer(built("phi3"))
    assert tokenizer.padding_side == "left" and tokenizer.pad_token == tokenizer.eos_token == "<|endoftext|>"
    prompt = tokenizer.apply_chat_template(
        [{"role": "system", "content": "Translate."}, {"role": "user", "content": SHORT}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert prompt == f"<|system|>\nTranslate.<|end|>\n<|user|>\n{SHORT}<|end|>\n<|assistant|>\n"
    ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    assert tokenizer.convert_ids_to_tokens(ids[-2:]) == ["<|assistant|>", "<0x0A>"], "a newline falls back to its byte"
    assert tokenizer.decode(ids) == prompt


def test_opt_prepends_its_eos_token_as_bos_and_pads_with_id_1(built):
    tokenizer = _tokenizer(built("opt"))
    ids = tokenizer(SHORT)["input_ids"]
    assert ids[0] == 2 == tokenizer.bos_token_id == tokenizer.eos_token_id
    assert tokenizer.convert_ids_to_tokens(ids[0]) == "</s>"
    assert tokenizer.pad_token_id == 1
    assert tokenizer.convert_ids_to_tokens([0, 1, 2, 3]) == ["<s>", "<pad>", "</s>", "<unk>"]


def test_pythia_and_falcon_have_no_pad_token_and_falcon_no_bos_token(built):
    pythia, falcon = _tokenizer(built("pythia")), _tokenizer(built("falcon"))
    assert pythia.pad_token is None and pythia.bos_token == pythia.eos_token == "<|endoftext|>"
    assert pythia.convert_ids_to_tokens([0, 1]) == ["<|endoftext|>", "<|padding|>"]
    assert falcon.bos_token is None and falcon.pad_token is None and falcon.eos_token_id == 11


def test_gemma2_needs_its_bos_and_caps_its_logits(built):
    from transformers import AutoConfig

    tokenizer = _tokenizer(built("gemma2"))
    assert tokenizer(SHORT)["input_ids"][0] == tokenizer.bos_token_id == 2
    assert tokenizer.pad_token_id == 0 and tokenizer.eos_token_id == 1
    config = AutoConfig.from_pretrained(built("gemma2"), local_files_only=True)
    assert (config.attn_logit_softcapping, config.final_logit_softcapping) == (50.0, 30.0)


def test_mistral_has_a_sliding_window_and_a_sentencepiece_tokenizer_with_byte_fallback(built):
    from transformers import AutoConfig

    tokenizer = _tokenizer(built("mistral"))
    assert AutoConfig.from_pretrained(built("mistral"), local_files_only=True).sliding_window == 16
    assert tokenizer.convert_ids_to_tokens([0, 1, 2, 3]) == ["<unk>", "<s>", "</s>", "<0x00>"]
    # a character no text had falls back to its UTF-8 bytes, and decodes back
    assert tokenizer.tokenize("日") == ["▁", "<0xE6>", "<0x97>", "<0xA5>"]
    assert tokenizer.decode(tokenizer("Ça coûte 3 日")["input_ids"], skip_special_tokens=True) == "Ça coûte 3 日"


@pytest.mark.parametrize("name", ["roberta", "roberta-mnli", "xlm-roberta"])
def test_fairseq_style_encoders_pad_with_id_1_and_mask_with_their_last_token(built, name):
    tokenizer = _tokenizer(built(name))
    assert tokenizer.convert_ids_to_tokens([0, 1, 2, 3]) == ["<s>", "<pad>", "</s>", "<unk>"]
    assert tokenizer.mask_token_id == max(tokenizer.get_vocab().values())


def test_roberta_mnli_is_an_nli_classifier_with_the_releases_labels(built):
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(built("roberta-mnli"), local_files_only=True)
    assert config.id2label == {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


@pytest.mark.parametrize("name", ["mbart50", "m2m100", "nllb"])
def test_a_multilingual_translation_model_marks_its_languages(built, name):
    from transformers import GenerationConfig

    spec = ARCHITECTURES[name]
    tokenizer = _tokenizer(built(name))
    source = tokenizer(SHORT)["input_ids"]
    target = tokenizer(text_target="De dichter ziet de koning.")["input_ids"]
    assert tokenizer.convert_ids_to_tokens([source[0], source[-1]]) == [spec.first_token, "</s>"]
    assert tokenizer.convert_ids_to_tokens([target[0], target[-1]]) == [spec.forced_bos, "</s>"]
    generation = GenerationConfig.from_pretrained(built(name), local_files_only=True)
    assert generation.forced_bos_token_id == tokenizer.convert_tokens_to_ids(spec.forced_bos)
    assert generation.decoder_start_token_id == tokenizer.eos_token_id, "fairseq: the decoder starts from </s>"


@pytest.mark.parametrize("name", ["t5", "mt5", "marian"])
def test_t5_and_marian_add_no_bos_and_end_with_eos(built, name):
    tokenizer = _tokenizer(built(name))
    ids = tokenizer(SHORT)["input_ids"]
    assert ids[-1] == tokenizer.eos_token_id and tokenizer.bos_token is None
    if name == "t5":
        assert tokenizer.convert_ids_to_tokens([0, 1, 2]) == ["<pad>", "</s>", "<unk>"]
        assert "<extra_id_0>" in tokenizer.get_vocab()


# ------------------------------------------------------------------ (c) what natcomp evaluate plans


def _plan(built, name, monkeypatch, tmp_path, capsys):
    """``natcomp evaluate -n --model DIR`` with Snakemake replaced by a recorder: its exit
    status, the plan it printed and the run's config it gave Snakemake."""
    import yaml

    from natcomp.cli import main
    from natcomp.profile import runconfig

    given = []

    def record(command):
        given.append(yaml.safe_load(Path(command[command.index("--configfile") + 1]).read_text()))
        return 0

    folder = built(name)
    capsys.readouterr()  # building the model may print progress; only the plan's output is read
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runconfig, "run", record)
    status = main(["evaluate", "--model", str(folder), "-n"])
    return status, capsys.readouterr().err, given[0] if given else None


#: encoder-decoders the MT family does not translate with (natcomp.hf.kinds.TRANSLATION_MODEL_TYPES)
NOT_MT = [name for name in TRANSLATION if name in ("t5", "mt5", "mbart50")]
PLANNED = [name for name in NAMES if name not in NOT_MT]


@pytest.mark.parametrize("name", PLANNED)
def test_natcomp_evaluate_plans_every_family_the_kind_fits(built, name, monkeypatch, tmp_path, capsys):
    spec = ARCHITECTURES[name]
    status, err, config = _plan(built, name, monkeypatch, tmp_path, capsys)
    assert status == 0, err
    families = [family for family in FAMILIES_OF_KIND["decoder"] if config[family] != {"enabled": False}]
    assert families == FAMILIES_OF_KIND[spec.kind]
    plan = err.split("the plan:\n", 1)[1]
    if spec.kind == "decoder":
        # a chat template is never taken to mean "instruct" (issue 41.3)
        assert "is causal LM" in err and "instruct causal LM" not in err
        assert config["mt"]["systems"][config["run_name"]]["family"] == "causal"
    elif spec.kind == "translation":
        assert "is translation model;" in err
    else:
        assert ("NLI classifier" in plan) == spec.nli and ("masked LM" in plan) == (not spec.nli)
        assert config["plane"]["nli"]["enabled"] is spec.nli
        assert config["plane"]["prompting"]["enabled"] is (not spec.nli)
    released = precision.checkpoint_dtype({"dtype": spec.dtype})
    assert f"precision: {precision.precision_note('auto', released)}" in err
    assert f"inference in {released} on a GPU" in err


@pytest.mark.parametrize("name", NOT_MT)
def test_an_encoder_decoder_the_mt_family_cannot_translate_with_is_refused_in_one_line(
    built, name, monkeypatch, tmp_path, capsys
):
    """T5, mT5 and mBART-50 were planned for MT and refused by its first job (issue 41)."""
    status, err, config = _plan(built, name, monkeypatch, tmp_path, capsys)
    assert status == 2 and config is None
    (line,) = err.strip().splitlines()
    assert "encoder-decoder: the MT family translates with Marian (marian), M2M100 and NLLB-200" in line


def test_a_dotted_folder_name_becomes_a_name_pss_and_tre_can_hold_and_a_dotted_name_given_is_one_line(
    built, monkeypatch, tmp_path, capsys
):
    from natcomp.cli import main

    status, err, config = _plan(built, "qwen2.5", monkeypatch, tmp_path, capsys)
    assert status == 0 and config["run_name"] == "qwen2_5" and "qwen2_5" in config["pss"]["encoders"]
    assert main(["evaluate", "--model", str(built("qwen2.5")), "--name", "my.qwen", "-n"]) == 2
    assert "--name: 'my.qwen' has a '.', which PSS and TRE cannot have" in capsys.readouterr().err
    assert main(["evaluate", "--model", str(built("qwen2.5")), "--name", "my.qwen", "--families", "mt", "-n"]) == 0


# The run's config must pass the checks the workflow makes before any job: the schemas
# (workflow/rules/common.smk) and, for a translation model, the MT family's check of the
# systems it will decode with (workflow/rules/mt/common.smk, a real run's start check).
@pytest.mark.parametrize("name", PLANNED)
def test_the_planned_run_passes_the_workflows_checks_before_any_job(built, name, monkeypatch, tmp_path, capsys):
    from natcomp.configcheck import check_config, load_schema
    from natcomp.mt.config import check_system_models

    status, err, config = _plan(built, name, monkeypatch, tmp_path, capsys)
    assert status == 0, err
    check_config(config, load_schema(REPO / "config" / "schema.yaml"))
    for family in FAMILIES_OF_KIND["decoder"]:
        check_config(config[family], load_schema(REPO / "config" / "schema" / f"{family}.yaml"), family)
    if config["mt"].get("systems"):
        check_system_models(config["mt"])


# ------------------------------------------------------------------ natcomp's loaders on them


@pytest.mark.parametrize("name", DECODERS)
def test_a_decoder_loads_through_natcomp_and_runs_on_two_texts(built, name):
    from natcomp.hf.inference import model_inputs

    spec = ARCHITECTURES[name]
    tokenizer, model = hf.load_causal_lm(built(name))
    # fp32 unless asked (natcomp.hf.precision); the released dtype when asked
    assert model.dtype == torch.float32 and tokenizer.padding_side == "left"
    released = precision.checkpoint_dtype({"dtype": spec.dtype})
    assert hf.load_causal_lm(built(name), dtype=released)[1].dtype == getattr(torch, spec.dtype)
    batch = tokenizer([SHORT, LONG], padding=True, return_tensors="pt")
    with torch.inference_mode():
        logits = model(**model_inputs(model, batch, torch.device("cpu"))).logits
    assert logits.shape[:2] == batch["input_ids"].shape and bool(torch.isfinite(logits).all())
    # PSS and TRE embed with the bare model (mean of the real tokens)
    embeddings = hf.encode(hf.load_encoder(built(name)), hf.load_tokenizer(built(name)), [SHORT, LONG], pooling="mean")
    assert embeddings.shape == (2, model.config.hidden_size) and np.isfinite(embeddings).all()


@pytest.mark.parametrize("name", ENCODERS)
def test_an_encoder_loads_through_natcomp_and_runs_on_two_texts(built, name):
    spec = ARCHITECTURES[name]
    folder = built(name)
    tokenizer = hf.load_tokenizer(folder)
    embeddings = hf.encode(hf.load_encoder(folder), tokenizer, [SHORT, LONG], pooling="cls")
    assert embeddings.shape == (2, 32) and np.isfinite(embeddings).all()
    if spec.nli:
        probabilities = hf.classify(hf.load_sequence_classifier(folder), tokenizer, [(SHORT, LONG), (LONG, SHORT)])
        assert probabilities.shape == (2, 3)
    else:
        texts = [
            f"The poet {tokenizer.mask_token} the king.",
            f"The farmer {tokenizer.mask_token} the mayor and the poet.",
        ]
        probabilities = hf.masked_token_probabilities(hf.load_masked_lm(folder), tokenizer, texts, [5, 6])
        assert probabilities.shape == (2, 2)
    assert np.isfinite(probabilities).all()


@pytest.mark.parametrize("name", TRANSLATION)
def test_a_translation_model_loads_through_natcomp_and_generates_for_two_texts(built, name):
    spec = ARCHITECTURES[name]
    tokenizer, model = hf.load_seq2seq(built(name))
    batch = tokenizer([SHORT, LONG], padding=True, return_tensors="pt")
    with torch.inference_mode():
        output = model.generate(**batch, max_new_tokens=4, num_beams=2)
    assert output.shape[0] == 2
    if spec.forced_bos is not None:
        assert tokenizer.convert_ids_to_tokens(output[:, 1].tolist()) == [spec.forced_bos] * 2


@pytest.mark.parametrize("name", DECODERS + ENCODERS)
def test_one_fine_tuning_step_of_a_new_classifier_head_keeps_it_finite(built, name):
    """NonCompSST and PLANE fine-tune every decoder and encoder with a new head (natcomp.hf.training)."""
    folder = built(name)
    model, tokenizer = hf.load_sequence_classifier(folder, num_labels=3, seed=0), hf.load_tokenizer(folder)
    settings = hf.FineTuneSettings(epochs=1, batch_size=2, learning_rate=1e-3, device="cpu")
    hf.fine_tune_classifier(model, tokenizer, [SHORT, LONG, LONG, SHORT], [0, 1, 2, 1], settings=settings)
    # fp32 master weights whatever the release's dtype: fp16 weights were NaN after one AdamW step
    assert {parameter.dtype for parameter in model.parameters()} == {torch.float32}
    probabilities = hf.classify(model, tokenizer, [SHORT, LONG])
    assert np.isfinite(probabilities).all() and math.isclose(probabilities[0].sum(), 1.0)
