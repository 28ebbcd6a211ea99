import gzip

import pytest

from natcomp.errors import InputError
from natcomp.files import atomic_open, check_parallel, count_lines, read_lines, write_lines


def test_atomic_open_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_open(target) as out:
            out.write("half")
            raise RuntimeError("killed")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_atomic_open_keeps_old_file_on_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as out:
            out.write("new")
            raise RuntimeError
    assert target.read_text() == "old\n"


def test_gzip_output_is_deterministic(tmp_path):
    write_lines(tmp_path / "a.gz", ["x", "y"])
    write_lines(tmp_path / "b.gz", ["x", "y"])
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.gz").read_bytes()) == b"x\ny\n"
    assert read_lines(tmp_path / "a.gz") == ["x", "y"]


def test_count_lines_without_final_newline(tmp_path):
    (tmp_path / "f").write_bytes(b"a\nb")
    assert count_lines(tmp_path / "f") == 2
    (tmp_path / "g").write_bytes(b"")
    assert count_lines(tmp_path / "g") == 0


def test_empty_line_is_named(tmp_path):
    path = tmp_path / "corpus.en"
    path.write_text("one\n\nthree\n")
    with pytest.raises(InputError, match=r"corpus.en, line 2: empty line"):
        read_lines(path)


def test_non_utf8_line_is_named(tmp_path):
    path = tmp_path / "corpus.nl"
    path.write_bytes(b"goed\nslecht \xff\n")
    with pytest.raises(InputError, match=r"corpus.nl, line 2: not valid UTF-8"):
        read_lines(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_lines(tmp_path / "nope")


def test_check_parallel_names_both_files(tmp_path):
    (tmp_path / "a.en").write_text("1\n2\n3\n")
    (tmp_path / "a.nl").write_text("1\n2\n")
    with pytest.raises(InputError, match=r"a.en: has 3 lines but its parallel file .*a.nl has 2"):
        check_parallel(tmp_path / "a.en", tmp_path / "a.nl")
    (tmp_path / "a.nl").write_text("1\n2\n3\n")
    assert check_parallel(tmp_path / "a.en", tmp_path / "a.nl") == 3
