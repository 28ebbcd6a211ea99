"""The ``natcomp`` command line.

One subcommand per function ``_cmd_<name>(args) -> int``, registered in :func:`build_parser`
by a matching ``_add_<name>(subparsers)``. Errors natcomp raises on purpose
(:class:`natcomp.errors.NatcompError`) are printed as ``natcomp: error: <message>`` and
give exit status 2; outputs are only written once everything has been computed, and
atomically, so a failing command leaves no partial files.

Subcommands:

``natcomp score``
    Score the translations of one test's items (see :mod:`natcomp.mt.scoring`) and write a
    per-item labels TSV and a per-group summary TSV.

``natcomp fragments``
    The recurring Double-DOP fragments of a treebank with their exact counts (see
    :mod:`natcomp.mt.semi_natural.fragments`), built in or with disco-dop, as ``fragment<TAB>count`` lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from natcomp.errors import InputError, NatcompError

PROG = "natcomp"


# --------------------------------------------------------------------------------------
# natcomp score


def _add_score(subparsers) -> None:
    from natcomp.mt.scoring import TESTS

    parser = subparsers.add_parser(
        "score",
        help="score translations of compositionality test items",
        description=(
            "Label every item of a test (np_vp, s_conj: consistency; substitutivity: consistency and "
            "synonym consistency; overgeneralisation: literal keyword present) and summarise per template "
            "and condition/pair/idiom. Labels are written as 1/0, empty when an item is not scored."
        ),
    )
    parser.add_argument("--test", required=True, choices=TESTS, help="which test the items belong to")
    parser.add_argument("--items", required=True, type=Path, metavar="ITEMS.tsv", help="items TSV of the test")
    parser.add_argument(
        "--translations",
        required=True,
        type=Path,
        metavar="TRANSLATIONS",
        help="TSV with the columns source, translation (default format), or one translation per line "
        "(--translations-format lines)",
    )
    parser.add_argument(
        "--translations-format",
        choices=("tsv", "lines"),
        default="tsv",
        help="'lines': one translation per line, aligned with the unique source sentences of the items file "
        "in first-seen order (source_a then source_b of each row, or source)",
    )
    parser.add_argument("--labels", required=True, type=Path, metavar="OUT_LABELS.tsv", help="per-item labels")
    parser.add_argument("--summary", required=True, type=Path, metavar="OUT_SUMMARY.tsv", help="per-group scores")
    parser.add_argument(
        "--synonyms", type=Path, help="synonym pairs (substitutivity; default: the synonyms.tsv shipped with natcomp)"
    )
    parser.add_argument(
        "--idioms", type=Path, help="idioms (overgeneralisation; default: the idioms.tsv shipped with natcomp)"
    )
    parser.add_argument(
        "--substring-keywords",
        action="store_true",
        help="overgeneralisation: match keywords as substrings like the original code (default: whole tokens)",
    )
    parser.add_argument(
        "--paraphrase-references-only",
        action="store_true",
        help="overgeneralisation: score only items whose reference contains no keyword (original natural-data "
        "filter); every item then needs a reference",
    )
    parser.set_defaults(func=_cmd_score)


def _cmd_score(args: argparse.Namespace) -> int:
    from natcomp.mt import scoring
    from natcomp.mt.lexicon import load_idioms, load_synonyms
    from natcomp.shipped import resource_path

    if args.labels.resolve() == args.summary.resolve():
        raise NatcompError("--labels and --summary must be different files")
    synonyms = idioms = None
    entries = None
    if args.test == "substitutivity":
        synonyms = load_synonyms(args.synonyms or resource_path("synonyms.tsv"))
        entries = {pair.name for pair in synonyms}
    elif args.test == "overgeneralisation":
        idioms = load_idioms(args.idioms or resource_path("idioms.tsv"))
        entries = {idiom.idiom for idiom in idioms}
    if (args.substring_keywords or args.paraphrase_references_only) and args.test != "overgeneralisation":
        raise NatcompError(
            "--substring-keywords and --paraphrase-references-only apply to --test overgeneralisation only"
        )

    items = scoring.read_items(args.items, args.test, entries)
    if args.paraphrase_references_only:
        for line, reference in zip(items.attrs["lines"], items["reference"]):
            if not str(reference).strip():
                raise InputError(args.items, "empty reference; --paraphrase-references-only needs one per item", line)
    sources = scoring.unique_sources(items, args.test)
    translations = scoring.read_translations(args.translations, sources, args.translations_format)

    labels = scoring.score_items(
        items,
        translations,
        args.test,
        synonyms=synonyms,
        idioms=idioms,
        substring_keywords=args.substring_keywords,
        paraphrase_references_only=args.paraphrase_references_only,
    )
    summary = scoring.summarise(labels, scoring.GROUP_COLUMNS[args.test], scoring.LABEL_METRICS[args.test])
    scoring.write_labels(labels, args.labels)
    scoring.write_summary(summary, args.summary)
    return 0


# --------------------------------------------------------------------------------------
# natcomp fragments


def _add_fragments(subparsers) -> None:
    parser = subparsers.add_parser(
        "fragments",
        help="extract the recurring tree fragments of a treebank (Double-DOP)",
        description=(
            "Extract the maximal tree fragments shared by pairs of distinct trees of a treebank "
            "(one bracketed tree per line) and count their exact occurrences. Output: one "
            "'fragment<TAB>count' line per fragment, by count descending, frontier non-terminals written "
            "'(NP )' (the format of 'discodop fragments --fmt=bracket')."
        ),
    )
    parser.add_argument("treebank", type=Path, metavar="TREEBANK", help="bracketed trees, one per line")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help="write here (atomically); default: stdout")
    parser.add_argument(
        "--backend",
        choices=("builtin", "discodop", "auto"),
        default="builtin",
        help="builtin: natcomp's own extraction (default); discodop: run 'discodop fragments' (must be on "
        "PATH); auto: discodop when available, else builtin",
    )
    parser.add_argument(
        "--threads", type=int, default=1, metavar="N", help="processes for disco-dop (0: all CPUs; default 1)"
    )
    parser.set_defaults(func=_cmd_fragments)


def _cmd_fragments(args: argparse.Namespace) -> int:
    import time

    from natcomp.mt.semi_natural import fragments as frag
    from natcomp.trees import read_trees

    if args.threads < 0:
        raise NatcompError(f"--threads must be >= 0, not {args.threads}")
    backend = args.backend
    if backend == "auto":
        backend = "discodop" if frag.discodop_available() else "builtin"
    elif backend == "discodop" and not frag.discodop_available():
        raise NatcompError(
            "--backend discodop: the 'discodop' command is not on PATH (install disco-dop from its git "
            "source); use --backend builtin or auto"
        )
    start = time.perf_counter()
    if backend == "discodop":
        fragments = frag.discodop_fragments(args.treebank, None, args.threads)
        n_trees = None
    else:
        trees = read_trees(args.treebank)
        if not trees:
            raise InputError(args.treebank, "no trees")
        n_trees = len(trees)
        fragments = frag.extract_fragments(trees)
    if args.output is None:
        out = sys.stdout
        for line in frag.format_fragments(fragments):
            out.write(line + "\n")
        out.flush()
    else:
        frag.write_fragments(fragments, args.output)
    trees_note = "" if n_trees is None else f"{n_trees} trees, "
    print(
        f"{PROG} fragments: {trees_note}{len(fragments)} fragments ({backend}, {time.perf_counter() - start:.1f} s)",
        file=sys.stderr,
    )
    return 0


# --------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Compositionality tests for NLP models on natural language (natcomp)."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_score(subparsers)
    _add_fragments(subparsers)
    for family_cli in _family_clis():
        family_cli.add_subcommands(subparsers)
    return parser


def _family_clis():
    """The command modules of the families: each adds a ``natcomp <family>`` group."""
    from natcomp.noncompsst import cli as noncompsst_cli
    from natcomp.plane import cli as plane_cli
    from natcomp.pss import cli as pss_cli
    from natcomp.tre import cli as tre_cli

    return [noncompsst_cli, plane_cli, pss_cli, tre_cli]


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
