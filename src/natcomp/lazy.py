"""Public names of a package imported from their modules when first used (PEP 562), so
that importing the package (the command line does) loads none of their dependencies."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(package: str, module_of: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: name -> the attribute of
    ``package.<module_of[name]>``, imported on first use. A value ``"module:attribute"``
    exports the module's ``attribute`` under ``name``."""

    def __getattr__(name: str):
        if name in module_of:
            module, _, attribute = module_of[name].partition(":")
            value = getattr(importlib.import_module(f"{package}.{module}"), attribute or name)
            setattr(sys.modules[package], name, value)  # imported once: later reads skip this function
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted([*vars(sys.modules[package]), *module_of])

    return __getattr__, __dir__
