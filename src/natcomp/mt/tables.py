"""Tables of the MT compositionality tests from per-item scores.

Per-item score files (written by the ``mt_score`` rule, one per model checkpoint and
test) carry the model and test in their columns (:data:`natcomp.mt.scoring.MODEL_COLUMNS`:
system, size, seed, checkpoint, test, data_type, decode_signature) and the items with
label columns ``consistent``, ``synonym_consistent`` or ``overgeneralised`` (empty where
an item cannot be scored).

Models and systems
------------------
A *system* is a source of translations. The models the workflow trains form the system
:data:`~natcomp.mt.scoring.TRAINED_SYSTEM` (``trained``), one model per corpus size and
seed, scored at the best checkpoint or at every kept epoch checkpoint. A pretrained
system (a Hugging Face model named in the configuration) is one released model: its
``size`` and ``seed`` are empty and its only checkpoint is :data:`FINAL_CHECKPOINT`.
Per-model tables have the columns ``system, size, seed`` first and list the trained
models first (sizes in config order, then seeds), then the pretrained systems in config
order. Summaries compare *model groups* (:func:`model_group`): each corpus size of the
trained system (its seeds averaged) and each pretrained system, in that order.

Aggregation follows the paper: a consistency or overgeneralisation score is the mean of
the labels of the scored items; summaries average over seeds (and templates, pairs or
idioms) like its Tables 4, 6 and 8. Per-model tables keep each model's decode signature.
Empty seeds and checkpoints are read as missing integers (pandas ``Int64``) and written as
empty cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from natcomp.errors import InputError
from natcomp.mt.registry import CONDITION_NAMES, DATA_TYPES, TESTS
from natcomp.mt.scoring import FINAL_CHECKPOINT, MODEL_COLUMNS, TRAINED_SYSTEM
from natcomp.published import PAPER_PREFIX, SD_SUFFIX, SPREAD_RULE, add_paper_columns
from natcomp.tsv import read_tsv, write_tsv

_LABELS = sorted({label for test in TESTS.values() for label in test.labels})
_METRICS = {metric for test in TESTS.values() for metric in test.labels.values()}
#: integer columns that are never empty, and those that are empty for a pretrained system
#: (its seed, its checkpoint) or where a curve has no peak
_INTEGER_COLUMNS = ("template", "n")
_NULLABLE_INTEGER_COLUMNS = ("seed", "checkpoint", "peak_checkpoint")
#: the columns that name one model: a trained model's size and seed, or a pretrained system
MODEL_KEYS = ["system", "size", "seed"]


def nullable_integers(values: pd.Series) -> pd.Series:
    """Integers with empty cells as missing values (``Int64``)."""
    return pd.to_numeric(values.replace("", None), errors="raise").astype("Int64")


def read_scores(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Concatenate score files: labels as numbers, templates as integers and seeds as
    nullable integers (``Int64``; a pretrained system's seed is empty: missing)."""
    if not paths:
        raise InputError("scores", "no score files given")
    frame = pd.concat([read_tsv(path, MODEL_COLUMNS) for path in paths], ignore_index=True)
    for label in _LABELS:
        if label in frame.columns:
            frame[label] = pd.to_numeric(frame[label].replace("", None), errors="raise")
    frame["template"] = frame["template"].astype(int)
    frame["seed"] = nullable_integers(frame["seed"])
    return frame


def read_table(path: str | Path) -> pd.DataFrame:
    """A table written by :func:`write_table`, with its numbers as numbers again (seeds and
    checkpoints as ``Int64``: empty for a pretrained system)."""
    table = read_tsv(path)
    for column in table.columns:
        if column in _INTEGER_COLUMNS:
            table[column] = table[column].astype(int)
        elif column in _NULLABLE_INTEGER_COLUMNS:
            table[column] = nullable_integers(table[column])
        elif column.removeprefix(PAPER_PREFIX).removesuffix(SD_SUFFIX) in _METRICS | {"peak"}:
            table[column] = pd.to_numeric(table[column].replace("", None))
    return table


def model_group(table: pd.DataFrame) -> pd.Series:
    """The model group of each row: the corpus size of a trained model, the name of a
    pretrained system (one model)."""
    return table["size"].where(table["system"] == TRAINED_SYSTEM, table["system"])


