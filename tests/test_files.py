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


def test_read_text_names_the_line_of_bytes_that_are_not_utf8(tmp_path):
    from natcomp.files import read_first_line, read_text

    path = tmp_path / "latin1.txt"
    path.write_bytes(b"first line\nsecond\ncaf\xe9 third\n")
    with pytest.raises(InputError) as error:
        read_text(path)
    assert error.value.line == 3 and "not valid UTF-8" in str(error.value) and "byte 4 of the line" in str(error.value)
    assert read_first_line(path) == "first line"  # the header line alone is fine
    (tmp_path / "bad.txt").write_bytes(b"\xff\n")
    with pytest.raises(InputError, match="line 1: not valid UTF-8"):
        read_first_line(tmp_path / "bad.txt")
    with pytest.raises(InputError) as error:
        read_lines(path)
    assert error.value.line == 3


def test_writers_refuse_a_folder_and_folder_outputs_an_existing_file(tmp_path):
    from natcomp.files import check_output_folder

    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match="is a folder; expected a file to write"):
        write_lines(tmp_path / "dir", ["x"])
    assert list((tmp_path / "dir").iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["dir"]
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="already exists as a file; expected a folder"):
        check_output_folder(tmp_path / "file")
    check_output_folder(tmp_path / "dir")
    check_output_folder(tmp_path / "new")


def test_read_yaml_names_the_line_and_column_of_a_syntax_error(tmp_path):
    from natcomp.errors import InputError
    from natcomp.files import read_yaml

    good = tmp_path / "good.yaml"
    good.write_text("mt:\n  target_lang: de\n", encoding="utf-8")
    assert read_yaml(good) == {"mt": {"target_lang": "de"}}
    bad = tmp_path / "bad.yaml"
    bad.write_text("mt:\n  sizes: {small: 1\n  seeds: [1\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_yaml(bad)
    assert caught.value.line == 3
    # libyaml's words (natcomp.files.load_yaml), or PyYAML's where it was built without libyaml
    assert str(caught.value).startswith(f"{bad}, line 3: column 8: not valid YAML: ")
    assert "expected ',' or '}'" in str(caught.value) and len(str(caught.value).splitlines()) == 1
