"""natcomp.paired: the paired tests of two models on the same items, on generated outcomes
with a planted difference on a known share of items and with none, the false-positive rate
over generated null pairs, a model against itself, and the statistics against the families'
own code (each row's value must come out of its outcomes as the family computes it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import spearmanr

from natcomp.paired import (
    ItemsDiffer,
    Outcomes,
    bleu_test,
    holm,
    paired_test,
    value,
    verdict,
)

N = 300


def items(n: int = N) -> tuple[str, ...]:
    return tuple(f"item{i}" for i in range(n))


def binary(rng, share: float, n: int = N) -> np.ndarray:
    return (rng.random(n) < share).astype(float)


def planted(a: np.ndarray, share: float, rng, up: bool = True) -> np.ndarray:
    """``a`` with a planted change on ``share`` of the items: a 0 made 1 (``up``) or a 1 made 0."""
    b = a.copy()
    chosen = rng.random(a.size) < share
    b[chosen] = 1.0 if up else 0.0
    return b


def one_run(values, statistic="percent", strata=None, **extra) -> Outcomes:
    values = np.asarray(values, dtype=float)
    return Outcomes(
        statistic, "", items(values.size), ("",), values[None, :], strata or ("all",) * values.size, **extra
    )


HIGHER = "higher is more compositional"


def test_a_planted_gain_on_a_known_share_of_binary_items_is_found_by_the_exact_mcnemar_test():
    rng = np.random.default_rng(1)
    a = binary(rng, 0.6)
    b = planted(a, 0.12, rng)  # about 0.4 x 0.12 x 300 = 14 items gained, none lost
    result = paired_test(one_run(a), one_run(b))
    gained = int(np.sum((b == 1) & (a == 0)))
    assert result.difference == pytest.approx(100 * gained / N)
    assert result.test.startswith("exact McNemar") and f"B only {gained}" in result.test and "A only 0" in result.test
    assert result.p_value == pytest.approx(2 * 0.5**gained)  # binomial: all discordant items B's
    assert result.ci_low > 0 and result.ci_low <= result.difference <= result.ci_high
    assert verdict(result.difference, result.p_value, HIGHER, "A", "B") == "B more compositional"
    # the same loss the other way round: A wins, and in a lower-is-better row B wins
    reverse = paired_test(one_run(b), one_run(a))
    assert reverse.difference == pytest.approx(-result.difference) and reverse.p_value == pytest.approx(result.p_value)
    assert verdict(reverse.difference, reverse.p_value, HIGHER, "A", "B") == "A more compositional"
    assert verdict(reverse.difference, reverse.p_value, "lower is more compositional", "A", "B") == (
        "B more compositional"
    )
    assert verdict(result.difference, result.p_value, "higher is better", "x", "y") == "y better"


def test_no_planted_difference_gives_no_verdict_of_a_difference():
    rng = np.random.default_rng(2)
    a, b = binary(rng, 0.6), binary(rng, 0.6)  # two independent draws of the same model: no difference
    a[:150] = b[:150]
    result = paired_test(one_run(a), one_run(b))
    assert result.p_value > 0.05
    assert verdict(result.difference, result.p_value, HIGHER, "A", "B") == "no difference detected"
    assert result.ci_low < 0 < result.ci_high


def test_a_run_compared_with_itself_is_zero_with_p_1_for_every_kind_of_row():
    rng = np.random.default_rng(3)
    gold = binary(rng, 0.5)
    classes = rng.integers(0, 7, N).astype(float)
    strata = tuple(f"t{i % 5}" for i in range(N))
    rows = [
        one_run(binary(rng, 0.6)),
        one_run(binary(rng, 0.6), strata=strata),
        one_run(rng.random(N)),
        one_run(binary(rng, 0.7), "ratio", strata=tuple("numerator" if i < 200 else "denominator" for i in range(N))),
        one_run(np.where(rng.random(N) < 0.7, gold, 1 - gold), "f1", strata=strata, gold=gold),
        one_run(rng.integers(0, 7, N), "macro_f1", gold=classes),
        one_run(rng.normal(size=N), "pearson", gold=rng.normal(size=N)),
        one_run(rng.normal(size=N), "spearman", gold=rng.normal(size=N)),
        one_run(rng.normal(size=N), "partial_spearman", gold=rng.normal(size=N), covariate=rng.normal(size=N)),
        Outcomes("percent", "training seed", items(), ("1", "2", "3"), rng.random((3, N)) < 0.5, strata),
        Outcomes("f1", "prompt", items(), ("p1", "p2"), rng.integers(0, 2, (2, N)), strata, gold=gold),
    ]
    for row in rows:
        result = paired_test(row, row, resamples=300, permutations=999)
        assert result.difference == 0 and result.p_value == 1.0, (row.statistic, row.seed_kind, result)
        assert result.ci_low <= 0 <= result.ci_high
        assert verdict(result.difference, result.p_value, HIGHER, "A", "B") == "no difference detected"


@pytest.mark.parametrize("kind", ["strata", "continuous", "ratio", "f1", "macro_f1", "spearman", "seeds", "prompts"])
def test_a_planted_difference_is_found_and_none_is_not_for_each_kind_of_row(kind):
    """Each test the rows get: a planted improvement of B is B's; an unchanged B is no difference."""
    rng = np.random.default_rng(4)
    strata = tuple(f"t{i % 6}" for i in range(N))
    gold = binary(rng, 0.5)
    if kind == "strata":  # unequal templates: the permutation test of the mean over templates
        strata = tuple(f"t{min(i // 20, 9)}" for i in range(N))
        a = binary(rng, 0.5)
        make = lambda values: one_run(values, strata=strata)  # noqa: E731
        better = planted(a, 0.2, rng)
    elif kind == "continuous":
        a = rng.random(N)
        make = one_run
        better = np.clip(a + (rng.random(N) < 0.3) * 0.2, 0, 1)
    elif kind == "ratio":
        ratio = tuple("numerator" if i < 150 else "denominator" for i in range(N))
        a = binary(rng, 0.5)
        make = lambda values: one_run(values, "ratio", strata=ratio)  # noqa: E731
        better = a.copy()
        better[:150] = planted(a[:150], 0.3, rng)
    elif kind == "f1":
        a = np.where(rng.random(N) < 0.6, gold, 1 - gold)
        make = lambda values: one_run(values, "f1", strata=strata, gold=gold)  # noqa: E731
        better = np.where(rng.random(N) < 0.3, gold, a)
    elif kind == "macro_f1":
        classes = rng.integers(0, 7, N).astype(float)
        a = np.where(rng.random(N) < 0.3, classes, rng.integers(0, 7, N))
        make = lambda values: one_run(values, "macro_f1", gold=classes)  # noqa: E731
        better = np.where(rng.random(N) < 0.3, classes, a)
    elif kind == "spearman":
        truth = rng.normal(size=N)
        a = truth + 2 * rng.normal(size=N)
        make = lambda values: one_run(values, "spearman", gold=truth)  # noqa: E731
        better = truth + 0.8 * rng.normal(size=N)
    elif kind == "seeds":  # training seeds of each model, resampled per model with the items
        a = np.stack([binary(rng, 0.5) for _ in range(5)])
        make = lambda values: Outcomes("percent", "training seed", items(), tuple("12345"), values, strata)  # noqa: E731
        better = np.stack([planted(row, 0.25, rng) for row in a])
    else:  # prompt cells, the same for both models: resampled jointly
        a = np.stack([np.where(rng.random(N) < 0.6, gold, 1 - gold) for _ in range(4)])
        make = lambda values: Outcomes("f1", "prompt", items(), tuple("abcd"), values, strata, gold=gold)  # noqa: E731
        better = np.stack([np.where(rng.random(N) < 0.3, gold, row) for row in a])
    found = paired_test(make(a), make(better), resamples=1000, permutations=1999)
    assert found.difference > 0 and found.p_value < 0.01, found
    assert found.ci_low > 0, found
    assert verdict(found.difference, found.p_value, HIGHER, "A", "B") == "B more compositional"
    lost = paired_test(make(better), make(a), resamples=1000, permutations=1999)
    assert verdict(lost.difference, lost.p_value, HIGHER, "A", "B") == "A more compositional"
    same = paired_test(make(a), make(a.copy()), resamples=1000, permutations=1999)
    assert verdict(same.difference, same.p_value, HIGHER, "A", "B") == "no difference detected"


