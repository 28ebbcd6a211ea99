"""HTML renderings of final TSV tables for ``snakemake --report``.

Snakemake's HTML report (9.x) shows images, PDFs and HTML files inline, but a ``.tsv``
result is only a download button. A family that wants a table readable in the report
writes an HTML rendering next to the TSV and declares the HTML file as the report item;
the TSV stays the data output that other rules and users read.

The rendering is made from the TSV file itself (every cell as the text written there),
so the report shows exactly the numbers of the data file, and it carries the TSV as a
download link, so the report keeps the data too.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd

from natcomp.files import atomic_open
from natcomp.tsv import read_tsv

STYLE = """\
body { font-family: sans-serif; font-size: 13px; margin: 1em; }
h1 { font-size: 16px; }
table.natcomp { border-collapse: collapse; }
table.natcomp th, table.natcomp td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: left; }
table.natcomp th { background: #f3f3f3; position: sticky; top: 0; }
p.settings { background: #fff6d8; padding: 4px 6px; }
"""


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def numeric_columns(table: pd.DataFrame) -> list[str]:
    """Columns whose non-empty cells all read as numbers (right-aligned in the rendering).
    A column of empty cells only is not numeric."""
    numeric = []
    for column in table.columns:
        cells = [str(value) for value in table[column] if not pd.isna(value) and str(value) != ""]
        if cells and all(_is_number(cell) for cell in cells):
            numeric.append(column)
    return numeric


def table_fragment(table: pd.DataFrame, table_id: str, *, escape: bool = True) -> str:
    """``table`` as an HTML ``<table id=table_id>`` with its own right alignment of the
    numeric columns (a ``<style>`` scoped to the id, so several tables share a page).
    ``escape=False`` takes cells and column names as HTML the caller has escaped."""
    numeric = set(numeric_columns(table))
    # Right-align numeric columns by position: compact where a table has thousands of rows.
    alignment = "\n".join(
        f"#{table_id} td:nth-child({position}), #{table_id} th:nth-child({position}) {{ text-align: right; }}"
        for position, column in enumerate(table.columns, start=1)
        if column in numeric
    )
    body = table.to_html(index=False, na_rep="", classes="natcomp", border=0, escape=escape, table_id=table_id)
    return f"<style>\n{alignment}\n</style>\n{body}\n"


def embedded_png(data: bytes, alt: str) -> str:
    """A PNG as an ``<img>`` inside the page (a data URI): the page stays one file."""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}">'


def download_link(name: str, data: bytes, rows: int) -> str:
    """A link that downloads ``data`` (a TSV file) as ``name``, with its row count."""
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<p><a download="{html.escape(name)}" '
        f'href="data:text/tab-separated-values;charset=utf-8;base64,{encoded}">'
        f"download {html.escape(name)}</a> ({rows} rows)</p>\n"
    )


def table_html(
    table: pd.DataFrame,
    title: str,
    *,
    download_name: str | None = None,
    data: bytes | None = None,
    settings: str = "",
) -> str:
    """A self-contained HTML page showing ``table`` (cells as given; missing ones empty).

    With ``download_name`` and ``data``, the page links the data as a download of that name;
    ``settings`` (how the run was configured: scale, models, seeds) is shown above the table.
    """
    link = download_link(download_name, data, len(table)) if download_name is not None and data is not None else ""
    shown = f"<p class=settings>This run: {html.escape(settings)}</p>\n" if settings else ""
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n{shown}{link}{table_fragment(table, 'table')}</body>\n</html>\n"
    )


def write_html_table(tsv_path: str | Path, html_path: str | Path, title: str, settings: str = "") -> None:
    """Render the TSV file ``tsv_path`` (as written: every cell's text) into ``html_path``,
    atomically, with the TSV attached as a download and the run's ``settings`` above it."""
    tsv_path = Path(tsv_path)
    table = read_tsv(tsv_path)
    page = table_html(table, title, download_name=tsv_path.name, data=tsv_path.read_bytes(), settings=settings)
    with atomic_open(html_path) as out:
        out.write(page)
