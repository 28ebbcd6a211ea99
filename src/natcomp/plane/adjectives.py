"""Adjective classes and the PLANE label rules (Bertolini, Weeds & Weir 2022, Table 1).

Classes: ``I`` intersective, ``S`` subsective, ``O`` intensional (privative or
non-subsective). The released PLANE files code subsective adjectives as ``N``; it is
accepted everywhere a class is read and normalised to ``S``.
"""

from __future__ import annotations

from pathlib import Path

from natcomp.errors import InputError
from natcomp.shipped import resource_path
from natcomp.tsv import iter_tsv

CLASSES = ("I", "S", "O")
INFERENCE_TYPES = ("IT1", "IT2", "IT3")
# The released files' name for the subsective class.
_ALIASES = {"N": "S"}

# Table 1: does AN entail N (IT1), h(N) (IT2), A h(N) (IT3)?
_TABLE_1 = {
    "I": {"IT1": 1, "IT2": 1, "IT3": 1},
    "S": {"IT1": 1, "IT2": 1, "IT3": 0},
    "O": {"IT1": 0, "IT2": 0, "IT3": 1},
}

DEFAULT_ADJECTIVES = resource_path("plane", "adjectives.tsv")


def normalise_class(cls: str) -> str:
    """``I``/``S``/``O`` for a class name (``N`` is the released files' name for ``S``)."""
    name = _ALIASES.get(cls, cls)
    if name not in _TABLE_1:
        raise ValueError(f"unknown adjective class {cls!r}; expected one of I, S, O (or N for S)")
    return name


def label(cls: str, it: str) -> int:
    """1 if an AN phrase with an adjective of class ``cls`` entails c2 under ``it``, else 0.

    >>> label("S", "IT3"), label("N", "IT1"), label("O", "IT3")
    (0, 1, 1)
    """
    name = normalise_class(cls)
    if it not in INFERENCE_TYPES:
        raise ValueError(f"unknown inference type {it!r}; expected one of IT1, IT2, IT3")
    return _TABLE_1[name][it]


def load_adjectives(path: str | Path = DEFAULT_ADJECTIVES) -> dict[str, str]:
    """``{adjective: class}`` from a TSV with the columns ``adjective`` and ``class``.

    Classes are I/S/O (``N`` read as ``S``); adjectives are lower-cased. Raises
    :class:`InputError` naming the file and line for an unknown class, an empty adjective,
    or an adjective listed twice (with the line of its first listing).
    """
    classes: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, row in iter_tsv(path, required=("adjective", "class")):
        adjective = row["adjective"].strip().lower()
        if not adjective or " " in adjective:
            raise InputError(path, f"adjective {row['adjective']!r}: expected one word", number)
        try:
            cls = normalise_class(row["class"].strip())
        except ValueError as error:
            raise InputError(path, str(error), number) from None
        if adjective in classes:
            other = classes[adjective]
            what = "with another class" if other != cls else "again"
            raise InputError(
                path,
                f"adjective {adjective!r} is listed {what} ({cls}; line {first_line[adjective]} has {other}); "
                "expected each adjective once",
                number,
            )
        classes[adjective] = cls
        first_line[adjective] = number
    if not classes:
        raise InputError(path, "no adjectives; expected rows adjective<TAB>class")
    return classes
