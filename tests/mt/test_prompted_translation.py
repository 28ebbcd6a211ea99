"""A causal LM prompted to translate (natcomp.mt.prompted_translation) on tiny GPT-2 and
Llama models built from a config: prompts, chat template, decode signature, statuses of
the answers and their cache, and the system factory."""

from __future__ import annotations

import pytest

from natcomp.errors import ConfigError
from natcomp.hf.causal import Generation, build_tiny_causal_lm
from natcomp.mt.prompted_translation import PromptedTranslator, generation_settings, translate_with_status
from natcomp.mt.prompting import FewShotExample
from natcomp.mt.systems import system_translator
from natcomp.mt.translation_cache import TranslationCache

TEXTS = ["English: the cat sleeps .\nDutch: de kat slaapt .\n", "English: a dog runs .\nDutch: een hond rent .\n"] * 10
SIZES = dict(vocab_size=300, d_model=16, layers=1, heads=2, max_positions=256)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("prompted")
    return {
        "gpt2": build_tiny_causal_lm(root / "gpt2", TEXTS, kind="gpt2", **SIZES),
        "instruct": build_tiny_causal_lm(root / "instruct", TEXTS, kind="llama", instruct=True, **SIZES),
    }


def translator(model, **system) -> PromptedTranslator:
    entry = {"model": str(model), "family": "causal", "max_new_tokens": 8, **system}
    return system_translator(entry, source_lang="en", target_lang="nl", key="mt.systems.llm")


def test_the_factory_gives_a_prompted_translator_whose_signature_names_the_prompt(models):
    plain = translator(models["gpt2"])
    assert isinstance(plain, PromptedTranslator)
    fields = plain.signature.split("|")
    assert fields[0].startswith("causal:") and fields[2:] == [
        "shots:-",
        "chat:off",
        "dec:greedy",
        "maxnew:8",
        "lang:en-nl",
        "prec:fp32",
    ]
    assert translator(models["gpt2"]).signature == plain.signature, "the same settings, the same cache"
    changed = {
        translator(models["gpt2"], prompt="{source} =").signature,
        translator(models["gpt2"], decoding="beam", beam=2).signature,
        translator(models["gpt2"], max_len_a=1.5).signature,
        PromptedTranslator.for_system(
            {"model": str(models["gpt2"]), "max_new_tokens": 8},
            source_lang="en",
            target_lang="nl",
            key="mt.systems.llm",
            examples=(FewShotExample(3, "a", "een"),),
        ).signature,
    }
    assert len(changed) == 4 and plain.signature not in changed
    # a beam system's probes keep lists of hypotheses in the cache: never its translations'
    beam = translator(models["gpt2"], decoding="beam", beam=5)
    assert beam.with_nbest(5).signature == beam.signature.replace("|dec:beam5|", "|dec:beam5|nbest:5|")
    assert (
        beam.with_nbest(5).signature
        == PromptedTranslator.for_system(
            {"model": str(models["gpt2"]), "max_new_tokens": 8, "decoding": "beam", "beam": 5},
            source_lang="en",
            target_lang="nl",
            key="mt.systems.llm",
            nbest=5,
        ).signature
    )
    assert (
        "|shots:3|"
        in PromptedTranslator.for_system(
            {"model": str(models["gpt2"])},
            source_lang="en",
            target_lang="nl",
            key="k",
            examples=(FewShotExample(3, "a", "een"),),
        ).signature
    )


def test_a_tokenizer_with_a_chat_template_is_prompted_plainly_unless_chat_template_is_on(models):
    """Issue 41: having a chat template does not make a model an instruct model (a base
    model's tokenizer may have one): the default prompts it as plain text; on wraps the
    prompt as the user's turn, and the decode signature says which."""
    plain = translator(models["instruct"])
    assert not plain.chat and "|chat:off|" in plain.signature
    assert plain.prompts(["the cat sleeps ."]) == ["English: the cat sleeps .\nDutch:"]
    for on in ("on", True):  # YAML's bare on
        chat = translator(models["instruct"], chat_template=on)
        assert chat.chat and "|chat:on|" in chat.signature
        (prompt,) = chat.prompts(["the cat sleeps ."])
        assert prompt == "<|user|>\nEnglish: the cat sleeps .\nDutch:</s>\n<|assistant|>\n"
    assert chat.signature == plain.signature.replace("|chat:off|", "|chat:on|"), "the cache tells them apart"
    assert translator(models["instruct"], chat_template=False).signature == plain.signature
    with pytest.raises(ConfigError, match="mt.systems.llm.chat_template: is on but .* has no chat template"):
        translator(models["gpt2"], chat_template="on")