def test_the_false_positive_rate_over_null_pairs_is_within_tolerance_of_5_percent():
    """300 generated pairs of two models with no difference (each item's outcome drawn from
    the same distribution for A and B, items of varying difficulty), per kind of test: the
    share with p < 0.05 stays within 5% +- 3 standard errors of 300 trials (0.012 to 0.088).
    The exact McNemar test is discrete and the bootstrap of items and training seeds counts an
    item's noise within a seed twice (docs/profile.md): both may stay below, never above."""
    rng = np.random.default_rng(5)
    pairs, n = 300, 50
    tolerance = 3 * math.sqrt(0.05 * 0.95 / pairs)
    rates = {}
    for name in ("mcnemar", "permutation", "bootstrap", "seeds"):
        rejected = 0
        for index in range(pairs):
            difficulty = rng.random(n)
            if name == "mcnemar":
                a, b = (one_run((rng.random(n) < difficulty).astype(float)) for _ in range(2))
            elif name == "permutation":
                a, b = (one_run(difficulty + rng.normal(scale=0.3, size=n)) for _ in range(2))
            elif name == "bootstrap":
                truth = rng.normal(size=n)
                a, b = (one_run(truth + rng.normal(size=n), "pearson", gold=truth) for _ in range(2))
            else:
                a, b = (
                    Outcomes(
                        "percent", "training seed", items(n), tuple("12345"),
                        (rng.random((5, n)) < difficulty * rng.uniform(0.7, 1.3, (5, 1))).astype(float),
                        ("all",) * n,
                    )
                    for _ in range(2)
                )  # fmt: skip
            result = paired_test(a, b, resamples=300, permutations=299, seed=index)
            rejected += result.p_value < 0.05
        rates[name] = rejected / pairs
    assert all(rate <= 0.05 + tolerance for rate in rates.values()), rates
    assert all(rate >= 0.05 - tolerance for name, rate in rates.items() if name in ("permutation", "bootstrap")), rates


