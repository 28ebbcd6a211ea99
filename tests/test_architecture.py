"""The shape of the house: families are the sub-packages with a rule folder, core packages
have none, and no family imports another (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "natcomp"
RULES = ROOT / "workflow" / "rules"
FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")
CORE_PACKAGES = ("hf", "profile", "served")


def _sub_packages() -> set[str]:
    return {path.parent.name for path in PACKAGE.glob("*/__init__.py") if path.parent.name != "resources"}


def test_every_sub_package_is_a_family_or_a_core_package():
    assert _sub_packages() == set(FAMILIES) | set(CORE_PACKAGES)


def test_every_package_folder_has_an_init():
    """No namespace packages: every folder of Python modules is a regular package."""
    folders = {path.parent for path in PACKAGE.rglob("*.py")}
    assert sorted(str(folder.relative_to(PACKAGE)) for folder in folders if not (folder / "__init__.py").exists()) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_has_a_rule_folder(family):
    assert (RULES / family).is_dir()


@pytest.mark.parametrize("package", CORE_PACKAGES)
def test_a_core_package_has_no_rule_folder(package):
    assert not (RULES / package).exists()


def _imported_natcomp_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            modules |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {module for module in modules if module.startswith("natcomp.")}


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_never_imports_another(family):
    others = set(FAMILIES) - {family}
    crossings = sorted(
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in (PACKAGE / family).rglob("*.py")
        for module in _imported_natcomp_modules(path)
        if module.split(".")[1] in others
    )
    assert crossings == []


def test_the_core_imports_no_family():
    core_files = [path for path in PACKAGE.glob("*.py") if path.name != "cli.py"]
    core_files += [path for package in CORE_PACKAGES for path in (PACKAGE / package).glob("*.py")]
    crossings = sorted(
        f"{path.name} imports {module}"
        for path in core_files
        for module in _imported_natcomp_modules(path)
        if module.split(".")[1] in FAMILIES
    )
    assert crossings == []


@pytest.mark.parametrize("package", FAMILIES + CORE_PACKAGES)
def test_no_sub_package_imports_the_command_line(package):
    """natcomp.cli imports every family's cli module; they take their option checkers from
    natcomp.cliargs, below them, so no import points back up (no circle)."""
    upward = sorted(
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in (PACKAGE / package).rglob("*.py")
        for module in _imported_natcomp_modules(path)
        if module == "natcomp.cli" or module.startswith("natcomp.cli.")
    )
    assert upward == []
