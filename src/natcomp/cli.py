"""The ``natcomp`` command line.

Each family adds its commands through ``add_subcommands(subparsers)`` of its ``cli``
module; every command sets ``func(args) -> int``. Errors natcomp raises on purpose
(:class:`natcomp.errors.NatcompError`) are printed as ``natcomp: error: <message>`` and
give exit status 2; outputs are only written once everything has been computed, and
atomically, so a failing command leaves no partial files. ``natcomp --version`` prints
``natcomp <version>``.

Commands:

``natcomp score``, ``natcomp sources``, ``natcomp fragments``
    The MT tests (:mod:`natcomp.mt.cli`): score translations of test items, export the
    items' source sentences for translation, extract Double-DOP fragments.
``natcomp noncompsst | plane | pss | tre ...``
    The other families' groups (their ``cli`` modules).
``natcomp evaluate``, ``natcomp compare``
    A compositionality profile of one model, and profiles side by side (:mod:`natcomp.profile.cli`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from natcomp.errors import NatcompError

PROG = "natcomp"


# --------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Compositionality tests for NLP models on natural language (natcomp)."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for family_cli in _family_clis():
        family_cli.add_subcommands(subparsers)
    return parser


def version() -> str:
    """natcomp's version: the installed distribution's, else ``natcomp.__version__``."""
    from importlib import metadata

    try:
        return metadata.version("natcomp")
    except metadata.PackageNotFoundError:
        import natcomp

        return getattr(natcomp, "__version__", "unknown")


def _family_clis():
    """The command modules of the families: MT adds top-level commands, the others a ``natcomp <family>`` group."""
    from natcomp.mt import cli as mt_cli
    from natcomp.noncompsst import cli as noncompsst_cli
    from natcomp.plane import cli as plane_cli
    from natcomp.profile import cli as profile_cli
    from natcomp.pss import cli as pss_cli
    from natcomp.tre import cli as tre_cli

    return [mt_cli, noncompsst_cli, plane_cli, pss_cli, tre_cli, profile_cli]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except NatcompError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
