"""The ``natcomp`` command line: ``natcomp <family> <command>``.

Each family adds its group through ``add_subcommands(subparsers)`` of its ``cli`` module;
every command sets ``func(args) -> int`` and names its outputs in ``output_files`` /
``output_folders`` (argument names), which are checked before the command runs (a folder
is no file to write, an existing file no folder). One mechanism, in :func:`main`, reports every
bad input: an error natcomp raises on purpose (:class:`natcomp.errors.NatcompError`) or an
operating-system error on a named path (a folder given as a file, a missing file, an
existing file where a folder is written...) is printed as the one line ``natcomp: error:
<path>[, line N]: <what was expected>`` with exit status 2, never a traceback
(:func:`natcomp.errors.one_line`). A command line argparse refuses (an unknown option,
an invalid choice, a value an option's checker refuses) is the same one line, naming the
option (``natcomp: error: --beam: expected an integer at least 1, not 0``), not argparse's
usage and error (:class:`natcomp.cliargs.ArgumentParser`). Every numeric option is checked by
one of the shared ``type=`` checkers of :mod:`natcomp.cliargs` (``int_range``, ``float_range``,
``json_object``), which the families import from there, not from here (this module imports
theirs), so a bad value stops the command before it reads or writes a byte. Outputs are only
written once everything has been computed, and atomically, so a failing command leaves no
partial files. ``natcomp --version`` prints ``natcomp <version>``.

Groups: ``natcomp mt`` (score, sources, fragments, evaluate), ``natcomp noncompsst``,
``natcomp plane``, ``natcomp pss``, ``natcomp tre``. The MT commands that sat at the top
level (``natcomp score``, ``sources``, ``fragments``) still work until natcomp 0.2, with a
one-line notice on stderr.

Top-level commands beside the groups: ``natcomp evaluate`` (a compositionality profile of
one model across every family it fits) and ``natcomp compare`` (profiles side by side),
from :mod:`natcomp.profile.cli`.

Start-up stays fast: building the parser imports no model library (torch, transformers,
fairseq) and no pandas; each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from natcomp.cliargs import ArgumentParser
from natcomp.errors import InputError, OptionError, one_line

PROG = "natcomp"

#: the old top-level spellings of the MT commands -> their group (kept until natcomp 0.2)
MOVED_COMMANDS = {"score": "mt", "sources": "mt", "fragments": "mt"}


# --------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=PROG, description="Compositionality tests for NLP models on natural language (natcomp)."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}", help="print the version")
    subparsers = parser.add_subparsers(dest="command", metavar="FAMILY", required=True)
    for family_cli in _family_clis():
        family_cli.add_subcommands(subparsers)
    _wire_target_languages(subparsers)
    _describe_commands(parser)
    return parser


def _wire_target_languages(subparsers) -> None:
    """``natcomp evaluate --target-lang`` takes the MT family's languages from natcomp.mt (the
    core package natcomp.profile imports no family; this module imports them all)."""
    from natcomp.mt.cli import target_language_hooks

    subparsers.choices["evaluate"].set_defaults(target_language_hooks=target_language_hooks)
    _wire_served_estimates(subparsers)


def _wire_served_estimates(subparsers) -> None:
    """``natcomp evaluate --api-base``: the plan counts each family's requests with the
    family's own estimate (the core package natcomp.profile imports no family)."""

    def mt(config, system, resources):
        from natcomp.mt.served_translation import planned_requests

        return planned_requests(config, system, resources)

    def plane(config):
        from natcomp.plane.served_prompting import planned_requests

        return planned_requests(config)

    subparsers.choices["evaluate"].set_defaults(served_request_estimates={"mt": mt, "plane": plane})


def _describe_commands(parser: argparse.ArgumentParser) -> None:
    """Give every command without a description its help line as the description of its own --help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if not sub.description and helps.get(name):
                    sub.description = helps[name][0].upper() + helps[name][1:] + "."
                _describe_commands(sub)


def version() -> str:
    """natcomp's version: the installed distribution's, else ``natcomp.__version__``."""
    from importlib import metadata

    try:
        return metadata.version("natcomp")
    except metadata.PackageNotFoundError:
        import natcomp

        return getattr(natcomp, "__version__", "unknown")


def _family_clis():
    """The command modules of the families; each adds a ``natcomp <family>`` group."""
    from natcomp.mt import cli as mt_cli
    from natcomp.noncompsst import cli as noncompsst_cli
    from natcomp.plane import cli as plane_cli
    from natcomp.profile import cli as profile_cli
    from natcomp.pss import cli as pss_cli
    from natcomp.tre import cli as tre_cli

    return [mt_cli, noncompsst_cli, plane_cli, pss_cli, tre_cli, profile_cli]


def _new_spelling(argv: list[str]) -> list[str]:
    """``argv`` with an old top-level MT command moved into its group, after a notice on stderr."""
    position = next((i for i, arg in enumerate(argv) if not arg.startswith("-")), None)
    if position is None or argv[position] not in MOVED_COMMANDS:
        return argv
    command = argv[position]
    group = MOVED_COMMANDS[command]
    print(
        f"{PROG}: '{PROG} {command}' is now '{PROG} {group} {command}'; the old name goes after natcomp 0.2",
        file=sys.stderr,
    )
    return [*argv[:position], group, *argv[position:]]


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse the outputs a command names (``output_files``, ``output_folders``) before it
    reads a byte: a folder as a file, an existing file as a folder, a folder that cannot be
    written, two outputs on one path, and an output that is also one of the command's inputs
    (any other path argument), which writing would overwrite before or while it is read."""
    from natcomp.files import check_output_file, check_output_folder

    outputs: dict[Path, str] = {}
    output_dests = {*getattr(args, "output_files", ()), *getattr(args, "output_folders", ())}
    for dests, check in (
        (getattr(args, "output_files", ()), check_output_file),
        (getattr(args, "output_folders", ()), check_output_folder),
    ):
        for dest in dests:
            path = getattr(args, dest)
            if path is None:
                continue
            check(path)
            option = _option_name(dest)
            same = outputs.setdefault(Path(path).resolve(), option)
            if same != option:
                raise OptionError(option, f"{path} is also the output of {same}; expected a path of its own")
    for dest, value in vars(args).items():
        if dest in output_dests:
            continue
        for item in _paths(value):
            if item.resolve() in outputs:
                raise InputError(
                    item, f"is an input and the output of {outputs[item.resolve()]}; expected another output path"
                )


def _paths(value):
    """The :class:`Path` values in an argument's value: a path, or a list of paths or of lists
    (``pss score --pairs FILE LABEL``, repeatable)."""
    if isinstance(value, Path):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _paths(item)


def _option_name(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or usage)."""
    argv = _new_spelling(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        _check_outputs(args)
        return args.func(args)
    except Exception as error:  # only the errors one_line knows are reported; others are re-raised
        line = one_line(error)
        if line is None:
            raise
        print(f"{PROG}: error: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
