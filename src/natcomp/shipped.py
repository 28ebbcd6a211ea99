"""The project's ``resources/`` (word lists and other small facts), found from anywhere.

The repository's ``resources/`` is the one copy; the package reaches it through the link
``src/natcomp/resources`` and a built wheel carries it as package data, so an installed
``natcomp`` command finds it from any working directory.
"""

from __future__ import annotations

from importlib import resources as _importlib_resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """The path of a shipped resource, e.g. ``resource_path("synonyms.tsv")``."""
    path = Path(str(_importlib_resources.files("natcomp").joinpath("resources", *parts)))
    if not path.exists():
        raise FileNotFoundError(f"natcomp resource {'/'.join(parts)} not found at {path}; is natcomp installed whole?")
    return path
