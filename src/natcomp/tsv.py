"""The one TSV reader and writer every family uses.

Quoting policy: natcomp writes TSV *unquoted*. A field is the text between two tabs,
exactly as it is: a sentence with ``"`` survives a write and a read unchanged. A field
that contains a tab or a line break cannot be written (:class:`ValueError` names the
column). A header line names the columns; a UTF-8 byte-order mark before it is ignored.

Reading is strict: every row must have as many fields as the header, and errors name the
file, the line and what was expected. Files written by other tools (pandas' default
quoting, spreadsheets) can be read with ``quoted=True``, which undoes CSV-style double
quotes, or with ``quoted="auto"``, which reads a file CSV-style only when it was
evidently written that way (:func:`looks_csv_quoted`) and as it is otherwise, so that
natcomp's own files, where a sentence may start and end with ``"``, read unchanged.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import sys
from typing import TYPE_CHECKING

from natcomp.errors import InputError
from natcomp.files import atomic_open, read_first_line, read_text

if TYPE_CHECKING:  # pandas is imported where a DataFrame is built, not at start-up
    import pandas as pd

_BOM = "\ufeff"


def _check_header(path: str | Path, header: list[str], required: Sequence[str]) -> None:
    """One error naming every missing and repeated column, the header found and the one expected."""
    missing = [name for name in required if name not in header]
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if not missing and not duplicates:
        return
    problems = []
    if missing:
        problems.append(f"missing column(s) {', '.join(missing)}")
    if duplicates:
        problems.append(f"column(s) {', '.join(duplicates)} appear more than once")
    found = " | ".join(header) if any(header) else "(empty)"
    message = f"{'; '.join(problems)}; found the header {found}"
    if required:
        message += f"; expected the columns {', '.join(required)}"
    if len(header) == 1 and any(mark in header[0] for mark in ",;"):
        message += " (the header has no tab: is the file comma- or semicolon-separated?)"
    elif any(len(name) >= 2 and name[0] == name[-1] == '"' for name in header):
        message += " (quoted column names: the file was written with CSV-style quoting, read it with quoting on)"
    raise InputError(path, message, 1)


#: a CSV-style quoted field: it starts a line or follows a tab, and its closing quote ends the
#: line or is followed by a tab; inner quotes are doubled
_QUOTED_FIELD = re.compile(r'(?:^|(?<=\t))"((?:[^"]|"")*)"(?=\t|\r?\n|\Z)', re.MULTILINE)


def looks_csv_quoted(text: str) -> bool:
    """Whether the text of a TSV file was written with CSV-style quoting (pandas' ``to_csv``).

    True when the text parses as strict CSV (tab-delimited, doubled inner quotes) into rows
    of equal length and either a quoted field holds what only quoting can hold (a doubled
    ``""``, a tab or a line break; the csv module and pandas quote a field only then) or
    every column name of the header is quoted (writers that quote every field). An
    unquoted natcomp file reads as CSV only if one of its fields starts and ends with
    ``"`` and has ``""`` inside, which no sentence natcomp writes has.
    """
    text = text.removeprefix(_BOM)
    header = text.split("\n", 1)[0].rstrip("\r").split("\t")
    header_quoted = all(len(name) >= 2 and name[0] == name[-1] == '"' for name in header)
    needed = any(
        '""' in raw or "\t" in raw or "\n" in raw or "\r" in raw
        for raw in (match.group(1) for match in _QUOTED_FIELD.finditer(text))
    )
    if not (header_quoted or needed):
        return False
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", strict=True))
    except csv.Error:
        return False
    while records and not any(field.strip() for field in records[-1]):
        records.pop()
    return bool(records) and all(len(record) == len(records[0]) for record in records)


def _read_text(path: str | Path) -> str:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    return text.removeprefix(_BOM)


def _use_quoting(text: str, quoted: bool | str) -> bool:
    if quoted == "auto":
        return looks_csv_quoted(text)
    if isinstance(quoted, bool):
        return quoted
    raise ValueError(f"quoted must be True, False or 'auto', not {quoted!r}")


def _csv_records(path: str | Path, text: str) -> list[list[str]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", strict=True)
    try:
        return list(reader)
    except csv.Error as error:
        raise InputError(
            path,
            f"bad CSV-style quoting ({error}); expected doubled quotes inside quoted fields",
            reader.line_num,
        ) from None


def iter_tsv(
    path: str | Path,
    required: Sequence[str] = (),
    *,
    non_empty: Sequence[str] = (),
    strip: bool = False,
    quoted: bool | str = False,
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line number, row)`` for each data row of a TSV file with a header.

    ``required`` columns must be in the header (extra columns are allowed), ``non_empty``
    columns must hold a value in every row; ``strip`` removes surrounding white space from
    every value. ``\r`` line ends are accepted and blank lines may end the file, not sit
    inside the table. Raises :class:`InputError` naming the file and line for a missing
    column, a row with the wrong number of fields, an empty value or bytes that are not
    UTF-8. ``quoted``: False reads every field as it is (natcomp's files), True undoes
    CSV-style quoting, ``"auto"`` does so only when :func:`looks_csv_quoted` says the file
    was written that way. Line numbers count records, which differ from physical lines
    only where a quoted field holds a line break.
    """
    text = _read_text(path)
    if _use_quoting(text, quoted):
        records = _csv_records(path, text)
    else:
        records = [line.rstrip("\r").split("\t") for line in text.split("\n")]
    while records and all(not field.strip() for field in records[-1]):
        records.pop()
    if not records:
        raise InputError(
            path,
            f"empty file; expected a header line with the columns {', '.join(required)}",
            1,
        )
    header = [name.strip() for name in records[0]]
    _check_header(path, header, [*required, *(c for c in non_empty if c not in required)])
    for number, fields in enumerate(records[1:], start=2):
        if all(not field.strip() for field in fields):
            raise InputError(
                path,
                "empty line inside the table; expected a row of tab-separated values",
                number,
            )
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
    quoted: bool | str = False,
) -> pd.DataFrame:
    """A TSV file with a header as a DataFrame of strings (no value is parsed or dropped).

    Checked like :func:`iter_tsv`; an empty table keeps its columns. The line number of
    each row is kept in ``frame.attrs["lines"]`` and the path in ``frame.attrs["path"]``.
    """
    import pandas as pd

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


