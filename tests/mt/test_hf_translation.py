"""natcomp.mt.hf_translation: Hugging Face models as MT systems, on a tiny Marian and a tiny
M2M100 whose tokenizers are trained on demo-corpus sentences, loaded through the real
from_pretrained path (offline)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
import torch

from natcomp.errors import ConfigError
from natcomp.hf.models import build_tiny_model, save_model
from natcomp.hf.seq2seq import Seq2SeqTrainingSettings, build_tiny_translation_model, train_translation_model
from natcomp.mt.demo_corpus import generate_pairs
from natcomp.mt import hf_translation
from natcomp.mt.hf_translation import (
    HFDecodeSettings,
    HFTranslator,
    check_hf_system,
    decode_settings,
    decoder_max_length,
    detect_family,
    hf_decode_signature,
    language_codes,
    model_fingerprint,
)
from natcomp.mt.translation_cache import TranslationCache, translate_with_cache

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
PAIRS = generate_pairs(RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv", 200, seed=4)
SOURCES = [pair.en for pair in PAIRS[:20]]
# Short decodes keep an untrained model (which writes until the limit) fast.
SETTINGS = HFDecodeSettings(beam=3, max_new_tokens=12, batch_size=8)


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No test may reach the Hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf_translation")
    english, dutch = [pair.en for pair in PAIRS], [pair.nl for pair in PAIRS]
    folders = {
        family: build_tiny_translation_model(root / family, english, dutch, family=family, vocab_size=300)
        for family in ("marian", "m2m100")
    }
    for folder in folders.values():
        _scramble(folder)
    settings = Seq2SeqTrainingSettings(epochs=1, batch_size=32, learning_rate=1e-3, warmup_steps=2)
    train_translation_model(folders["marian"], english[:64], dutch[:64], settings, root / "marian_trained")
    folders["marian_trained"] = root / "marian_trained"
    return folders


def _scramble(folder: Path) -> None:
    """Give an untrained model large random weights, so that what it writes depends on its
    input (at transformers' initialisation it writes the same words for every sentence,
    and a test of batching or ordering would pass whatever the code did)."""
    from transformers import AutoModelForSeq2SeqLM

    model = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.ndim == 2 and "embed_positions" not in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
    model.save_pretrained(folder)


@pytest.fixture(scope="module")
def translators(models) -> dict[str, HFTranslator]:
    return {
        family: HFTranslator(models[family], source_lang="en", target_lang="nl", settings=SETTINGS)
        for family in ("marian", "m2m100")
    }


def test_language_codes_per_family():
    assert language_codes("marian", "en", "nl") == (None, None)
    assert language_codes("marian", "en", "nl", target_code=">>nld<<") == (None, ">>nld<<")
    assert language_codes("m2m100", "en", "nl") == ("en", "nl")
    assert language_codes("nllb", "en", "nl") == ("eng_Latn", "nld_Latn")
    assert language_codes("nllb", "en", "fy", target_code="fry_Latn") == ("eng_Latn", "fry_Latn")
    assert language_codes("nllb", "en", "de") == ("eng_Latn", "deu_Latn"), "from resources/mt/languages/de.yaml"
    assert language_codes("m2m100", "en", "fr") == ("en", "fr")
    with pytest.raises(ConfigError, match=r"mt.systems.x.*'fy'.*no language resource.*give target_code"):
        language_codes("nllb", "en", "fy", key="mt.systems.x")
    with pytest.raises(ConfigError, match="unknown model family 't5'"):
        language_codes("t5", "en", "nl")


def test_detect_family(models, tmp_path):
    assert detect_family(models["marian"]) == "marian"
    assert detect_family(models["m2m100"]) == "m2m100"
    assert detect_family(models["m2m100"] / "config.json") == "m2m100"
    nllb = shutil.copytree(models["m2m100"], tmp_path / "nllb")
    tokenizer_config = json.loads((nllb / "tokenizer_config.json").read_text())
    (nllb / "tokenizer_config.json").write_text(json.dumps({**tokenizer_config, "tokenizer_class": "NllbTokenizer"}))
    assert detect_family(nllb) == "nllb"
    bert = build_tiny_model(tmp_path / "bert", ["word"])
    with pytest.raises(ConfigError, match="mt.systems.b.model.*model_type 'bert'"):
        detect_family(bert, key="mt.systems.b.model")


def test_translations_come_back_in_input_order_for_duplicates_and_empty_input(translators):
    for translator in translators.values():
        sentences = [SOURCES[3], SOURCES[0], SOURCES[3]]
        translations = translator.translate(sentences)
        assert len(translations) == 3 and all(isinstance(text, str) for text in translations)
        assert translations[0] == translations[2] == translator.translate([SOURCES[3]])[0]
        assert translator.translate([]) == [] and translator.translate_nbest([], 2) == []


def test_m2m100_output_has_no_language_token(translators):
    translator = translators["m2m100"]
    assert (translator.source_code, translator.target_code) == ("en", "nl")
    assert translator.tokenizer.src_lang == "en"
    assert not any("__" in text for text in translator.translate(SOURCES[:5]))


@pytest.mark.parametrize("family", ["marian", "m2m100"])
def test_batching_by_length_does_not_change_the_translations(models, translators, family):
    batched = translators[family].translate(SOURCES)
    assert len(set(batched)) > 1, "the model must depend on its input for this test to mean anything"
    one_by_one = HFTranslator(
        models[family],
        source_lang="en",
        target_lang="nl",
        settings=HFDecodeSettings(beam=3, max_new_tokens=12, batch_size=1),
    )
    assert one_by_one.translate(SOURCES) == batched
    assert one_by_one.signature == translators[family].signature


@pytest.mark.parametrize("family", ["marian", "m2m100"])
def test_nbest_is_best_first_and_its_first_is_the_translation(translators, family):
    translator = translators[family]
    nbest = translator.translate_nbest(SOURCES[:6], 3)
    assert [len(hypotheses) for hypotheses in nbest] == [3] * 6
    assert [hypotheses[0] for hypotheses in nbest] == translator.translate(SOURCES[:6])
    with pytest.raises(ValueError, match="nbest must be between 1 and the beam"):
        translator.translate_nbest(SOURCES[:1], 4)


def test_signature_names_model_weights_beam_and_languages_not_batch_size(models, translators):
    marian = translators["marian"]
    fingerprint = model_fingerprint(models["marian"])
    assert marian.signature == f"hf:{fingerprint[:16]}|family:marian|beam:3|maxnew:12|lang:en-nl|prec:fp32"
    assert model_fingerprint(models["marian_trained"]) != fingerprint

    def signature(settings=SETTINGS, model="marian", target_lang="nl", target_code=None):
        return hf_decode_signature(
            models[model], "marian", None, target_code, settings, "fp32", source_lang="en", target_lang=target_lang
        )

    assert signature() == marian.signature
    assert signature(HFDecodeSettings(beam=3, max_new_tokens=12, batch_size=1, device="cpu")) == marian.signature
    assert signature(model="marian_trained") != marian.signature
    assert signature(HFDecodeSettings(beam=4, max_new_tokens=12)) != marian.signature
    assert signature(target_lang="de") != marian.signature
    assert signature(target_code=">>nld<<").endswith("lang:en->>nld<<|prec:fp32")
    assert "|nbest:3|" in signature(HFDecodeSettings(beam=3, max_new_tokens=12, nbest=3))
    m2m100 = translators["m2m100"].signature
    assert "|family:m2m100|" in m2m100 and "|lang:en-nl|" in m2m100


def test_with_nbest_shares_the_model_and_equals_a_translator_built_for_nbest(models, translators):
    """A system's synonym probes are decoded in its translation job by ``with_nbest``: the
    same loaded model, the signature and the n-best lists of a translator built for them."""
    marian = translators["marian"]
    probes = marian.with_nbest(3)
    built = HFTranslator(
        models["marian"], source_lang="en", target_lang="nl", settings=dataclasses.replace(SETTINGS, nbest=3)
    )
    assert probes.model is marian.model, "not loaded again"
    assert marian.settings.nbest == 1 and "|nbest:" not in marian.signature, "the first is unchanged"
    assert probes.signature == built.signature and "|nbest:3|" in probes.signature
    assert probes.translate_nbest(SOURCES[:6], 3) == built.translate_nbest(SOURCES[:6], 3)
    with pytest.raises(ValueError, match="nbest must be between 1 and the beam"):
        marian.with_nbest(4)


def test_fingerprint_ignores_documentation_and_other_frameworks_weights(models, tmp_path):
    copy = shutil.copytree(models["marian"], tmp_path / "copy")
    (copy / "README.md").write_text("a model card")
    (copy / "tf_model.h5").write_bytes(b"other weights")
    assert model_fingerprint(copy) == model_fingerprint(models["marian"])
    (copy / "generation_config.json").write_text((copy / "generation_config.json").read_text().replace("5", "4"))
    assert model_fingerprint(copy) != model_fingerprint(models["marian"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU fallback of fp16")
def test_fp16_on_the_cpu_decodes_in_fp32_and_says_so(models):
    translator = HFTranslator(
        models["marian"],
        source_lang="en",
        target_lang="nl",
        settings=HFDecodeSettings(beam=3, max_new_tokens=12, precision="fp16", device="auto"),
    )
    assert translator.precision == "fp32"
    assert translator.signature.endswith("|prec:fp32")
    assert next(translator.model.parameters()).dtype == torch.float32


def test_a_missing_model_is_a_config_error_before_any_work(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    for call in (
        lambda: check_hf_system("Helsinki-NLP/opus-mt-en-nl", "mt.systems.opus.model"),
        lambda: HFTranslator(
            "Helsinki-NLP/opus-mt-en-nl",
            source_lang="en",
            target_lang="nl",
            settings=SETTINGS,
            key="mt.systems.opus.model",
        ),
    ):
        with pytest.raises(ConfigError, match=r"config mt.systems.opus.model: .*HF_HUB_OFFLINE=1.*hf download"):
            call()
    with pytest.raises(ConfigError, match="mt.systems.local.model: model directory .* does not exist"):
        check_hf_system(str(tmp_path / "no-such-model"), "mt.systems.local.model")


def test_check_hf_system_accepts_a_local_model_and_refuses_another_kind(models, tmp_path):
    assert check_hf_system(models["marian"], "mt.systems.tiny.model") == str(models["marian"])
    bert = build_tiny_model(tmp_path / "bert", ["word"])
    with pytest.raises(ConfigError, match="mt.systems.bert.model"):
        check_hf_system(bert, "mt.systems.bert.model")


def test_unsupported_language_or_target_token_is_a_config_error(models):
    with pytest.raises(ConfigError, match="mt.systems.m.model: .*'xx', which has no language resource"):
        HFTranslator(models["m2m100"], source_lang="en", target_lang="xx", settings=SETTINGS, key="mt.systems.m.model")
    with pytest.raises(ConfigError, match="mt.systems.m.model: .*no language token __xx__"):
        HFTranslator(
            models["m2m100"],
            source_lang="en",
            target_lang="xx",
            target_code="xx",
            settings=SETTINGS,
            key="mt.systems.m.model",
        )
    with pytest.raises(ConfigError, match="target_code '>>nld<<' is not a target token"):
        HFTranslator(models["marian"], source_lang="en", target_lang="nl", settings=SETTINGS, target_code=">>nld<<")


def test_decode_settings_are_checked():
    with pytest.raises(ValueError, match="nbest must be between 1 and the beam.*precision must be one of"):
        HFDecodeSettings(beam=2, nbest=3, precision="bf16")


def test_translations_go_through_the_translation_cache(translators, tmp_path):
    translator = translators["marian"]
    cache = TranslationCache(tmp_path / "cache", translator.signature)
    calls = []

    def translate(batch):
        calls.append(len(batch))
        return translator.translate(batch)

    first = translate_with_cache(cache, SOURCES + SOURCES[:3], translate)
    assert (first.unique, first.decoded) == (len(SOURCES), len(SOURCES))
    again = translate_with_cache(TranslationCache(tmp_path / "cache", translator.signature), SOURCES, translate)
    assert (again.cached, again.decoded) == (len(SOURCES), 0)
    assert calls == [len(SOURCES)]
    assert cache.entries[SOURCES[0]] == translator.translate([SOURCES[0]])[0]


def test_decode_settings_from_a_system_section():
    system = {"model": "x", "beam": 4, "max_new_tokens": 100, "batch_size": 16, "precision": "fp16", "device": "cpu"}
    assert decode_settings(system, nbest=2) == HFDecodeSettings(
        beam=4, max_new_tokens=100, nbest=2, batch_size=16, precision="fp16", device="cpu"
    )
    assert decode_settings({"model": "x"}) == HFDecodeSettings()


def test_a_given_family_must_fit_the_model(models):
    translator = HFTranslator(models["m2m100"], source_lang="en", target_lang="nl", settings=SETTINGS, family="auto")
    assert translator.family == "m2m100"
    with pytest.raises(ConfigError, match="family is 'marian' but .* is a m2m100 model"):
        HFTranslator(models["m2m100"], source_lang="en", target_lang="nl", settings=SETTINGS, family="marian")


@pytest.mark.parametrize("family", ["marian", "m2m100"])
def test_relative_length_limit_ends_each_sentence_on_its_own(models, translators, family):
    limited = HFDecodeSettings(beam=3, max_new_tokens=12, batch_size=8, max_len_a=0.0, max_len_b=3)
    translator = HFTranslator(models[family], source_lang="en", target_lang="nl", settings=limited)
    assert "|maxnew:12|maxlen:0*src+3|" in translator.signature
    translations = translator.translate(SOURCES)
    unlimited = translators[family].translate(SOURCES)
    # At most 3 pieces written (M2M100: the forced language token is one of them), so at
    # most as many words.
    most = 3 if family == "marian" else 2
    assert all(len(text.split()) <= most for text in translations), translations
    assert translations != unlimited
    one_by_one = HFTranslator(
        models[family], source_lang="en", target_lang="nl", settings=dataclasses.replace(limited, batch_size=1)
    )
    assert one_by_one.translate(SOURCES) == translations
    # A limit proportional to the source: longer sources may write more.
    proportional = dataclasses.replace(limited, max_len_a=0.5, max_len_b=1)
    lengths = HFTranslator(models[family], source_lang="en", target_lang="nl", settings=proportional).translate(SOURCES)
    assert max(len(text.split()) for text in lengths) > max(len(text.split()) for text in translations)


def test_decoder_max_length_holds_the_longest_items_tokens_and_its_end_of_sentence():
    # the decoder start token, 7 written tokens, the end of sentence
    assert decoder_max_length([3, 7, 5], max_new_tokens=12) == 9
    # never more than max_new_tokens written
    assert decoder_max_length([3, 20], max_new_tokens=12) == 13
    assert decoder_max_length([11], max_new_tokens=12) == 13


@pytest.mark.parametrize("family", ["marian", "m2m100"])
def test_max_length_sized_to_the_batch_changes_no_hypothesis(models, monkeypatch, family):
    # The scrambled model writes until its limit: every item's hypotheses reach it.
    settings = HFDecodeSettings(beam=3, max_new_tokens=40, batch_size=8, max_len_a=0.5, max_len_b=2)
    translator = HFTranslator(models[family], source_lang="en", target_lang="nl", settings=settings)
    sized = translator.translate_nbest(SOURCES, 3)
    monkeypatch.setattr(hf_translation, "decoder_max_length", lambda limits, most: most + 1)
    assert translator.translate_nbest(SOURCES, 3) == sized
    assert len({len(hypotheses[0].split()) for hypotheses in sized}) > 1, "limits must differ for this test"


def _tiny_nllb(folder: Path, texts: list[str]) -> Path:
    """A tiny model in NLLB-200's layout: M2M100 weights with transformers' NllbTokenizer
    (character-level BPE over ``texts``; the FLORES-200 codes are its special tokens)."""
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    characters = sorted({character for text in texts for character in text.replace(" ", "")} | {"▁"})
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{c: index + 4 for index, c in enumerate(characters)}}
    tokenizer = NllbTokenizer(vocab=vocab, merges=[], src_lang="eng_Latn", tgt_lang="nld_Latn")
    config = M2M100Config(
        vocab_size=len(tokenizer),
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=256,
        pad_token_id=1,
        eos_token_id=2,
        bos_token_id=0,
        decoder_start_token_id=2,
    )
    torch.manual_seed(0)
    save_model(M2M100ForConditionalGeneration(config), tokenizer, folder)
    _scramble(folder)
    # Of 225 ids, 200 are language codes; with random weights the model would write little
    # else. Zero embeddings (and so zero logits, the output layer is tied) keep them rare.
    model = M2M100ForConditionalGeneration.from_pretrained(folder, local_files_only=True)
    with torch.no_grad():
        model.get_input_embeddings().weight[len(vocab) :] = 0.0
    model.save_pretrained(folder)
    return folder


def test_an_nllb_model_gets_flores_codes_and_no_language_token_in_its_output(tmp_path):
    folder = _tiny_nllb(tmp_path / "nllb", [pair.en for pair in PAIRS] + [pair.nl for pair in PAIRS])
    assert detect_family(folder) == "nllb"
    settings = HFDecodeSettings(beam=3, max_new_tokens=12, batch_size=8)
    translator = HFTranslator(folder, source_lang="en", target_lang="nl", settings=settings)
    assert (translator.source_code, translator.target_code) == ("eng_Latn", "nld_Latn")
    assert "|family:nllb|" in translator.signature and "|lang:eng_Latn-nld_Latn|" in translator.signature
    assert translator.tokenizer(SOURCES[0])["input_ids"][0] == translator.tokenizer.convert_tokens_to_ids("eng_Latn")
    translations = translator.translate(SOURCES)
    assert len(set(translations)) > 1
    assert not any(code in text for text in translations for code in ("nld_Latn", "eng_Latn"))
    one_by_one = HFTranslator(
        folder, source_lang="en", target_lang="nl", settings=dataclasses.replace(settings, batch_size=1)
    )
    assert one_by_one.translate(SOURCES) == translations
