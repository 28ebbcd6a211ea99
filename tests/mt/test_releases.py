import tarfile

import pytest

from natcomp.errors import InputError
from natcomp.mt.languages import load_language
from natcomp.mt.releases import extract_flores, extract_tatoeba, tatoeba_folder, tatoeba_sides


@pytest.mark.parametrize("folder", ["data/release/v2020-07-28", "data", "anything/deeper/still"])
def test_finds_pair_folder_anywhere(tmp_path, folder, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", folder)
    n = extract_tatoeba(tar, "eng", "nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert n == 2
    assert (tmp_path / "train.en").read_text() == "Hello .\nBye .\n"
    assert (tmp_path / "train.nl").read_text() == "Hallo .\nDag .\n"
    assert extract_tatoeba(tar, "eng", "nld", "dev", tmp_path / "dev.en", tmp_path / "dev.nl") == 1


def test_misaligned_pair_names_both_files_and_leaves_nothing(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", "data", trg=b"Hallo .\n")
    with pytest.raises(InputError, match=r"train.en: has 2 lines but its parallel file .*train.nl has 1"):
        extract_tatoeba(tar, "eng", "nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert not (tmp_path / "train.en").exists() and not (tmp_path / "train.nl").exists()


def test_empty_and_non_utf8_lines(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "a.tar", "data", src=b"Hello .\n\n", trg=b"x\ny\n")
    with pytest.raises(InputError, match=r"train.en, line 2: empty line"):
        extract_tatoeba(tar, "eng", "nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    tar = tatoeba_archive(tmp_path / "b.tar", "data", src=b"x\ny\n", trg=b"x\n\xfe\n")
    with pytest.raises(InputError, match=r"train.nl, line 2: not valid UTF-8"):
        extract_tatoeba(tar, "eng", "nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert not (tmp_path / "train.en").exists()


def test_wrong_pair_and_truncated_archive(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", "data")
    with pytest.raises(InputError, match=r"no member \*/deu-eng/train.trg.gz"):
        extract_tatoeba(tar, "eng", "deu", "train", tmp_path / "x", tmp_path / "y")
    cut = tmp_path / "cut.tar"
    cut.write_bytes(tar.read_bytes()[:700])
    with pytest.raises(InputError, match="cut.tar"):
        extract_tatoeba(cut, "eng", "nld", "train", tmp_path / "x", tmp_path / "y")
    assert not (tmp_path / "x").exists()


#: pair folders as the Tatoeba Challenge release v2020-07-28 names them (its
#: data/README-v2020-07-28.md: "Abkhazian - English [abk-eng]", "Afrikaans - German
#: [afr-deu]", "German - English [deu-eng]", "English - French [eng-fra]", ...): the two
#: ISO 639-3 codes in alphabetical order, the first language on the .src side
RELEASE_PAIRS = {
    ("eng", "abk"): "abk-eng",
    ("afr", "deu"): "afr-deu",
    ("eng", "deu"): "deu-eng",
    ("eng", "fra"): "eng-fra",
    ("eng", "nld"): "eng-nld",
    ("eng", "spa"): "eng-spa",
}


def test_pair_folders_are_named_as_the_release_names_them():
    for (source, target), folder in RELEASE_PAIRS.items():
        assert tatoeba_folder(source, target) == folder == tatoeba_folder(target, source)
    assert tatoeba_sides("eng", "deu") == ("trg", "src"), "English is the .trg of deu-eng"
    assert tatoeba_sides("eng", "nld") == ("src", "trg")
    assert [load_language(code).tatoeba_pair for code in ("nl", "de", "fr", "es")] == [
        "eng-nld",
        "deu-eng",
        "eng-fra",
        "eng-spa",
    ]


def test_english_into_german_takes_each_side_from_a_release_laid_out_deu_eng(tmp_path, tatoeba_archive):
    """The release's deu-eng folder has German in .src and English in .trg: train.en must
    get the English side, train.de the German one."""
    german, english = "Hallo .\nTschüss .\n".encode(), b"Hello .\nBye .\n"
    tar = tatoeba_archive(tmp_path / "deu-eng.tar", src=german, trg=english, pair="deu-eng")
    assert extract_tatoeba(tar, "eng", "deu", "train", tmp_path / "train.en", tmp_path / "train.de") == 2
    assert (tmp_path / "train.en").read_bytes() == english
    assert (tmp_path / "train.de").read_bytes() == german
    assert extract_tatoeba(tar, "eng", "deu", "dev", tmp_path / "dev.en", tmp_path / "dev.de") == 1
    assert (tmp_path / "dev.en").read_text() == "b\n" and (tmp_path / "dev.de").read_text() == "a\n"


def test_flores_layout(tmp_path, tar_member):
    path = tmp_path / "flores.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for split in ("dev", "devtest"):
            tar_member(archive, f"flores101_dataset/{split}/eng.{split}", b"One.\nTwo.\n")
            tar_member(archive, f"flores101_dataset/{split}/nld.{split}", b"Een.\nTwee.\n")
            tar_member(archive, f"flores101_dataset/{split}/deu.{split}", b"Eins.\nZwei.\n")
    n = extract_flores(path, "devtest", "eng", "nld", tmp_path / "d.en", tmp_path / "d.nl")
    assert n == 2 and (tmp_path / "d.nl").read_text() == "Een.\nTwee.\n"
