"""One model in several target languages (``--target-lang de fr es``): each language's run
config, and the per-language tables that put the runs side by side.

``natcomp mt evaluate --model X --target-lang nl de`` (and ``natcomp evaluate``) runs the
base config once per target language, each in ``runs/<name>/<code>/``, with
``mt.target_lang`` set to the language (:func:`language_base`). At demo scale the demo
corpus is English-Dutch, so a run into any other language is adapted by the config's
``english_side_only`` (no training, no BLEU, no natural data, ...) and the plan says what
that leaves out (``missing_at_demo_scale``).

After the runs, :func:`write_language_tables` writes ``runs/<name>/languages/<measure>.tsv``
for systematicity, substitutivity, overgeneralisation and BLEU: the measure's summary rows,
a column per language (in the order given) and a ``note`` column saying why a language's
cell is empty (:func:`why_missing`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from natcomp.errors import OptionError

__all__ = [
    "KEYWORDS_ROW",
    "MEAN_ROW",
    "LANGUAGES_FOLDER",
    "MEASURES",
    "check_target_langs",
    "compare_languages",
    "language_base",
    "target_languages",
    "why_missing",
    "write_language_tables",
]

#: the folder of the per-language tables, in the run folder of all the languages
LANGUAGES_FOLDER = "languages"
#: the ``data_type`` of the overgeneralisation table's last row: whose keyword lists each language used
KEYWORDS_ROW = "keyword lists"
#: the ``idiom`` of the overgeneralisation table's mean row of each data type: the mean over
#: the idioms that are word for word in none of the languages compared
MEAN_ROW = "mean over idioms not word for word"


@dataclass(frozen=True)
class Measure:
    """One per-language table: the language run's table it is read from, the columns that
    name a row, and the config's tests whose data types the rows are of."""

    file: str
    keys: tuple[str, ...]
    tests: tuple[str, ...] = ()
    title: str = ""


MEASURES = {
    "systematicity": Measure(
        "systematicity_summary.tsv", ("data_type", "condition"), ("np_vp", "s_conj"), "Systematicity"
    ),
    "substitutivity": Measure(
        "substitutivity_summary.tsv", ("data_type", "metric"), ("substitutivity",), "Substitutivity"
    ),
    "overgeneralisation": Measure(
        "overgeneralisation_peaks.tsv", ("data_type", "idiom"), ("overgeneralisation",), "Overgeneralisation"
    ),
    "bleu": Measure("bleu.tsv", ("split", "score"), (), "BLEU"),
}
#: the BLEU scores of a model's row of bleu.tsv, each a row of the per-language BLEU table
BLEU_SCORES = ("bleu_sacrebleu", "bleu_tokenised")


# --------------------------------------------------------------------------------------
# the runs' configs


def check_target_langs(codes: Sequence[str], option: str = "--target-lang") -> list:
    """The :class:`~natcomp.mt.languages.Language` of each code, every code checked before
    any run: an unknown code, one without a resource file, ``en`` or a code given twice is
    one line naming ``option``."""
    from natcomp.mt.languages import target_language

    seen = set()
    for code in codes:
        if code in seen:
            raise OptionError(option, f"{code!r} is given twice; expected each target language once")
        seen.add(code)
    return [target_language(code, option) for code in codes]


def language_labels(codes: Sequence[str], option: str = "--target-lang") -> list[str]:
    """Each code's label (``German (de)``), every code checked first (:func:`check_target_langs`)."""
    return [f"{language.name} ({language.code})" for language in check_target_langs(codes, option)]


def target_languages():
    """The MT family's part of a run per target language (:class:`natcomp.profile.runconfig.TargetLanguages`)."""
    from natcomp.profile.runconfig import TargetLanguages

    return TargetLanguages(check=language_labels, configure=language_base, write_tables=write_language_tables)


def language_base(base: Mapping, code: str) -> tuple[dict, list[str]]:
    """``base`` with ``mt.target_lang: code`` and what the run leaves out (empty when
    nothing): a run on the demo corpus into a language it lacks reads only its English side
    (:func:`natcomp.mt.config.english_side_only`, described by
    :func:`natcomp.mt.config.missing_at_demo_scale`)."""
    from natcomp.mt import config

    mt = base.get("mt")
    if not isinstance(mt, Mapping):
        return dict(base), []  # profile_config names the missing section
    mt = {**mt, "target_lang": code}
    left_out = config.missing_at_demo_scale(mt)
    if left_out:
        mt = config.english_side_only(mt)
    return {**base, "mt": mt}, left_out


