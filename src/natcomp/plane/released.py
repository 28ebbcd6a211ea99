"""The released PLANE splits (lorenzoscottb/PLANE): pickles or their TSV conversions.

Row layouts (see docs/plane.md):

- OoD ("GOoD"): ``sentence, label, class, adj, noun, hyp, noun_hyp`` (7 fields), every IT;
- One-IT: ``sentence, label, class, adj, noun, hyp`` (6 fields), IT3 only, where ``noun``
  is the head of c1 and ``hyp`` the head of c2 (either may be a hypernym word).

``label`` is 1 (entailment) or 0; ``class`` is I / N / O with N for subsective. Rows are
read into the project's item columns (class normalised to S, ``it`` recovered from the
sentence). The pickles are plain lists of lists; they are loaded with an unpickler that
refuses every global, so a malicious file cannot run code.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.plane.adjectives import label, normalise_class
from natcomp.plane.items import ITEM_COLUMNS, sentence
from natcomp.tsv import iter_tsv

LAYOUTS = {
    "ood": ["sentence", "label", "class", "adj", "noun", "hyp", "noun_hyp"],
    "one_it": ["sentence", "label", "class", "adj", "noun", "hyp"],
}


class _NoGlobalsUnpickler(pickle.Unpickler):
    """Builds only plain containers, strings and numbers: any global (class, function) is refused."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed in a PLANE split")


def load_pickle_rows(path: str | Path) -> list[list]:
    """The rows of a released pickle (a list of lists), loaded without executing code."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    try:
        rows = _NoGlobalsUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as error:
        raise InputError(path, f"not a PLANE split pickle (a list of rows): {error}") from None
    if not isinstance(rows, list):
        raise InputError(path, f"holds a {type(rows).__name__}; expected a list of rows")
    return rows


def _row_to_item(path, number: int, fields: list, layout: str) -> tuple:
    columns = LAYOUTS[layout]
    if not isinstance(fields, (list, tuple)) or len(fields) != len(columns):
        size = len(fields) if isinstance(fields, (list, tuple)) else type(fields).__name__
        raise InputError(path, f"row has {size} field(s); expected the {layout} layout {', '.join(columns)}", number)
    record = dict(zip(columns, fields))
    text, adj, noun, hyp = (str(record[k]) for k in ("sentence", "adj", "noun", "hyp"))
    try:
        gold = int(record["label"])
    except (TypeError, ValueError):
        gold = -1
    if gold not in (0, 1) or str(record["label"]).strip() not in ("0", "1"):
        raise InputError(path, f"label {record['label']!r}; expected 0 or 1", number)
    try:
        cls = normalise_class(str(record["class"]))
    except ValueError as error:
        raise InputError(path, str(error), number) from None
    if layout == "ood" and str(record["noun_hyp"]) != f"{noun}_{hyp}":
        raise InputError(path, f"noun_hyp {record['noun_hyp']!r}; expected {noun}_{hyp}", number)
    forms = {"IT3": sentence(adj, noun, f"{adj} {hyp}")}
    if layout == "ood":
        forms.update({"IT1": sentence(adj, noun, noun), "IT2": sentence(adj, noun, hyp)})
    matches = [it for it, form in forms.items() if form == text]
    if not matches:
        raise InputError(
            path,
            f"sentence {text!r} is none of the forms "
            f"{' / '.join(sorted(set(forms.values())))} for adj={adj!r}, noun={noun!r}, hyp={hyp!r}",
            number,
        )
    it = matches[0]
    c2 = {"IT1": noun, "IT2": hyp, "IT3": f"{adj} {hyp}"}[it]
    return (text, gold, cls, it, adj, noun, hyp, "", f"{adj} {noun}", c2)


def read_released(path: str | Path, layout: str | None = None) -> pd.DataFrame:
    """A released split (``.pkl`` or ``.tsv``) as items (columns of :data:`ITEM_COLUMNS`).

    ``layout`` is ``ood`` or ``one_it``; by default it is taken from the header (TSV) or the
    first row's length (pickle). Each row is checked: field count, label 0/1, class I/N/S/O,
    the sentence equals its form, ``noun_hyp`` equals ``noun_hyp``. The gold label is kept
    as released (see :func:`label_disagreements`). Errors name the file and the line (TSV)
    or row number (pickle, 1-based).
    """
    path = Path(path)
    rows = []
    if path.suffix == ".pkl":
        raw = load_pickle_rows(path)
        if layout is None:
            sizes = {len(r) for r in raw[:1] if isinstance(r, (list, tuple))}
            layout = next((name for name, cols in LAYOUTS.items() if len(cols) in sizes), None)
            if layout is None:
                raise InputError(path, "first row matches no released layout (7 fields OoD, 6 fields One-IT)", 1)
        for number, fields in enumerate(raw, start=1):
            rows.append(_row_to_item(path, number, fields, layout))
    else:
        if layout is None:
            from natcomp.tsv import read_header

            header = read_header(path)
            layout = next((name for name, cols in LAYOUTS.items() if header == cols), None)
            if layout is None:
                raise InputError(
                    path,
                    f"header {'|'.join(header)} matches no released layout; expected "
                    + " or ".join("|".join(c) for c in LAYOUTS.values()),
                    1,
                )
        columns = LAYOUTS[layout]
        for number, record in iter_tsv(path, required=columns):
            if list(record) != columns:
                raise InputError(path, f"columns {'|'.join(record)}; expected {'|'.join(columns)}", 1)
            rows.append(_row_to_item(path, number, [record[c] for c in columns], layout))
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    items = pd.DataFrame(rows, columns=ITEM_COLUMNS)
    items.attrs["layout"] = layout
    return items


def label_disagreements(items: pd.DataFrame) -> pd.DataFrame:
    """Rows whose released label differs from :func:`natcomp.plane.label` of their class and IT."""
    expected = [label(c, it) for c, it in zip(items["class"], items["it"])]
    return items[items["label"].astype(int).to_numpy() != pd.Series(expected).to_numpy()]


def phrases_of(items: pd.DataFrame) -> list[tuple[str, str]]:
    """The (adjective, noun) pairs of released items: the AN phrases to rebuild the resource from.

    OoD rows: every (adj, noun). One-IT rows: c1 heads include hypernym words ("A russian
    travel is a russian motion"), which are not corpus phrases, so only nouns that never
    occur as a c2 head (``hyp``) in the file count: the chain nouns N.
    """
    if items.attrs.get("layout") == "one_it":
        as_hyp = set(items["hyp"])
        chosen = items[~items["noun"].isin(as_hyp)]
    else:
        chosen = items
    return sorted(set(zip(chosen["adj"], chosen["noun"])))
