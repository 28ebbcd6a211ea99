import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.tsv import iter_tsv, read_header, read_tsv, write_tsv


def test_a_quote_survives_write_and_read(tmp_path):
    path = tmp_path / "quotes.tsv"
    sentences = ['He said "yes".', '"', 'a "b" c', "'s"]
    write_tsv(path, pd.DataFrame({"id": range(4), "sentence": sentences}))
    assert path.read_text(encoding="utf-8").splitlines()[1] == '0\tHe said "yes".'
    assert read_tsv(path)["sentence"].tolist() == sentences


def test_rows_as_mappings_and_float_format(tmp_path):
    path = tmp_path / "t.tsv"
    n = write_tsv(path, [{"a": 1.23456, "b": None}, {"a": float("nan"), "b": "x"}], float_format="%.2f")
    assert n == 2
    assert path.read_text(encoding="utf-8") == "a\tb\n1.23\t\n\tx\n"


def test_a_tab_cannot_be_written_and_nothing_is_left(tmp_path):
    path = tmp_path / "t.tsv"
    with pytest.raises(ValueError, match="column 'b'"):
        write_tsv(path, [{"a": "x", "b": "tab\there"}])
    assert list(tmp_path.iterdir()) == []


def test_empty_value_crlf_and_bom(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_bytes("\ufeffen\tnl\r\nhim\them\r\n\r\n".encode())
    assert list(iter_tsv(path, ["en", "nl"], non_empty=["en", "nl"])) == [(2, {"en": "him", "nl": "hem"})]
    assert read_header(path) == ["en", "nl"]
    path.write_text("en\tnl\nhim\t\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty value") as info:
        list(iter_tsv(path, ["en", "nl"], non_empty=["en", "nl"]))
    assert info.value.line == 2


def test_header_error_shows_found_and_expected(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("source\ttranslaton\nA\tB\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_tsv(path, ["source", "translation"])
    message = str(info.value)
    assert "missing column(s) translation" in message and "source|translaton" in message and info.value.line == 1


def test_wrong_field_count_and_inner_blank_line(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("a\tb\n1\t2\n3\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected 2 tab-separated fields \\(a, b\\) but found 1") as info:
        read_tsv(path)
    assert info.value.line == 3
    path.write_text("a\tb\n1\t2\n\n3\t4\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty line inside") as info:
        read_tsv(path)
    assert info.value.line == 3


def test_quoted_files_from_other_tools(tmp_path):
    path = tmp_path / "pandas.tsv"
    frame = pd.DataFrame({"source": ['He said "yes".', "plain"], "translation": ['Hij zei "ja".', "x"]})
    frame.to_csv(path, sep="\t", index=False)  # pandas' default quoting doubles the quotes
    assert read_tsv(path, quoted=True).equals(frame.astype(object))
    assert read_tsv(path)["source"].tolist()[0] == '"He said ""yes""."'


def test_empty_table_keeps_columns_and_lines_are_recorded(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("a\tb\n", encoding="utf-8")
    assert list(read_tsv(path).columns) == ["a", "b"]
    path.write_text("a\tb\n1\t2\n3\t4\n", encoding="utf-8")
    assert read_tsv(path).attrs["lines"] == [2, 3]