def test_the_statistics_are_the_families_own():
    """A row's value from its outcomes is what the family computes: PLANE's support-weighted
    F1, NonCompSST's macro-F1 (natcomp.noncompsst.models.macro_f1 is sklearn's, which is
    imported here without the family's torch), PSS's relative PSS, TRE's Spearman and partial rho."""
    from sklearn.metrics import f1_score

    from natcomp.plane.scoring import f1
    from natcomp.pss.scoring import relative_pss
    from natcomp.tre.correlation import partial_spearman

    rng = np.random.default_rng(6)
    gold = rng.integers(0, 2, N)
    predicted = np.where(rng.random(N) < 0.6, gold, rng.integers(-1, 2, N))
    strata = tuple(f"class {i % 3}" for i in range(N))
    mean_f1 = np.mean([f1(gold[i::3], predicted[i::3]) for i in range(3)])
    assert value(one_run(predicted, "f1", strata=strata, gold=gold.astype(float))) == pytest.approx(mean_f1)
    classes, guesses = rng.integers(0, 7, N), rng.integers(0, 6, N)
    assert value(one_run(guesses, "macro_f1", gold=classes.astype(float))) == pytest.approx(
        100 * f1_score(classes, guesses, average="macro", zero_division=0)
    )
    pairs, tests = binary(rng, 0.4, 100), binary(rng, 0.7, 200)
    strata = ("numerator",) * 100 + ("denominator",) * 200
    assert value(one_run(np.concatenate([pairs, tests]), "ratio", strata=strata)) == pytest.approx(
        relative_pss(100 * pairs.mean(), 100 * tests.mean())
    )
    x, y, z = rng.normal(size=(3, N))
    assert value(one_run(x, "spearman", gold=y)) == pytest.approx(spearmanr(x, y).statistic)
    assert value(one_run(x, "partial_spearman", gold=y, covariate=z)) == pytest.approx(partial_spearman(x, y, z)[0])
    # the mean over seeds of the mean over templates, unscored items left out
    values = np.array([[1, 0, np.nan, 1], [0, 0, 1, 1]], dtype=float)
    seeds = Outcomes("percent", "training seed", items(4), ("1", "2"), values, ("t1", "t1", "t2", "t2"))
    assert value(seeds) == pytest.approx(100 * np.mean([np.mean([0.5, 1.0]), np.mean([0.0, 1.0])]))


