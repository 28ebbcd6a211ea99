"""``natcomp pss clean`` and ``natcomp pss score``: PSS for any polarity-switching system and classifier.

``natcomp pss clean --pairs FILE --out FILE``
    Appendix B's cleaning of pairs in the ``original<TAB>rewrite`` layout; the kept pairs are
    written in the same layout, the counts per rule go to stderr.
``natcomp pss score --pairs FILE LABEL [--pairs FILE LABEL ...] --predictions TSV [--accuracy PCT] [--out TSV]``
    PSS of a system's sentence predictions (TSV ``sentence<TAB>prediction``, 0/1) on pair
    files whose originals have label LABEL (``reference.0``: 0, ``reference.1``: 1). Pairs
    are scored as given: clean them first. With ``--accuracy`` (the system's test accuracy
    in percent) the relative PSS is reported too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from natcomp.cliargs import float_range
from natcomp.errors import InputError

__all__ = ["add_subcommands"]


_percent = float_range(0.0, 100.0, low_open=True)


def accuracy_percent(text: str) -> float:
    """An argparse ``type=`` for a test accuracy in percent. A value of at most 1 is refused
    as a fraction given for a percent (0.8 for 80): a binary sentiment classifier's accuracy
    is above chance (50), never 1 % or less, and read as a percent it would make the relative
    PSS a hundred times too large (issue 45: 0.8 gave "relative PSS 12500")."""
    value = _percent(text)
    if value <= 1:
        raise argparse.ArgumentTypeError(
            f"expected a percent above 1 and at most 100 (80 for 80 %), not {text}: that looks like a fraction"
        )
    return value


def _cmd_clean(args: argparse.Namespace) -> int:
    from natcomp.pss.pairs import clean_pairs, read_pairs, write_pairs

    result = clean_pairs(read_pairs(args.pairs))
    write_pairs(args.out, result.kept)
    counts = result.counts
    removed = ", ".join(f"{rule}: {counts[rule]} removed" for rule in ("identical", "deletion_only"))
    print(
        f"natcomp pss clean: {args.pairs}: {counts['total']} pairs; {removed}; {counts['kept']} kept", file=sys.stderr
    )
    return 0


def _label(path: Path, text: str) -> int:
    if text not in ("0", "1"):
        raise InputError(path, f"label {text!r} given for its originals; expected 0 (negative) or 1 (positive)")
    return int(text)


class _AppendPairsFile(argparse._AppendAction):
    """``--pairs FILE LABEL``, repeatable: FILE as a :class:`Path`, so the command line's output
    checks see it as an input (``--out`` on a pair file would overwrite it, issue 45)."""

    def __call__(self, parser, namespace, values, option_string=None):
        path, label = values
        super().__call__(parser, namespace, [Path(path), label], option_string)


def _cmd_score(args: argparse.Namespace) -> int:
    from natcomp.pss.pairs import read_pairs
    from natcomp.pss.scoring import LabelledPairs, read_predictions, relative_pss, score_pairs
    from natcomp.tsv import write_tsv

    groups = [LabelledPairs(read_pairs(path), _label(path, label)) for path, label in args.pairs]
    score = score_pairs(groups, read_predictions(args.predictions), source=str(args.predictions))
    row = {
        "pairs": score.pairs,
        "originals_right": score.originals_right,
        "rewrites_right": score.rewrites_right,
        "both_right": score.both_right,
        "pss": score.pss,
        "accuracy": args.accuracy,
        "relative_pss": None if args.accuracy is None else relative_pss(score.pss, args.accuracy),
    }
    if args.out:
        write_tsv(args.out, [row], float_format="%.4f")
    relative = "" if row["relative_pss"] is None else f", relative PSS {row['relative_pss']:.4f}"
    print(f"PSS {score.pss:.4f} over {score.pairs} pairs{relative}")
    return 0


def add_subcommands(subparsers) -> None:
    """Register ``natcomp pss clean|score`` on the top-level sub-command parsers."""
    group = subparsers.add_parser(
        "pss",
        help="Polarity Sensitivity Scoring (Bhathena et al. 2020)",
        description="PSS (Bhathena et al. 2020, section 3): clean polarity-switched pairs and score a "
        "system's predictions on them.",
    )
    commands = group.add_subparsers(dest="pss_command", metavar="COMMAND", required=True)

    clean = commands.add_parser(
        "clean",
        help="clean polarity-switched pairs (appendix B)",
        description="Drop rewrites identical to their original and rewrites that add no word; "
        "write the kept pairs (original<TAB>rewrite) and print the counts per rule on stderr.",
    )
    clean.add_argument("--pairs", required=True, type=Path, help="pairs, one per line: original<TAB>rewrite")
    clean.add_argument("--out", required=True, type=Path, help="the kept pairs, same layout")
    clean.set_defaults(func=_cmd_clean, output_files=("out",))

    score = commands.add_parser(
        "score",
        help="PSS of a system's predictions on polarity-switched pairs",
        description="Share of pairs (percent) where the system labels both the original and its rewrite right.",
    )
    score.add_argument(
        "--pairs",
        required=True,
        nargs=2,
        action=_AppendPairsFile,
        metavar=("FILE", "LABEL"),
        help="a pair file and the label of its originals (0 negative, 1 positive); repeatable",
    )
    score.add_argument(
        "--predictions", required=True, type=Path, help="TSV with a header: sentence<TAB>prediction (0/1)"
    )
    score.add_argument(
        "--accuracy",
        type=accuracy_percent,
        help="the system's test accuracy in percent, above 1 and at most 100 (for relative PSS)",
    )
    score.add_argument("--out", type=Path, help="write the scores as a one-row TSV")
    score.set_defaults(func=_cmd_score, output_files=("out",))
