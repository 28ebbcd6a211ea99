"""The one-line form of bad inputs (natcomp.errors.one_line), shared by the CLI and the workflow's logs
(natcomp.rulelog.logged)."""

from __future__ import annotations

import pytest

from natcomp.errors import ConfigError, InputError, OptionError, one_line
from natcomp.rulelog import logged


def _raised(action) -> BaseException:
    try:
        action()
    except BaseException as error:  # noqa: BLE001 - the error is the result
        return error
    raise AssertionError("nothing raised")


def test_natcomp_errors_keep_their_message_on_one_line():
    assert one_line(InputError("a.tsv", "empty value", 3)) == "a.tsv, line 3: empty value"
    assert one_line(InputError("a.tsv", "two\nlines")) == "a.tsv: two lines"
    assert one_line(OptionError("--steps", "must be at least 1")) == "--steps: must be at least 1"
    assert one_line(ConfigError("mt.beam", "too big")) == "config mt.beam: too big"
    assert one_line(ConfigError("--model", "not found")) == "--model: not found", "an option is named as typed"


def test_os_errors_on_named_paths_name_the_path_and_what_was_expected(tmp_path):
    missing = _raised(lambda: open(tmp_path / "nope.txt", encoding="utf-8"))
    assert one_line(missing) == f"{tmp_path / 'nope.txt'}: file not found; expected an existing file"
    folder = _raised(lambda: open(tmp_path, encoding="utf-8"))
    assert one_line(folder) == f"{tmp_path}: is a folder; expected a file"
    (tmp_path / "file").write_text("x", encoding="utf-8")
    exists = _raised(lambda: (tmp_path / "file").mkdir())
    assert one_line(exists).startswith(f"{tmp_path / 'file'}: already exists as a file")
    below_file = _raised(lambda: open(tmp_path / "file" / "x", "w", encoding="utf-8"))
    assert one_line(below_file) == f"{tmp_path / 'file' / 'x'}: a part of the path is a file; expected a folder"


def test_a_rename_names_its_target_and_other_errors_are_not_hidden(tmp_path):
    import os

    (tmp_path / "dir").mkdir()
    (tmp_path / "src").write_text("x", encoding="utf-8")
    renamed = _raised(lambda: os.replace(tmp_path / "src", tmp_path / "dir"))
    assert one_line(renamed).startswith(f"{tmp_path / 'dir'}: ")
    assert one_line(ValueError("a bug")) is None
    assert one_line(OSError("no path")) is None
    assert one_line(_raised(lambda: b"\xff".decode())).startswith("an input is not valid UTF-8")


def test_logged_writes_the_one_line_and_reraises(tmp_path):
    log = tmp_path / "logs" / "job.log"
    with pytest.raises(InputError):
        with logged(log):
            raise InputError("items.tsv", "empty value in column(s) source", 4)
    assert (
        log.read_text(encoding="utf-8").splitlines()[-1] == "ERROR: items.tsv, line 4: empty value in column(s) source"
    )
    with pytest.raises(IsADirectoryError):
        with logged(log):
            open(tmp_path, encoding="utf-8")
    assert log.read_text(encoding="utf-8").splitlines()[-1] == f"ERROR: {tmp_path}: is a folder; expected a file"
    with pytest.raises(ZeroDivisionError):
        with logged(log):
            1 / 0  # noqa: B018
    assert log.read_text(encoding="utf-8").splitlines()[-1] == "ERROR: ZeroDivisionError: division by zero"
