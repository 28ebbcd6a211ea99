"""Paired comparisons of two models on the same items (``natcomp compare``, MT's size comparison).

Every headline value of natcomp is a statistic of per-item outcomes: a share of items
(consistency, accuracy, PSS), an F1 of predicted against gold labels, a correlation of
the model's per-item numbers with gold ones. Two models evaluated on the same config saw
the same items, so the comparison can be paired item by item (docs/profile.md, "Compare").

One model's outcomes on one row are an :class:`Outcomes`: per repetition (``seeds``:
training seeds, split seeds or prompt cells; one empty seed for a single run) and item,
the outcome (NaN where the item was not scored), with per item its stratum (the groups the
row's value averages over: templates, idioms, classes), its gold value and a covariate.
The row's value is :func:`value`: the mean over strata of the mean over seeds of the
statistic on a stratum's items in a seed (:data:`STATISTICS`), which reproduces the
families' tables.

:func:`paired_test` chooses the test that fits the outcome (:data:`TESTS`):

- binary outcomes, one run, equal item weights: the exact McNemar test, a binomial test
  on the discordant items (``scipy.stats.binomtest``);
- any other outcome a model's can be swapped with (a share, an F1 of labels, a ratio of
  shares), one run: the paired permutation (sign-flip) test, A's and B's outcome swapped
  per item (``scipy.stats.permutation_test``, ``permutation_type="samples"``);
- correlations with gold values (Pearson's r, Spearman's rho, partial rho): a paired
  bootstrap over items (``scipy.stats.bootstrap``), since the two models' numbers sit on
  their own scales and cannot be swapped;
- several repetitions: a bootstrap of items and repetitions together (items jointly for
  both models; paired repetitions, split seeds and prompt cells, jointly; training seeds
  separately per model).

The 95% interval of the difference is a percentile bootstrap interval of items (and
repetitions); a bootstrap's p-value uses its standard error (:func:`_bootstrap_p`);
:func:`holm` corrects the p-values of a table and :func:`verdict` says what they mean in the
row's direction. BLEU has its own: :func:`bleu_test`, sacrebleu's paired
bootstrap.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

__all__ = [
    "ALPHA",
    "CORRELATIONS",
    "ItemsDiffer",
    "OUTCOME_COLUMNS",
    "Outcomes",
    "PairedResult",
    "SEED_KINDS",
    "STATISTICS",
    "align",
    "bleu_test",
    "holm",
    "item_id",
    "paired_test",
    "value",
    "verdict",
]

#: the level of every verdict (after Holm's correction)
ALPHA = 0.05
#: how a row's value follows from its items' outcomes (within one repetition and stratum)
STATISTICS = {
    "percent": "100 x the mean of the outcomes (a share of items: 0/1 outcomes)",
    "ratio": "100 x the mean of the numerator stratum's outcomes / the mean of the denominator stratum's",
    "f1": "PLANE's F1 (percent): support-weighted F1 over the gold labels 0 and 1 of the predicted labels",
    "macro_f1": "macro-F1 (percent) of the predicted classes against the gold classes, over the classes present",
    "pearson": "Pearson's r of the outcomes (mean over seeds) with the gold values",
    "spearman": "Spearman's rho of the outcomes with the gold values",
    "partial_spearman": "partial Spearman rho of the outcomes with the gold values, the covariate fixed",
}
#: statistics whose outcomes are on a model's own scale: compared by a bootstrap, never swapped
CORRELATIONS = ("pearson", "spearman", "partial_spearman")
#: statistics of 0/1 outcomes (the McNemar test fits them)
_SHARES = ("percent",)
#: the strata of a ``ratio`` row
RATIO_STRATA = ("numerator", "denominator")
#: what a row's seeds are: "" one run; training seeds of the model (its own: resampled per
#: model); split seeds and prompt cells (the same condition for every model: resampled jointly)
SEED_KINDS = {"": "one run", "training seed": "unpaired", "split seed": "paired", "prompt": "paired"}
#: the columns of an item-outcome table (results/item_outcomes.tsv): a profile row's key, then the items
OUTCOME_COLUMNS = (
    "model",
    "family",
    "measure",
    "setting",
    "statistic",
    "seed_kind",
    "seed",
    "stratum",
    "item",
    "outcome",
    "gold",
    "covariate",
)
#: how each test is named in a result
TESTS = {
    "mcnemar": "exact McNemar (binomial test of the discordant items)",
    "permutation": "paired permutation (A and B swapped per item)",
    "bootstrap": "paired bootstrap over items",
    "bootstrap_seeds": "paired bootstrap over items and seeds",
    "bleu": "sacrebleu paired bootstrap",
}
BOOTSTRAP_RESAMPLES = 2000
PERMUTATIONS = 9999
#: resamples of a vectorised bootstrap computed at once (memory: items x this many)
_BATCH = 250


def item_id(label: object, *content: object) -> str:
    """A stable item id: a readable ``label`` and a hash of what the item is (its sentences,
    words, labels), so that two configs that number their items alike but hold other items
    never pair them."""
    digest = hashlib.sha1("\x1f".join(str(part) for part in content).encode("utf-8")).hexdigest()[:10]
    return f"{label}#{digest}"


class ItemsDiffer(ValueError):
    """Two models' outcomes on a row are not on the same items (another config or scale):
    the message says how they differ."""


@dataclass
class Outcomes:
    """One model's outcomes on one row: ``values[s, i]`` the outcome of item ``items[i]`` in
    repetition ``seeds[s]`` (NaN: not scored, or not in that repetition's items)."""

    statistic: str
    seed_kind: str
    items: tuple[str, ...]
    seeds: tuple[str, ...]
    values: np.ndarray
    strata: tuple[str, ...]
    gold: np.ndarray | None = None
    covariate: np.ndarray | None = None

    def __post_init__(self):
        if self.statistic not in STATISTICS:
            raise ValueError(f"unknown statistic {self.statistic!r}; expected one of {', '.join(STATISTICS)}")
        if self.seed_kind not in SEED_KINDS:
            raise ValueError(
                f"unknown seed kind {self.seed_kind!r}; expected one of {', '.join(map(repr, SEED_KINDS))}"
            )
        self.values = np.asarray(self.values, dtype=float).reshape(len(self.seeds), len(self.items))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Outcomes:
        """The outcomes of one model and row from the rows of an item-outcome table
        (:data:`OUTCOME_COLUMNS`; one statistic and seed kind). An item in two strata, or
        with two gold values, is a ``ValueError``."""
        frame = frame.assign(item=frame["item"].astype(str), seed=frame["seed"].fillna("").astype(str))
        for column in ("statistic", "seed_kind"):
            if frame[column].nunique() != 1:
                raise ValueError(f"one row has several values of {column}: {sorted(set(frame[column]))}")
        items = tuple(dict.fromkeys(frame["item"]))
        seeds = tuple(dict.fromkeys(frame["seed"]))
        item_index = {item: index for index, item in enumerate(items)}
        seed_index = {seed: index for index, seed in enumerate(seeds)}
        values = np.full((len(seeds), len(items)), np.nan)
        rows = frame["seed"].map(seed_index).to_numpy()
        columns = frame["item"].map(item_index).to_numpy()
        if pd.Series(list(zip(rows, columns))).duplicated().any():
            raise ValueError("an item appears twice in one seed")
        values[rows, columns] = pd.to_numeric(frame["outcome"], errors="coerce").to_numpy(dtype=float)
        per_item = frame.drop_duplicates("item").set_index("item")
        strata = frame.groupby("item", sort=False)["stratum"].nunique()
        if (strata > 1).any():
            raise ValueError(f"the item {strata[strata > 1].index[0]!r} is in several strata")

        def per_item_numbers(column: str) -> np.ndarray | None:
            numbers = pd.to_numeric(frame[column], errors="coerce")
            if numbers.isna().all():
                return None
            distinct = numbers.groupby(frame["item"], sort=False).nunique()
            if (distinct > 1).any():
                raise ValueError(f"the item {distinct[distinct > 1].index[0]!r} has several {column} values")
            first = numbers.groupby(frame["item"], sort=False).first()
            return first.reindex(items).to_numpy(dtype=float)

        return cls(
            statistic=str(frame["statistic"].iloc[0]),
            seed_kind=str(frame["seed_kind"].iloc[0]),
            items=items,
            seeds=seeds,
            values=values,
            strata=tuple(per_item.loc[list(items), "stratum"].astype(str)),
            gold=per_item_numbers("gold"),
            covariate=per_item_numbers("covariate"),
        )

    def subset(self, items: Sequence[str]) -> Outcomes:
        """These outcomes on ``items`` only, in that order."""
        index = {item: position for position, item in enumerate(self.items)}
        chosen = np.array([index[item] for item in items], dtype=int)
        return Outcomes(
            statistic=self.statistic,
            seed_kind=self.seed_kind,
            items=tuple(items),
            seeds=self.seeds,
            values=self.values[:, chosen],
            strata=tuple(self.strata[i] for i in chosen),
            gold=None if self.gold is None else self.gold[chosen],
            covariate=None if self.covariate is None else self.covariate[chosen],
        )

    @property
    def scored(self) -> np.ndarray:
        """Per item: scored in at least one repetition."""
        return ~np.isnan(self.values).all(axis=0)


# --------------------------------------------------------------------------------------
# the statistics, on weighted items: ``counts[b, i]`` copies of item i in resample b


def _strata(outcomes: Outcomes) -> list[np.ndarray]:
    labels = np.asarray(outcomes.strata)
    return [np.flatnonzero(labels == label) for label in dict.fromkeys(outcomes.strata)]


def _layout(outcomes: Outcomes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The items ordered by stratum (first-seen order of strata), where each stratum starts in
    that order, and each item's stratum number."""
    labels = {label: index for index, label in enumerate(dict.fromkeys(outcomes.strata))}
    codes = np.array([labels[label] for label in outcomes.strata], dtype=int)
    order = np.argsort(codes, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
    return order, starts, codes


def _stratum_sums(weighted: np.ndarray, layout) -> np.ndarray:
    """Sums over the items (last axis) per stratum: (..., items) -> (strata, ...). Items
    already in stratum order (:func:`_grouped`) are not copied into that order first."""
    order, starts, codes = layout
    if not np.array_equal(order, np.arange(codes.size)):
        weighted = weighted[..., order]
    return np.moveaxis(np.add.reduceat(weighted, starts, axis=-1), -1, 0)


def _grouped(outcomes: Outcomes) -> Outcomes:
    """The outcomes with their items in stratum order (the strata's first-seen order)."""
    order, _, _ = _layout(outcomes)
    return outcomes.subset([outcomes.items[index] for index in order])


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def _label_counts(counts, predicted, gold, scored, label, layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per stratum, resample and seed: a label's gold support, predictions and hits."""
    is_gold = (gold == label)[None, None, :] & scored
    is_predicted = (predicted == label) & scored
    return tuple(_stratum_sums(counts * mask, layout) for mask in (is_gold, is_predicted, is_gold & is_predicted))


def _cells(outcomes: Outcomes, counts: np.ndarray) -> np.ndarray:
    """The statistic of every stratum in every resample and seed: shape (strata, resamples,
    seeds); NaN where a stratum has no scored item in a resample and seed."""
    layout = _layout(outcomes)
    counts = counts[:, None, :]
    values = outcomes.values[None, :, :]
    scored = ~np.isnan(values)
    if outcomes.statistic in ("percent", "ratio"):
        return 100.0 * _divide(
            _stratum_sums(counts * np.nan_to_num(values), layout), _stratum_sums(counts * scored, layout)
        )
    gold = outcomes.gold
    if outcomes.statistic == "f1":
        # sklearn's f1_score(average="weighted", labels=[0, 1]): F1 of each label (2 hits /
        # (gold + predicted)) weighted by its gold support; a prediction that is neither label
        # (-1) counts as wrong
        weighted, support = 0.0, 0.0
        for label in (0, 1):
            gold_support, predicted, hits = _label_counts(counts, values, gold, scored, label, layout)
            total = gold_support + predicted
            weighted = weighted + np.where(total > 0, 2 * hits / np.where(total > 0, total, 1), 0.0) * gold_support
            support = support + gold_support
        return 100.0 * _divide(weighted, support)
    if outcomes.statistic == "macro_f1":
        # sklearn's f1_score(average="macro"): the mean F1 over the classes that occur in the
        # gold or the predicted labels of the (resampled) items
        labels = np.unique(np.concatenate([gold[~np.isnan(gold)], outcomes.values[~np.isnan(outcomes.values)]]))
        total_f1, present = 0.0, 0.0
        for label in labels:
            gold_support, predicted, hits = _label_counts(counts, values, gold, scored, label, layout)
            total = gold_support + predicted
            total_f1 = total_f1 + np.where(total > 0, 2 * hits / np.where(total > 0, total, 1), 0.0)
            present = present + (total > 0)
        return 100.0 * _divide(total_f1, present)
    raise ValueError(f"no cell statistic for {outcomes.statistic!r}")


def _mean_present(values: np.ndarray, axis: int) -> np.ndarray:
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        return np.where(
            present.any(axis=axis), np.nansum(values, axis=axis) / np.maximum(present.sum(axis=axis), 1), np.nan
        )


def _per_seed(outcomes: Outcomes, counts: np.ndarray) -> np.ndarray:
    """The statistic per resample and seed: the mean over strata of each stratum's value
    (``ratio``: the numerator's share over the denominator's); shape (resamples, seeds)."""
    cells = _cells(outcomes, counts)
    if outcomes.statistic == "ratio":
        labels = list(dict.fromkeys(outcomes.strata))
        if sorted(labels) != sorted(RATIO_STRATA):
            raise ValueError(f"a ratio row has the strata {', '.join(RATIO_STRATA)}, not {', '.join(labels)}")
        return 100.0 * _divide(cells[labels.index("numerator")], cells[labels.index("denominator")])
    return _mean_present(cells, axis=0)


def _statistic(outcomes: Outcomes, counts: np.ndarray, seed_counts: np.ndarray) -> np.ndarray:
    """The row's value per resample (items ``counts``, seeds ``seed_counts``): per stratum the
    mean over the seeds that have a value there, then the mean over strata, the order of the
    families' tables (MT's Table 4a: template means of seed means; PLANE's Table 8: the mean
    of the classes' means over templates); a ratio (relative PSS) per seed, then over seeds."""
    if outcomes.statistic == "ratio":
        return _over_seeds(_per_seed(outcomes, counts), seed_counts)
    cells = _cells(outcomes, counts)
    weights = seed_counts[None, :, :] * ~np.isnan(cells)
    total = weights.sum(axis=2)
    per_stratum = np.where(total > 0, (np.nan_to_num(cells) * weights).sum(axis=2) / np.maximum(total, 1e-300), np.nan)
    return _mean_present(per_stratum, axis=0)


def _over_seeds(per_seed: np.ndarray, seed_counts: np.ndarray) -> np.ndarray:
    """The mean over the (resampled) seeds that have a value."""
    present = ~np.isnan(per_seed)
    weights = seed_counts * present
    total = weights.sum(axis=1)
    return np.where(total > 0, (np.nan_to_num(per_seed) * weights).sum(axis=1) / np.maximum(total, 1), np.nan)


def _correlation(outcomes: Outcomes, index: np.ndarray) -> np.ndarray:
    """The correlation of each resample of items (``index[b]``: item positions), of the
    outcomes averaged over seeds with the gold values: shape (resamples,)."""
    from scipy.stats import rankdata

    with np.errstate(invalid="ignore"):
        x = np.nanmean(outcomes.values, axis=0)[index]
    y = outcomes.gold[index]
    if outcomes.statistic == "pearson":
        return _rowwise_pearson(x, y)
    x, y = rankdata(x, axis=-1), rankdata(y, axis=-1)
    r_xy = _rowwise_pearson(x, y)
    if outcomes.statistic == "spearman":
        return r_xy
    z = rankdata(outcomes.covariate[index], axis=-1)
    r_xz, r_yz = _rowwise_pearson(x, z), _rowwise_pearson(y, z)
    with np.errstate(invalid="ignore", divide="ignore"):
        # natcomp.tre.correlation.partial_spearman's formula
        return np.clip((r_xy - r_xz * r_yz) / np.sqrt((1 - r_xz**2) * (1 - r_yz**2)), -1.0, 1.0)


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)
    y = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))
        return np.where(denominator > 0, (x * y).sum(axis=-1) / np.where(denominator > 0, denominator, 1), np.nan)


def value(outcomes: Outcomes) -> float:
    """The row's value from its outcomes: the mean over strata of the mean over seeds of the
    statistic (a correlation: of the outcomes averaged over seeds, over every scored item)."""
    if outcomes.statistic in CORRELATIONS:
        scored = np.flatnonzero(outcomes.scored & ~np.isnan(outcomes.gold))
        if scored.size < 3:
            return math.nan
        return float(_correlation(outcomes, scored[None, :])[0])
    counts = np.ones((1, len(outcomes.items)))
    return float(_statistic(outcomes, counts, np.ones((1, len(outcomes.seeds))))[0])


# --------------------------------------------------------------------------------------
# pairing two models' outcomes


def align(a: Outcomes, b: Outcomes, names: tuple[str, str] = ("A", "B")) -> tuple[Outcomes, Outcomes]:
    """A's and B's outcomes on the items both scored, in one order. Raises
    :class:`ItemsDiffer` when they are not outcomes on the same items: other item ids,
    other gold values or strata, other statistics, or other paired repetitions (split seeds,
    prompt cells); the message calls the two by ``names``."""
    name_a, name_b = names
    kinds = {a.seed_kind, b.seed_kind}
    if kinds == {"", "training seed"}:
        # one model of one run against one trained over seeds: its seeds are its own
        a, b = (replace(outcomes, seed_kind="training seed") for outcomes in (a, b))
    if (a.statistic, a.seed_kind) != (b.statistic, b.seed_kind):
        raise ItemsDiffer(
            f"{name_a}'s outcomes are {a.statistic} over {a.seed_kind or 'one run'}, {name_b}'s {b.statistic} over "
            f"{b.seed_kind or 'one run'}"
        )
    shared = set(a.items) & set(b.items)
    if set(a.items) != set(b.items):
        raise ItemsDiffer(
            f"items differ: {name_a} has {len(a.items)}, {name_b} {len(b.items)}, {len(shared)} shared (another config "
            "or scale)"
        )
    if SEED_KINDS[a.seed_kind] == "paired" and set(a.seeds) != set(b.seeds):
        raise ItemsDiffer(f"the {a.seed_kind}s differ: {name_a} {', '.join(a.seeds)}; {name_b} {', '.join(b.seeds)}")
    b = b.subset(a.items)
    for name, left, right in (("gold values", a.gold, b.gold), ("covariates", a.covariate, b.covariate)):
        if (left is None) != (right is None) or (left is not None and not np.array_equal(left, right, equal_nan=True)):
            raise ItemsDiffer(f"the items' {name} differ (another config or scale)")
    if a.strata != b.strata:
        raise ItemsDiffer("the items' strata (templates, classes...) differ (another config)")
    both = a.scored & b.scored
    if a.statistic not in ("percent", "ratio"):  # the others need each item's gold value
        both &= ~np.isnan(a.gold) if a.gold is not None else False
    items = [item for item, keep in zip(a.items, both) if keep]
    a, b = a.subset(items), b.subset(items)
    if SEED_KINDS[a.seed_kind] == "paired":
        order = {seed: index for index, seed in enumerate(b.seeds)}
        b.values = b.values[[order[seed] for seed in a.seeds]]
        b.seeds = a.seeds
    return a, b


@dataclass
class PairedResult:
    """B - A on one row's shared items, in the row's unit, with a 95% interval and a p-value."""

    value_a: float
    value_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    test: str
    items: int


def _stratified_counts(outcomes: Outcomes, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Item counts of ``resamples`` bootstrap resamples drawn within each stratum: each of a
    stratum's n places draws one of its n items."""
    order, starts, codes = _layout(outcomes)
    sizes = np.bincount(codes)
    first = starts[codes[order]]  # in stratum order: where each place's stratum starts
    drawn = first + np.floor(rng.random((resamples, codes.size)) * sizes[codes[order]]).astype(int)
    return _index_counts(order[drawn], codes.size)


def _seed_counts(seeds: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    return rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=resamples).astype(float)


def _index_counts(index: np.ndarray, n: int) -> np.ndarray:
    """Bootstrap index arrays (resamples x n) as item counts."""
    offsets = np.arange(index.shape[0])[:, None] * n
    return np.bincount((index + offsets).ravel(), minlength=index.shape[0] * n).reshape(index.shape[0], n).astype(float)


def _bootstrap_p(differences: np.ndarray, observed: float) -> float:
    """Two-sided p-value of ``observed`` with the bootstrap's standard error (the sd of the
    resampled differences): 2 P(Z > |observed| / se). Not the share of resamples beyond the
    observed difference, whose floor of 1 / (resamples + 1) times the rows Holm corrects over
    would hide every difference of a large table; scipy.stats.bootstrap gives no p-value."""
    from scipy.stats import norm

    differences = differences[~np.isnan(differences)]
    if differences.size < 2:
        return math.nan
    error = float(np.std(differences, ddof=1))
    if error == 0:
        return 1.0 if observed == 0 else 0.0
    return float(2 * norm.sf(abs(observed) / error))


def _interval(differences: np.ndarray) -> tuple[float, float]:
    differences = differences[~np.isnan(differences)]
    if differences.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(differences, [2.5, 97.5])
    return float(low), float(high)


def _bootstrap_with_seeds(a: Outcomes, b: Outcomes, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """B - A per resample of items (drawn within strata, the same for both) and seeds
    (paired repetitions: the same draw for both; training seeds: a draw per model).
    Hand-written: scipy.stats.bootstrap resamples one set of observations, with no strata
    and no second level."""
    differences = []
    for start in range(0, resamples, _BATCH):
        size = min(_BATCH, resamples - start)
        counts = _stratified_counts(a, size, rng)
        seeds_a = _seed_counts(len(a.seeds), size, rng)
        seeds_b = seeds_a if SEED_KINDS[a.seed_kind] == "paired" else _seed_counts(len(b.seeds), size, rng)
        value_a = _statistic(a, counts, seeds_a)
        value_b = _statistic(b, counts, seeds_b)
        differences.append(value_b - value_a)
    return np.concatenate(differences)


def _statistic_of_counts(outcomes: Outcomes):
    def of(counts: np.ndarray) -> np.ndarray:
        return _statistic(outcomes, counts, np.ones((counts.shape[0], len(outcomes.seeds))))

    return of


def _swappable(a: Outcomes, b: Outcomes, rng: np.random.Generator, permutations: int) -> float:
    """p-value of the paired permutation test: A's and B's outcome swapped per item
    (scipy.stats.permutation_test, permutation_type="samples")."""
    from scipy.stats import permutation_test

    def difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        shape = x.shape[:-1]
        x2, y2 = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
        return (_rowwise_value(b, y2) - _rowwise_value(a, x2)).reshape(shape)

    result = permutation_test(
        (a.values[0], b.values[0]),
        difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=permutations,
        alternative="two-sided",
        batch=_BATCH,  # items x this many permutations at once, not x 9,999
        random_state=rng,
    )
    return float(result.pvalue)


def _rowwise_value(template: Outcomes, rows: np.ndarray) -> np.ndarray:
    """The statistic of ``template``'s items (one run) with each row of ``rows`` as their
    outcomes: the rows taken as seeds of one resample of every item once."""
    outcomes = Outcomes(
        template.statistic, "", template.items, tuple(map(str, range(rows.shape[0]))), rows, template.strata,
        template.gold, template.covariate,
    )  # fmt: skip
    return _per_seed(outcomes, np.ones((1, rows.shape[1])))[0]


def _is_binary(outcomes: Outcomes) -> bool:
    values = outcomes.values[~np.isnan(outcomes.values)]
    return bool(np.isin(values, (0.0, 1.0)).all())


def paired_test(
    a: Outcomes,
    b: Outcomes,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    names: tuple[str, str] = ("A", "B"),
) -> PairedResult:
    """B - A on the items both scored (:func:`align`; :class:`ItemsDiffer` when the items
    differ, naming the two by ``names``), its 95% interval and the p-value of the test that
    fits the row (module documentation); ``seed`` makes the resampling reproducible."""
    from scipy.stats import binomtest, bootstrap

    a, b = align(a, b, names)
    if a.statistic not in CORRELATIONS:
        a, b = _grouped(a), _grouped(b)  # the resamples' sums per stratum run over contiguous items
    n = len(a.items)
    value_a, value_b = value(a), value(b)
    difference = value_b - value_a
    if n < 2 or math.isnan(difference):
        why = "fewer than 2 items scored by both" if n < 2 else "a value is undefined on the shared items"
        return PairedResult(value_a, value_b, difference, math.nan, math.nan, math.nan, f"no test: {why}", n)
    rng = np.random.default_rng(seed)
    if a.statistic in CORRELATIONS:

        def correlation_difference(index: np.ndarray, axis: int = -1) -> np.ndarray:
            resampled = np.atleast_2d(index)
            differences = _correlation(b, resampled) - _correlation(a, resampled)
            return differences if index.ndim > 1 else differences[0]

        result = bootstrap(
            (np.arange(n),),
            correlation_difference,
            vectorized=True,
            n_resamples=resamples,
            batch=_BATCH,
            method="percentile",
            random_state=rng,
        )
        differences = result.bootstrap_distribution
        low, high = _interval(differences)
        test = f"{TESTS['bootstrap']} ({resamples:,} resamples)"
        return PairedResult(value_a, value_b, difference, low, high, _bootstrap_p(differences, difference), test, n)
    if len(a.seeds) > 1 or len(b.seeds) > 1:
        differences = _bootstrap_with_seeds(a, b, resamples, rng)
        low, high = _interval(differences)
        test = f"{TESTS['bootstrap_seeds']} ({resamples:,} resamples; {a.seed_kind}s {SEED_KINDS[a.seed_kind]})"
        return PairedResult(value_a, value_b, difference, low, high, _bootstrap_p(differences, difference), test, n)
    # one run each: the interval from a bootstrap of items (within strata), the p-value exact
    strata = _strata(a)
    if len(strata) == 1:
        of_a, of_b = _statistic_of_counts(a), _statistic_of_counts(b)

        def count_difference(index: np.ndarray, axis: int = -1) -> np.ndarray:
            counts = _index_counts(np.atleast_2d(index), n)
            differences = of_b(counts) - of_a(counts)
            return differences if index.ndim > 1 else differences[0]

        differences = bootstrap(
            (np.arange(n),),
            count_difference,
            vectorized=True,
            n_resamples=resamples,
            batch=_BATCH,
            method="percentile",
            random_state=rng,
        ).bootstrap_distribution
    else:
        differences = _bootstrap_with_seeds(a, b, resamples, rng)
    low, high = _interval(differences)
    sizes = {stratum.size for stratum in strata}
    if a.statistic in _SHARES and _is_binary(a) and _is_binary(b) and len(sizes) == 1:
        # equal item weights: the exact McNemar test of the discordant items
        only_b = int(np.sum((b.values[0] == 1) & (a.values[0] == 0)))
        only_a = int(np.sum((a.values[0] == 1) & (b.values[0] == 0)))
        p = 1.0 if only_a + only_b == 0 else float(binomtest(only_b, only_a + only_b, 0.5).pvalue)
        test = f"{TESTS['mcnemar']}: {only_a + only_b} discordant (A only {only_a}, B only {only_b})"
    else:
        p = 1.0 if np.array_equal(a.values, b.values, equal_nan=True) else _swappable(a, b, rng, permutations)
        test = f"{TESTS['permutation']} ({permutations:,} permutations)"
    return PairedResult(value_a, value_b, difference, low, high, p, test, n)


# --------------------------------------------------------------------------------------
# a table of comparisons


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and does not count). Hand-written:
    scipy.stats.false_discovery_control has Benjamini-Hochberg and -Yekutieli only."""
    values = np.asarray(p_values, dtype=float)
    tested = np.flatnonzero(~np.isnan(values))
    adjusted = np.full(values.shape, np.nan)
    order = tested[np.argsort(values[tested], kind="stable")]
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * values[index]))
        adjusted[index] = running
    return adjusted.tolist()


def verdict(difference: float, p_adjusted: float, direction: str, a: str, b: str, alpha: float = ALPHA) -> str:
    """The comparison in words, in the row's ``direction`` (``higher is more compositional``,
    ``lower is more compositional``, ``higher is better``): ``"B more compositional"``,
    ``"A better"``, or ``"no difference detected"`` (adjusted p at least ``alpha``)."""
    if math.isnan(p_adjusted) or math.isnan(difference):
        return ""
    if p_adjusted >= alpha or difference == 0:
        return "no difference detected"
    higher = direction.startswith("higher")
    winner = b if (difference > 0) == higher else a
    return f"{winner} {'more compositional' if 'compositional' in direction else 'better'}"


# --------------------------------------------------------------------------------------
# BLEU


def bleu_test(
    hypotheses_a: Sequence[str],
    hypotheses_b: Sequence[str],
    references: Sequence[str],
    *,
    tokenize: str | None = None,
    target_lang: str = "",
    resamples: int = 1000,
) -> PairedResult:
    """B's corpus BLEU - A's on the same references: sacrebleu's paired bootstrap
    (``sacrebleu.significance.PairedTest``, ``bs``) for the p-value, and the 95% interval
    of the difference from the same resamples (sacrebleu draws them with its seed,
    ``SACREBLEU_SEED``, 12345; its test reports each system's interval, not the
    difference's), from each sentence's BLEU statistics (its public ``sentence_score``
    counts and ``BLEU.compute_bleu``)."""
    import os

    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    hypotheses_a, hypotheses_b, references = list(hypotheses_a), list(hypotheses_b), list(references)
    if not len(hypotheses_a) == len(hypotheses_b) == len(references):
        raise ValueError(
            f"{len(hypotheses_a)} and {len(hypotheses_b)} hypotheses for {len(references)} references; expected one "
            "per reference"
        )
    options = {"tokenize": tokenize, "trg_lang": target_lang}
    paired = PairedTest(
        [("A", hypotheses_a), ("B", hypotheses_b)],
        {"BLEU": BLEU(**options)},
        references=[references],
        test_type="bs",
        n_samples=resamples,
    )
    _, scores = paired()
    (result_a, result_b) = scores[next(name for name in scores if name != "System")]
    metric = BLEU(**options)
    # a sentence's n-gram counts do not depend on effective_order (which only changes a
    # sentence's own score, and silences sacrebleu's advice to set it for sentences)
    sentences = BLEU(**options, effective_order=True)

    def sentence_statistics(hypotheses: list[str]) -> np.ndarray:
        rows = []
        for hypothesis, reference in zip(hypotheses, references):
            score = sentences.sentence_score(hypothesis, [reference])
            rows.append([*score.counts, *score.totals, score.sys_len, score.ref_len])
        return np.asarray(rows, dtype=float)

    seed = os.environ.get("SACREBLEU_SEED", "12345")
    rng = np.random.default_rng(None if seed.lower() == "none" else int(seed))
    index = rng.choice(len(references), size=(resamples, len(references)), replace=True)
    order = metric.max_ngram_order

    def corpus(statistics: np.ndarray) -> np.ndarray:
        sums = statistics[index].sum(axis=1)
        return np.array(
            [
                BLEU.compute_bleu(
                    row[:order].tolist(), row[order : 2 * order].tolist(), int(row[-2]), int(row[-1]),
                    smooth_method=metric.smooth_method, smooth_value=metric.smooth_value,
                    effective_order=metric.effective_order, max_ngram_order=order,
                ).score
                for row in sums
            ]
        )  # fmt: skip

    differences = corpus(sentence_statistics(hypotheses_b)) - corpus(sentence_statistics(hypotheses_a))
    low, high = _interval(differences)
    difference = result_b.score - result_a.score
    p = 1.0 if hypotheses_a == hypotheses_b else float(result_b.p_value)
    test = f"{TESTS['bleu']} ({resamples:,} resamples)"
    return PairedResult(result_a.score, result_b.score, difference, low, high, p, test, len(references))