def read_header(path: str | Path, *, quoted: bool | str = False) -> list[str]:
    """The column names of a TSV file (``quoted`` as in :func:`iter_tsv`)."""
    if quoted is False:
        first = read_first_line(path).lstrip(_BOM)
        return [name.strip() for name in first.split("\t")] if first else []
    text = _read_text(path)
    if not _use_quoting(text, quoted):
        return read_header(path)
    return [name.strip() for name in next(iter(_csv_records(path, text)), [])]


def format_cell(value: object, float_format: str | None = None) -> str:
    """The text of one cell: missing values (None, NaN, ``pd.NA``) empty, booleans 1/0,
    floats in ``float_format`` when given, else in full precision."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars
    pandas = sys.modules.get("pandas")  # a pd.NA exists only where pandas was imported
    if value is None or (pandas is not None and value is pandas.NA) or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return float_format % value if float_format is not None else repr(value)
    return str(value)


def _check_cell(text: str, column: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise ValueError(
            f"column {column!r}: the value {text[:60]!r} contains a tab or a line break; TSV cannot hold it"
        )
    return text


def write_tsv(
    path: str | Path,
    rows: pd.DataFrame | Iterable[Mapping[str, object]],
    columns: Sequence[str] | None = None,
    *,
    float_format: str | None = None,
    quoted: bool | str = False,
) -> int:
    """Write rows (a DataFrame or mappings) as an unquoted TSV file, atomically.

    ``columns`` fixes the column order (default: the DataFrame's, or the first row's
    keys). Returns the number of data rows written. ``quoted=True`` writes CSV-style
    quoting instead (like pandas' ``to_csv(sep="\t")``: a field is quoted when it holds a
    ``"``, a tab or a line break); ``"auto"`` does so only when a value holds a tab or a
    line break, which unquoted TSV cannot hold; such a file reads back unchanged with
    ``read_tsv(path, quoted="auto")``.
    """
    if quoted not in (False, True, "auto"):
        raise ValueError(f"quoted must be True, False or 'auto', not {quoted!r}")
    pandas = sys.modules.get("pandas")  # a DataFrame exists only where pandas was imported
    if pandas is not None and isinstance(rows, pandas.DataFrame):
        columns = list(columns or rows.columns)
        records: Iterable[Mapping[str, object]] = rows[columns].to_dict("records")
    else:
        records = rows
    if quoted is not False:
        return _write_maybe_quoted(path, list(records), columns, float_format, quoted == "auto")
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


def _write_maybe_quoted(
    path: str | Path,
    records: list[Mapping[str, object]],
    columns: Sequence[str] | None,
    float_format: str | None,
    only_when_needed: bool,
) -> int:
    if columns is None:
        if not records:
            raise ValueError(f"{path}: no rows and no columns given; cannot write a header")
        columns = list(records[0])
    table = [[str(c) for c in columns], *([format_cell(r.get(c), float_format) for c in columns] for r in records)]
    needed = any("\t" in cell or "\n" in cell or "\r" in cell for row in table for cell in row)
    quote = needed or not only_when_needed
    with atomic_open(path) as out:
        out.writelines("\t".join(_quote(cell) if quote else cell for cell in row) + "\n" for row in table)
    return len(records)


def _quote(cell: str) -> str:
    """CSV-style quoting of one field where it is needed (the csv module leaves a lone ``\\r`` bare)."""
    if any(mark in cell for mark in '"\t\n\r'):
        return '"' + cell.replace('"', '""') + '"'
    return cell
