"""``natcomp plane ...``: the PLANE steps from the command line.

The lead's ``natcomp.cli`` calls :func:`add_subcommands` with its subparsers; each command
sets ``func`` (``args -> exit status``). Errors natcomp raises on purpose are reported by
the main CLI.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from natcomp.cliargs import int_range, json_object, seed_int
from natcomp.errors import InputError, OptionError


#: the most hypernym steps an option may ask for: WordNet 3.0's noun hierarchy is 20 levels
#: deep, and 10**29 steps ran for ever (issue 45)
MAX_HYPERNYM_DISTANCE = 20


def _distances(text: str) -> dict[str, int]:
    try:
        pairs = dict(part.split("=") for part in text.split(","))
        result = {k.strip(): int(v) for k, v in pairs.items()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I=3,S=3,O=1, got {text!r}") from None
    if sorted(result) != ["I", "O", "S"]:
        raise argparse.ArgumentTypeError(f"expected a distance for each of I, S, O, got {text!r}")
    if min(result.values()) < 1 or max(result.values()) > MAX_HYPERNYM_DISTANCE:
        raise argparse.ArgumentTypeError(f"expected distances from 1 to {MAX_HYPERNYM_DISTANCE}, got {text!r}")
    return result


def add_subcommands(subparsers) -> None:
    """Add ``plane`` with its sub-commands to the main CLI's subparsers."""
    plane = subparsers.add_parser(
        "plane",
        help="PLANE adjective-noun entailment (Bertolini et al. 2022)",
        description="PLANE (Bertolini, Weeds & Weir 2022): WordNet hypernyms, the resource and its items, "
        "checked splits, the released splits.",
    )
    commands = plane.add_subparsers(dest="plane_command", metavar="COMMAND", required=True)

    hyp = commands.add_parser("hypernyms", help="unigram WordNet hypernyms of nouns, nearest first")
    hyp.add_argument("nouns", nargs="+", metavar="NOUN", help="English nouns")
    hyp.add_argument(
        "--max-distance",
        type=int_range(1, MAX_HYPERNYM_DISTANCE),
        default=3,
        help=f"most hypernym steps from the noun (1 to {MAX_HYPERNYM_DISTANCE}; default 3)",
    )
    hyp.set_defaults(func=_cmd_hypernyms)

    res = commands.add_parser("resource", help="build the PLANE resource and items from AN phrases")
    res.add_argument(
        "--source",
        choices=("trees", "text", "released"),
        required=True,
        help="trees: PTB trees; text: raw English parsed with stanza; released: PLANE split files",
    )
    res.add_argument(
        "--input", nargs="+", required=True, type=Path, help="the input files of --source (trees, text or split files)"
    )
    res.add_argument(
        "--adjectives", type=Path, default=None, help="adjective<TAB>class TSV (default: the shipped list)"
    )
    res.add_argument(
        "--max-distance",
        type=_distances,
        default={"I": 3, "S": 3, "O": 1},
        help="most hypernym steps per adjective class, as I=3,S=3,O=1 (the default)",
    )
    res.add_argument("--out", type=Path, required=True, help="output folder")
    res.set_defaults(func=_cmd_resource, output_folders=("out",))

    split = commands.add_parser("split", help="make one checked GOoD / One-IT / in-distribution split")
    split.add_argument(
        "--resource", type=Path, required=True, help="resource folder written by 'natcomp plane resource'"
    )
    split.add_argument(
        "--kind", choices=("good", "one_it", "in_distribution"), required=True, help="which kind of split to make"
    )
    split.add_argument("--seed", type=seed_int, required=True, help="the seed of the random draws, from 0 to 2**32 - 1")
    split.add_argument(
        "--settings", type=json_object, default={}, help="JSON object of split settings (see docs/plane.md)"
    )
    split.add_argument("--train", type=Path, required=True, help="train items TSV to write")
    split.add_argument("--test", type=Path, required=True, help="test items TSV to write")
    split.set_defaults(func=_cmd_split, output_files=("train", "test"))

    check = commands.add_parser("check-released", help="read released splits; report label agreement and structure")
    check.add_argument("files", nargs="+", type=Path, metavar="FILE", help="released split files (.tsv or .pkl)")
    check.add_argument("--train", type=Path, help="a released train file: check it against the single test file given")
    check.set_defaults(func=_cmd_check_released)