def test_the_hand_written_bootstrap_agrees_with_scipys_on_one_stratum():
    """One stratum and one run: the interval from scipy.stats.bootstrap; the same rows through
    the hand-written resampling of items and seeds (two identical seeds) give the same interval."""
    rng = np.random.default_rng(7)
    a = binary(rng, 0.5)
    b = planted(a, 0.1, rng)
    scipy_result = paired_test(one_run(a), one_run(b), resamples=4000)
    doubled = [Outcomes("percent", "prompt", items(), ("1", "2"), np.stack([v, v]), ("all",) * N) for v in (a, b)]
    hand = paired_test(*doubled, resamples=4000)
    assert hand.test.startswith("paired bootstrap over items and seeds")
    assert hand.difference == pytest.approx(scipy_result.difference)
    assert hand.ci_low == pytest.approx(scipy_result.ci_low, abs=1.0)
    assert hand.ci_high == pytest.approx(scipy_result.ci_high, abs=1.0)


def test_outcomes_on_other_items_are_not_paired():
    rng = np.random.default_rng(8)
    a = one_run(binary(rng, 0.5))
    other = Outcomes("percent", "", tuple(f"other{i}" for i in range(N)), ("",), binary(rng, 0.5)[None], ("all",) * N)
    with pytest.raises(ItemsDiffer, match=r"items differ: tiny has 300, mini 300, 0 shared"):
        paired_test(a, other, names=("tiny", "mini"))
    gold = binary(rng, 0.5)
    with pytest.raises(ItemsDiffer, match="gold values differ"):
        paired_test(one_run(gold, "f1", gold=gold), one_run(gold, "f1", gold=1 - gold))
    cells = [
        Outcomes("f1", "prompt", items(), seeds, np.ones((2, N)), ("all",) * N, gold=gold) for seeds in ("ab", "ac")
    ]
    with pytest.raises(ItemsDiffer, match="prompts differ"):
        paired_test(*cells)


def test_items_one_model_did_not_score_are_left_out_of_both():
    a = np.array([1, 1, 0, np.nan, 1, 0])
    b = np.array([1, np.nan, 1, 1, 1, 0])
    result = paired_test(one_run(a), one_run(b))
    assert result.items == 4 and result.value_a == pytest.approx(50) and result.value_b == pytest.approx(75)


def test_holm_adjusts_in_steps_and_keeps_untested_rows_blank():
    assert holm([0.01, 0.04, 0.03, math.nan, 0.005]) == pytest.approx([0.03, 0.06, 0.06, math.nan, 0.02], nan_ok=True)
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # 2 x 0.5, then never below it


def test_bleu_is_compared_by_sacrebleus_paired_bootstrap():
    from sacrebleu.metrics import BLEU

    rng = np.random.default_rng(9)
    words = "de kat zit op de mat en de hond slaapt in het huis met een boek".split()
    references = [" ".join(rng.choice(words, 8)) for _ in range(80)]
    worse = [" ".join(reference.split()[:4] + list(rng.choice(words, 4))) for reference in references]
    better = [reference if index % 2 else worse[index] for index, reference in enumerate(references)]
    result = bleu_test(worse, better, references, tokenize="13a", resamples=300)
    expected = BLEU(tokenize="13a").corpus_score(better, [references]).score
    expected -= BLEU(tokenize="13a").corpus_score(worse, [references]).score
    assert result.difference == pytest.approx(expected) and result.difference > 10
    assert result.p_value < 0.01 and result.ci_low > 0 and result.test.startswith("sacrebleu paired bootstrap")
    same = bleu_test(worse, worse, references, tokenize="13a", resamples=300)
    assert same.difference == 0 and same.p_value == 1.0 and same.ci_low == same.ci_high == 0
