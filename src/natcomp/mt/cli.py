"""The MT commands of the ``natcomp`` command line: ``natcomp mt score | sources | fragments | evaluate``.

Added by :func:`add_subcommands` like every family's group. Until natcomp 0.2 the old
top-level spellings (``natcomp score``...) still work (:data:`natcomp.cli.MOVED_COMMANDS`).

``natcomp mt score --test T --items ITEMS.tsv --translations FILE --labels L.tsv --summary S.tsv``
    Score the translations of one test's items (see :mod:`natcomp.mt.scoring`): a per-item
    labels TSV, a per-group summary TSV with overall rows, and one result line on stdout;
    on stderr a warning when translations equal their sources (the English side given as
    the translations), and the reason when no item is scored. ``--target-lang CODE``
    (default ``nl``, the paper's Dutch) names the translations' language, whose resource
    file ``resources/mt/languages/CODE.yaml`` every measure reads.
``natcomp mt sources --test T --items ITEMS.tsv [--output FILE]``
    The unique source sentences of an items file, one per line, in the order
    ``natcomp mt score --translations-format lines`` expects its translations.
``natcomp mt evaluate --model NAME_OR_PATH [--name NAME] [--configfile BASE.yaml] [--target-lang CODE ...] [-n]``
    Run the three tests on one Hugging Face translation model through the workflow, in a
    run folder of its own (:mod:`natcomp.mt.evaluate`), and write its tables.
``natcomp mt fragments TREEBANK [--output FILE]``
    The recurring Double-DOP fragments of a treebank with their exact counts (see
    :mod:`natcomp.mt.semi_natural.fragments`), built in or with disco-dop, as ``fragment<TAB>count`` lines.

Item and translation TSVs are read with ``--quoting auto`` by default: a file written
with CSV-style quoting (pandas' ``to_csv(sep="\\t")``) is recognised by its quoted fields
that need quoting (a doubled ``""``, a tab or a line break inside) or by a quoted header,
and read as CSV; any other file is read as natcomp writes TSV, every field as it is, so a
sentence that starts and ends with ``"`` keeps its quotes (:func:`natcomp.tsv.looks_csv_quoted`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from natcomp.cliargs import MAX_CORES, float_range, int_range
from natcomp.errors import ConfigError, InputError, NatcompError, OptionError

#: upper bounds of the decoding options a user could mean (issue 45): wider beams and longer
#: outputs than any released system decodes with
MAX_BEAM = 256
MAX_NEW_TOKENS = 32768

__all__ = ["add_subcommands", "system_settings"]

PROG = "natcomp"

#: --quoting choices -> the ``quoted`` argument of natcomp.tsv's readers
QUOTING = {"auto": "auto", "csv": True, "none": False}

_QUOTING_HELP = (
    "how to read the input TSVs: 'auto' (default) undoes CSV-style quoting, as written by "
    "pandas' to_csv(sep='\\t'), only when the file evidently has it (a quoted field holding a doubled \"\", a "
    "tab or a line break, or quoted column names) and otherwise reads every field as it is, so a sentence "
    "that starts and ends with \" keeps its quotes; 'csv': always undo quoting; 'none': never"
)


#: the tests' names (natcomp.mt.registry.TESTS; named here so that building the parser imports no pandas)
TEST_NAMES = ("np_vp", "s_conj", "substitutivity", "overgeneralisation")
#: the largest --batch-size of 'natcomp mt evaluate': 4,096 sentences of up to --max-new-tokens 256
#: tokens with beam 5 already hold about 5 million decoder positions per step, more than fits a
#: GPU's memory for any translation model; a larger number is a typo, not a batch
MAX_BATCH_SIZE = 4096
#: natcomp.mt.scoring.S_CONJ_MISSING_CONJUNCT, for the same reason
S_CONJ_MISSING_CONJUNCT = ("pair", "triple")


def add_subcommands(subparsers) -> None:
    """Register the ``mt`` group (``score``, ``sources``, ``fragments``, ``evaluate``) on the ``natcomp`` parser."""
    description = "MT compositionality (Dankers et al. 2022): score translations of test items, export their sources, extract tree fragments, run the tests on a translation model."
    group = subparsers.add_parser(
        "mt", help="MT compositionality: systematicity, substitutivity, overgeneralisation", description=description
    )
    commands = group.add_subparsers(dest="mt_command", metavar="COMMAND", required=True)
    _add_score(commands)
    _add_sources(commands)
    _add_fragments(commands)
    _add_evaluate(commands)


def _add_items_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--test", required=True, choices=TEST_NAMES, help="which test the items belong to")
    parser.add_argument(
        "--items",
        required=True,
        type=Path,
        metavar="ITEMS.tsv",
        help="items TSV of the test (e.g. results/mt/items/<test>/<data type>.tsv of a workflow run)",
    )
    parser.add_argument("--quoting", choices=tuple(QUOTING), default="auto", help=_QUOTING_HELP)


# --------------------------------------------------------------------------------------
# natcomp mt score


def _add_score(subparsers) -> None:
    from natcomp.mt.consistency import CONJUNCT_RULES, KEYWORD_MATCHING

    parser = subparsers.add_parser(
        "score",
        help="score translations of compositionality test items",
        description=(
            "Label every item of a test (np_vp, s_conj: consistency; substitutivity: consistency and "
            "synonym consistency; overgeneralisation: literal keyword present) and summarise per template "
            "and condition/pair/idiom, with rows that pool the items over all templates ('overall' in the "
            "template column) and over everything ('overall' in every group column). Labels are written as "
            "1/0, empty when an item is not scored; scores with 4 decimals. Outputs are unquoted TSV like every "
            "natcomp table, CSV-quoted only when a sentence holds a tab or a line break (possible in a quoted "
            "input). On success one line goes to stdout: the test, the number of items (and of scored items "
            "where some are not scored) and the overall scores; run 'natcomp mt sources' for the sentences to "
            "translate. A warning goes to stderr when translations equal their (English) sources, and the reason "
            "when no item could be scored. The translations are Dutch, the paper's target language, unless "
            "--target-lang names another."
        ),
    )
    _add_items_arguments(parser)
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
        "in first-seen order (source_a then source_b of each row, or source), the order 'natcomp mt sources' "
        "writes them in",
    )
    parser.add_argument(
        "--target-lang",
        default="nl",
        metavar="CODE",
        help="the language of the translations, an ISO 639-1 code with a file resources/mt/languages/CODE.yaml "
        "(default nl: Dutch, the paper's): its tokeniser, conjunctions, words a replaced noun may change and "
        "idiom keywords decide every measure",
    )
    parser.add_argument("--labels", required=True, type=Path, metavar="OUT_LABELS.tsv", help="per-item labels")
    parser.add_argument("--summary", required=True, type=Path, metavar="OUT_SUMMARY.tsv", help="per-group scores")
    parser.add_argument(
        "--synonyms",
        type=Path,
        metavar="FILE",
        help="synonym pairs (substitutivity; default: the synonyms.tsv shipped with natcomp); their candidate "
        "translations are Dutch",
    )
    parser.add_argument(
        "--synonym-candidates",
        type=Path,
        metavar="FILE",
        help="substitutivity: each synonym's candidate translations, a TSV with the columns pair, spelling, "
        "candidate (as the workflow writes them from probe sentences), instead of the Dutch lists of --synonyms; "
        "needed for a --target-lang other than nl",
    )
    parser.add_argument(
        "--idioms",
        type=Path,
        metavar="FILE",
        help="idioms (overgeneralisation; default: the idioms.tsv shipped with natcomp): their Dutch keywords, or "
        "for another --target-lang the idioms whose keywords its language file gives",
    )
    parser.add_argument(
        "--keyword-matching",
        choices=KEYWORD_MATCHING,
        help="overgeneralisation: how an idiom's keyword in the --target-lang matches a translation, "
        "case-insensitively: 'inflected' (default) as a whole word or inflected, as the language's file says "
        "(Dutch: with a Dutch inflectional or diminutive ending, hart: hart, harten, hartje; German, French, "
        "Spanish: with the same Snowball stem, Herz: Herzen; never inside another word: even is not in leven); "
        "'word' as a whole word only (hart, not hartje); 'substring' anywhere, like the original code (even in "
        "leven, land in Nederland)",
    )
    parser.add_argument(
        "--substring-keywords",
        action="store_true",
        help="the same as --keyword-matching substring (kept for older scripts)",
    )
    parser.add_argument(
        "--paraphrase-references-only",
        action="store_true",
        help="overgeneralisation: score only items whose reference contains no keyword (original natural-data "
        "filter); an empty reference contains none",
    )
    parser.add_argument(
        "--s-conj-missing-conjunct",
        choices=S_CONJ_MISSING_CONJUNCT,
        help="s_conj: when a translation has no second conjunct, leave unscored that 'pair' (default: the item "
        "in its own condition) or the whole 'triple' (S1, S1', S3: the items of both conditions that share "
        "S1 and S2, like the original code)",
    )
    parser.add_argument(
        "--s-conj-split",
        choices=CONJUNCT_RULES,
        help="s_conj: how the second conjunct is found: 'tokens' (default) after the first conjunction (Dutch "
        "'en', or any of the --target-lang's) with at least 5 tokens before it (the language's "
        "min_first_conjunct), none when there is no such conjunction; 'original' like the original code: the "
        "tokens joined by spaces are split on ' en ', S2 follows the second 'en' when fewer than 5 words precede "
        "the first (an empty S2 with a single early 'en', equal to any other empty S2)",
    )
    parser.set_defaults(func=_cmd_score, output_files=("labels", "summary"))


def _shipped_list(name: str, flag: str) -> Path:
    """The path of a word list shipped with natcomp, or an error that names the flag to pass instead."""
    from natcomp.shipped import resource_path

    try:
        return resource_path(name)
    except FileNotFoundError as error:
        raise NatcompError(f"{error} Pass {flag} FILE to give the list yourself.") from None


def _format_score(value: object) -> str:
    import pandas as pd

    return "n/a" if pd.isna(value) else f"{float(value):.4f}"


def _keyword_matching(args: argparse.Namespace) -> str:
    """The keyword matching of ``--keyword-matching``, or of its older spelling ``--substring-keywords``."""
    if args.substring_keywords:
        if args.keyword_matching not in (None, "substring"):
            raise NatcompError(
                f"--substring-keywords means --keyword-matching substring; it contradicts --keyword-matching "
                f"{args.keyword_matching}: give one of them"
            )
        return "substring"
    return args.keyword_matching or "inflected"


def _report_idioms_inside_words(items, keyword_matching: str, examples: int = 3) -> None:
    """One line on stderr: how many sources hold their idiom only inside longer words, with examples."""
    inside = items.attrs.get("idiom_inside_words", [])
    if not inside:
        return
    shown = "; ".join(f"line {line}: {source!r} ({idiom})" for line, source, idiom in inside[:examples])
    more = "" if len(inside) <= examples else "; ..."
    print(
        f"{PROG} mt score: {len(inside)} of {len(items)} sources hold their idiom only inside longer words, not as "
        f"whole words ({shown}{more}); scored all the same (--keyword-matching {keyword_matching}; 'substring' "
        "accepts them silently)",
        file=sys.stderr,
    )


def _report_copied_sources(translations: dict[str, str]) -> None:
    """One line on stderr when translations equal their (English) sources: a file of the wrong side."""
    copied = sum(1 for source, translation in translations.items() if translation.strip() == source.strip())
    if copied:
        print(
            f"{PROG} mt score: warning: {copied} of {len(translations)} translations equal their source: is this "
            "the English side?",
            file=sys.stderr,
        )


def _why_none_scored(labels, test: str, metrics, language) -> str:
    """Why no item got a label, in words (``natcomp mt score`` prints it instead of a silent 0)."""
    if test == "s_conj":
        conjunctions = " or ".join(f"'{word}'" for word in language.conjunctions)
        return (
            f"no translation has a second conjunct (a {language.name} {conjunctions} after the first conjunct), so "
            f"no item can be compared; are the translations {language.name}?"
        )
    empty = [column for column in metrics if column in labels and labels[column].isna().all()]
    return f"every item's {' and '.join(empty) or 'label'} is empty"


def _synonym_candidates(args: argparse.Namespace, synonyms, language):
    """The synonym pairs and the candidates ``score_items`` searches (None: the pairs' Dutch lists).

    ``--synonym-candidates`` replaces the lists of ``--synonyms``; the shipped lists are
    Dutch, so another target language needs that file."""
    from natcomp.mt.scoring import probe_synonym_candidates
    from natcomp.mt.synonym_probes import load_candidates

    if args.synonym_candidates is not None:
        synonyms = load_candidates(args.synonym_candidates, synonyms)
    elif language.code != "nl":
        raise OptionError(
            "--target-lang",
            f"the shipped synonym candidates are Dutch; give candidates for {language.name} with "
            "--synonym-candidates FILE (pair, spelling, candidate; the workflow's mt.synonyms.candidates: probes)",
        )
    return synonyms, (None if language.code == "nl" else probe_synonym_candidates(synonyms))


def _scorable_idioms(args: argparse.Namespace, idioms, language) -> set[str]:
    """The idioms an item may name: those of ``--idioms`` that have keywords in the language."""
    from natcomp.mt.languages import check_idiom_names

    names = {idiom.idiom for idiom in idioms}
    if language.code == "nl":
        return names
    if language.idiom_keywords is None:
        raise OptionError(
            "--target-lang",
            f"{language.name} has no idiom keywords (resources/mt/languages/{language.code}.yaml): "
            "overgeneralisation cannot be scored",
        )
    if args.idioms is None:  # a misspelt idiom in the language file would never be scored
        check_idiom_names(language, sorted(names))
    return names & set(language.idiom_keywords.keywords)


def _cmd_score(args: argparse.Namespace) -> int:
    from natcomp.mt import scoring
    from natcomp.mt.languages import target_language
    from natcomp.mt.lexicon import load_idioms, load_synonyms

    if args.labels.resolve() == args.summary.resolve():
        raise NatcompError("--labels and --summary must be different files")
    options_of = {
        "overgeneralisation": {
            "--keyword-matching": args.keyword_matching is not None,
            "--substring-keywords": args.substring_keywords,
            "--paraphrase-references-only": args.paraphrase_references_only,
            "--idioms": args.idioms is not None,
        },
        "s_conj": {
            "--s-conj-missing-conjunct": args.s_conj_missing_conjunct is not None,
            "--s-conj-split": args.s_conj_split is not None,
        },
        "substitutivity": {
            "--synonyms": args.synonyms is not None,
            "--synonym-candidates": args.synonym_candidates is not None,
        },
    }
    for test, options in options_of.items():
        given = [flag for flag, present in options.items() if present]
        if given and args.test != test:
            raise NatcompError(f"{' and '.join(given)} apply to --test {test} only")
    keyword_matching = _keyword_matching(args)
    language = target_language(args.target_lang, "--target-lang")
    quoted = QUOTING[args.quoting]
    synonyms = idioms = candidates = None
    entries = None
    if args.test == "substitutivity":
        synonyms = load_synonyms(args.synonyms or _shipped_list("synonyms.tsv", "--synonyms"))
        synonyms, candidates = _synonym_candidates(args, synonyms, language)
        entries = {pair.name for pair in synonyms}
    elif args.test == "overgeneralisation":
        idioms = load_idioms(args.idioms or _shipped_list("idioms.tsv", "--idioms"))
        entries = _scorable_idioms(args, idioms, language)

    items = scoring.read_items(args.items, args.test, entries, quoted=quoted, keyword_matching=keyword_matching)
    _report_idioms_inside_words(items, keyword_matching)
    group_columns = scoring.GROUP_COLUMNS[args.test]
    for line, row in zip(items.attrs["lines"], items[list(group_columns)].itertuples(index=False)):
        for column, value in zip(group_columns, row):
            if value == scoring.OVERALL:
                raise InputError(
                    args.items, f"{column} {value!r} is reserved for the summary's pooled rows; rename it", line
                )
    sources = scoring.unique_sources(items, args.test)
    translations = scoring.read_translations(args.translations, sources, args.translations_format, quoted=quoted)
    _report_copied_sources(translations)

    labels = scoring.score_items(
        items,
        translations,
        args.test,
        synonyms=synonyms,
        idioms=idioms,
        keyword_matching=keyword_matching,
        paraphrase_references_only=args.paraphrase_references_only,
        s_conj_missing_conjunct=args.s_conj_missing_conjunct or "pair",
        s_conj_split=args.s_conj_split or "tokens",
        language=language.code,
        synonym_candidates=candidates,
    )
    metrics = scoring.LABEL_METRICS[args.test]
    summary = scoring.summarise(labels, group_columns, metrics, overall=True)
    # CSV-style quoting only where a sentence holds a tab or a line break (possible in a quoted input)
    scoring.write_labels(labels, args.labels, quoted="auto")
    scoring.write_summary(summary, args.summary, quoted="auto")

    total = summary.iloc[-1]  # the row pooling every item
    scored = int(total["n"])
    counted = f"{len(items)} items" + ("" if scored == len(items) else f" ({scored} scored)")
    scores = ", ".join(f"{name} {_format_score(total[name])}" for name in metrics.values())
    print(f"{PROG} mt score: {args.test}, {counted}, {scores} (labels: {args.labels}, summary: {args.summary})")
    if scored == 0:
        print(
            f"{PROG} mt score: 0 of {len(items)} items scored: {_why_none_scored(labels, args.test, metrics, language)}",
            file=sys.stderr,
        )
    return 0


# --------------------------------------------------------------------------------------
# natcomp mt sources


def _add_sources(subparsers) -> None:
    parser = subparsers.add_parser(
        "sources",
        help="the unique source sentences of an items file, for translation",
        description=(
            "Write the unique source sentences of an items file, one per line, in first-seen order "
            "(source_a then source_b of each row, or source): translate this file line by line with any "
            "system and pass the result to 'natcomp mt score --translations-format lines'."
        ),
    )
    _add_items_arguments(parser)
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", help="write here (atomically); default: stdout")
    parser.set_defaults(func=_cmd_sources, output_files=("output",))


def _cmd_sources(args: argparse.Namespace) -> int:
    from natcomp.files import write_lines
    from natcomp.mt import scoring

    items = scoring.read_items(args.items, args.test, quoted=QUOTING[args.quoting])
    sources = scoring.unique_sources(items, args.test)
    if args.output is None:
        try:
            sys.stdout.write("".join(sentence + "\n" for sentence in sources))
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. '| head': the reader wants no more
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        where = "stdout"
    else:
        write_lines(args.output, sources)
        where = str(args.output)
    print(
        f"{PROG} mt sources: {len(sources)} unique source sentences of {len(items)} items -> {where}", file=sys.stderr
    )
    return 0


# --------------------------------------------------------------------------------------
# natcomp mt fragments


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
        "--threads",
        type=int_range(0, MAX_CORES),
        default=1,
        metavar="N",
        help=f"processes for disco-dop, 0 to {MAX_CORES} (0: all CPUs; default 1)",
    )
    parser.set_defaults(func=_cmd_fragments, output_files=("output",))


def _cmd_fragments(args: argparse.Namespace) -> int:
    import time

    from natcomp.mt.semi_natural import fragments as frag
    from natcomp.trees import read_trees

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
        f"{PROG} mt fragments: {trees_note}{len(fragments)} fragments ({backend}, {time.perf_counter() - start:.1f} s)",
        file=sys.stderr,
    )
    return 0


# --------------------------------------------------------------------------------------
# natcomp mt evaluate


def _add_evaluate(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="run the MT tests on one Hugging Face translation model",
        description=(
            "Run systematicity, substitutivity, overgeneralisation and BLEU on one translation model (a Hugging "
            "Face Hub id or a save_pretrained folder) through the workflow: the base config's test settings, no "
            "trained models, in a run folder of its own; on the GPU where there is one. Arguments after '--' "
            "go to snakemake (e.g. -- --profile slurm)."
        ),
    )
    from natcomp.profile.cli import add_run_arguments, model_help, run_name

    parser.add_argument(
        "--model", required=True, metavar="NAME_OR_PATH", help=model_help("the translation model to test")
    )
    parser.add_argument(
        "--name", type=run_name, help="the system's name in the tables (default: the model's last path part)"
    )
    parser.add_argument(
        "--family",
        choices=("auto", "marian", "m2m100", "nllb", "causal"),
        default="auto",
        help="the model's architecture family; causal: a decoder-only LM that translates by prompting "
        "(default auto: read from its config)",
    )
    parser.add_argument("--source-code", help="source language code as the model names it (NLLB-200: eng_Latn)")
    parser.add_argument("--target-code", help="target language code as the model names it (NLLB-200: nld_Latn)")
    parser.add_argument(
        "--beam", type=int_range(1, MAX_BEAM), default=5, help=f"beam size, 1 to {MAX_BEAM} (default %(default)s)"
    )
    parser.add_argument(
        "--max-new-tokens",
        type=int_range(1, MAX_NEW_TOKENS),
        default=256,
        help=f"longest translation, in the model's tokens, 1 to {MAX_NEW_TOKENS} (default %(default)s)",
    )
    parser.add_argument(
        "--max-len-a",
        type=float_range(0.0, 100.0),
        help="also end a translation after MAX_LEN_A (0 to 100) x source tokens + MAX_LEN_B (fairseq's limit, as the trained "
        "models decode; default: none)",
    )
    parser.add_argument(
        "--max-len-b",
        type=int_range(0, MAX_NEW_TOKENS),
        default=10,
        help=f"the constant term of --max-len-a's limit, 0 to {MAX_NEW_TOKENS} (default %(default)s)",
    )
    parser.add_argument(
        "--batch-size",
        type=int_range(1, MAX_BATCH_SIZE),
        default=64,
        help=f"sentences per decoding batch, 1 to {MAX_BATCH_SIZE} (default %(default)s)",
    )
    parser.add_argument(
        "--precision",
        choices=("auto", "fp32", "fp16", "bf16"),
        default="auto",
        help="the dtype of decoding (default auto: the checkpoint's on a GPU, fp32 on a CPU; fp16 and bf16 only on "
        "a GPU, bf16 for causal LMs only)",
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where to decode (default auto: the GPU when there is one)",
    )
    prompting = parser.add_argument_group("a causal LM (translation by prompting)")
    prompting.add_argument(
        "--prompt",
        type=prompt_template,
        metavar="TEMPLATE",
        help="the prompt, with {source} once and optionally {source_language}, {target_language} "
        r"(default: '{source_language}: {source}\n{target_language}:'); the answer's first line is the translation; \n as typed is a line break",
    )
    prompting.add_argument(
        "--few-shot",
        type=int_range(0, 64),
        default=0,
        metavar="K",
        help="K example pairs before every prompt, the same for every item, never a test item (default 0)",
    )
    prompting.add_argument(
        "--few-shot-pool",
        choices=("train", "flores_dev"),
        default="train",
        help="where the examples are drawn from (default train: the training corpus)",
    )
    prompting.add_argument(
        "--chat-template",
        choices=("on", "off"),
        help="on: prompt through the tokenizer's chat template, which it must have; off: plain text, even when it "
        "has one (default: mt.prompting's, off)",
    )
    prompting.add_argument(
        "--decoding",
        choices=("greedy", "beam"),
        help="greedy (default) or beam search of --beam beams; the synonym probes always use beam search",
    )
    from natcomp.profile.cli import add_served_arguments

    add_served_arguments(parser)
    add_run_arguments(parser)
    parser.set_defaults(func=_cmd_evaluate)


def system_settings(args: argparse.Namespace) -> dict[str, object]:
    """The ``mt.systems`` entry of ``natcomp mt evaluate``'s options (the model aside)."""
    return {
        "family": args.family,
        "source_code": args.source_code,
        "target_code": args.target_code,
        "beam": args.beam,
        "max_new_tokens": args.max_new_tokens,
        "max_len_a": args.max_len_a,
        "max_len_b": args.max_len_b,
        "batch_size": args.batch_size,
        "precision": args.precision,
        "device": args.device,
        # a causal LM's prompting options, where given (a translation model refuses them)
        "prompt": args.prompt,
        "few_shot": {"k": args.few_shot, "pool": args.few_shot_pool} if args.few_shot else None,
        "chat_template": args.chat_template,
        "decoding": args.decoding,
    }


def prompt_template(text: str) -> str:
    """A --prompt value: a prompt template (natcomp.mt.prompting.check_template), where
    ``\\n`` as typed in a shell is a line break."""
    from natcomp.mt.prompting import check_template

    try:
        return check_template(text.replace("\\n", "\n"), "--prompt")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _cmd_evaluate(args: argparse.Namespace) -> int:
    """The MT case of ``natcomp evaluate`` (:func:`natcomp.profile.cli.evaluate_model`)."""
    from natcomp.profile.cli import evaluate_model

    return evaluate_model(
        args.model,
        name=args.name,
        families=["mt"],
        configfile=args.configfile,
        directory=args.directory,
        cores=args.cores,
        dry_run=args.dry_run,
        snakemake_args=args.snakemake_args,
        mt_system=system_settings(args),
        command="mt evaluate",
        target_langs=args.target_lang,
        target_languages=target_language_hooks() if args.target_lang else None,
        api_base=args.api_base,
        api_key_env=args.api_key_env,
    )


def target_language_hooks():
    """The MT family's part of ``--target-lang`` (:class:`natcomp.profile.runconfig.TargetLanguages`),
    for ``natcomp mt evaluate`` and ``natcomp evaluate`` (natcomp.cli sets it on the latter)."""
    from natcomp.mt.languages_compare import target_languages

    return target_languages()
