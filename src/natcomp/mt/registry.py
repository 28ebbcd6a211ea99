"""The MT test registry: one specification per test, read by everything else.

Item building, scoring, tables, figures, the config schema's enums and the workflow's
wildcard constraints all take the tests, their data types and conditions from
:data:`TESTS`. Adding a test is one new :class:`MtTest` entry plus its labelling function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from natcomp.mt.consistency import (
    is_overgeneralised,
    np_vp_consistent,
    reference_is_paraphrase,
    s_conj_consistent,
    second_conjunct,
    substitution_consistent,
    synonym_translation,
)

#: every data type, in the paper's order, with the name tables and figures show
DATA_TYPES: dict[str, str] = {
    "synthetic": "synthetic",
    "semi_natural": "semi-natural",
    "natural": "natural",
    "random_words": "random words",
}

#: the three measurements the tests belong to; each has its own final table
MEASUREMENTS = ("systematicity", "substitutivity", "overgeneralisation")

#: checkpoint kinds: the best checkpoint, or every kept epoch checkpoint (training curves)
CHECKPOINT_KINDS = ("best", "epochs")


@dataclass(frozen=True)
class ScoringContext:
    """What labelling needs besides items and translations.

    ``synonym_candidates`` maps a synonym pair's name (``aeroplane/airplane``) to its
    candidate translations in the target language; ``idiom_keywords`` an idiom (``by
    heart``) to its literal keywords in the target language. ``keyword_matching`` and
    ``paraphrase_references_only`` are the overgeneralisation options of
    :func:`natcomp.mt.scoring.score_items`, ``s_conj_missing_conjunct`` and
    ``s_conj_split`` its S -> S CONJ S options; ``language`` is the target language's code
    (``resources/mt/languages/<code>.yaml``), which every judgement of
    :mod:`natcomp.mt.consistency` takes.
    """

    synonym_candidates: Mapping[str, Sequence[str]] = field(default_factory=dict)
    idiom_keywords: Mapping[str, Sequence[str]] = field(default_factory=dict)
    keyword_matching: str = "inflected"
    paraphrase_references_only: bool = False
    s_conj_missing_conjunct: str = "pair"
    s_conj_split: str = "tokens"
    language: str = "nl"


Labeller = Callable[[pd.DataFrame, Callable[[str], str], ScoringContext], pd.DataFrame]


@dataclass(frozen=True)
class MtTest:
    """One MT compositionality test.

    ``item_columns`` are the required columns of its item files, ``source_columns`` the
    ones translated; ``conditions`` the allowed values of a ``condition`` column (empty:
    no such column); ``entry`` names the column that refers to a resource entry by name
    (``pair`` or ``idiom``); ``labels`` maps label columns to their summary metric;
    ``group_by`` is the default grouping of a per-model summary; ``label`` computes the
    labels (and the translation columns) of an item frame.
    """

    name: str
    display: str
    measurement: str
    item_columns: tuple[str, ...]
    source_columns: tuple[str, ...]
    data_types: tuple[str, ...]
    checkpoints: str
    labels: Mapping[str, str]
    group_by: tuple[str, ...]
    label: Labeller
    conditions: Mapping[str, str] = field(default_factory=dict)
    entry: str | None = None


def _boolean(values) -> pd.arrays.BooleanArray:
    return pd.array(list(values), dtype="boolean")


def _translate_pairs(items: pd.DataFrame, translate: Callable[[str], str]) -> pd.DataFrame:
    out = items.copy()
    out["translation_a"] = [translate(s) for s in items["source_a"]]
    out["translation_b"] = [translate(s) for s in items["source_b"]]
    return out


def _label_np_vp(items: pd.DataFrame, translate, context: ScoringContext) -> pd.DataFrame:
    out = _translate_pairs(items, translate)
    language = context.language
    out["consistent"] = _boolean(
        np_vp_consistent(a, b, language=language) for a, b in zip(out["translation_a"], out["translation_b"])
    )
    return out


def _label_s_conj(items: pd.DataFrame, translate, context: ScoringContext) -> pd.DataFrame:
    out = _translate_pairs(items, translate)
    rule, language = context.s_conj_split, context.language
    out["conjunct_a"] = [second_conjunct(a, rule, language=language) for a in out["translation_a"]]
    out["conjunct_b"] = [second_conjunct(b, rule, language=language) for b in out["translation_b"]]
    consistent = _boolean(
        s_conj_consistent(a, b, rule, language=language) for a, b in zip(out["translation_a"], out["translation_b"])
    )
    if context.s_conj_missing_conjunct == "triple":
        consistent[~_complete_triples(out).to_numpy()] = pd.NA
    out["consistent"] = consistent
    return out


def _complete_triples(labelled: pd.DataFrame) -> pd.Series:
    """Per S -> S CONJ S item: whether every translation of its triple has a second conjunct.

    An item's triple is (S1, S1', S3) with one S2: the rows that share its ``template`` and
    ``source_a`` (``S1 , and S2``), i.e. its ``s1_prime`` and ``s3`` items. The original
    code scored an item in neither condition unless the translations of all three sources
    had a second conjunct (under ``s_conj_split="original"`` an empty conjunct is found:
    the original skipped only translations without ``" en "``). ``labelled`` needs the
    columns ``template``, ``source_a``, ``conjunct_a`` and ``conjunct_b`` (NA/``None``:
    not found).
    """
    found = labelled["conjunct_a"].notna() & labelled["conjunct_b"].notna()
    keys = [labelled["template"], labelled["source_a"]]
    return found.groupby(keys, sort=False).transform("all").astype(bool)


def _label_substitutivity(items: pd.DataFrame, translate, context: ScoringContext) -> pd.DataFrame:
    out = _translate_pairs(items, translate)
    candidates = [_resource(context.synonym_candidates, name, "synonym pair") for name in items["pair"]]
    language = context.language
    out["synonym_a"] = [synonym_translation(a, c, language=language) for a, c in zip(out["translation_a"], candidates)]
    out["synonym_b"] = [synonym_translation(b, c, language=language) for b, c in zip(out["translation_b"], candidates)]
    out["consistent"] = _boolean(
        substitution_consistent(a, b, language=language) for a, b in zip(out["translation_a"], out["translation_b"])
    )
    out["synonym_consistent"] = _boolean(out["synonym_a"] == out["synonym_b"])
    return out


def _label_overgeneralisation(items: pd.DataFrame, translate, context: ScoringContext) -> pd.DataFrame:
    out = items.copy()
    out["translation"] = [translate(s) for s in items["source"]]
    matching, language = context.keyword_matching, context.language
    labels: list[bool | None] = []
    paraphrase: list[bool] = []
    for row in out[["item", "idiom", "reference", "translation"]].itertuples(index=False):
        keywords = _resource(context.idiom_keywords, row.idiom, "idiom")
        if context.paraphrase_references_only:
            # an empty reference contains no keyword: a paraphrase, as in the original code
            reference = "" if pd.isna(row.reference) else str(row.reference)
            is_paraphrase = reference_is_paraphrase(reference, keywords, matching=matching, language=language)
            paraphrase.append(is_paraphrase)
            if not is_paraphrase:
                labels.append(None)
                continue
        labels.append(is_overgeneralised(row.translation, keywords, matching=matching, language=language))
    if context.paraphrase_references_only:
        out["reference_paraphrase"] = _boolean(paraphrase)
    out["overgeneralised"] = _boolean(labels)
    return out


def _resource(entries: Mapping[str, Sequence[str]], name: str, what: str) -> Sequence[str]:
    try:
        return entries[name]
    except KeyError:
        known = ", ".join(sorted(entries)) or "none given"
        raise ValueError(f"unknown {what} {name!r}; known: {known}") from None


_PAIR_COLUMNS = ("item", "template", "condition", "source_a", "source_b")

TESTS: dict[str, MtTest] = {
    test.name: test
    for test in (
        MtTest(
            name="np_vp",
            display="S -> NP VP",
            measurement="systematicity",
            item_columns=_PAIR_COLUMNS,
            source_columns=("source_a", "source_b"),
            conditions={"np_prime": "NP -> NP'", "vp_prime": "VP -> VP'"},
            data_types=("synthetic", "semi_natural"),
            checkpoints="best",
            labels={"consistent": "consistency"},
            group_by=("template", "condition"),
            label=_label_np_vp,
        ),
        MtTest(
            name="s_conj",
            display="S -> S CONJ S",
            measurement="systematicity",
            item_columns=_PAIR_COLUMNS,
            source_columns=("source_a", "source_b"),
            conditions={"s1_prime": "S1 -> S1'", "s3": "S1 -> S3"},
            data_types=("synthetic", "semi_natural", "natural"),
            checkpoints="best",
            labels={"consistent": "consistency"},
            group_by=("template", "condition"),
            label=_label_s_conj,
        ),
        MtTest(
            name="substitutivity",
            display="substitutivity",
            measurement="substitutivity",
            item_columns=("item", "template", "pair", "source_a", "source_b"),
            source_columns=("source_a", "source_b"),
            data_types=("synthetic", "semi_natural", "natural"),
            checkpoints="best",
            labels={"consistent": "consistency", "synonym_consistent": "synonym_consistency"},
            group_by=("template", "pair"),
            label=_label_substitutivity,
            entry="pair",
        ),
        MtTest(
            name="overgeneralisation",
            display="overgeneralisation",
            measurement="overgeneralisation",
            item_columns=("item", "template", "idiom", "source", "reference"),
            source_columns=("source",),
            data_types=("synthetic", "semi_natural", "natural", "random_words"),
            checkpoints="epochs",
            labels={"overgeneralised": "overgeneralisation"},
            group_by=("template", "idiom"),
            label=_label_overgeneralisation,
            entry="idiom",
        ),
    )
}

#: every condition's display name, in the registry's order
CONDITION_NAMES: dict[str, str] = {c: name for test in TESTS.values() for c, name in test.conditions.items()}


def get_test(name: str) -> MtTest:
    """The registry entry of ``name``; ``ValueError`` lists the known tests."""
    try:
        return TESTS[name]
    except KeyError:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {name!r}") from None


def tests_of(measurement: str | None = None, checkpoints: str | None = None) -> list[str]:
    """Names of the tests of one measurement and/or checkpoint kind, in registry order."""
    return [
        t.name
        for t in TESTS.values()
        if (measurement is None or t.measurement == measurement)
        and (checkpoints is None or t.checkpoints == checkpoints)
    ]


def check_data_types(selection: Mapping[str, Sequence[str]]) -> None:
    """Check a ``{test: [data types]}`` selection (the config's ``mt.tests.data_types``)."""
    for test, data_types in selection.items():
        spec = get_test(test)
        unknown = [d for d in data_types if d not in spec.data_types]
        if unknown:
            raise ValueError(
                f"test {test} is not defined on data type(s) {', '.join(unknown)}; "
                f"it runs on {', '.join(spec.data_types)}"
            )