def _cmd_hypernyms(args) -> int:
    from natcomp.plane import hypernyms

    from natcomp.plane.wordnet import hypernym_synsets, is_unigram

    for noun in args.nouns:
        words = hypernyms(noun, args.max_distance)
        print(f"{noun}\t{' '.join(words)}")
        if not words:
            within = [h.word for h in hypernym_synsets(noun, args.max_distance)]
            if not within:
                what = f"it has no hypernym within distance {args.max_distance}"
            elif not any(is_unigram(word) for word in within):
                what = (
                    f"every hypernym within distance {args.max_distance} is a multi-word lemma "
                    f"({', '.join(within)}), and PLANE keeps unigrams only"
                )
            else:
                what = f"its hypernyms within distance {args.max_distance} ({', '.join(within)}) are multi-word "
                what += "lemmas or the noun itself"
            print(f"natcomp plane hypernyms: {noun}: no hypernym listed: {what}", file=sys.stderr)
    return 0


def _cmd_resource(args) -> int:
    from natcomp.plane.adjectives import DEFAULT_ADJECTIVES
    from natcomp.plane.items import ResourceSettings
    from natcomp.plane.pipeline import build_resource

    resource, items = build_resource(
        args.out,
        args.adjectives or DEFAULT_ADJECTIVES,
        args.source,
        args.input,
        ResourceSettings(max_distance=args.max_distance),
    )
    print(
        f"{len(resource.phrases)} phrases, {resource.phrases['noun'].nunique()} nouns, {len(items)} items -> {args.out}"
    )
    return 0


def _cmd_split(args) -> int:
    from natcomp.plane import splits
    from natcomp.plane.pipeline import write_split

    try:
        settings = splits.split_settings(args.kind, args.settings)
    except ValueError as error:
        raise OptionError("--settings", str(error)) from None
    if not args.resource.is_dir():
        found = "is a file" if args.resource.exists() else "not found"
        raise InputError(args.resource, f"{found}; expected a resource folder written by 'natcomp plane resource'")
    n_train, n_test = write_split(args.resource, args.kind, args.seed, settings, args.train, args.test)
    print(f"{args.kind} split {args.seed}: {n_train} train, {n_test} test items")
    return 0


def _cmd_check_released(args) -> int:
    """Check every file (and the pair with ``--train``) before printing a line, so a bad file
    stops the command with its one error line and nothing on stdout (issue 45)."""
    from natcomp.plane.released import label_disagreements

    if args.train and len(args.files) != 1:
        raise OptionError("--train", f"expected exactly one test file beside it, not {len(args.files)}")
    lines = []
    for path in args.files:
        items, draws = _checked_released(path)
        agree = len(items) - len(label_disagreements(items))
        lines.append(f"{path}\t{items.attrs['layout']}\t{len(items)} rows\t{agree} agree with Table 1\t{draws} draws")
    if args.train:
        # The pair as published: duplicate rows kept on both sides, as the workflow checks it.
        from natcomp.plane.pipeline import check_released_pair

        train, _ = _checked_released(args.train)  # a broken draw of the train file names it
        check_released_pair(0, train.attrs["layout"], args.files[0], args.train)
        lines.append(f"{args.train} / {args.files[0]}: disjoint and balanced")
    print("\n".join(lines))
    return 0


def _checked_released(path: Path):
    """A released file's items and its number of draws; a broken draw names the file and the line."""
    from natcomp.plane.released import read_released
    from natcomp.plane.splits import SplitLeak, check_blocks

    items = read_released(path)
    try:
        draws = check_blocks(items, items.attrs["layout"])
    except SplitLeak as leak:
        # the file and the line where the unit starts (a TSV's header is line 1; a pickle has no lines)
        line = leak.row + 2 if leak.row is not None and path.suffix == ".tsv" else None
        raise InputError(path, str(leak), line) from None
    return items, draws