# --------------------------------------------------------------------------------------
# the per-language tables


def _measure_rows(measure: str, table: pd.DataFrame, system: str) -> pd.DataFrame:
    """One language's rows of ``measure``: its key columns and ``value`` (a float, NaN when empty)."""
    spec = MEASURES[measure]
    if measure == "bleu":
        rows = table[(table["system"] == system) & (table.get("kind", "model") == "model")]
        records = []
        for split, *values in rows[["split", *BLEU_SCORES]].itertuples(index=False):
            records += [(split, score, value) for score, value in zip(BLEU_SCORES, values)]
        long = pd.DataFrame(records, columns=["split", "score", "value"])
    elif measure == "overgeneralisation":
        if "peak" not in table.columns:  # a language without idiom keywords: the table's note alone
            return pd.DataFrame(columns=[*spec.keys, "value"])
        long = table[table["system"] == system].rename(columns={"peak": "value"})
    else:
        if system not in table.columns:
            return pd.DataFrame(columns=[*spec.keys, "value"])
        long = table.rename(columns={system: "value"})
    long = long[[*spec.keys, "value"]].copy()
    long["value"] = pd.to_numeric(long["value"].replace("", None), errors="coerce")
    return long.drop_duplicates(list(spec.keys))


def why_missing(measure: str, row: Mapping[str, object], code: str, config: Mapping | None, scale: str) -> str:
    """Why language ``code``'s run (its run config ``config``) has no value in ``row`` of
    ``measure``, in words starting with the code."""
    from natcomp.mt.languages import load_language

    spec = MEASURES[measure]
    language = load_language(code)
    mt = (config or {}).get("mt") or {}
    if measure == "bleu":
        splits = (mt.get("bleu") or {}).get("splits")
        if config is not None and not splits:
            return f"{code}: BLEU not scored: no {language.name} references at {scale} scale (mt.bleu.splits: [])"
        if splits and row.get("split") not in splits:
            return f"{code}: split {row.get('split')} not in its mt.bleu.splits"
    if measure == "overgeneralisation" and language.idiom_keywords is None:
        return f"{code}: overgeneralisation not scored: {language.name} has no idiom keyword list"
    data_types = (mt.get("tests") or {}).get("data_types")
    data_type = row.get("data_type")
    if isinstance(data_types, Mapping) and data_type and spec.tests:
        used = {kind for test in spec.tests for kind in (data_types.get(test) or ())}
        if data_type not in used:
            where = " or ".join(f"mt.tests.data_types.{test}" for test in spec.tests)
            return f"{code}: {data_type} data not scored at {scale} scale (not in its {where})"
    return f"{code}: no such row in its {spec.file}"


def _read_config(run: Path) -> Mapping | None:
    import yaml

    from natcomp.profile.runconfig import CONFIG_FILE

    path = Path(run) / CONFIG_FILE
    if not path.is_file():
        return None
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def compare_languages(
    runs: Mapping[str, str | Path],
    system: str,
    *,
    scale: str = "demo",
    configs: Mapping[str, Mapping | None] | None = None,
) -> dict[str, pd.DataFrame]:
    """The per-language tables of one system's runs (language code -> run folder, in the
    columns' order): measure -> its key columns, a column per language and ``note``.

    The rows are every row any language has, in the order they first appear (the first
    language's first); a language without the row has an empty cell and the ``note`` says
    why (:func:`why_missing`; ``configs``: each run's config, default: read from its run
    folder). The overgeneralisation table ends in a :data:`KEYWORDS_ROW` row: whose idiom
    keyword lists each language used."""
    from natcomp.mt.languages import load_language
    from natcomp.tsv import read_tsv

    codes = list(runs)
    if configs is None:
        configs = {code: _read_config(Path(run)) for code, run in runs.items()}
    tables = {}
    for measure, spec in MEASURES.items():
        keys = list(spec.keys)
        per_language = {}
        for code, run in runs.items():
            path = Path(run) / "results" / "tables" / "mt" / spec.file
            if path.is_file():
                per_language[code] = _measure_rows(measure, read_tsv(path), system)
        rows: list[tuple] = []
        for code in codes:
            if code in per_language:
                rows += [tuple(key) for key in per_language[code][keys].itertuples(index=False, name=None)]
        rows = list(dict.fromkeys(rows))
        table = pd.DataFrame(rows, columns=keys)
        notes: list[list[str]] = [[] for _ in rows]
        for code in codes:
            values = {}
            if code in per_language:
                frame = per_language[code]
                values = dict(zip(frame[keys].itertuples(index=False, name=None), frame["value"]))
            column = []
            for index, key in enumerate(rows):
                value = values.get(key, float("nan"))
                column.append(value)
                if key not in values:
                    notes[index].append(why_missing(measure, dict(zip(keys, key)), code, configs.get(code), scale))
            table[code] = pd.Series(column, dtype=float)
        if measure == "overgeneralisation":
            table, notes = _with_means_apart_from_word_for_word(table, notes, codes)
        table["note"] = ["; ".join(dict.fromkeys(note)) for note in notes]
        if measure == "overgeneralisation":
            labels = {}
            for code in codes:
                keywords = load_language(code).idiom_keywords
                labels[code] = keywords.source_label if keywords is not None else "none"
            row = {"data_type": KEYWORDS_ROW, "idiom": "", **labels, "note": "whose idiom keyword lists each used"}
            table = pd.concat([table.astype(object), pd.DataFrame([row])], ignore_index=True)
        tables[measure] = table[[*keys, *codes, "note"]]
    return tables


