"""File-level steps of the PLANE workflow: each reads its inputs, calls the library and
writes its outputs atomically. The workflow scripts and ``natcomp plane ...`` call these.

Resource folder layout (``build_resource``): ``phrases.tsv`` (adj, noun, class),
``hypernyms.tsv`` (noun, hyp, distance, synset), ``chains.tsv`` (noun, h1, h2, h3),
``items.tsv`` (the PLANE items, :data:`natcomp.plane.items.ITEM_COLUMNS`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.plane import corpus, items as items_mod, released, splits
from natcomp.plane.adjectives import label, load_adjectives
from natcomp.plane.items import Resource, ResourceSettings
from natcomp.tsv import read_tsv, write_tsv

log = logging.getLogger(__name__)

SOURCES = ("trees", "text", "released")


def demo_corpus(adjectives_path: str | Path, out_path: str | Path, settings: corpus.CorpusSettings) -> int:
    """Generate the demo corpus (PTB trees, one sentence per line); return the sentence count."""
    adjectives = load_adjectives(adjectives_path)
    nouns = corpus.demo_nouns(settings)
    if len(nouns) < settings.nouns:
        log.warning("only %d WordNet nouns passed the demo filters (asked for %d)", len(nouns), settings.nouns)
    trees = corpus.generate_corpus(adjectives, nouns, settings)
    return corpus.write_corpus(out_path, trees)


def collect_phrases(source: str, paths: Sequence[str | Path], stanza_dir: str | None = None) -> list[tuple[str, str]]:
    """AN pairs from trees files, raw text files (parsed with stanza) or released splits."""
    if source not in SOURCES:
        raise ValueError(f"unknown phrase source {source!r}; expected one of {', '.join(SOURCES)}")
    pairs: list[tuple[str, str]] = []
    pipeline = corpus.stanza_pipeline(stanza_dir) if source == "text" else None
    for path in paths:
        if source == "trees":
            found = corpus.read_tree_phrases(path)
        elif source == "text":
            found = corpus.parse_text_phrases(path, pipeline)
        else:
            found = released.phrases_of(released.read_released(path))
            require_noun_synsets(path, found)
        log.info("%s: %d AN phrases", path, len(found))
        pairs.extend(found)
    return pairs


def require_noun_synsets(path: str | Path, pairs: Sequence[tuple[str, str]]) -> None:
    """Every noun of a released split must have a noun synset (the files were built from
    WordNet nouns); otherwise the file is not what it claims, or WordNet is another version.
    Raises :class:`InputError` naming the file and the first line with such a noun."""
    from natcomp.plane.wordnet import has_noun_synset

    missing = sorted({noun for _, noun in pairs if not has_noun_synset(noun)})
    if missing:
        frame = released.read_released(path)
        first = int(frame.index[frame["noun"] == missing[0]][0])
        line = first + (1 if Path(path).suffix == ".pkl" else 2)
        raise InputError(
            path,
            f"noun {missing[0]!r} has no noun synset in WordNet 3.0 "
            f"({len(missing)} such noun(s)); expected WordNet nouns",
            line,
        )


def build_resource(
    out_dir: str | Path,
    adjectives_path: str | Path,
    source: str,
    paths: Sequence[str | Path],
    settings: ResourceSettings,
    stanza_dir: str | None = None,
) -> tuple[Resource, pd.DataFrame]:
    """Build and write the resource and its items; return both."""
    adjectives = load_adjectives(adjectives_path)
    pairs = collect_phrases(source, paths, stanza_dir)
    resource = items_mod.select_phrases(pairs, adjectives, settings)
    for reason, count in sorted(resource.dropped.items()):
        log.info("dropped %d phrase(s): %s", count, reason)
    if resource.phrases.empty:
        raise InputError(
            paths[0] if paths else "(no input)",
            "no AN phrase is left after filtering; expected phrases "
            "with a listed adjective and a WordNet noun seen with every class",
        )
    items = items_mod.make_items(resource.phrases, resource.hypernyms, settings.max_distance)
    out = Path(out_dir)
    write_tsv(out / "phrases.tsv", resource.phrases, items_mod.PHRASE_COLUMNS)
    write_tsv(out / "hypernyms.tsv", resource.hypernyms, items_mod.HYPERNYM_COLUMNS)
    write_tsv(out / "chains.tsv", resource.chains, list(resource.chains.columns))
    write_tsv(out / "items.tsv", items, items_mod.ITEM_COLUMNS)
    log.info("%d phrases, %d nouns, %d items", len(resource.phrases), resource.phrases["noun"].nunique(), len(items))
    return resource, items


def read_resource(resource_dir: str | Path) -> Resource:
    folder = Path(resource_dir)
    hypernyms = read_tsv(folder / "hypernyms.tsv", required=items_mod.HYPERNYM_COLUMNS)
    hypernyms["distance"] = hypernyms["distance"].astype(int)
    chains = read_tsv(folder / "chains.tsv", required=["noun"])
    return Resource(
        phrases=read_tsv(folder / "phrases.tsv", required=items_mod.PHRASE_COLUMNS),
        hypernyms=hypernyms,
        chains=chains,
        dropped={},
    )


def read_items(path: str | Path) -> pd.DataFrame:
    """Items or split files written by this module (label and distance as ints)."""
    frame = read_tsv(path, required=["sentence", "label", "class", "it", "adj", "noun", "hyp", "c1", "c2"])
    frame["label"] = frame["label"].astype(int)
    if "distance" in frame:
        frame["distance"] = frame["distance"].replace("", "0").astype(int)
    return frame


def write_split(
    resource_dir: str | Path,
    kind: str,
    seed: int,
    settings,
    train_out: str | Path,
    test_out: str | Path,
) -> tuple[int, int]:
    """Make one split of ``kind`` (good, one_it, in_distribution), check it, write both sides."""
    if kind == "good":
        train, test = splits.good_split(read_resource(resource_dir), settings, seed)
    elif kind == "one_it":
        train, test = splits.one_it_split(read_resource(resource_dir), settings, seed)
    elif kind == "in_distribution":
        train, test = splits.in_distribution_split(read_items(Path(resource_dir) / "items.tsv"), settings, seed)
    else:
        raise ValueError(f"unknown split kind {kind!r}; expected one of {', '.join(splits.KINDS)}")
    # check_split already ran inside; the files are written only for a split that passed it
    write_tsv(train_out, train, splits.SPLIT_COLUMNS)
    write_tsv(test_out, test, splits.SPLIT_COLUMNS)
    log.info("%s split %d: %d train, %d test items", kind, seed, len(train), len(test))
    return len(train), len(test)


def evaluation_set(
    items_path: str | Path, per_class: int, seed: int, out_triplets: str | Path, out_items: str | Path
) -> int:
    """Sample the triplets of the prompting and NLI evaluations (the paper's Two-Shot test
    set); write them and their three items each (IT1, IT2, IT3)."""
    triplets = items_mod.sample_triplets(read_items(items_path), per_class, seed)
    write_tsv(out_triplets, triplets, ["adj", "noun", "hyp", "class"])
    rows = []
    for adj, noun, hyp, cls in triplets.itertuples(index=False, name=None):
        for it, c2 in (("IT1", noun), ("IT2", hyp), ("IT3", f"{adj} {hyp}")):
            rows.append(
                {
                    "sentence": items_mod.sentence(adj, noun, c2),
                    "label": label(cls, it),
                    "class": cls,
                    "it": it,
                    "adj": adj,
                    "noun": noun,
                    "hyp": hyp,
                    "distance": "",
                    "c1": f"{adj} {noun}",
                    "c2": c2,
                }
            )
    write_tsv(out_items, rows, items_mod.ITEM_COLUMNS)
    return len(triplets)


def released_tests(paths: Mapping[str, str | Path]) -> dict[str, pd.DataFrame]:
    """Released test files by name, read and checked (labels must follow Table 1)."""
    tests = {}
    for name, path in paths.items():
        frame = released.read_released(path)
        wrong = released.label_disagreements(frame)
        if len(wrong):
            log.warning("%s: %d row(s) whose label differs from Table 1", path, len(wrong))
        tests[name] = frame
    return tests


# -------------------------------------------------------------------------------------
# evaluations and report tables


def run_prompting(
    model, triplets_path: str | Path, out: str | Path, settings, log_to=None, name=None, served=None
) -> int:
    """Two-shot prompting predictions of one masked or causal LM, or a served one (``model``
    an entry with ``api_base``; ``served``: :class:`natcomp.plane.served_prompting.ServedJob`;
    see :mod:`natcomp.plane.prompting`)."""
    from natcomp.plane import prompting

    triplets = read_tsv(triplets_path, required=["adj", "noun", "hyp", "class"])
    predictions = prompting.evaluate_prompting(model, triplets, settings, log=log_to or log, name=name, served=served)
    return write_tsv(out, predictions, prompting.PREDICTION_COLUMNS)


def run_zero_shot(
    model, triplets_path: str | Path, out: str | Path, settings, pairs, log_to=None, name=None, served=None
) -> int:
    """Zero-shot predictions of one masked or causal LM (or a served one, as
    :func:`run_prompting`) with the conversion table ``pairs`` (Table 7)."""
    from natcomp.plane import prompting

    triplets = read_tsv(triplets_path, required=["adj", "noun", "hyp", "class"])
    predictions = prompting.evaluate_zero_shot(
        model, triplets, settings, [tuple(p) for p in pairs], log=log_to or log, name=name, served=served
    )
    return write_tsv(out, predictions, prompting.PREDICTION_COLUMNS)


def zero_shot_table(
    prediction_paths: Sequence[str | Path], out_table8: str | Path, out_items: str | Path | None = None
) -> pd.DataFrame:
    """Table 8 analogue: zero-shot F1 mean and sd over prompt templates per model and class;
    with ``out_items`` the predictions behind it per template and item (natcomp.plane.outcomes)."""
    from natcomp.plane.tables import table8

    predictions = concat_tsv(prediction_paths)
    for column in ("gold", "predicted"):
        predictions[column] = predictions[column].astype(int)
    table = table8(predictions)
    write_tsv(out_table8, table, float_format="%.1f")
    if out_items is not None:
        write_items(out_items, predictions, ["template"], [*PROMPT_ITEM, "verbaliser"])
    return table


#: what makes a prompted item (and a NLI item): its words, premises and gold label
PROMPT_ITEM = ["premises", "class", "it", "adj", "noun", "hyp", "gold"]
NLI_ITEM = ["class", "it", "adj", "noun", "hyp", "c1", "c2", "gold"]


def write_items(out: str | Path, predictions: pd.DataFrame, cell: Sequence[str], content: Sequence[str]) -> None:
    """The predictions behind a table per repetition (``cell``) and item, for natcomp compare."""
    from natcomp.plane.outcomes import PREDICTION_ITEM_COLUMNS, prediction_items

    write_tsv(out, prediction_items(predictions, cell, content), list(PREDICTION_ITEM_COLUMNS))


def run_nli(model: str, items_path: str | Path, out: str | Path, settings, log_to=None, name=None) -> int:
    """NLI-transfer predictions of one NLI model (see :mod:`natcomp.plane.nli`)."""
    from natcomp.plane import nli

    predictions = nli.evaluate_nli(model, read_items(items_path), settings, log=log_to or log, name=name)
    return write_tsv(out, predictions, nli.PREDICTION_COLUMNS)


LAYOUT_OF_SETTING = {"good": "ood", "one_it": "one_it"}  # our split kind -> released layout


def released_roles(layout: str) -> dict:
    """How a train side and a released test side must be disjoint, as the released pairs
    are: adjectives and nouns (OoD), and for One-IT hypernyms too, across roles."""
    one_it = layout == "one_it"
    return {"roles": ("adj", "noun", "hyp") if one_it else ("adj", "noun"), "cross_role": one_it}


def check_against_released(train: pd.DataFrame, test: pd.DataFrame, layout: str, what: str) -> None:
    """Raise :class:`natcomp.plane.splits.SplitLeak` (naming ``what``) unless ``train`` and
    the released test side ``test`` are disjoint as the released pairs are."""
    try:
        splits.check_split(train, test, allow_duplicates=True, **released_roles(layout))
    except splits.SplitLeak as error:
        raise splits.SplitLeak(f"{what}: {error}") from None


def _finetune_and_write(
    model, train, tests, setting, split, train_set, settings, out_predictions, out_accuracy, log_to
):
    from natcomp.plane import finetune

    predictions, _ = finetune.fine_tune_and_test(model, train, tests, settings, log=log_to or log)
    rows = finetune.accuracy_rows(predictions, setting, split, train_set=train_set)
    accuracy = pd.DataFrame(rows, columns=finetune.RESULT_COLUMNS)
    for row in accuracy[accuracy["class"] == "all"].itertuples(index=False):
        (log_to or log).info(
            "%s %s split %d on %s: accuracy %.3f (chance %.3f)",
            train_set,
            setting,
            split,
            row.test_set,
            row.accuracy,
            row.chance,
        )
    write_tsv(out_predictions, predictions.assign(train_set=train_set, setting=setting, split=split))
    write_tsv(out_accuracy, accuracy, finetune.RESULT_COLUMNS, float_format="%.4f")
    return accuracy


def run_finetune(
    model: str,
    setting: str,
    split: int,
    train_path: str | Path,
    test_path: str | Path,
    released_paths: Mapping[str, str | Path],
    settings,
    out_predictions: str | Path,
    out_accuracy: str | Path,
    log_to=None,
) -> pd.DataFrame:
    """Fine-tune on one of our splits; predict its test side (``own``) and, when given
    (``{name: path}``), released test files. A released test file is used only when our
    train side is disjoint from it (as the released pairs are): a leak fails the job
    before any training."""
    train = read_items(train_path)
    tests = {"own": read_items(test_path)}
    for name, frame in released_tests(released_paths).items():
        layout = LAYOUT_OF_SETTING.get(setting)
        if layout is None:
            raise ValueError(f"a {setting} split has no released test layout")
        check_against_released(train, frame, layout, f"{train_path} against the released test {released_paths[name]}")
        tests[name] = frame
    return _finetune_and_write(
        model, train, tests, setting, split, "own", settings, out_predictions, out_accuracy, log_to
    )


def run_finetune_released(
    model: str,
    setting: str,
    split: int,
    train_path: str | Path,
    test_path: str | Path,
    settings,
    out_predictions: str | Path,
    out_accuracy: str | Path,
    log_to=None,
) -> pd.DataFrame:
    """The paper's Table 6 run: fine-tune on a released train split as published
    (duplicates kept) and test on its paired released test split (``test_set``
    ``released``). The pair is checked disjoint first; a leak fails the job."""
    layout = LAYOUT_OF_SETTING[setting]
    train, test = read_released(train_path, layout), read_released(test_path, layout)
    check_against_released(train, test, layout, f"released {layout} split {split}")
    return _finetune_and_write(
        model, train, {"released": test}, setting, split, "released", settings, out_predictions, out_accuracy, log_to
    )


def run_finetune_length(
    model: str,
    setting: str,
    split: int,
    max_length: int,
    train_path: str | Path,
    test_path: str | Path,
    settings,
    out_accuracy: str | Path,
    log_to=None,
) -> pd.DataFrame:
    """One point of the input-length sweep (appendix D, Figure 8): fine-tune on our split
    with inputs cut to ``max_length`` tokens (training and test) and write its accuracy
    (:data:`natcomp.plane.finetune.RESULT_COLUMNS` + ``max_length``)."""
    import dataclasses

    from natcomp.plane import finetune

    settings = dataclasses.replace(settings, max_length=max_length)
    tests = {"own": read_items(test_path)}
    predictions, _ = finetune.fine_tune_and_test(model, read_items(train_path), tests, settings, log=log_to or log)
    rows = finetune.accuracy_rows(predictions, setting, split)
    accuracy = pd.DataFrame(rows, columns=finetune.RESULT_COLUMNS).assign(max_length=max_length)
    overall = accuracy[accuracy["class"] == "all"].iloc[0]
    (log_to or log).info("%s split %d, max length %d: accuracy %.3f", setting, split, max_length, overall.accuracy)
    write_tsv(out_accuracy, accuracy, [*finetune.RESULT_COLUMNS, "max_length"], float_format="%.4f")
    return accuracy


def length_point_of_finetune(accuracy_path: str | Path, max_length: int, out_accuracy: str | Path) -> pd.DataFrame:
    """The input-length sweep's point at the fine-tuning's own ``max_length``, from the main
    fine-tuning of the same split (:func:`run_finetune`'s accuracy table): that run is the
    point, with the same training data, settings and seed, so it is read, not trained again.
    Its rows on our split's own test side, with ``max_length``, as :func:`run_finetune_length`
    writes them."""
    from natcomp.plane import finetune

    accuracy = read_tsv(accuracy_path, required=finetune.RESULT_COLUMNS)
    own = accuracy[accuracy["test_set"] == "own"].assign(max_length=max_length)
    if own.empty:
        raise InputError(accuracy_path, "no rows of test_set own; expected the split's own test side")
    write_tsv(out_accuracy, own, [*finetune.RESULT_COLUMNS, "max_length"])
    return own


def length_sweep_outputs(accuracy_paths: Sequence[str | Path], out_table: str | Path, out_png: str | Path):
    """Figure 8 analogue: accuracy mean and sd over splits per setting and maximum length."""
    from natcomp.plane.report import plot_accuracy_by_length
    from natcomp.plane.tables import length_table

    results = concat_tsv(accuracy_paths)
    results["accuracy"] = results["accuracy"].astype(float)
    results["chance"] = results["chance"].astype(float)
    results["max_length"] = results["max_length"].astype(int)
    table = length_table(results)
    write_tsv(out_table, table, float_format="%.4f")
    plot_accuracy_by_length(table, out_png)
    return table


def subword_outputs(
    model: str, prediction_paths: Sequence[str | Path], out_table: str | Path, out_png: str | Path
) -> pd.DataFrame:
    """Figures 2 and 3 analogue: accuracy against the share of test items with subwords
    (by the fine-tuned model's tokenizer), per fine-tuning run, test set and class."""
    from natcomp import hf
    from natcomp.plane.finetune import subword_table
    from natcomp.plane.report import plot_subword_analysis

    predictions = concat_tsv(prediction_paths)
    tokenizer = hf.load_tokenizer(model, "plane.finetune.model")
    table = subword_table(predictions, tokenizer)
    table["split"] = table["split"].astype(int)
    write_tsv(out_table, table, float_format="%.4f")
    plot_subword_analysis(table, out_png)
    return table


def concat_tsv(paths: Sequence[str | Path]) -> pd.DataFrame:
    frames = [read_tsv(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def with_paper(table: pd.DataFrame, name: str, keys: Sequence[str]) -> pd.DataFrame:
    """``table`` with the paper's value of each cell it reports beside it (``paper_<column>``,
    from resources/plane/published.tsv: Tables 4, 5 and 6), for the rows of the paper's
    models and settings."""
    from natcomp.published import add_paper_columns, published_path, read_published

    return add_paper_columns(table, read_published(published_path("plane")), name, keys)


def prompting_tables(
    prediction_paths: Sequence[str | Path],
    out_table4: str | Path,
    out_cells: str | Path,
    out_items: str | Path | None = None,
) -> None:
    """Table 4 analogue and F1 per model x template x verbaliser x class x IT; with
    ``out_items`` the predictions behind them per template x verbaliser and item."""
    from natcomp.plane.scoring import f1_table
    from natcomp.plane.tables import table4

    predictions = concat_tsv(prediction_paths)
    for column in ("gold", "predicted"):
        predictions[column] = predictions[column].astype(int)
    table = with_paper(table4(predictions), "table4_prompting", ["model", "class"])
    write_tsv(out_table4, table, float_format="%.1f")
    cells = f1_table(predictions, ["model", "template", "verbaliser", "class", "it"])
    write_tsv(out_cells, cells, float_format="%.1f")
    if out_items is not None:
        write_items(out_items, predictions, ["template", "verbaliser"], PROMPT_ITEM)


def nli_tables(
    prediction_paths: Sequence[str | Path],
    out_table5: str | Path,
    out_figure_data: str | Path,
    out_items: str | Path | None = None,
) -> pd.DataFrame:
    """Table 5 analogue and the F1 per model x class x IT of Figure 1; with ``out_items`` the
    predictions behind them per item."""
    from natcomp.plane.tables import figure1_table, table5

    predictions = concat_tsv(prediction_paths)
    for column in ("gold", "predicted"):
        predictions[column] = predictions[column].astype(int)
    table = with_paper(table5(predictions), "table5_nli", ["model", "class"])
    write_tsv(out_table5, table, float_format="%.1f")
    figure = figure1_table(predictions)
    write_tsv(out_figure_data, figure, float_format="%.1f")
    if out_items is not None:
        write_items(out_items, predictions, [], NLI_ITEM)
    return figure


def finetune_table(
    accuracy_paths: Sequence[str | Path],
    out_table6: str | Path,
    out_all: str | Path,
    prediction_paths: Sequence[str | Path] = (),
    out_items: str | Path | None = None,
) -> pd.DataFrame:
    """Table 6 analogue (mean and sd over splits) and every split's accuracy per class; with
    ``out_items`` whether each test item of each split was right (from ``prediction_paths``)."""
    from natcomp.plane.tables import TABLE6_KEYS, table6

    results = concat_tsv(accuracy_paths)
    for column in ("accuracy", "chance"):
        results[column] = results[column].astype(float)
    results["split"] = results["split"].astype(int)
    write_tsv(out_all, results, float_format="%.4f")
    table = with_paper(table6(results), "table6_finetune", TABLE6_KEYS)
    write_tsv(out_table6, table, float_format="%.4f")
    if out_items is not None:
        from natcomp.plane.outcomes import FINETUNE_ITEM_COLUMNS, finetune_items

        write_tsv(out_items, finetune_items(concat_tsv(prediction_paths)), list(FINETUNE_ITEM_COLUMNS))
    return table


def items_table(items_path: str | Path, out: str | Path) -> None:
    """Items per class and IT (positives and totals)."""
    write_tsv(out, items_mod.item_counts(read_items(items_path)))


def figure1(figure_data_path: str | Path, out_png: str | Path) -> None:
    """Figure 1 analogue: F1 per inference type (x), class (hue), one panel per NLI model."""
    from natcomp.plane.report import plot_f1_by_class_and_it

    data = read_tsv(figure_data_path, required=["model", "class", "it", "f1"])
    data["f1"] = data["f1"].astype(float)
    plot_f1_by_class_and_it(data, out_png)


def demo_models(
    items_path: str | Path, verbalisers: Mapping[str, Sequence[str]], tiny: Mapping, out_masked_lm, out_nli
) -> None:
    """The demo's tiny, untrained masked LM and NLI model (``natcomp.hf.build_tiny_model``).

    Their vocabulary holds every word of the evaluation items, of the prompt templates and
    the verbalisers, so no word is [UNK] and every verbaliser is one token. Untrained, their
    answers do not depend on the item: their scores are at chance by construction.
    """
    from natcomp import hf
    from natcomp.plane.prompting import TEMPLATES

    items = read_items(items_path)
    words = [*items["sentence"], *(t for pair in TEMPLATES.values() for t in pair)]
    words += [w for pair in verbalisers.values() for w in pair]
    vocabulary = [w for w in hf.words_for_vocabulary(words) if w not in ("{", "}")]
    vocabulary = [w for w in vocabulary if w not in ("c1", "c2", "v", "mask")] + ["example", "type"]
    size = {k: tiny[k] for k in ("hidden_size", "layers", "heads")}
    hf.build_tiny_model(out_masked_lm, vocabulary, kind="masked_lm", seed=tiny["seed"], **size)
    hf.build_tiny_model(
        out_nli,
        vocabulary,
        kind="sequence_classification",
        seed=tiny["seed"],
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        **size,
    )


RELEASED_CHECK_COLUMNS = ["split", "layout", "side", "rows", "label_agreement", "duplicates", "draws"]


def check_released_pair(
    split: int, layout: str, test_path: str | Path, train_path: str | Path | None = None
) -> list[dict]:
    """Check one released split as published; return one table row per side.

    Each side: labels against Table 1 (the share that agrees is reported), the draw
    structure of its layout (:func:`natcomp.plane.splits.check_blocks`) on the rows as
    they are, and the number of duplicate rows (counted and reported, never removed: the
    One-IT files hold them as released). With a train file, the pair must also pass
    :func:`natcomp.plane.splits.check_split` (disjoint adjectives and nouns, for One-IT
    also hypernyms across roles; no sentence on both sides; 50/50 labels per side).
    Raises :class:`natcomp.plane.splits.SplitLeak` on a leak or a broken block.
    """
    sides = {"test": read_released(test_path, layout)}
    if train_path is not None:
        sides = {"train": read_released(train_path, layout), **sides}
    rows = []
    for side, frame in sides.items():
        wrong = released.label_disagreements(frame)
        duplicates = int(frame["sentence"].duplicated().sum())
        rows.append(
            {
                "split": split,
                "layout": layout,
                "side": side,
                "rows": len(frame),
                "label_agreement": (len(frame) - len(wrong)) / len(frame),
                "duplicates": duplicates,
                "draws": splits.check_blocks(frame, layout),
            }
        )
        log.info(
            "released %s %s %d: %d rows, %d duplicate row(s) (kept), %d draws, %d label(s) off Table 1",
            layout,
            side,
            split,
            len(frame),
            duplicates,
            rows[-1]["draws"],
            len(wrong),
        )
    if train_path is not None:
        one_it = layout == "one_it"
        splits.check_split(
            sides["train"],
            sides["test"],
            roles=("adj", "noun", "hyp") if one_it else ("adj", "noun"),
            cross_role=one_it,
            allow_duplicates=True,
        )
        log.info("released %s split %d: train and test disjoint and balanced", layout, split)
    return rows


def check_released(paths: Sequence[str | Path], seeds: Sequence[int], out: str | Path) -> pd.DataFrame:
    """Check every released train/test pair (files ``{ood,one_it}_{train,test}_{seed}.pkl``)
    with :func:`check_released_pair`. A leaking pair fails the job; the table
    (:data:`RELEASED_CHECK_COLUMNS`) is written only when every pair passed."""
    by_name = {Path(p).name: Path(p) for p in paths}
    rows = []
    for seed in seeds:
        for layout in ("ood", "one_it"):
            test, train = (by_name[f"{layout}_{side}_{seed}.pkl"] for side in ("test", "train"))
            rows.extend(check_released_pair(seed, layout, test, train))
    table = pd.DataFrame(rows, columns=RELEASED_CHECK_COLUMNS)
    write_tsv(out, table, RELEASED_CHECK_COLUMNS, float_format="%.4f")
    return table


def read_released(path, layout=None):
    return released.read_released(path, layout)