def test_chat_template_auto_is_refused_with_why(models):
    with pytest.raises(ConfigError) as error:
        translator(models["instruct"], chat_template="auto")
    assert str(error.value) == (
        "config mt.systems.llm.chat_template: auto was removed: a base model's tokenizer may have a chat "
        "template too; set on or off"
    )


class Scripted:
    """A generator that answers from a script (text, finished) per source word."""

    def __init__(self, answers):
        self.answers, self.calls = answers, []

    def token_limits(self, sources):
        return [8] * len(sources)

    def generate(self, prompts, limits, nbest=1):
        self.calls.append(list(prompts))
        words = [prompt.rsplit("English: ", 1)[1].split("\n")[0] for prompt in prompts]
        return [[Generation(*self.answers[word], new_tokens=3)] * nbest for word in words]


def test_each_answer_is_ok_empty_or_cut_off_and_the_statuses_outlive_the_decoding(models, tmp_path):
    llm = translator(models["gpt2"])
    llm.generator = Scripted(
        {
            "a": (" een\n", True),
            "b": (" Dutch: twee", True),
            "c": ("  ", True),
            "d": (" half afgebro", False),
            "e": ("", False),
        }
    )
    translations, statuses = llm.translate_with_status(["a", "b", "c", "d", "e"])
    assert [t[0] for t in translations] == ["een", "twee", "", "half afgebro", ""]
    assert statuses == ["ok", "ok", "empty", "cut_off", "cut_off"]
    cache = TranslationCache(tmp_path, llm.signature)
    stats, found = translate_with_status(cache, ["a", "c", "d", "a"], llm)
    assert stats.decoded == 3 and found == {"a": "ok", "c": "empty", "d": "cut_off"}
    calls = len(llm.generator.calls)
    again = TranslationCache(tmp_path, llm.signature)
    stats, found = translate_with_status(again, ["d", "c", "a"], llm)
    assert stats.decoded == 0 and len(llm.generator.calls) == calls, "nothing decoded twice"
    assert found == {"d": "cut_off", "c": "empty", "a": "ok"}, "statuses come from their cache"


def test_the_probes_decode_with_a_beam_of_at_least_nbest_even_when_the_tests_are_greedy():
    assert generation_settings({"decoding": "greedy"}).decoding == "greedy"
    probes = generation_settings({"decoding": "greedy", "beam": 2}, nbest=5)
    assert (probes.decoding, probes.beam) == ("beam", 5)
    assert generation_settings({"beam": 8}, nbest=5).beam == 8


def test_a_tiny_model_translates_in_input_order_and_nbest_starts_with_the_best(models):
    llm = translator(models["gpt2"], decoding="beam", beam=3, max_new_tokens=6)
    sources = ["the cat sleeps .", "a dog runs .", "the cat runs ."]
    best = llm.translate(sources)
    nbest = llm.translate_nbest(sources, 3)
    assert [hypotheses[0] for hypotheses in nbest] == best
    assert all(len(hypotheses) == 3 for hypotheses in nbest)
    assert [llm.translate([source])[0] for source in reversed(sources)] == list(reversed(best))


def test_the_probes_translator_shares_the_loaded_model_and_equals_one_built_for_them(models):
    """A system's translation job decodes its synonym probes with nbest_translator: the
    same model object, the signature and the n-best lists of a translator built for the
    probes (greedy tests, beam-5 probes)."""
    from natcomp.mt.systems import nbest_translator

    entry = {"model": str(models["gpt2"]), "family": "causal", "max_new_tokens": 6, "decoding": "greedy", "beam": 2}
    settings = dict(source_lang="en", target_lang="nl", key="mt.systems.llm")
    greedy = system_translator(entry, **settings)
    probes = nbest_translator(greedy, entry, 5, **settings)
    built = system_translator(entry, nbest=5, **settings)
    assert probes.generator.model is greedy.generator.model, "not loaded again"
    assert (probes.settings.decoding, probes.settings.beam) == ("beam", 5)
    assert greedy.settings.decoding == "greedy" and "|dec:greedy|" in greedy.signature, "the first is unchanged"
    assert probes.signature == built.signature != greedy.signature
    sources = ["the cat sleeps .", "a dog runs ."]
    assert probes.translate_nbest(sources, 5) == built.translate_nbest(sources, 5)
