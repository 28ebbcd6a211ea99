"""PLANE prompting of causal (decoder-only) LMs: the verbalisers filled in where the mask
stands, the filled sentences compared by log-likelihood (Tables 4 and 8)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import torch

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.plane import prompting
from natcomp.plane.prompting import (
    CAUSAL_MASK,
    VERBALISERS,
    PromptSettings,
    build_prompts,
    causal_answers,
    evaluate_prompting,
    evaluate_zero_shot,
    filled_loglikelihoods,
    verbaliser_ids,
)

ADJECTIVES = {"I": ["red", "wooden"], "S": ["big", "famous"], "O": ["fake", "former"]}
PAIRS = [("car", "vehicle"), ("gun", "weapon"), ("chair", "seat")]
#: 6 adjectives x 3 nouns = 18 triplets: 18 x 3 ITs x 2 orders = 108 two-shot prompts per cell
TRIPLETS = pd.DataFrame(
    [(adj, noun, hyp, cls) for cls, adjs in ADJECTIVES.items() for adj in adjs for noun, hyp in PAIRS],
    columns=["adj", "noun", "hyp", "class"],
)
#: the external template cut at the mask: the verbaliser is the whole continuation
CUT = ("A {c1} is a type of {c2}:{v}.", "A {c1} is a type of {c2}:{mask}")


def _texts() -> list[str]:
    lines = []
    for word in itertools.chain(*VERBALISERS.values(), *zip(*prompting.ZERO_SHOT_VERBALISERS)):
        for adj, noun, hyp, _ in TRIPLETS.itertuples(index=False):
            lines += [f"A {adj} {noun} is a {word} example of a {hyp}.", f"A {adj} {noun} is a type of {hyp}:{word}."]
    return lines


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Tiny untrained GPT-2, Llama and instruct GPT-2, with a byte-level BPE trained on the
    prompts' words (every verbaliser one token after ":" and after a space)."""
    folder, texts = tmp_path_factory.mktemp("causal"), _texts()
    sizes = dict(vocab_size=500, d_model=32, layers=1, heads=2, seed=3)
    return {
        "gpt2": str(hf.build_tiny_causal_lm(folder / "gpt2", texts, kind="gpt2", **sizes)),
        "llama": str(hf.build_tiny_causal_lm(folder / "llama", texts, kind="llama", **sizes)),
        "instruct": str(hf.build_tiny_causal_lm(folder / "instruct", texts, kind="gpt2", instruct=True, **sizes)),
    }


