"""``natcomp noncompsst candidates | ratings | evaluate``.

``candidates TREES... --out FILE``
    SST phrase candidates (appendix A) of PTB tree files (``train.txt``...) or of
    ``trainDevTestTrees_PTB.zip`` (a zip by its content, whatever its name); columns ``phrase, left, right, left_type, right_type,
    sentiment, source``. ``--no-parser`` / ``--no-ner`` switch stanza's filters off
    (``--phrase-types`` / ``--entities`` replace them by tables); ``--raw-scores`` (with
    ``--sst``) switches the spread filter on; ``--sst`` (stanfordSentimentTreebank.zip or
    a folder with dictionary.txt and sentiment_labels.txt) gives the SST values.
``ratings --stimuli STUDY2.tsv --sentiment SENT.tsv [--ungrammatical FILE] --out FILE``
    ALL, ALLABS, MAX, MAXABS, ALLCLEAN as ``phrase, variant, side, rating``.
``evaluate --predictions P.tsv --human RATINGS.tsv --stimuli STUDY2.tsv``
    Pearson r per variant and F1 of a system's stimulus predictions.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import zipfile
from pathlib import Path

from natcomp.cliargs import float_range, int_range
from natcomp.errors import InputError, NatcompError, OptionError

# upper bounds a user could mean (issue 45): no SST sentence has 200 tokens, no study 10**6 phrases
MAX_PHRASE_TOKENS = 200
MAX_TOP_K = 10**6

__all__ = ["add_subcommands"]

#: the paper's top k of the F1 on the phrases with the highest human MAXABS (section 5)
DEFAULT_TOP_K = 67


class _StderrHandler(logging.StreamHandler):
    """Logs to whatever ``sys.stderr`` is when a record is written (not the stream of the first command run)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def _setup_logging(verbose: bool) -> logging.Logger:
    logger = logging.getLogger("natcomp")
    if not logger.handlers:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.WARNING)
    return logger


def _candidates(args: argparse.Namespace) -> int:
    from natcomp.files import read_text
    from natcomp.noncompsst import candidates
    from natcomp.noncompsst.pipeline import raw_lookup, value_lookup
    from natcomp.sst import PTB_MEMBERS, read_ptb_trees
    from natcomp.tsv import read_tsv, write_tsv

    logger = _setup_logging(not args.quiet)
    if args.raw_scores and not args.sst:
        raise NatcompError("--raw-scores needs --sst (dictionary.txt maps phrases to the ids of the raw scores)")
    if args.max_tokens < args.min_tokens:
        raise OptionError(
            "--max-tokens", f"expected at least --min-tokens ({args.min_tokens}), not {args.max_tokens}: no phrase fits"
        )
    settings = candidates.CandidateSettings(
        args.min_tokens,
        args.max_tokens,
        ner=not args.no_ner,
        parser=not args.no_parser,
        max_raw_sd=args.max_raw_sd if args.raw_scores else None,
    )
    analyser = None
    if (settings.parser and not args.phrase_types) or (settings.ner and not args.entities):
        analyser = candidates.StanzaAnalyser(
            args.stanza_dir, parser=settings.parser and not args.phrase_types, ner=settings.ner and not args.entities
        )
    # stanza's models are checked above, before the trees are read
    trees = {}
    for path in args.trees:
        # a zip by its content: the workflow's own download (results/downloads/tre/sst_ptb) has no suffix
        if path.is_file() and zipfile.is_zipfile(path):
            for split in PTB_MEMBERS:
                trees[f"{split}"] = read_ptb_trees(path, split)
        else:
            trees[path.stem] = read_ptb_trees(path)
            if not trees[path.stem]:
                raise InputError(path, "no tree found; expected one labelled SST tree per line")
    types = None
    if args.phrase_types:
        table = read_tsv(args.phrase_types, ("phrase", "type"))
        types = dict(zip(table["phrase"], table["type"]))
    names = [line.strip() for line in read_text(args.entities).splitlines() if line.strip()] if args.entities else []
    # every input read before the first information line: a command that fails prints only its error
    values = value_lookup(args.sst) if args.sst else None
    raw_scores = raw_lookup(args.sst, args.raw_scores) if args.raw_scores else None
    if not args.raw_scores:
        logger.info("no --raw-scores: the spread filter is off")
    table, counts = candidates.select_candidates(
        trees,
        settings,
        values=values,
        raw_scores=raw_scores,
        analyser=analyser,
        phrase_types=types,
        entities=names,
        logger=logger,
    )
    write_tsv(args.out, table, candidates.CANDIDATE_COLUMNS, float_format="%.5g")
    print(f"{len(table)} candidates written to {args.out}")
    return 0


