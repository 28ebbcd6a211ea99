"""natcomp.hf.causal: tiny GPT-2 and Llama models saved and loaded back through
from_pretrained, chat templates, and the causal-LM check of load_causal_lm."""

from __future__ import annotations

import json

import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.hf.causal import (
    CausalGenerator,
    Generation,
    GenerationSettings,
    build_tiny_causal_lm,
    has_chat_template,
    load_causal_lm,
)

# ---------------------------------------------------------------- tiny models and loading


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_tiny_causal_lm_loads_like_a_released_one(tiny_causal, kind):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = tiny_causal[kind]
    raw_tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    assert type(model).__name__ == {"gpt2": "GPT2LMHeadModel", "llama": "LlamaForCausalLM"}[kind]
    assert raw_tokenizer.pad_token is None  # like the released GPT-2 and Llama
    ids = raw_tokenizer("The poet sees the king.").input_ids
    # Llama's tokenizer starts every text with BOS, GPT-2's does not.
    assert (ids[0] == raw_tokenizer.bos_token_id) == (kind == "llama")
    assert raw_tokenizer.decode(ids, skip_special_tokens=True) == "The poet sees the king."
    assert model.config.vocab_size == len(raw_tokenizer) <= 300
    assert not has_chat_template(folder)


def test_equal_arguments_give_equal_models(tmp_path, make_tiny_causal):
    from safetensors.torch import load_file

    first, second, other = (
        make_tiny_causal(tmp_path / name, kind="llama", seed=seed) for name, seed in (("a", 1), ("b", 1), ("c", 2))
    )
    weights = [load_file(folder / "model.safetensors") for folder in (first, second, other)]
    assert all((weights[0][name] == weights[1][name]).all() for name in weights[0])
    assert any((weights[0][name] != weights[2][name]).any() for name in weights[0])
    assert (first / "tokenizer.json").read_text() == (second / "tokenizer.json").read_text()


def test_build_tiny_causal_lm_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="kind must be one of gpt2, llama"):
        build_tiny_causal_lm(tmp_path / "m", ["a text"], kind="bert")
    with pytest.raises(ValueError, match="no texts"):
        build_tiny_causal_lm(tmp_path / "m", [])
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_load_causal_lm_pads_on_the_left_with_the_eos_token(tiny_causal, kind):
    tokenizer, model = load_causal_lm(tiny_causal[kind])
    assert tokenizer.padding_side == "left"
    assert tokenizer.pad_token is not None and tokenizer.pad_token == tokenizer.eos_token
    assert model.generation_config.pad_token_id == tokenizer.pad_token_id
    assert not model.training
    batch = tokenizer(["The poet", "The poet sees the king."], padding=True)
    assert batch["attention_mask"][0][0] == 0 and batch["attention_mask"][0][-1] == 1


def test_load_causal_lm_refuses_a_masked_lm_naming_the_key(tmp_path):
    folder = hf.build_tiny_model(tmp_path / "bert", ["the", "poet"], kind="masked_lm")
    with pytest.raises(ConfigError) as caught:
        load_causal_lm(folder, key="mt.systems.llm.model")
    message = str(caught.value)
    assert "mt.systems.llm.model" in message and "BertForMaskedLM" in message and "\n" not in message


def test_load_causal_lm_refuses_a_missing_model(tmp_path):
    with pytest.raises(ConfigError, match="model"):
        load_causal_lm(tmp_path / "nothing")


def test_instruct_model_has_a_chat_template(tiny_instruct, tiny_causal):
    assert has_chat_template(tiny_instruct)
    assert not has_chat_template(tiny_causal["llama"])
    tokenizer, _ = load_causal_lm(tiny_instruct)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Translate: the poet"}], tokenize=False, add_generation_prompt=True
    )
    assert "Translate: the poet" in prompt and prompt.endswith("<|assistant|>\n")


def test_has_chat_template_reads_tokenizer_config(tmp_path, tiny_causal):
    import shutil

    folder = shutil.copytree(tiny_causal["gpt2"], tmp_path / "copy")
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["chat_template"] = "{{ messages[0]['content'] }}"
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert has_chat_template(folder)
    assert not has_chat_template(tmp_path / "missing")


# ---------------------------------------------------------------- generation

# Prompts of clearly different lengths, so that a batch pads them differently.
PROMPTS = [
    "The poet",
    "The king sees the baker, and the mayor admires the farmer who forgets the poet. The baker",
    "De",
    "English: The poet sees the king.\nDutch:",
    "The mayor forgets the",
]


def generator(folder, **settings) -> CausalGenerator:
    return CausalGenerator(folder, GenerationSettings(**{"device": "cpu", **settings}))


