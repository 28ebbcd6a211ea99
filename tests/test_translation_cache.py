import pytest

from natcomp.errors import InputError
from natcomp.scoring import read_translations
from natcomp.translation_cache import (
    TranslationCache,
    checkpoint_key,
    translate_with_cache,
    write_translations,
)


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


def test_each_unique_sentence_is_decoded_once_across_runs(tmp_path, checkpoint):
    translate = CountingTranslator()
    cache = TranslationCache(tmp_path / "cache", checkpoint)
    stats = translate_with_cache(cache, ["a", "b", "a", "c"], translate, batch_sentences=2)
    assert (stats.unique, stats.cached, stats.decoded) == (3, 0, 3)
    assert translate.calls == [["a", "b"], ["c"]]
    # A new job (new process) on the same checkpoint, with one more test set.
    again = TranslationCache(tmp_path / "cache", checkpoint)
    stats = translate_with_cache(again, ["c", "a", "d"], translate)
    assert (stats.unique, stats.cached, stats.decoded) == (3, 2, 1)
    assert translate.calls[-1] == ["d"]
    stats = translate_with_cache(TranslationCache(tmp_path / "cache", checkpoint), ["a", "d"], translate)
    assert stats.decoded == 0 and len(translate.calls) == 3


def test_retrained_checkpoint_gets_a_new_cache(tmp_path, checkpoint):
    translate = CountingTranslator()
    translate_with_cache(TranslationCache(tmp_path / "cache", checkpoint), ["a"], translate)
    old_key = checkpoint_key(checkpoint)
    checkpoint.write_bytes(b"weights v2")
    assert checkpoint_key(checkpoint) != old_key
    stats = translate_with_cache(TranslationCache(tmp_path / "cache", checkpoint), ["a"], translate)
    assert stats.decoded == 1


def test_cut_off_line_is_ignored(tmp_path, checkpoint):
    cache = TranslationCache(tmp_path / "cache", checkpoint)
    cache.add([("a", "A")])
    with open(cache.path, "a") as handle:
        handle.write("b\tB-half")  # a job killed while writing
    reloaded = TranslationCache(tmp_path / "cache", checkpoint)
    assert reloaded.entries == {"a": "A"}


def test_translation_files_round_trip(tmp_path, checkpoint):
    cache = TranslationCache(tmp_path / "cache", checkpoint)
    translate_with_cache(cache, ["x", "y"], CountingTranslator())
    write_translations(cache, ["y", "x", "y"], tmp_path / "t.tsv")
    assert (tmp_path / "t.tsv").read_text() == "source\ttranslation\ny\tY\nx\tX\n"
    assert read_translations(tmp_path / "t.tsv", ["x", "y"]) == {"y": "Y", "x": "X"}


def test_tabs_are_refused(tmp_path, checkpoint):
    cache = TranslationCache(tmp_path / "cache", checkpoint)
    with pytest.raises(InputError, match="tab or line break"):
        cache.add([("a\tb", "x")])
