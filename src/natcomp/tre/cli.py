"""``natcomp tre scores`` and ``natcomp tre fit``.

``natcomp tre scores --trees FILE [--split SPLIT] --out TSV``
    Tree Impurity and Weighted Node Switching of every SST tree (``split, index, sentence,
    ti, wns``). FILE is an SST PTB file (``dev.txt``) or ``trainDevTestTrees_PTB.zip``
    with ``--split``.
``natcomp tre fit --trees FILE [--split SPLIT] --embeddings NPY --out TSV [--composition add|linear] [--steps N] ...``
    TRE of each sentence's embedding (row i of the ``.npy`` array for tree i), next to TI and
    WNS, and the Spearman correlations of TRE with WNS and TI on stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from natcomp.cliargs import float_range, int_range, seed_int
from natcomp.errors import InputError

__all__ = ["add_subcommands"]

#: the most RMSprop steps of ``tre fit`` (the paper's fits take hundreds; a million is hours)
MAX_FIT_STEPS = 1_000_000


def _split_name(args: argparse.Namespace) -> str:
    """The ``split`` the tables name: ``--split``, else the file's name without suffix (``dev.txt``: ``dev``),
    as the workflow names its splits."""
    if args.split:
        return args.split
    if args.trees.suffix == ".zip":
        raise InputError(args.trees, "is a zip of the SST release; name the split to read with --split train|dev|test")
    return args.trees.stem


def _trees(args):
    from natcomp.tre.experiment import load_trees

    return load_trees(args.trees, [_split_name(args)])


def _cmd_scores(args: argparse.Namespace) -> int:
    from natcomp.tre.experiment import score_trees
    from natcomp.tsv import write_tsv

    table = score_trees(_trees(args))
    write_tsv(args.out, table, float_format="%.4f")
    print(f"natcomp tre scores: {len(table)} trees -> {args.out}", file=sys.stderr)
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from natcomp.tre.correlation import correlate
    from natcomp.tre.experiment import fit_scores, load_embeddings
    from natcomp.tre.reconstruction import TreSettings
    from natcomp.tsv import write_tsv

    trees = _trees(args)
    embeddings = load_embeddings(args.embeddings, len(trees))
    settings = TreSettings(
        composition=args.composition,
        steps=args.steps,
        learning_rate=args.learning_rate,
        seed=args.seed,
        device=args.device,
    )
    table = fit_scores(trees, embeddings, settings)
    write_tsv(args.out, table, float_format="%.6g")
    for row in correlate(args.embeddings.stem, table["tre"], {"wns": table["wns"], "ti": table["ti"]}):
        print(
            f"Spearman(TRE, {row['score'].upper()}) = {row['spearman_rho']:.4f} (p = {row['p_value']:.4f}, n = {row['sentences']})"
        )
    return 0


def add_subcommands(subparsers) -> None:
    """Register ``natcomp tre scores|fit`` on the top-level sub-command parsers."""
    group = subparsers.add_parser(
        "tre",
        help="Tree Reconstruction Error on SST trees (Bhathena et al. 2020)",
        description="TRE (Bhathena et al. 2020, section 4): tree impurity and weighted node switching of SST "
        "trees, and the TRE of sentence embeddings over them.",
    )
    commands = group.add_subparsers(dest="tre_command", metavar="COMMAND", required=True)

    def trees_arguments(parser):
        parser.add_argument("--trees", required=True, type=Path, help="SST PTB file, or trainDevTestTrees_PTB.zip")
        parser.add_argument("--split", choices=("train", "dev", "test"), help="the split to read from the zip")
        parser.add_argument("--out", required=True, type=Path, help="output TSV")

    scores = commands.add_parser("scores", help="Tree Impurity and Weighted Node Switching of SST trees")
    trees_arguments(scores)
    scores.set_defaults(func=_cmd_scores, output_files=("out",))

    fit = commands.add_parser("fit", help="TRE of sentence embeddings over their SST trees")
    trees_arguments(fit)
    fit.add_argument("--embeddings", required=True, type=Path, help=".npy array [sentences, dim], one row per tree")
    fit.add_argument(
        "--composition", choices=("add", "linear"), default="add", help="how children compose (default %(default)s)"
    )
    # upper bounds a user could mean (issue 45): 10**29 steps ran for ever, a seed above 2**32 - 1
    # or a learning rate of 1e300 ended in a traceback
    fit.add_argument(
        "--steps",
        type=int_range(1, MAX_FIT_STEPS),
        default=400,
        help=f"RMSprop steps, from 1 to {MAX_FIT_STEPS:,} (default %(default)s)",
    )
    fit.add_argument(
        "--learning-rate",
        type=float_range(0.0, 10.0, low_open=True),
        default=0.01,
        help="RMSprop learning rate, above 0 and at most 10 (default %(default)s)",
    )
    fit.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        help="seed of the composition parameters' initialisation, from 0 to 2**32 - 1 (default %(default)s)",
    )
    fit.add_argument("--device", default="auto", help="auto (GPU when there is one), cpu or cuda")
    fit.set_defaults(func=_cmd_fit, output_files=("out",))