def _with_means_apart_from_word_for_word(
    table: pd.DataFrame, notes: list[list[str]], codes: Sequence[str]
) -> tuple[pd.DataFrame, list[list[str]]]:
    """The per-idiom overgeneralisation rows with a note where the idiom is word for word in
    a language (its idiomatic translation is the literal one: the score measures accuracy
    there), and after each data type's rows a :data:`MEAN_ROW`: per language, the mean over
    the idioms that are word for word in none of the languages, so that every language's
    mean is over the same idioms (empty where a language lacks one of them)."""
    from natcomp.mt.languages import load_language

    spoken = {code: load_language(code) for code in codes}
    word_for_word = {idiom for language in spoken.values() for idiom in _word_for_word(language)}
    for index, idiom in enumerate(table["idiom"]):
        for code, language in spoken.items():
            if idiom in _word_for_word(language):
                notes[index].append(f"{code}: word for word in {language.name}, left out of the means")
    rows, row_notes = [], []
    for data_type, group in table.groupby("data_type", sort=False):
        common = group[~group["idiom"].isin(word_for_word)]
        row, note = {"data_type": data_type, "idiom": MEAN_ROW}, []
        for code in codes:
            values = common[code]
            row[code] = values.mean() if len(values) and values.notna().all() else float("nan")
            if len(values) and values.isna().any():
                note.append(f"{code}: not every idiom scored, no mean")
        left_out = sorted(set(group["idiom"]) & word_for_word)
        if left_out:
            note.append(f"without {', '.join(left_out)} (word for word in a language compared)")
        rows.append(row)
        row_notes.append(note)
    if not rows:
        return table, notes
    means = pd.DataFrame(rows, columns=list(table.columns))
    order = []  # each data type's idioms, then its mean
    for data_type in dict.fromkeys(table["data_type"]):
        order += [("idiom", i) for i in table.index[table["data_type"] == data_type]]
        order += [("mean", i) for i in means.index[means["data_type"] == data_type]]
    merged = pd.concat(
        [table.loc[i] if kind == "idiom" else means.loc[i] for kind, i in order], axis=1, ignore_index=True
    ).T
    merged_notes = [notes[i] if kind == "idiom" else row_notes[i] for kind, i in order]
    for code in codes:
        merged[code] = pd.to_numeric(merged[code])
    return merged.reset_index(drop=True), merged_notes


def _word_for_word(language) -> set[str]:
    return set(language.idiom_keywords.word_for_word) if language.idiom_keywords is not None else set()


def write_language_tables(
    runs: Mapping[str, str | Path],
    system: str,
    folder: str | Path,
    *,
    scale: str = "demo",
    configs: Mapping[str, Mapping | None] | None = None,
) -> list[Path]:
    """:func:`compare_languages` written to ``folder/<measure>.tsv`` (each atomically,
    scores to 4 decimal places, an empty cell where a language has no value)."""
    from natcomp.tsv import write_tsv

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for measure, table in compare_languages(runs, system, scale=scale, configs=configs).items():
        path = folder / f"{measure}.tsv"
        write_tsv(path, table, float_format="%.4f")
        written.append(path)
    return written