def _ratings(args: argparse.Namespace) -> int:
    from natcomp.noncompsst.pipeline import run_ratings

    _setup_logging(not args.quiet)
    table = run_ratings(args.stimuli, args.sentiment, args.out, ungrammatical_path=args.ungrammatical)
    print(f"{len(table)} ratings written to {args.out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from natcomp.noncompsst import ratings
    from natcomp.noncompsst.evaluation import evaluate, read_predictions
    from natcomp.noncompsst.stimuli import read_stimuli
    from natcomp.tsv import write_tsv

    _setup_logging(not args.quiet)
    phrases = read_stimuli(args.stimuli)
    if args.top_k is None:  # the paper's 67 (fewer phrases: all of them, as the workflow's top_k)
        args.top_k = DEFAULT_TOP_K
    elif args.top_k > len(phrases):
        raise OptionError(
            "--top-k", f"expected at most {len(phrases)}, the number of phrases in {args.stimuli}, not {args.top_k}"
        )
    human = ratings.read_ratings(args.human)
    sentiment = ratings.read_sentiment(args.sentiment) if args.sentiment else ratings.released_sentiment(args.human)
    flagged = ratings.read_ungrammatical(args.ungrammatical) if args.ungrammatical else set()
    scores, _ = evaluate(
        phrases,
        read_predictions(args.predictions),
        human,
        human_sentiment=sentiment or None,
        ungrammatical=flagged,
        top_k=args.top_k,
        predictions_source=args.predictions,
    )
    for key, value in scores.items():
        if not key.startswith("n_"):
            print(f"{key}\t{'' if isinstance(value, float) and math.isnan(value) else f'{value:.4f}'}")
    if args.out:
        write_tsv(args.out, [scores], float_format="%.4f")
    return 0


def add_subcommands(subparsers) -> None:
    """Register ``noncompsst`` with its commands on the ``natcomp`` sub-command parser."""
    group = subparsers.add_parser(
        "noncompsst",
        help="NonCompSST: non-compositional sentiment (Dankers & Lucas 2023)",
        description="NonCompSST (Dankers & Lucas 2023): select SST phrase candidates, compute the "
        "non-compositionality ratings of a study, evaluate a system's predictions against them.",
    )
    commands = group.add_subparsers(dest="noncompsst_command", metavar="COMMAND", required=True)

    p = commands.add_parser(
        "candidates",
        help="SST phrase candidates (appendix A)",
        description="SST phrase candidates (appendix A) of PTB tree files (train.txt...) or of "
        "trainDevTestTrees_PTB.zip; columns phrase, left, right, left_type, right_type, sentiment, source. "
        "--no-parser / --no-ner switch stanza's filters off (--phrase-types / --entities replace them by "
        "tables); --raw-scores (with --sst) switches the spread filter on; --sst (stanfordSentimentTreebank.zip "
        "or a folder with dictionary.txt and sentiment_labels.txt) gives the SST values.",
    )
    p.add_argument(
        "trees",
        nargs="+",
        type=Path,
        metavar="TREES",
        help="SST PTB tree files (train.txt, dev.txt, test.txt) or trainDevTestTrees_PTB.zip",
    )
    p.add_argument("--out", required=True, type=Path, help="candidates TSV to write")
    p.add_argument("--no-parser", action="store_true", help="switch the constituency filter (stanza) off")
    p.add_argument("--no-ner", action="store_true", help="switch the named-entity filter (stanza) off")
    p.add_argument(
        "--raw-scores",
        type=Path,
        metavar="FILE",
        help="rawscores_exp12.txt or stanfordSentimentTreebankRaw.zip: switches the spread filter on",
    )
    p.add_argument(
        "--sst",
        type=Path,
        metavar="PATH",
        help="stanfordSentimentTreebank.zip (or a folder with its files): SST values and phrase ids",
    )
    p.add_argument(
        "--max-raw-sd",
        # the sd of scores on 1 to 25 is at most half the range
        type=float_range(0.0, 12.0),
        default=5.0,
        help="largest standard deviation of a phrase's raw 1-25 scores, 0 to 12 (default 5)",
    )
    p.add_argument(
        "--min-tokens",
        type=int_range(1, MAX_PHRASE_TOKENS),
        default=3,
        help=f"fewest tokens per subphrase, punctuation excluded, 1 to {MAX_PHRASE_TOKENS} (default 3)",
    )
    p.add_argument(
        "--max-tokens",
        type=int_range(1, MAX_PHRASE_TOKENS),
        default=8,
        help=f"most tokens per subphrase, punctuation excluded, --min-tokens to {MAX_PHRASE_TOKENS} (default 8)",
    )
    p.add_argument(
        "--stanza-dir", type=Path, default=Path("stanza_resources"), help="folder with stanza's English models"
    )
    p.add_argument(
        "--phrase-types", type=Path, metavar="TSV", help="phrase<TAB>type table used instead of stanza's parser"
    )
    p.add_argument(
        "--entities", type=Path, metavar="FILE", help="named entities, one a line, used instead of stanza's NER"
    )
    p.add_argument("--quiet", action="store_true", help="do not log the filter counts")
    p.set_defaults(func=_candidates, output_files=("out",))

    p = commands.add_parser(
        "ratings", help="non-compositionality ratings ALL, ALLABS, MAX, MAXABS, ALLCLEAN (section 3.3)"
    )
    p.add_argument(
        "--stimuli", required=True, type=Path, metavar="STUDY2.tsv", help="stimuli in the released study layout"
    )
    p.add_argument(
        "--sentiment",
        required=True,
        type=Path,
        metavar="SENT.tsv",
        help="stimulus<TAB>sentiment (header line; mean rating 0-6)",
    )
    p.add_argument("--ungrammatical", type=Path, metavar="FILE", help="stimulus<TAB>ungrammatical (0/1), for ALLCLEAN")
    p.add_argument("--out", required=True, type=Path, help="ratings TSV: phrase, variant, side, rating")
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    p.set_defaults(func=_ratings, output_files=("out",))

    p = commands.add_parser("evaluate", help="score a system's stimulus predictions against human ratings")
    p.add_argument(
        "--predictions",
        required=True,
        type=Path,
        metavar="P.tsv",
        help="stimulus<TAB>prediction (0-6; several rows per stimulus are averaged)",
    )
    p.add_argument(
        "--human",
        required=True,
        type=Path,
        metavar="RATINGS.tsv",
        help="human ratings (the ratings layout, or the released maxabs_ranking.tsv)",
    )
    p.add_argument("--stimuli", required=True, type=Path, metavar="STUDY2.tsv", help="the stimuli the ratings are of")
    p.add_argument(
        "--sentiment",
        type=Path,
        metavar="SENT.tsv",
        help="human stimulus<TAB>sentiment for the F1 scores (default: the sentiment column of a released maxabs_ranking.tsv)",
    )
    p.add_argument("--ungrammatical", type=Path, metavar="FILE", help="stimulus<TAB>ungrammatical, for ALLCLEAN")
    p.add_argument(
        "--top-k",
        type=int_range(1, MAX_TOP_K),
        help=f"F1 on the k phrases with the highest human MAXABS, 1 to the number of phrases (default "
        f"{DEFAULT_TOP_K}, the paper's, or all phrases when there are fewer)",
    )
    p.add_argument("--out", type=Path, help="also write the scores as a one-row TSV")
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    p.set_defaults(func=_evaluate, output_files=("out",))