def _in_order(present: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """``preferred`` values first (in their order), then any other present value, sorted."""
    present = list(dict.fromkeys(present))
    return [v for v in preferred if v in present] + sorted(v for v in present if v not in preferred)


def model_groups(table: pd.DataFrame, sizes: Sequence[str], systems: Sequence[str] = ()) -> list[str]:
    """The model groups of ``table`` in display order: the trained sizes in config order,
    then the pretrained systems in config order (values missing from the configuration
    sorted after each). A system named like a corpus size would make one column of two
    groups: ``ValueError``."""
    trained = table["system"] == TRAINED_SYSTEM
    pretrained = _in_order(table.loc[~trained, "system"], systems)
    trained_sizes = _in_order(table.loc[trained, "size"], sizes)
    clash = sorted(set(pretrained) & set(trained_sizes))
    if clash:
        raise ValueError(f"the system(s) {', '.join(clash)} have the name of a corpus size; rename them")
    return trained_sizes + pretrained


def _rate(frame: pd.DataFrame, keys: list[str], label: str, name: str) -> pd.DataFrame:
    """Mean of a boolean label over the scored (non-empty) items, and their number."""
    scored = frame.assign(**{label: pd.to_numeric(frame[label], errors="raise")}).dropna(subset=[label])
    grouped = scored.groupby(keys, sort=False, dropna=False)[label]
    return grouped.agg(**{name: "mean", "n": "count"}).reset_index()


def order_rows(
    table: pd.DataFrame, by: list[str], sizes: Sequence[str] = (), systems: Sequence[str] = ()
) -> pd.DataFrame:
    """Sort by ``by`` (stable): the trained system first, then the pretrained ``systems``;
    sizes in config order (a pretrained system's empty size last); data types and
    conditions in the paper's order; synonym pairs and idioms in first-seen order; seeds
    and other columns by value (missing last). Values not in an order sort after it."""
    orders = {
        "system": [TRAINED_SYSTEM, *systems],
        "size": [*sizes, ""],
        "data_type": list(DATA_TYPES),
        "condition": list(CONDITION_NAMES),
    }
    # Synonym pairs and idioms keep the order of the resource lists, in which items are made.
    for column in ("pair", "idiom"):
        if column in table.columns:
            orders[column] = list(pd.unique(table[column]))
    table = table.copy()
    ordered = [column for column in orders if column in table.columns]
    for column in ordered:
        categories = [*orders[column], *sorted(set(table[column]) - set(orders[column]))]
        table[column] = pd.Categorical(table[column], categories=categories, ordered=True)
    table = table.sort_values(by, kind="stable").reset_index(drop=True)
    for column in ordered:
        table[column] = table[column].astype(str)
    return table


def _with_signature(table: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Add each model's decode signature (one per system, size, seed and checkpoint)."""
    signatures = scores[[*MODEL_KEYS, "checkpoint", "decode_signature"]].drop_duplicates()
    per_model = signatures.groupby(MODEL_KEYS, sort=False, dropna=False)["decode_signature"].agg(
        lambda values: values.iloc[0] if len(values) == 1 else "; ".join(values)
    )
    return table.merge(per_model.reset_index(), on=MODEL_KEYS, how="left")


def systematicity_table(scores: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()) -> pd.DataFrame:
    """``system, size, seed, data_type, condition, template, consistency, n, decode_signature``."""
    keys = [*MODEL_KEYS, "data_type", "condition", "template"]
    table = order_rows(_rate(scores, keys, "consistent", "consistency"), keys, sizes, systems)
    return _with_signature(table, scores)


def substitutivity_table(scores: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()) -> pd.DataFrame:
    """``system, size, seed, data_type, pair, template, consistency, synonym_consistency, n, decode_signature``."""
    keys = [*MODEL_KEYS, "data_type", "pair", "template"]
    full = _rate(scores, keys, "consistent", "consistency")
    synonym = _rate(scores, keys, "synonym_consistent", "synonym_consistency").drop(columns="n")
    table = order_rows(full.merge(synonym, on=keys, how="left"), keys, sizes, systems)
    return _with_signature(table[[*keys, "consistency", "synonym_consistency", "n"]], scores)


def checkpoint_epochs(scores: pd.DataFrame) -> pd.Series:
    """The epoch of each overgeneralisation score's checkpoint (``Int64``): ``epochN`` of a
    trained model is N; the :data:`FINAL_CHECKPOINT` of a pretrained system, which has no
    epochs, is missing. Any other checkpoint is a ``ValueError``."""
    epochs = scores["checkpoint"].str.extract(r"^epoch(\d+)$", expand=False)
    trained = scores["system"] == TRAINED_SYSTEM
    expected = epochs.notna().where(trained, scores["checkpoint"] == FINAL_CHECKPOINT)
    if not expected.all():
        row = scores[~expected].iloc[0]
        wanted = "an epoch checkpoint (epochN)" if row["system"] == TRAINED_SYSTEM else repr(FINAL_CHECKPOINT)
        raise ValueError(
            f"overgeneralisation score of system {row['system']!r} at checkpoint {row['checkpoint']!r}; expected "
            f"{wanted}: trained models are scored at every kept epoch, a pretrained system once, as released"
        )
    return pd.to_numeric(epochs).astype("Int64")


def overgeneralisation_table(
    scores: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()
) -> pd.DataFrame:
    """``system, size, seed, data_type, idiom, checkpoint, overgeneralisation, n, decode_signature``
    (templates pooled). ``checkpoint`` is the epoch of a trained model's checkpoint; it is
    empty for a pretrained system, whose one score is that of the released final model
    (:func:`checkpoint_epochs`; empty rather than ``final`` keeps the column integer). Each
    epoch checkpoint has a signature of its own, so the one of each row's checkpoint is kept."""
    scores = scores.assign(epoch=checkpoint_epochs(scores))
    model = [*MODEL_KEYS, "epoch"]
    keys = [*MODEL_KEYS, "data_type", "idiom", "epoch"]
    table = order_rows(_rate(scores, keys, "overgeneralised", "overgeneralisation"), keys, sizes, systems)
    signatures = scores[[*model, "decode_signature"]].drop_duplicates(model)
    table = table.merge(signatures, on=model, how="left").rename(columns={"epoch": "checkpoint"})
    return table[[*MODEL_KEYS, "data_type", "idiom", "checkpoint", "overgeneralisation", "n", "decode_signature"]]


#: the column of the overgeneralisation tables that says whose keyword lists were matched
KEYWORDS_COLUMN = "keywords"


#: what the ``keywords`` column adds to an idiom whose idiomatic translation in the target
#: language is the literal one (its score measures accuracy, not overgeneralisation)
WORD_FOR_WORD = "word for word in {language}: measures accuracy, not overgeneralisation; left out of means"


def keyword_lists(target_lang: str, idiom: str | None = None) -> str:
    """Whose idiom keyword lists a run into ``target_lang`` matches, as the overgeneralisation
    tables show it: ``Dutch: the paper's``, ``German: drafted by natcomp``. For an ``idiom``
    of a drafted list, also whether it is word for word in the language
    (:data:`WORD_FOR_WORD`) and which of its keywords stay although they fire on a template
    word (``kept_collisions``). The paper's lists are shown as they are: their one such
    keyword (Dutch rennen) is documented with them (docs/mt.md), and the Dutch tables stay
    the paper's."""
    from natcomp.mt.keyword_checks import kept_collision_note
    from natcomp.mt.languages import target_language

    language = target_language(target_lang)
    if language.idiom_keywords is None:
        return f"{language.name}: none"
    label = f"{language.name}: {language.idiom_keywords.source_label}"
    if idiom is None or language.idiom_keywords.source == "paper":
        return label
    notes = [WORD_FOR_WORD.format(language=language.name)] if language.is_word_for_word(idiom) else []
    notes += [note for note in [kept_collision_note(language, idiom)] if note]
    return "; ".join([label, *notes])


def word_for_word_idioms(target_lang: str) -> list[str]:
    """The idioms whose idiomatic translation in ``target_lang`` is the literal one
    (``idiom_keywords.word_for_word`` of its file): reported apart from means over idioms."""
    from natcomp.mt.languages import target_language

    keywords = target_language(target_lang).idiom_keywords
    return sorted(keywords.word_for_word) if keywords is not None else []


def no_keywords_table(target_lang: str) -> pd.DataFrame:
    """The one-row overgeneralisation table of a run into a language without idiom keywords:
    why the test is missing."""
    from natcomp.mt.languages import target_language

    language = target_language(target_lang)
    note = (
        f"overgeneralisation not scored: {language.name} has no idiom keywords "
        f"(resources/mt/languages/{language.code}.yaml has no idiom_keywords)"
    )
    return pd.DataFrame({KEYWORDS_COLUMN: [keyword_lists(target_lang)], "note": [note]})


def with_keyword_lists(table: pd.DataFrame, target_lang: str) -> pd.DataFrame:
    """``table`` with :data:`KEYWORDS_COLUMN` last: whose keyword lists its rows matched,
    and per idiom what :func:`keyword_lists` says of it."""
    labels = {idiom: keyword_lists(target_lang, idiom) for idiom in dict.fromkeys(table["idiom"])}
    return table.assign(**{KEYWORDS_COLUMN: table["idiom"].map(labels).astype(object)})


#: the ``note`` of an idiom whose curve is zero at every checkpoint (it has no peak)
NEVER_OVERGENERALISED = "never overgeneralised"
#: the ``note`` of a pretrained system's row in the peaks table: one score, no curve
FINAL_MODEL_ONLY = "final model only: no training curve"


def _with_seed_sd(means: pd.DataFrame, per_seed: pd.Series, keys: list[str], groups: Sequence[str]) -> pd.DataFrame:
    """Put the standard deviation over seeds of ``per_seed`` (one score per seed; sample
    sd, ddof 1) next to each model group's mean column: ``small, small_sd, medium, ...``.
    With one seed, and for a pretrained system (one model), the sd is undefined and stays
    empty."""
    spread = per_seed.groupby([*keys, "model"], sort=False).std(ddof=1).unstack("model")
    columns = []
    for group in groups:
        if group in means.columns:
            columns.append(group)
            means[group + SD_SUFFIX] = spread[group].reindex(pd.MultiIndex.from_frame(means[keys])).to_numpy()
            columns.append(group + SD_SUFFIX)
    return means[[*keys, *columns]]


def systematicity_summary(table: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()) -> pd.DataFrame:
    """Paper Table 4a: per data type and condition, consistency per model group (a
    corpus size: seed means, then template mean; a pretrained system: template mean), and
    next to it (``<group>_sd``) the standard deviation over seeds of each seed's score
    (its mean over templates); empty for a pretrained system. Columns: the sizes in config
    order, then the systems (:func:`model_groups`)."""
    keys = ["data_type", "condition"]
    table = table.assign(model=model_group(table))
    per_template = table.groupby([*keys, "template", "model"], sort=False)["consistency"].mean()
    summary = per_template.groupby([*keys, "model"], sort=False).mean().unstack("model").reset_index()
    per_seed = table.groupby([*keys, "model", "seed"], sort=False, dropna=False)["consistency"].mean()
    summary = _with_seed_sd(summary, per_seed, keys, model_groups(table, sizes, systems))
    return order_rows(summary, keys)


def substitutivity_summary(table: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()) -> pd.DataFrame:
    """Paper Table 6a: per data type, (synonym) consistency per model group, averaged over
    pairs, templates and seeds, and next to it (``<group>_sd``) the standard deviation
    over seeds of each seed's score (its mean over pairs and templates); empty for a
    pretrained system. Columns as in :func:`systematicity_summary`."""
    keys = ["data_type", "metric"]
    long = table.assign(model=model_group(table)).melt(
        id_vars=["data_type", "model", "pair", "template", "seed"],
        value_vars=["consistency", "synonym_consistency"],
        var_name="metric",
    )
    summary = long.groupby([*keys, "model"], sort=False)["value"].mean().unstack("model").reset_index()
    per_seed = long.groupby([*keys, "model", "seed"], sort=False, dropna=False)["value"].mean()
    summary = _with_seed_sd(summary, per_seed, keys, model_groups(table, sizes, systems))
    return order_rows(summary, keys)


def overgeneralisation_peaks(table: pd.DataFrame, sizes: Sequence[str], *, systems: Sequence[str] = ()) -> pd.DataFrame:
    """Paper Table 8: per data type, model group and idiom, ``system, size, idiom, peak,
    peak_checkpoint, peak_sd, note``.

    For a corpus size of the trained system, ``peak`` is the peak of the seed-averaged
    curve and ``peak_checkpoint`` its epoch, with ``peak_sd`` the standard deviation over
    seeds at that epoch. An idiom whose curve is zero throughout has no peak: its
    ``peak_checkpoint`` is empty and ``note`` says :data:`NEVER_OVERGENERALISED`. A
    pretrained system has one point, no curve: ``peak`` is its score, ``peak_checkpoint``
    and ``peak_sd`` are empty and ``note`` says :data:`FINAL_MODEL_ONLY`."""
    keys = ["data_type", *MODEL_KEYS[:2], "idiom"]
    columns = [*keys, "peak", "peak_checkpoint", "peak_sd", "note"]
    trained = table[table["system"] == TRAINED_SYSTEM]
    parts = []
    if len(trained):
        curve = trained.groupby([*keys, "checkpoint"], sort=False)["overgeneralisation"].agg(peak="mean", peak_sd="std")
        curve = curve.reset_index()
        peaks = curve.loc[curve.groupby(keys, sort=False)["peak"].idxmax()].rename(
            columns={"checkpoint": "peak_checkpoint"}
        )
        never = peaks["peak"] == 0
        peaks["peak_checkpoint"] = peaks["peak_checkpoint"].astype("Int64").mask(never)
        peaks["note"] = [NEVER_OVERGENERALISED if flag else "" for flag in never]
        parts.append(peaks)
    pretrained = table[table["system"] != TRAINED_SYSTEM]
    if len(pretrained):
        points = pretrained.groupby(keys, sort=False)["overgeneralisation"].mean().rename("peak").reset_index()
        points["peak_checkpoint"] = pd.array([pd.NA] * len(points), dtype="Int64")
        points["peak_sd"] = float("nan")
        points["note"] = FINAL_MODEL_ONLY
        parts.append(points)
    if not parts:
        return pd.DataFrame(columns=columns)
    peaks = pd.concat(parts, ignore_index=True)
    return order_rows(peaks, ["data_type", *MODEL_KEYS[:2]], sizes, systems)[columns]


#: the target language the MT paper published its values for (resources/mt/published.tsv:
#: English -> Dutch; the source language is always English)
PUBLISHED_TARGET = "nl"


def published_for(published: pd.DataFrame, target_lang: str) -> pd.DataFrame:
    """The published values a run's tables and figures put beside its numbers: the paper's
    where the run translates into the language they were published for (Dutch), none for
    any other target language (the Dutch paper's numbers are no reference for German)."""
    return published if target_lang == PUBLISHED_TARGET else published.iloc[0:0]


#: the summaries that reproduce a table of the paper -> their key columns (the
#: ``our_row`` of resources/mt/published.tsv joins these columns' values)
PUBLISHED_KEYS = {
    "systematicity_summary": ["data_type", "condition"],
    "substitutivity_summary": ["data_type", "metric"],
}


def with_published(tables: dict[str, pd.DataFrame], published: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables, each summary of :data:`PUBLISHED_KEYS` with the paper's values beside
    its own (``paper_small``, ``paper_medium``, ``paper_full``: paper Tables 4a and 6a)."""
    return {
        name: add_paper_columns(table, published, name, PUBLISHED_KEYS[name]) if name in PUBLISHED_KEYS else table
        for name, table in tables.items()
    }


def write_table(table: pd.DataFrame, path: str | Path) -> None:
    """Write a table atomically, scores to 4 decimal places, missing values empty."""
    write_tsv(path, table, float_format="%.4f")


#: the heading of each final table's HTML rendering in the report, by output name
_PAPER_CELL = "; paper_*: the paper's mean and sd over its five seeds of the same cell"
_PAPER_SUMMARY = f"; paper_<size>: as printed, paper_<size>_sd: over its five seeds; {SPREAD_RULE}"
TITLES = {
    "systematicity": "Systematicity per model, data type, condition and template (best checkpoint; "
    "pretrained systems: the released model)" + _PAPER_CELL,
    "substitutivity": "Substitutivity per model, data type, synonym pair and template (best checkpoint; "
    "pretrained systems: the released model)" + _PAPER_CELL,
    "overgeneralisation": "Overgeneralisation per model, data type, idiom and epoch checkpoint "
    "(empty checkpoint: a pretrained system's released final model)" + _PAPER_CELL,
    "systematicity_summary": "Systematicity summary (paper Table 4a): mean consistency per corpus size and "
    "pretrained system, sd over seeds" + _PAPER_SUMMARY,
    "substitutivity_summary": "Substitutivity summary (paper Table 6a): mean consistency per corpus size and "
    "pretrained system, sd over seeds" + _PAPER_SUMMARY,
    "overgeneralisation_peaks": "Peak overgeneralisation per idiom (paper Table 8); a pretrained system's final "
    f"score; paper_peak and paper_peak_sd: the peak of the paper's seed-averaged curve and its sd there; {SPREAD_RULE}",
    "manual_analysis": "Manual analysis: annotated categories of inconsistent pairs (paper Figure 5)",
}
