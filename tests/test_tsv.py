import pandas as pd
import pytest

from natcomp.errors import InputError
from natcomp.tsv import iter_tsv, looks_csv_quoted, read_header, read_tsv, write_tsv


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
    assert message == (
        f"{path}, line 1: missing column(s) translation; found the header source | translaton; "
        "expected the columns source, translation"
    )


def test_header_error_lists_every_problem_at_once(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("id\tid\tb\n1\t2\t3\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_tsv(path, ["id", "a", "c"], non_empty=["d"])
    assert info.value.message == (
        "missing column(s) a, c, d; column(s) id appear more than once; found the header id | id | b; "
        "expected the columns id, a, c, d"
    )
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="is the file comma- or semicolon-separated"):
        read_tsv(path, ["a", "b"])
    path.write_text('"a"\t"b"\n"1"\t"2"\n', encoding="utf-8")
    with pytest.raises(InputError, match="quoted column names"):
        read_tsv(path, ["a", "b"], quoted=False)
    assert read_tsv(path, ["a", "b"], quoted="auto").to_dict("records") == [{"a": "1", "b": "2"}]


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
    assert read_tsv(path, quoted="auto").equals(frame.astype(object))
    assert read_tsv(path)["source"].tolist()[0] == '"He said ""yes""."'


def _pandas_text(values: list[str], tmp_path) -> str:
    path = tmp_path / "p.tsv"
    pd.DataFrame({"id": range(len(values)), "sentence": values}).to_csv(path, sep="\t", index=False)
    return path.read_text(encoding="utf-8")


def test_looks_csv_quoted_recognises_what_pandas_writes(tmp_path):
    for values in (['He said "yes".', "x"], ['"Run!"', "x"], ["a\tb", "x"], ["two\nlines", "x"], ['"']):
        assert looks_csv_quoted(_pandas_text(values, tmp_path)), values
        path = tmp_path / "p.tsv"
        assert read_tsv(path, quoted="auto")["sentence"].tolist() == values
    # nothing quoted: both readings agree, and the file is read as it is
    assert not looks_csv_quoted(_pandas_text(["plain", "it's"], tmp_path))
    # QUOTE_ALL writers quote the header too
    assert looks_csv_quoted('"id"\t"sentence"\n"1"\t"Run!"\n')
    assert looks_csv_quoted('\ufeff"id"\t"sentence"\n')


def test_natcomp_sentences_with_quotes_are_not_mistaken_for_csv_quoting(tmp_path):
    """Unquoted files whose sentences start or end with '"' read unchanged under quoted="auto"."""
    sentences = [
        '"Run!" he said .',
        '"Run!"',
        '" Run ! "',
        '"',
        '""',
        '""""',
        'He said "no" .',
        '" ja',
        'nee "',
        "&quot; Run ! &quot;",
    ]
    path = tmp_path / "natcomp.tsv"
    write_tsv(path, pd.DataFrame({"source": sentences, "translation": list(reversed(sentences))}))
    assert not looks_csv_quoted(path.read_text(encoding="utf-8"))
    frame = read_tsv(path, quoted="auto")
    assert frame["source"].tolist() == sentences and frame["translation"].tolist() == list(reversed(sentences))
    # a quote opening one field and closing the next would merge them as CSV: the row lengths give it away
    path.write_text('a\tb\n"x\ty"\n', encoding="utf-8")
    assert read_tsv(path, quoted="auto").to_dict("records") == [{"a": '"x', "b": 'y"'}]


def test_bad_csv_quoting_names_the_line(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text('a\tb\n1\t2\n"x" y\t3\n', encoding="utf-8")
    with pytest.raises(InputError, match="bad CSV-style quoting") as info:
        read_tsv(path, quoted=True)
    assert info.value.line == 3
    with pytest.raises(ValueError, match="quoted must be"):
        read_tsv(path, quoted="yes")


def test_read_header_with_quoting(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text('\ufeff"a b"\t"c"\n', encoding="utf-8")
    assert read_header(path) == ['"a b"', '"c"']
    assert read_header(path, quoted="auto") == ["a b", "c"]
    assert read_header(path, quoted=True) == ["a b", "c"]
    assert list(read_tsv(path, quoted="auto").columns) == ["a b", "c"]


def test_write_tsv_quotes_only_when_a_value_needs_it(tmp_path):
    path = tmp_path / "x.tsv"
    plain = [{"a": '"Run!"', "b": 1.5}]
    write_tsv(path, plain, quoted="auto")
    assert path.read_text(encoding="utf-8") == 'a\tb\n"Run!"\t1.5\n'  # as write_tsv writes it unquoted
    rows = [{"a": '"Run!"', "b": "tab\there"}, {"a": "cr\ronly", "b": "line\nbreak"}, {"a": "", "b": "x"}]
    write_tsv(path, rows, quoted="auto")
    assert path.read_bytes() == b'a\tb\n"""Run!"""\t"tab\there"\n"cr\ronly"\t"line\nbreak"\n\tx\n'
    assert read_tsv(path, quoted="auto").to_dict("records") == rows
    assert pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False).to_dict("records") == rows
    write_tsv(path, plain, quoted=True, float_format="%.4f")
    assert path.read_text(encoding="utf-8") == 'a\tb\n"""Run!"""\t1.5000\n'
    with pytest.raises(ValueError, match="column 'b'"):
        write_tsv(path, rows)  # unquoted TSV cannot hold a tab


def test_empty_table_keeps_columns_and_lines_are_recorded(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("a\tb\n", encoding="utf-8")
    assert list(read_tsv(path).columns) == ["a", "b"]
    path.write_text("a\tb\n1\t2\n3\t4\n", encoding="utf-8")
    assert read_tsv(path).attrs["lines"] == [2, 3]


@pytest.mark.parametrize("quoted", [False, True, "auto"])
def test_bytes_that_are_not_utf8_are_named_by_their_line(tmp_path, quoted):
    path = tmp_path / "latin1.tsv"
    path.write_bytes(b"en\tnl\nhim\them\ncaf\xe9\tkoffie\n")
    with pytest.raises(InputError) as error:
        list(iter_tsv(path, ("en", "nl"), quoted=quoted))
    assert error.value.line == 3
    assert str(error.value).startswith(f"{path}, line 3: not valid UTF-8")
    assert read_header(path) == ["en", "nl"]  # the header line itself is fine
    with pytest.raises(InputError, match=r"line 3: not valid UTF-8"):
        read_header(path, quoted=True)
