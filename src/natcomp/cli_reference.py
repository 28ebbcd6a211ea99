"""natcomp's command-line reference, generated from its own parser (docs/reference/cli.md).

Every command with its description, its sub-commands and every option with its argument,
default and help text, as ``natcomp ... --help`` gives them, so the page cannot say what the
code does not do: ``tests/test_cli_reference.py`` fails when the page and the parser differ.
Rewrite the page with ``python -m natcomp.cli_reference``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

#: where the page lives, from the repository root
PAGE = Path("docs") / "reference" / "cli.md"


def sub_commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """``(name, one-line help, parser)`` of each sub-command of ``parser``, in their order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command path, parser)`` of the whole tree, the root first, depth first."""
    yield path, parser
    for name, _, sub in sub_commands(parser):
        yield from walk(sub, (*path, name))


def _cell(text: str) -> str:
    """Text for one table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}` (positional)"
        if action.nargs == 0:
            argument = ""
        else:
            metavar = formatter._format_args(action, formatter._get_default_metavar_for_optional(action))
            argument = f"`{metavar}`" if action.option_strings else ""
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
        help_text = formatter._expand_help(action) if action.help else ""
        rows.append(f"| {names} | {_cell(argument)} | {_cell(shown)} | {_cell(help_text)} |")
    return rows


def render(parser: argparse.ArgumentParser) -> str:
    """The reference page of ``parser`` (natcomp's: :func:`natcomp.cli.build_parser`)."""
    prog = parser.prog
    lines = [
        "# Command-line reference",
        "",
        f"Every `{prog}` command and option, generated from {prog}'s own parser (`python -m",
        "natcomp.cli_reference` rewrites this page; a test fails when it and the parser differ).",
        f"`{prog} COMMAND --help` prints the same. How to use them: [the how-to pages](../howto/).",
    ]
    for path, sub in walk(parser):
        name = " ".join((prog, *path))
        lines += ["", f"{'#' * min(2 + len(path), 4)} `{name}`", ""]
        if sub.description:
            lines += [_cell(sub.description), ""]
        commands = list(sub_commands(sub))
        if commands:
            lines += ["| command | what it does |", "|---|---|"]
            lines += [f"| `{name} {command}` | {_cell(help_text)} |" for command, help_text, _ in commands]
        options = _option_rows(sub)
        if options:
            if commands:
                lines.append("")
            lines += ["| option | argument | default | what it does |", "|---|---|---|---|"] + options
        if lines[-1] == "":
            lines.pop()
    return "\n".join(lines) + "\n"


def main() -> None:
    from natcomp.cli import build_parser
    from natcomp.files import atomic_open

    page = Path(__file__).resolve().parents[2] / PAGE
    page.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(page) as handle:
        handle.write(render(build_parser()))
    print(f"wrote {page}")


if __name__ == "__main__":
    main()
