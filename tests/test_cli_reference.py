"""docs/reference/cli.md is natcomp's parser, rendered (natcomp.cli_reference): it cannot drift."""

import argparse
from pathlib import Path

from natcomp import cli
from natcomp.cli_reference import PAGE, render

REPO = Path(__file__).resolve().parents[1]


def test_the_command_line_reference_is_the_parsers():
    page = (REPO / PAGE).read_text(encoding="utf-8")
    assert page == render(cli.build_parser()), (
        f"{PAGE} differs from natcomp's parser: rewrite it with `python -m natcomp.cli_reference`"
    )


def test_the_reference_names_every_command_and_option():
    page = render(cli.build_parser())
    assert "#### `natcomp mt evaluate`" in page and "### `natcomp compare`" in page
    assert "| `--model` |" in page and "| `--api-base` |" in page and "| `--target-lang` |" in page


def test_a_new_option_changes_the_page_and_its_help_and_default_are_shown():
    parser = argparse.ArgumentParser(prog="tool", description="A tool.")
    commands = parser.add_subparsers(dest="command")
    run = commands.add_parser("run", help="run it", description="Run it | fast.")
    run.add_argument("--cores", type=int, default=2, metavar="N", help="cores to use (default %(default)s)")
    before = render(parser)
    run.add_argument("--dry-run", action="store_true", help="plan only")
    after = render(parser)
    assert before != after
    assert "| `--cores` | `N` | `2` | cores to use (default 2) |" in after
    assert "| `--dry-run` |  |  | plan only |" in after
    assert "| `tool run` | run it |" in after and "Run it \\| fast." in after
