"""The how-to pages (docs/howto/) can be followed as written: each fits one screen and says
its cost and status; every ``natcomp`` command in their code blocks parses with natcomp's
own parser (real subcommands and options), every ``snakemake`` command names real files
and real config keys, every ``make`` target exists, and every dotted config key the pages
name in backticks is in the schema. Nothing runs: the checks are cheap."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from natcomp.cli import build_parser
from natcomp.cliargs import UsageError

REPO = Path(__file__).resolve().parents[1]
HOWTO = REPO / "docs" / "howto"
PAGES = sorted(HOWTO.glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")
#: lines a page may have: one screen of text
SCREEN_LINES = 50


def commands(page: Path) -> list[list[str]]:
    """The shell commands of a page's bash blocks, continuation lines joined, comments and
    environment assignments (``X=1 cmd``) dropped, each split like the shell splits it."""
    found = []
    for language, block in FENCE.findall(page.read_text(encoding="utf-8")):
        if language not in ("bash", "sh", ""):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            for part in re.split(r"&&|;", line):
                words = shlex.split(part, comments=True)
                while words and re.match(r"^[A-Z_]+=", words[0]):
                    words = words[1:]
                if words:
                    found.append(words)
    return found


def _schema(name: str) -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text(encoding="utf-8"))


def _children(node: dict, root: dict) -> list[dict]:
    """A schema node with its $ref followed and its alternatives (oneOf, anyOf, allOf) spread."""
    if "$ref" in node:
        target = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return _children(target, root)
    nodes = [node]
    for key in ("oneOf", "anyOf", "allOf"):
        for alternative in node.get(key, []):
            nodes += _children(alternative, root)
    return nodes


def config_key_exists(dotted: str) -> bool:
    """Whether ``a.b.c`` is a key of natcomp's config schema (a family's section in its own
    file); a mapping of free names (``additionalProperties`` a schema) takes any name."""
    first, *rest = dotted.split(".")
    if first in FAMILIES:
        root = _schema(f"schema/{first}.yaml")
        nodes = [root]
    else:
        root = _schema("schema.yaml")
        nodes = [root]
        rest = [first, *rest]
    for key in rest:
        following = []
        for node in (child for node in nodes for child in _children(node, root)):
            if key in node.get("properties", {}):
                following.append(node["properties"][key])
            elif isinstance(node.get("additionalProperties"), dict):
                following.append(node["additionalProperties"])
        if not following:
            return False
        nodes = following
    return True


def config_keys(value: object, prefix: str = "") -> list[str]:
    """The dotted keys of a ``--config`` mapping, down to its leaves."""
    if not isinstance(value, dict):
        return [prefix]
    return [key for name, child in value.items() for key in config_keys(child, f"{prefix}{name}.")] or [prefix]


def make_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", text, re.M))


def check_command(words: list[str]) -> list[str]:
    """What is wrong with one command of a how-to page ([] when nothing)."""
    program, arguments = words[0], words[1:]
    if program == "natcomp":
        natcomp_arguments = arguments[: arguments.index("--")] if "--" in arguments else arguments
        try:
            build_parser().parse_args(natcomp_arguments)
        except (SystemExit, UsageError):
            return [f"natcomp's parser refuses: {shlex.join(words)}"]
        return []
    if program == "make":
        unknown = [word for word in arguments if "=" not in word and word not in make_targets()]
        return [f"no make target {word}" for word in unknown]
    if program == "snakemake":
        problems = []
        for option, value in zip(arguments, arguments[1:]):
            if option == "--configfile" and not (REPO / value).is_file():
                problems.append(f"no config file {value}")
            if option == "--profile" and not (REPO / value).exists():
                problems.append(f"no profile {value}")
            if option == "--config":
                name, _, text = value.partition("=")
                for key in config_keys({name: yaml.safe_load(text)}):
                    if not config_key_exists(key.rstrip(".")):
                        problems.append(f"--config {key.rstrip('.')}: no such config key")
        return problems
    return []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_a_howto_page_fits_one_screen_and_says_its_cost_and_status(page):
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= SCREEN_LINES, f"{page.name}: {len(text.splitlines())} lines"
    head = "\n".join(text.splitlines()[:8])
    assert "**Cost:**" in head and ("**Status:**" in head or "**Status: " in head), page.name


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_a_howto_pages_commands_name_real_subcommands_options_files_and_config_keys(page):
    found = commands(page)
    assert found, f"{page.name} has no command to copy"
    problems = [problem for words in found for problem in check_command(words)]
    assert not problems, f"{page.name}: " + "; ".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_config_keys_a_howto_page_names_are_in_the_schema(page):
    prose = FENCE.sub("", page.read_text(encoding="utf-8"))
    named = [key for key in re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`", prose) if key.split(".")[0] in (*FAMILIES, "gpus")]
    missing = [key for key in named if not config_key_exists(key)]
    assert not missing, f"{page.name}: no such config keys: {missing}"


def test_the_readme_links_every_howto_page_in_its_first_screen():
    first_screen = "\n".join((REPO / "README.md").read_text(encoding="utf-8").splitlines()[:40])
    missing = [page.name for page in PAGES if f"docs/howto/{page.name}" not in first_screen]
    assert not missing, f"README.md's first screen does not link {missing}"


def test_the_checks_catch_what_they_are_for():
    assert check_command(["natcomp", "evaluate", "--model", "m", "--no-such-option"])
    assert check_command(["natcomp", "no-such-command"])
    assert not check_command(["natcomp", "evaluate", "--model", "m", "-n", "--", "--profile", "slurm"])
    assert check_command(["make", "no-such-target"]) == ["no make target no-such-target"]
    assert not check_command(["make", "test", "CORES=8"])
    assert check_command(["snakemake", "--configfile", "config/none.yaml"]) == ["no config file config/none.yaml"]
    assert check_command(["snakemake", "--config", "mt={target_language: de}"]) == [
        "--config mt.target_language: no such config key"
    ]
    assert not check_command(["snakemake", "--config", "mt={target_lang: de}"])
    assert config_key_exists("gpus.memory_gb") and config_key_exists("mt.systems.any-name.model")
    assert not config_key_exists("gpus.memory") and not config_key_exists("noncompsst.candidates.nerr")
