"""Saving a matplotlib figure the one way every family does: a title above the panels,
tight layout, PNG written atomically, the figure closed.

A figure of the report is read at the report's width without its caption, so it says
itself what it shows: ``title`` (wrapped to the figure's width) names the measure, the
paper figure it reproduces and how this run was configured.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from natcomp.files import atomic_path

__all__ = ["save_png"]

#: characters of title per inch of figure width at the title's font size
_TITLE_CHARACTERS_PER_INCH = 13


def save_png(figure, path: str | Path, *, title: str | None = None, dpi: int = 120, tight_layout: bool = True):
    """Save ``figure`` to ``path`` (PNG, atomically, cropped to its content) with ``title``
    above all panels; close it and return it. ``tight_layout=False`` keeps a layout the
    caller arranged itself."""
    import matplotlib.pyplot as plt

    if title:
        width = max(20, int(figure.get_figwidth() * _TITLE_CHARACTERS_PER_INCH))
        figure.suptitle(textwrap.fill(title, width), fontsize=10)
    if tight_layout:
        figure.tight_layout()
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    return figure
