"""``board.html``: many models' profiles on one page, ranked (``natcomp compare R1 ... Rk``, k > 2).

Models are the rows; the columns are the profiles' rows (family, measure and setting),
grouped under their family. A cell holds the model's value with its sd, its rank in the
column (1 = the most compositional, or the best, in the column's direction) and its group
letters: two models that share a letter could not be told apart on the column's items
(every pair tested with :func:`natcomp.profile.compare.pairwise`, Holm's correction over
the column's pairs, compact letter display). A click on a column's header sorts the models
by their rank there (a second click reverses). One figure per family follows the table.
Everything is in the one file (style, script and PNG figures as data URIs): it opens from
disk with no server and no network.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.files import atomic_open
from natcomp.paired import ALPHA
from natcomp.profile.compare import PairTest, Run, pairwise
from natcomp.profile.fit import FAMILIES
from natcomp.report_table import STYLE, embedded_png
from natcomp.summary import FAMILY_NAMES

__all__ = ["Column", "board_columns", "compact_letters", "ranks", "write_board"]

BOARD_STYLE = """\
table.board { border-collapse: collapse; }
table.board th { cursor: pointer; vertical-align: bottom; font-weight: normal; }
table.board th.family { text-align: center; font-weight: bold; cursor: default; border-left: 2px solid #bbb; }
table.board th.first, table.board td.first { border-left: 2px solid #bbb; }
table.board th[data-order="asc"]::after { content: " \\25B2"; }
table.board th[data-order="desc"]::after { content: " \\25BC"; }
table.board td { white-space: nowrap; text-align: right; vertical-align: top; }
table.board td.model { text-align: left; font-weight: bold; }
span.rank { color: #444; font-size: 11px; }
span.groups { color: #0a4d8c; font-size: 11px; font-weight: bold; margin-left: 4px; }
span.undefined { color: #a40000; }
div.scroll { overflow-x: auto; max-width: 100%; }
.muted { color: #666; font-size: 11px; }
figure { margin: 1em 0; }
img { max-width: 100%; }
"""

#: sorts the board by a column's ranks (the model column by name); a second click reverses
SCRIPT = """\
(function () {
  var table = document.getElementById("board");
  var body = table.tBodies[0];
  function key(row, column) {
    var cell = row.querySelector('td[data-column="' + column + '"]');
    return cell ? cell.getAttribute("data-sort") : "";
  }
  function sortBy(header) {
    var column = header.getAttribute("data-column");
    var ascending = header.getAttribute("data-order") !== "asc";
    table.querySelectorAll("th[data-column]").forEach(function (other) { other.removeAttribute("data-order"); });
    header.setAttribute("data-order", ascending ? "asc" : "desc");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, column), y = key(b, column);
      if (x === "" && y === "") return 0;
      if (x === "") return 1;  // a model without a value last, either way
      if (y === "") return -1;
      var numeric = !isNaN(parseFloat(x)) && !isNaN(parseFloat(y));
      var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  table.querySelectorAll("th[data-column]").forEach(function (header) {
    header.addEventListener("click", function () { sortBy(header); });
  });
})();
"""

_DECIMALS = {"%": 1, "r": 3, "rho": 3}


class Column:
    """One column of the board: a profile row's key, unit and direction, each model's
    value, sd and flag, and the pairs' tests."""

    def __init__(self, key: tuple, unit: str, direction: str):
        self.key, self.unit, self.direction = key, unit, direction
        self.values: dict[str, float] = {}
        self.sds: dict[str, float] = {}
        self.flags: dict[str, str] = {}
        self.tests: list[PairTest] = []

    @property
    def family(self) -> str:
        return self.key[0]

    def ranks(self) -> dict[str, int]:
        return ranks(self.values, self.direction)

    def letters(self) -> dict[str, str]:
        order = sorted(self.ranks(), key=lambda model: self.ranks()[model])
        different = {
            frozenset((test.a, test.b)) for test in self.tests if not math.isnan(test.p_holm) and test.p_holm < ALPHA
        }
        return compact_letters(order, different)


def _number(value) -> float:
    number = pd.to_numeric(value, errors="coerce")
    return math.nan if pd.isna(number) else float(number)


def board_columns(runs: Sequence[Run], resamples: int = 1000) -> list[Column]:
    """The board's columns in family order (then as the profiles list them), each with its
    models' values and every pair's test."""
    columns: dict[tuple, Column] = {}
    for run in runs:
        for record in run.profile.to_dict("records"):
            key = (record["family"], record["measure"], record["setting"])
            column = columns.setdefault(key, Column(key, str(record["unit"]), str(record["direction"])))
            value = _number(record["value"])
            if not math.isnan(value):
                column.values[run.name] = value
            column.sds[run.name] = _number(record["sd"])
            column.flags[run.name] = str(record.get("flag") or "")
    ordered = sorted(columns.values(), key=lambda column: FAMILIES.index(column.family))
    for column in ordered:
        column.tests = pairwise(runs, column.key, resamples=resamples)
    return ordered


def ranks(values: Mapping[str, float], direction: str) -> dict[str, int]:
    """Each model's rank (1 = the most compositional or the best, in ``direction``); ties
    share the better rank."""
    higher = direction.startswith("higher")
    ordered = sorted(values.values(), reverse=higher)
    return {model: ordered.index(value) + 1 for model, value in values.items()}


def compact_letters(order: Sequence[str], different: set[frozenset]) -> dict[str, str]:
    """The compact letter display of ``order`` (models, best first): two models share a
    letter unless their pair is in ``different`` (Piepho's insert-and-absorb, 2004).
    Hand-written: scipy and pandas have none."""
    groups: list[set[str]] = [set(order)] if order else []
    for pair in different:
        first, second = tuple(pair)
        if first not in order or second not in order:
            continue
        split = []
        for group in groups:
            if first in group and second in group:
                split += [group - {first}, group - {second}]
            else:
                split.append(group)
        # absorb: a group inside another says nothing more
        groups = []
        for group in sorted(split, key=len, reverse=True):
            if group and not any(group <= kept for kept in groups):
                groups.append(group)
    position = {model: index for index, model in enumerate(order)}
    groups.sort(key=lambda group: min(position[model] for model in group))
    letters = {model: "" for model in order}
    for index, group in enumerate(groups):
        letter = chr(ord("a") + index) if index < 26 else f"[{index + 1}]"
        for model in group:
            letters[model] += letter
    return letters


def _format(value: float, unit: str) -> str:
    decimals = _DECIMALS.get(unit)
    return f"{value:.{decimals}f}" if decimals is not None else f"{value:.4g}"


def _cell(column: Column, model: str, index: int, first: bool, ranks_: Mapping, letters: Mapping) -> str:
    classes = ' class="first"' if first else ""
    if model not in column.values:
        flagged = column.flags.get(model)
        text = '<span class="undefined">undefined</span>' if flagged == "undefined" else "-"
        return f'<td{classes} data-column="{index}" data-sort="">{text}</td>'
    value, sd = column.values[model], column.sds.get(model, math.nan)
    shown = _format(value, column.unit) + (f" ± {_format(sd, column.unit)}" if not math.isnan(sd) else "")
    if column.flags.get(model) == "at chance":
        shown += " (at chance)"
    groups = letters.get(model, "")
    title = f"rank {ranks_[model]} of {len(ranks_)}" + (f"; group {groups}" if groups else "")
    return (
        f'<td{classes} data-column="{index}" data-sort="{ranks_[model]}" title="{html.escape(title)}">'
        f'{html.escape(shown)}<br><span class="rank">#{ranks_[model]}</span>'
        f'<span class="groups">{html.escape(groups)}</span></td>'
    )


def _figures(runs: Sequence[Run], families: Sequence[str]) -> list[str]:
    """One figure per family (natcomp.profile.render.draw_figure), each model in its one colour."""
    import tempfile

    from natcomp.figures import save_png
    from natcomp.profile.render import draw_figure, model_colours

    names = [run.name for run in runs]
    colours = model_colours(names)
    rows = pd.concat([run.profile for run in runs], ignore_index=True)
    parts = []
    for family in families:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "figure.png"
            figure = draw_figure(rows[rows["family"] == family], colours)
            save_png(figure, path, title=FAMILY_NAMES.get(family, family), dpi=100, tight_layout=False)
            image = embedded_png(path.read_bytes(), f"{FAMILY_NAMES.get(family, family)} figure")
        parts.append(
            f'<figure id="figure-{html.escape(family)}">{image}<figcaption>{html.escape(FAMILY_NAMES.get(family, family))}'
            ": each model's value (dot) and sd (bar) per measure and setting, its baseline dashed.</figcaption></figure>"
        )
    return parts


def board_page(runs: Sequence[Run], columns: Sequence[Column], title: str) -> str:
    """The board's HTML (one file: style, script and figures inline)."""
    families = list(dict.fromkeys(column.family for column in columns))
    head_families, head_columns = ['<th rowspan="2" data-column="model">model</th>'], []
    for family in families:
        span = sum(column.family == family for column in columns)
        head_families.append(
            f'<th class="family" colspan="{span}">{html.escape(FAMILY_NAMES.get(family, family))}</th>'
        )
    firsts = {index for index, column in enumerate(columns) if index == 0 or columns[index - 1].family != column.family}
    for index, column in enumerate(columns):
        _, measure, setting = column.key
        tip = f"{measure}, {setting}: {column.unit}, {column.direction}"
        classes = ' class="first"' if index in firsts else ""
        arrow = "↑" if column.direction.startswith("higher") else "↓"
        head_columns.append(
            f'<th{classes} data-column="{index}" title="{html.escape(tip)}">{html.escape(measure)}<br>'
            f'<span class="muted">{html.escape(str(setting))} ({html.escape(column.unit)} {arrow})</span></th>'
        )
    shown = [(column, column.ranks(), column.letters()) for column in columns]
    body = []
    for run in runs:
        cells = [
            f'<td class="model" data-column="model" data-sort="{html.escape(run.name)}">{html.escape(run.name)}</td>'
        ]
        cells += [
            _cell(column, run.name, index, index in firsts, ranks_, letters)
            for index, (column, ranks_, letters) in enumerate(shown)
        ]
        body.append(f'<tr data-model="{html.escape(run.name)}">' + "".join(cells) + "</tr>")
    untested = sorted({test.test for column in columns for test in column.tests if math.isnan(test.p_value)}, key=str)
    scales = sorted({str(scale) for run in runs for scale in run.profile["scale"]})
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{len(runs)} models ({html.escape(', '.join(run.name for run in runs))}); scale: "
        f"{html.escape(', '.join(scales))}. Each cell: the value ± its sd over the repetitions of the profile, then "
        "the model's rank in the column (#1: the most compositional, or the best, in the column's direction, "
        "↑ higher or ↓ lower) and its group letters: models that share a letter could not be told apart by a "
        f"paired test on the column's items (every pair tested, Holm's correction over the column's pairs, level "
        f"{ALPHA}). Click a column's header to sort the models by it.</p>",
        f'<div class="scroll"><table id="board" class="natcomp board">\n<thead>\n<tr>{"".join(head_families)}</tr>\n'
        f"<tr>{''.join(head_columns)}</tr>\n</thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table></div>",
    ]
    if untested:
        parts.append(
            '<p class="muted">Pairs not tested (counted as not told apart): '
            + "; ".join(html.escape(reason) for reason in untested[:20])
            + (f"; and {len(untested) - 20} more" if len(untested) > 20 else "")
            + "</p>"
        )
    parts += _figures(runs, families)
    data = {
        "models": [run.name for run in runs],
        "columns": [
            {
                "family": column.family,
                "measure": column.key[1],
                "setting": column.key[2],
                "ranks": ranks_,
                "groups": letters,
            }
            for column, ranks_, letters in shown
        ],
    }
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{STYLE}{BOARD_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(parts)
        + f'\n<script type="application/json" id="board-data">{html.escape(json.dumps(data), quote=False)}</script>'
        + f"\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    )


def write_board(runs: Sequence[Run], path: str | Path, *, resamples: int = 1000, title: str | None = None) -> Path:
    """``board.html`` of ``runs`` at ``path`` (written atomically)."""
    columns = board_columns(runs, resamples=resamples)
    page = board_page(runs, columns, title or f"Compositionality board: {len(runs)} models")
    with atomic_open(path) as out:
        out.write(page)
    return Path(path)
