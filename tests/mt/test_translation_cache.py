import pytest

from natcomp.errors import InputError
from natcomp.mt.scoring import read_translations
from natcomp.mt.translation_cache import (
    DecodeSettings,
    TranslationCache,
    decode_signature,
    translate_with_cache,
    translation_signature,
    write_translations,
)

BEAM5 = DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10)


class CountingTranslator:
    def __init__(self):
        self.calls = []

    def __call__(self, sentences):
        self.calls.append(list(sentences))
        return [s.upper() for s in sentences]


@pytest.fixture
def checkpoint(tmp_path):
    path = tmp_path / "checkpoint_best.pt"
    path.write_bytes(b"weights v1")
    return path


@pytest.fixture
def codes(tmp_path):
    path = tmp_path / "codes"
    path.write_text("#version: 0.2\nt h\n", encoding="utf-8")
    return path


def signature(checkpoint, codes, settings=BEAM5):
    return decode_signature(checkpoint, codes, "en", settings)


def test_signature_names_everything_decoding_depends_on(checkpoint, codes):
    text = signature(checkpoint, codes)
    assert (
        text.startswith("ckpt:")
        and "|beam:5|maxlen:1.2*src+10|bpe:" in text
        and text.endswith("|tok:moses-en|prec:fp32")
    )
    assert signature(checkpoint, codes, DecodeSettings(4, 1.2, 10)) != text
    assert signature(checkpoint, codes, DecodeSettings(5, 1.5, 10)) != text
    assert signature(checkpoint, codes, DecodeSettings(5, 1.2, 20)) != text
    assert decode_signature(checkpoint, codes, "de", BEAM5) != text
    codes.write_text("#version: 0.2\nt he\n", encoding="utf-8")
    assert signature(checkpoint, codes) != text


def test_each_unique_sentence_is_decoded_once_across_runs(tmp_path, checkpoint, codes):
    translate = CountingTranslator()
    cache = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    stats = translate_with_cache(cache, ["a", "b", "a", "c"], translate, batch_sentences=2)
    assert (stats.unique, stats.cached, stats.decoded) == (3, 0, 3)
    assert translate.calls == [["a", "b"], ["c"]]
    # A new job (new process) on the same checkpoint, with one more test set.
    again = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    stats = translate_with_cache(again, ["c", "a", "d"], translate)
    assert (stats.unique, stats.cached, stats.decoded) == (3, 2, 1)
    assert translate.calls[-1] == ["d"]
    stats = translate_with_cache(
        TranslationCache(tmp_path / "cache", signature(checkpoint, codes)), ["a", "d"], translate
    )
    assert stats.decoded == 0 and len(translate.calls) == 3


def test_retrained_checkpoint_and_changed_beam_get_a_new_cache(tmp_path, checkpoint, codes):
    translate = CountingTranslator()
    translate_with_cache(TranslationCache(tmp_path / "cache", signature(checkpoint, codes)), ["a"], translate)
    beam4 = TranslationCache(tmp_path / "cache", signature(checkpoint, codes, DecodeSettings(4, 1.2, 10)))
    assert translate_with_cache(beam4, ["a"], translate).decoded == 1
    checkpoint.write_bytes(b"weights v2")
    stats = translate_with_cache(TranslationCache(tmp_path / "cache", signature(checkpoint, codes)), ["a"], translate)
    assert stats.decoded == 1
    assert len(list((tmp_path / "cache").glob("*.tsv"))) == 3


def test_the_cache_records_its_signature(tmp_path, checkpoint, codes):
    cache = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    cache.add([("a", "A")])
    assert cache.path.read_text(encoding="utf-8").splitlines()[0] == f"#decode-signature\t{cache.signature}"
    lines = cache.path.read_text(encoding="utf-8").replace("beam:5", "beam:4")
    cache.path.write_text(lines, encoding="utf-8")
    with pytest.raises(InputError, match="cache of"):
        TranslationCache(tmp_path / "cache", signature(checkpoint, codes))


def test_cut_off_line_is_ignored(tmp_path, checkpoint, codes):
    cache = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    cache.add([("a", "A")])
    with open(cache.path, "a") as handle:
        handle.write("b\tB-half")  # a job killed while writing
    reloaded = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    assert reloaded.entries == {"a": "A"}


def test_translation_files_name_their_sets_and_signature(tmp_path, checkpoint, codes):
    cache = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    translate_with_cache(cache, ["x", "y"], CountingTranslator())
    write_translations(cache, {"first": ["y", "x", "y"], "second": ["x"]}, tmp_path / "t.tsv")
    sig = cache.signature
    assert (tmp_path / "t.tsv").read_text() == (
        f"set\tsource\ttranslation\tdecode_signature\nfirst\ty\tY\t{sig}\nfirst\tx\tX\t{sig}\nsecond\tx\tX\t{sig}\n"
    )
    assert read_translations(tmp_path / "t.tsv", ["x", "y"]) == {"y": "Y", "x": "X"}
    assert translation_signature(tmp_path / "t.tsv") == sig


def test_tabs_are_refused(tmp_path, checkpoint, codes):
    cache = TranslationCache(tmp_path / "cache", signature(checkpoint, codes))
    with pytest.raises(InputError, match="tab or line break"):
        cache.add([("a\tb", "x")])