def _one_by_one(model, prompts, **kwargs):
    return [model.generate([prompt], **kwargs)[0] for prompt in prompts]


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_batched_greedy_output_equals_one_by_one_output(tiny_causal, kind):
    # batches of 2 of 5 prompts: each batch pads differently, and one prompt goes alone
    model = generator(tiny_causal[kind], max_new_tokens=8, stop=(), batch_size=2)
    batched = model.generate(PROMPTS)
    assert batched == _one_by_one(model, PROMPTS)
    assert len({generations[0].text for generations in batched}) == len(PROMPTS)  # not one text for all
    # per-item limits change nothing else in the batch either
    limited = model.generate(PROMPTS, limits=[3, 8, 8, 5, 8])
    assert limited == [model.generate([prompt], limits=[limit])[0] for prompt, limit in zip(PROMPTS, [3, 8, 8, 5, 8])]
    assert [generations[0].new_tokens for generations in limited] == [3, 8, 8, 5, 8]


def _spy_generated_lengths(model, monkeypatch) -> list[int]:
    """Record how many tokens each call of the model's generate wrote (all items together)."""
    lengths, generate = [], model.model.generate

    def spy(**kwargs):
        output = generate(**kwargs)
        lengths.append(output.sequences.shape[1] - kwargs["input_ids"].shape[1])
        return output

    monkeypatch.setattr(model.model, "generate", spy)
    return lengths


@pytest.mark.parametrize("decoding", ["greedy", "beam"])
def test_stop_strings_cut_the_text_and_stop_generation(trained_gpt2, decoding, monkeypatch):
    free = generator(trained_gpt2, decoding=decoding, beam=3, max_new_tokens=20, stop=())
    (whole,) = free.generate(["The poet"])[0]
    assert whole.text.startswith(" sees the ") and whole.new_tokens > 3  # the trained model writes a sentence
    model = generator(trained_gpt2, decoding=decoding, beam=3, max_new_tokens=20, stop=("xyz", " the"))
    lengths = _spy_generated_lengths(model, monkeypatch)
    (cut,) = model.generate(["The poet"])[0]
    assert cut.text == " sees" and cut.finished
    assert cut.new_tokens == model.count_tokens([" sees the"])[0] == 2
    assert lengths == [2]  # generate itself stopped at the stop string
    # the default stop: the first line
    (line,) = generator(trained_gpt2, decoding=decoding, beam=3, max_new_tokens=20).generate(["The poet"])[0]
    assert line.finished and "\n" not in line.text and line.text == whole.text.split("\n")[0]


def test_a_token_limit_cuts_an_item_off_unfinished(trained_gpt2):
    model = generator(trained_gpt2, max_new_tokens=20)
    short, free = model.generate(["The poet", "The king admires"], limits=[2, 20])
    assert short == [Generation(" sees the", False, 2)]
    assert free[0].finished and free[0].text.endswith(".")
    (capped,) = generator(trained_gpt2, max_new_tokens=3).generate(["The poet"])[0]
    # max_new_tokens caps like a limit: one token more than the limit of 2 above
    assert not capped.finished and capped.new_tokens == 3
    assert capped.text.startswith(short[0].text) and capped.text != short[0].text


def test_token_limits_follow_the_source_length(tiny_causal):
    model = generator(tiny_causal["gpt2"], max_new_tokens=12, max_len_a=1.5, max_len_b=2)
    sources = ["The poet", "The king sees the baker, and the mayor admires the farmer."]
    counts = model.count_tokens(sources)
    assert model.token_limits(sources) == [min(12, int(1.5 * count + 2)) for count in counts]
    assert generator(tiny_causal["gpt2"], max_new_tokens=12).token_limits(sources) == [12, 12]


def test_nbest_gives_the_beam_hypotheses_best_first(trained_gpt2):
    model = generator(trained_gpt2, decoding="beam", beam=4, max_new_tokens=10)
    hypotheses = model.generate(["The poet", "The king admires"], nbest=3)
    for item, prompt in zip(hypotheses, ["The poet", "The king admires"]):
        assert len(item) == 3 and len({hypothesis.text for hypothesis in item}) == 3
        scores = [hypothesis.score for hypothesis in item]
        assert scores == sorted(scores, reverse=True)
        assert item[0] == model.generate([prompt])[0][0]
    with pytest.raises(ValueError, match="nbest must be between 1 and the beam"):
        model.generate(["The poet"], nbest=5)
    with pytest.raises(ValueError, match="decoding greedy"):
        generator(trained_gpt2).generate(["The poet"], nbest=2)


def test_generation_settings_list_every_problem():
    with pytest.raises(ValueError) as caught:
        GenerationSettings(decoding="sample", beam=0, precision="fp8", stop=("",), max_len_a=-1)
    message = str(caught.value)
    for expected in (
        "decoding must be one of greedy, beam",
        "beam must be",
        "precision must be one of auto, fp32, fp16, bf16",
    ):
        assert expected in message
    assert "stop must hold non-empty strings" in message and "max_len_a" in message
    assert GenerationSettings(stop=["\n", "###"]).stop == ("\n", "###")


