"""The one TSV reader and writer every family uses.

Quoting policy: natcomp writes TSV *unquoted*. A field is the text between two tabs,
exactly as it is: a sentence with ``"`` survives a write and a read unchanged. A field
that contains a tab or a line break cannot be written (:class:`ValueError` names the
column). A header line names the columns; a UTF-8 byte-order mark before it is ignored.

Reading is strict: every row must have as many fields as the header, and errors name the
file, the line and what was expected. Files written by other tools (pandas' default
quoting, spreadsheets) can be read with ``quoted=True``, which undoes CSV-style double
quotes.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.files import atomic_open, open_text

_BOM = "\ufeff"


def _check_header(path: str | Path, header: list[str], required: Sequence[str]) -> None:
    missing = [name for name in required if name not in header]
    if missing:
        raise InputError(
            path,
            f"missing column(s) {', '.join(missing)}; found header {'|'.join(header) or '(empty)'}, "
            f"expected the columns {', '.join(required)}",
            1,
        )
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise InputError(path, f"column(s) {', '.join(duplicates)} appear more than once in the header", 1)


def iter_tsv(
    path: str | Path,
    required: Sequence[str] = (),
    *,
    non_empty: Sequence[str] = (),
    strip: bool = False,
    quoted: bool = False,
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line number, row)`` for each data row of a TSV file with a header.

    ``required`` columns must be in the header (extra columns are allowed), ``non_empty``
    columns must hold a value in every row; ``strip`` removes surrounding white space from
    every value. ``\r`` line ends are accepted and blank lines may end the file, not sit
    inside the table. Raises :class:`InputError` naming the file and line for a missing
    column, a row with the wrong number of fields, an empty value or bytes that are not
    UTF-8.
    """
    try:
        with open_text(path) as handle:
            text = handle.read()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except UnicodeDecodeError as error:
        raise InputError(path, f"not valid UTF-8 ({error.reason} at byte {error.start})") from None
    if text.startswith(_BOM):
        text = text[1:]
    if quoted:
        records = [[field.rstrip("\r") for field in row] for row in csv.reader(io.StringIO(text, newline=""), delimiter="\t")]
    else:
        records = [line.rstrip("\r").split("\t") for line in text.split("\n")]
    while records and all(not field.strip() for field in records[-1]):
        records.pop()
    if not records:
        raise InputError(path, f"empty file; expected a header line with the columns {', '.join(required)}", 1)
    header = [name.strip() for name in records[0]]
    _check_header(path, header, [*required, *(c for c in non_empty if c not in required)])
    for number, fields in enumerate(records[1:], start=2):
        if all(not field.strip() for field in fields):
            raise InputError(path, "empty line inside the table; expected a row of tab-separated values", number)
        if len(fields) != len(header):
            raise InputError(
                path,
                f"expected {len(header)} tab-separated fields ({', '.join(header)}) but found {len(fields)}",
                number,
            )
        row = dict(zip(header, (field.strip() for field in fields) if strip else fields))
        empty = [name for name in non_empty if not row[name].strip()]
        if empty:
            raise InputError(path, f"empty value in column(s) {', '.join(empty)}", number)
        yield number, row


def read_tsv(
    path: str | Path,
    required: Sequence[str] = (),
    *,
    non_empty: Sequence[str] = (),
    strip: bool = False,
    quoted: bool = False,
) -> pd.DataFrame:
    """A TSV file with a header as a DataFrame of strings (no value is parsed or dropped).

    Checked like :func:`iter_tsv`; an empty table keeps its columns. The line number of
    each row is kept in ``frame.attrs["lines"]`` and the path in ``frame.attrs["path"]``.
    """
    header: list[str] | None = None
    records = []
    lines = []
    for number, row in iter_tsv(path, required, non_empty=non_empty, strip=strip, quoted=quoted):
        lines.append(number)
        header = header or list(row)
        records.append(row)
    if header is None:
        header = read_header(path, quoted=quoted)
    frame = pd.DataFrame.from_records(records, columns=header) if records else pd.DataFrame(columns=header)
    frame = frame.astype(object)
    frame.attrs["path"] = str(path)
    frame.attrs["lines"] = lines
    return frame


def read_header(path: str | Path, *, quoted: bool = False) -> list[str]:
    """The column names of a TSV file."""
    with open_text(path) as handle:
        first = handle.readline().lstrip(_BOM).rstrip("\r\n")
    if quoted:
        return [name.strip() for name in next(csv.reader([first], delimiter="\t"), [])]
    return [name.strip() for name in first.split("\t")] if first else []


def format_cell(value: object, float_format: str | None = None) -> str:
    """The text of one cell: missing values (None, NaN, ``pd.NA``) empty, booleans 1/0,
    floats in ``float_format`` when given, else in full precision."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return float_format % value if float_format is not None else repr(value)
    return str(value)


def _check_cell(text: str, column: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise ValueError(f"column {column!r}: the value {text[:60]!r} contains a tab or a line break; TSV cannot hold it")
    return text


def write_tsv(
    path: str | Path,
    rows: pd.DataFrame | Iterable[Mapping[str, object]],
    columns: Sequence[str] | None = None,
    *,
    float_format: str | None = None,
) -> int:
    """Write rows (a DataFrame or mappings) as an unquoted TSV file, atomically.

    ``columns`` fixes the column order (default: the DataFrame's, or the first row's
    keys). Returns the number of data rows written.
    """
    if isinstance(rows, pd.DataFrame):
        columns = list(columns or rows.columns)
        records: Iterable[Mapping[str, object]] = rows[columns].to_dict("records")
    else:
        records = rows
    count = 0
    with atomic_open(path) as out:
        iterator = iter(records)
        first = next(iterator, None)
        if columns is None:
            if first is None:
                raise ValueError(f"{path}: no rows and no columns given; cannot write a header")
            columns = list(first)
        out.write("\t".join(_check_cell(str(c), str(c)) for c in columns) + "\n")
        for record in itertools.chain([first] if first is not None else [], iterator):
            out.write("\t".join(_check_cell(format_cell(record.get(c), float_format), c) for c in columns) + "\n")
            count += 1
    return count
