import tarfile

import pytest

from natcomp.errors import InputError
from natcomp.mt.releases import extract_flores, extract_tatoeba


@pytest.mark.parametrize("folder", ["data/release/v2020-07-28", "data", "anything/deeper/still"])
def test_finds_pair_folder_anywhere(tmp_path, folder, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", folder)
    n = extract_tatoeba(tar, "eng-nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert n == 2
    assert (tmp_path / "train.en").read_text() == "Hello .\nBye .\n"
    assert (tmp_path / "train.nl").read_text() == "Hallo .\nDag .\n"
    assert extract_tatoeba(tar, "eng-nld", "dev", tmp_path / "dev.en", tmp_path / "dev.nl") == 1


def test_misaligned_pair_names_both_files_and_leaves_nothing(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", "data", trg=b"Hallo .\n")
    with pytest.raises(InputError, match=r"train.en: has 2 lines but its parallel file .*train.nl has 1"):
        extract_tatoeba(tar, "eng-nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert not (tmp_path / "train.en").exists() and not (tmp_path / "train.nl").exists()


def test_empty_and_non_utf8_lines(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "a.tar", "data", src=b"Hello .\n\n", trg=b"x\ny\n")
    with pytest.raises(InputError, match=r"train.en, line 2: empty line"):
        extract_tatoeba(tar, "eng-nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    tar = tatoeba_archive(tmp_path / "b.tar", "data", src=b"x\ny\n", trg=b"x\n\xfe\n")
    with pytest.raises(InputError, match=r"train.nl, line 2: not valid UTF-8"):
        extract_tatoeba(tar, "eng-nld", "train", tmp_path / "train.en", tmp_path / "train.nl")
    assert not (tmp_path / "train.en").exists()


def test_wrong_pair_and_truncated_archive(tmp_path, tatoeba_archive):
    tar = tatoeba_archive(tmp_path / "eng-nld.tar", "data")
    with pytest.raises(InputError, match=r"no member \*/eng-deu/train.src.gz"):
        extract_tatoeba(tar, "eng-deu", "train", tmp_path / "x", tmp_path / "y")
    cut = tmp_path / "cut.tar"
    cut.write_bytes(tar.read_bytes()[:700])
    with pytest.raises(InputError, match="cut.tar"):
        extract_tatoeba(cut, "eng-nld", "train", tmp_path / "x", tmp_path / "y")
    assert not (tmp_path / "x").exists()


def test_flores_layout(tmp_path, tar_member):
    path = tmp_path / "flores.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for split in ("dev", "devtest"):
            tar_member(archive, f"flores101_dataset/{split}/eng.{split}", b"One.\nTwo.\n")
            tar_member(archive, f"flores101_dataset/{split}/nld.{split}", b"Een.\nTwee.\n")
            tar_member(archive, f"flores101_dataset/{split}/deu.{split}", b"Eins.\nZwei.\n")
    n = extract_flores(path, "devtest", "eng", "nld", tmp_path / "d.en", tmp_path / "d.nl")
    assert n == 2 and (tmp_path / "d.nl").read_text() == "Een.\nTwee.\n"