def test_half_precision_asked_for_on_the_cpu_is_one_line_and_auto_runs_fp32(tiny_causal):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(
        ConfigError, match=r"config mt\.systems\.llm\.precision: bf16 was asked for but this job runs on the CPU"
    ):
        CausalGenerator(
            tiny_causal["llama"], GenerationSettings(device="cpu", precision="bf16"), key="mt.systems.llm.model"
        )
    model = generator(tiny_causal["llama"], precision="auto")
    assert model.precision == "fp32" and model.model.dtype == torch.float32


def test_a_device_that_is_not_there_names_the_device_key_beside_the_model(tiny_causal):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    settings = GenerationSettings(device="cuda")
    with pytest.raises(ConfigError, match=r"config mt\.systems\.llm\.device: 'cuda' was asked for"):
        CausalGenerator(tiny_causal["gpt2"], settings, key="mt.systems.llm.model")
    with pytest.raises(ConfigError, match=r"config mt\.systems\.llm\.device:"):
        CausalGenerator(tiny_causal["gpt2"], settings, key="mt.systems.llm")


def test_chat_template_and_token_counts(tiny_instruct, tiny_causal):
    instruct = generator(tiny_instruct)
    prompt = instruct.apply_chat_template("Translate: the poet", system="You translate.")
    assert "Translate: the poet" in prompt and "You translate." in prompt and prompt.endswith("<|assistant|>\n")
    with pytest.raises(ConfigError, match="no chat template"):
        generator(tiny_causal["llama"], stop=()).apply_chat_template("Translate: the poet")
    llama = generator(tiny_causal["llama"])
    # no BOS in the count, though Llama's tokenizer adds one to every text
    assert llama.count_tokens(["The poet", ""]) == [len(llama.tokenizer("The poet").input_ids) - 1, 0]


# ---------------------------------------------------------------- log-likelihoods

CONTEXTS = ["The poet", "The king sees the baker, and the mayor admires the farmer. The poet", "De", "", "The poet "]
CONTINUATIONS = [" sees the king.", " forgets", " dichter ziet", "The mayor", "sees the king."]


def _by_hand(model, context: str, continuation: str) -> float:
    """The log-likelihood from one forward pass over the unpadded sequence."""
    import torch

    tokenizer = model.tokenizer
    context_ids = tokenizer(context).input_ids or [tokenizer.bos_token_id]
    whole = tokenizer(context + continuation).input_ids
    sequence = context_ids + whole[len(tokenizer(context).input_ids) :]
    with torch.no_grad():
        logits = model.model(input_ids=torch.tensor([sequence])).logits[0]
    log_probs = logits.log_softmax(dim=-1)
    start = len(context_ids)
    return sum(log_probs[position - 1, sequence[position]].item() for position in range(start, len(sequence)))


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_batched_loglikelihoods_equal_one_by_one_and_a_plain_forward_pass(tiny_causal, kind):
    model = generator(tiny_causal[kind], batch_size=2)
    batched = model.loglikelihoods(CONTEXTS, CONTINUATIONS)
    one_by_one = [
        model.loglikelihoods([context], [continuation])[0] for context, continuation in zip(CONTEXTS, CONTINUATIONS)
    ]
    assert [score for score, _ in batched] == pytest.approx([score for score, _ in one_by_one], abs=1e-4)
    assert [greedy for _, greedy in batched] == [greedy for _, greedy in one_by_one]
    for (score, _), context, continuation in zip(batched[:4], CONTEXTS, CONTINUATIONS):
        assert score == pytest.approx(_by_hand(model, context, continuation), abs=1e-4)
    # lm-evaluation-harness's rule: the context's trailing space belongs to the continuation
    assert batched[4][0] == pytest.approx(batched[0][0], abs=1e-4)
    assert model.loglikelihoods(["The poet"], [""]) == [(0.0, True)]


def test_the_greedy_flag_tells_whether_greedy_decoding_writes_the_continuation(trained_gpt2):
    model = generator(trained_gpt2)
    (written,) = model.generate(["The poet"])[0]
    noun = written.text.split()[-1].rstrip(".")
    changed = written.text.replace(noun, "baker" if noun != "baker" else "farmer")
    (greedy_score, greedy), (changed_score, not_greedy) = model.loglikelihoods(
        ["The poet"] * 2, [written.text, changed]
    )
    assert greedy and not not_greedy and greedy_score > changed_score


def test_a_bos_token_at_the_start_of_a_text_is_not_doubled(tiny_causal):
    model = generator(tiny_causal["llama"])
    with_bos, plain = model.loglikelihoods(["<s>The poet", "The poet"], [" sees", " sees"])
    assert with_bos[0] == pytest.approx(plain[0], abs=1e-5)