def _next_token_logits(tokenizer, model, context: str) -> torch.Tensor:
    """The model's logits for the token after ``context``, computed directly (no padding)."""
    ids = tokenizer(context, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        return model(input_ids=ids).logits[0, -1]


def _sentence_loglikelihood(tokenizer, model, text: str) -> float:
    """The total log-likelihood of a whole sentence, computed directly (every token after the first)."""
    ids = tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        logprobs = model(input_ids=ids).logits[0, :-1].log_softmax(dim=-1)
    return float(logprobs.gather(1, ids[0, 1:, None]).sum())


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_where_the_mask_ends_the_template_next_token_probabilities_give_the_same_answer(tiny, kind, monkeypatch):
    """The issue's check: with the template cut at the mask the continuation is the
    verbaliser alone, so comparing the verbalisers' next-token probabilities (computed here
    directly from the model, one prompt at a time) must give every answer of the
    filled-sentence comparison, over 3 x 108 items of both answers."""
    monkeypatch.setitem(prompting.TEMPLATES, "cut", CUT)
    settings = PromptSettings(templates=["cut"], answer="verbalisers", device="cpu")
    predictions = evaluate_prompting(tiny[kind], TRIPLETS, settings)
    tokenizer, model = hf.load_causal_lm(tiny[kind])
    ids = verbaliser_ids(tokenizer, VERBALISERS, "cut")
    agree = 0
    for name, words in VERBALISERS.items():
        prompts = build_prompts(TRIPLETS, "cut", words, CAUSAL_MASK)
        got = predictions[predictions["verbaliser"] == name]["predicted"].to_numpy()
        expected = []
        for prompt in prompts["prompt"]:
            logits = _next_token_logits(tokenizer, model, prompt.rpartition(CAUSAL_MASK)[0])
            positive, negative = ids[name]
            expected.append(int(logits[positive] >= logits[negative]))
        assert list(got) == expected
        agree += len(expected)
    assert agree == 3 * 108
    assert set(predictions["predicted"]) == {0, 1}  # both answers occur: the check can fail


@pytest.mark.parametrize("kind, verbaliser", [("gpt2", "TF"), ("llama", "PN")])  # cells where both answers occur
def test_the_answer_is_the_verbaliser_of_the_likelier_filled_sentence(tiny, kind, verbaliser):
    """With the rest of the template after the mask (internal): the answer is the
    verbaliser whose whole filled sentence has the higher total log-likelihood (computed
    directly); picking the lower would fail on every item. Batched scores equal
    one-at-a-time scores."""
    words = VERBALISERS[verbaliser]
    prompts = list(build_prompts(TRIPLETS, "internal", words, CAUSAL_MASK)["prompt"])
    tokenizer, model = hf.load_causal_lm(tiny[kind])
    filled = np.array(
        [[_sentence_loglikelihood(tokenizer, model, p.replace(CAUSAL_MASK, w)) for w in words] for p in prompts]
    )
    expected = (filled[:, 0] >= filled[:, 1]).astype(int)
    assert set(expected) == {0, 1}
    batched = hf.CausalGenerator(tiny[kind], hf.GenerationSettings(batch_size=64, device="cpu"))
    single = hf.CausalGenerator(tiny[kind], hf.GenerationSettings(batch_size=1, device="cpu"))
    answers = causal_answers(batched, prompts, list(words), [1, 0], first_prediction=False)
    assert list(answers) == list(expected)
    scores = filled_loglikelihoods(batched, prompts, list(words))
    np.testing.assert_allclose(scores, filled_loglikelihoods(single, prompts, list(words)), atol=1e-4)
    # the continuations' log-likelihoods differ from the filled sentences' by the context's, the same for both
    np.testing.assert_allclose(scores[:, 0] - scores[:, 1], filled[:, 0] - filled[:, 1], atol=1e-3)


class ScriptedGenerator:
    """A stand-in for CausalGenerator: fixed log-likelihoods per continuation, and the
    one continuation that greedy decoding writes."""

    def __init__(self, scores: dict[str, float], greedy: str):
        self.scores, self.greedy, self.calls = scores, greedy, []

    def loglikelihoods(self, contexts, continuations):
        self.calls.append((list(contexts), list(continuations)))
        return [(self.scores.get(c, -100.0), c == self.greedy) for c in continuations]


def test_answer_vocabulary_is_the_verbaliser_the_model_writes_first_at_the_mask():
    """As the masked-LM path answers with its top prediction at the mask: the label of the
    verbaliser greedy decoding writes there, even where the other one's filled sentence is
    likelier (the text after the mask cannot change the first prediction), -1 for neither."""
    prompts = [f"A red car is a type of car:{CAUSAL_MASK}."]
    scores = {"good": -1.0, "poor": -2.0, "good.": -1.0, "poor.": -2.0}
    words, labels = ["good", "poor"], [1, 0]
    assert list(causal_answers(ScriptedGenerator(scores, "good"), prompts, words, labels, first_prediction=True)) == [1]
    # the likeliest filled sentence is "good." but the model's own first word there is "poor"
    generator = ScriptedGenerator(scores, "poor")
    assert list(causal_answers(generator, prompts, words, labels, first_prediction=True)) == [0]
    assert generator.calls == [(["A red car is a type of car:"] * 2, ["good", "poor"])]
    # unequal labels: the answer is the written word's label, not its position
    assert list(causal_answers(ScriptedGenerator(scores, "poor"), prompts, words, [0, 1], first_prediction=True)) == [1]
    assert list(causal_answers(ScriptedGenerator(scores, "bad"), prompts, words, labels, first_prediction=True)) == [-1]
    generator = ScriptedGenerator(scores, "poor")
    assert causal_answers(generator, prompts, words, labels, first_prediction=False) == [1]
    assert generator.calls == [(["A red car is a type of car:"] * 2, ["good.", "poor."])]


def test_two_greedy_words_answer_with_the_likelier_one():
    """Only where one word's tokens begin the other's can both be greedy continuations."""

    class BothGreedy(ScriptedGenerator):
        def loglikelihoods(self, contexts, continuations):
            return [(self.scores[c], True) for c in continuations]

    prompts = [f"It is {CAUSAL_MASK}.", f"It was {CAUSAL_MASK}."]
    generator = BothGreedy({"possible": -3.0, "impossible": -1.0}, "")
    answers = causal_answers(generator, prompts, ["possible", "impossible"], [1, 0], first_prediction=True)
    assert list(answers) == [0, 0]


def _only_verbalisers_can_win(directory: str, words, name: str = "good-poor") -> str:
    """The tiny Llama with every output row but the words' zeroed (its head is not tied): its
    greedy next token is one of the words where their logit is positive, else token 0."""
    tokenizer, model = hf.load_causal_lm(directory)
    keep = [tokenizer.convert_tokens_to_ids(word) for word in words]
    with torch.no_grad():
        rows = model.lm_head.weight[keep].clone()
        model.lm_head.weight.zero_()
        model.lm_head.weight[keep] = rows
    out = f"{directory}-{name}"
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def test_answer_vocabulary_end_to_end_is_the_greedy_next_token(tiny, monkeypatch):
    """Where the mask ends the template, ``answer: vocabulary`` is 1 where the model's top
    next token over its whole vocabulary is the positive verbaliser, 0 where the negative,
    -1 elsewhere (computed directly); all three occur."""
    monkeypatch.setitem(prompting.TEMPLATES, "cut", CUT)
    model_dir = _only_verbalisers_can_win(tiny["llama"], ["good", "poor"], "good-poor")
    settings = PromptSettings(
        templates=["cut"], verbalisers={"GP": ["good", "poor"]}, answer="vocabulary", device="cpu"
    )
    predictions = evaluate_prompting(model_dir, TRIPLETS, settings)
    tokenizer, model = hf.load_causal_lm(model_dir)
    good, poor = verbaliser_ids(tokenizer, {"GP": ["good", "poor"]}, "cut")["GP"]
    expected = []
    for prompt in build_prompts(TRIPLETS, "cut", ("good", "poor"), CAUSAL_MASK)["prompt"]:
        top = int(_next_token_logits(tokenizer, model, prompt.rpartition(CAUSAL_MASK)[0]).argmax())
        expected.append(1 if top == good else 0 if top == poor else -1)
    assert list(predictions["predicted"]) == expected
    assert set(expected) == {-1, 0, 1}


def test_zero_shot_of_a_causal_lm_is_the_word_of_v_it_writes_first(tiny):
    model_dir = _only_verbalisers_can_win(tiny["llama"], ["good", "poor"])
    pairs = [("true", "false"), ("good", "poor")]
    predictions = evaluate_zero_shot(model_dir, TRIPLETS, PromptSettings(templates=["external"], device="cpu"), pairs)
    assert len(predictions) == 18 * 3 and set(predictions["verbaliser"]) == {"V"}
    tokenizer, model = hf.load_causal_lm(model_dir)
    good, poor = (tokenizer.convert_tokens_to_ids(word) for word in ("good", "poor"))
    prompts = prompting.build_zero_shot_prompts(TRIPLETS, "external", CAUSAL_MASK)["prompt"]
    expected = []
    for prompt in prompts:
        top = int(_next_token_logits(tokenizer, model, prompt.rpartition(CAUSAL_MASK)[0]).argmax())
        # the label of the top next token, whatever the rest of the template (".") does to
        # the filled sentences' likelihoods
        expected.append({good: 1, poor: 0}.get(top, -1))
    got = predictions["predicted"].to_numpy()
    assert list(got) == expected
    assert -1 in expected and set(expected) - {-1}, "answers counted and answers refused"


def test_the_chat_template_wraps_the_prompt_up_to_the_mask_as_the_users_turn(tiny, monkeypatch):
    """``chat_template: on``: the model reads the prompt up to the mask as the user's turn
    of its chat template and the verbaliser and the rest of the template as the start of the
    assistant's answer; off (the default) leaves the prompt plain even when the tokenizer
    has a chat template (a base model's may have one too)."""
    seen = []
    score = hf.CausalGenerator.loglikelihoods

    def spy(self, contexts, continuations):
        seen.append((list(contexts), list(continuations)))
        return score(self, contexts, continuations)

    monkeypatch.setattr(hf.CausalGenerator, "loglikelihoods", spy)
    triplet = TRIPLETS[TRIPLETS["adj"] == "big"].iloc[:1]
    settings = PromptSettings(templates=["internal"], verbalisers={"GP": ["good", "poor"]}, answer="verbalisers")
    plain = "A big car is a good example of a car. A big car is a poor example of a big vehicle. A big car is a "
    for mode in ("on", True):
        seen.clear()
        evaluate_prompting(tiny["instruct"], triplet, PromptSettings(**{**settings.__dict__, "chat_template": mode}))
        contexts, continuations = seen[0]
        first = contexts[continuations.index("good example of a vehicle.")]
        assert first == f"<|user|>\n{plain.rstrip()}<|endoftext|>\n<|assistant|>\n"
        assert "poor example of a vehicle." in continuations
    for model in ("instruct", "gpt2"):
        seen.clear()
        evaluate_prompting(tiny[model], triplet, settings)  # the default: off
        contexts, continuations = seen[0]
        assert contexts[continuations.index("good example of a vehicle.")] == plain, model
    with pytest.raises(ConfigError, match="plane.prompting.chat_template: is on but .* has no chat template"):
        evaluate_prompting(tiny["gpt2"], triplet, PromptSettings(**{**settings.__dict__, "chat_template": "on"}))


def test_a_tokenizer_with_a_chat_template_is_not_chat_wrapped_by_default(tiny, monkeypatch, caplog):
    """Issue 41: the default settings prompt a causal LM whose tokenizer has a chat template
    as plain text, zero-shot too, and the log says whether the template was applied."""
    seen = []
    monkeypatch.setattr(hf.CausalGenerator, "apply_chat_template", lambda self, *args, **kw: seen.append(args))
    assert PromptSettings().chat_template == "off"
    generator, chat = prompting.causal_generator(tiny["instruct"], PromptSettings(device="cpu"))
    assert chat is False
    import logging

    log = logging.getLogger("test.plane.chat")
    with caplog.at_level(logging.INFO, logger="test.plane.chat"):
        evaluate_zero_shot(tiny["instruct"], TRIPLETS.iloc[:1], PromptSettings(templates=["external"]), log=log)
    assert seen == [], "no prompt went through the chat template"
    assert "prompts as plain text (chat_template: off)" in caplog.text
    assert prompting.causal_generator(tiny["instruct"], PromptSettings(chat_template="on"))[1] is True


def test_chat_template_auto_is_refused_with_why():
    with pytest.raises(ConfigError) as error:
        PromptSettings(chat_template="auto")
    assert str(error.value) == (
        "config plane.prompting.chat_template: auto was removed: a base model's tokenizer may have a chat "
        "template too; set on or off"
    )


def test_a_causal_lm_is_told_from_a_masked_lm(tiny, tmp_path):
    masked = hf.build_tiny_model(tmp_path / "mlm", ["a", "car"], kind="masked_lm", seed=1)
    assert prompting.is_causal_lm(tiny["gpt2"]) and prompting.is_causal_lm(tiny["llama"])
    assert not prompting.is_causal_lm(str(masked))
    with pytest.raises(ConfigError, match="plane.prompting.chat_template: must be one of on, off, not 'sometimes'"):
        PromptSettings(chat_template="sometimes")
    assert PromptSettings(chat_template=False).chat_template == "off"
