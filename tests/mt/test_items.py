"""Tests of the synthetic templates and the MT compositionality test items
(natcomp.mt.templates, natcomp.mt.items)."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import binomtest

from natcomp.errors import InputError
from natcomp.mt import item_sets
from natcomp.mt.lexicon import load_idioms, load_lexicon, load_synonyms
from natcomp.mt.templates import (
    SYNTHETIC_SAMPLING,
    TEMPLATES,
    SyntheticSentence,
    synthetic_sentences,
    template_space_size,
)
from natcomp.mt.items import (
    NATURAL_SUBSTITUTIVITY_COLUMNS,
    NP_VP_COLUMNS,
    OVERGENERALISATION_COLUMNS,
    S_CONJ_COLUMNS,
    SUBSTITUTIVITY_COLUMNS,
    conjoin,
    conjuncts,
    natural_conjuncts,
    natural_overgeneralisation,
    natural_substitutivity,
    np_vp_items,
    overgeneralisation_items,
    random_word_items,
    s_conj_items,
    substitutivity_items,
    write_items,
)
from natcomp.mt.scoring import read_items

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
N_SENTENCES = 300
N_ITEMS = 40


@pytest.fixture(scope="module")
def lex():
    return load_lexicon(RESOURCES / "lexicon")


@pytest.fixture(scope="module")
def synonyms():
    return load_synonyms(RESOURCES / "synonyms.tsv")


@pytest.fixture(scope="module")
def idioms():
    return load_idioms(RESOURCES / "idioms.tsv")


@pytest.fixture(scope="module")
def sentences(lex) -> dict[int, list[SyntheticSentence]]:
    return {t: synthetic_sentences(lex, t, N_SENTENCES, seed=5) for t in TEMPLATES}


@pytest.fixture(scope="module")
def all_sentences(sentences) -> list[SyntheticSentence]:
    return [s for t in TEMPLATES for s in sentences[t]]


class Forms:
    """Independent lookups: word -> number, per word class."""

    def __init__(self, lex):
        def nouns(group):
            out = {}
            for noun in group:
                out[noun.en_singular] = "sg"
                out[noun.en_plural] = "pl"
            return out

        def verbs(group):
            out = {}
            for verb in group:
                out[verb.en_singular] = "sg"
                out[verb.en_plural] = "pl"
            return out

        self.classes = {
            "Np": nouns(lex.people),
            "Ne": nouns(lex.elite),
            "Nv": nouns(lex.vehicles),
            "Ng": nouns(lex.groups),
            "Vt": verbs(lex.transitive_verbs),
            "Vi": verbs(lex.intransitive_verbs),
            "Vs": verbs(lex.stative_verbs),
            "Adv": {w.en: None for w in lex.adverbs},
            "P": {w.en: None for w in lex.prepositions},
            "Pro": {w.en: None for w in lex.pronouns},
        }
        self.person = {**self.classes["Np"], **self.classes["Ne"]}


# Table 3, with the number of each noun and verb: sg / pl fixed, a letter a variable that
# must take the same value everywhere it occurs in the sentence.
PATTERNS = {
    1: "The Np:S Vt:S the Ne:sg .",
    2: "The Np:S Adv Vt:S the Ne:sg .",
    3: "The Np:S P the Nv:sg Vt:S the Ne:sg .",
    4: "The Np:A and the Np:B Vt:pl the Ne:sg .",
    5: "The Ng:sg of Np:pl P the Nv:sg Vt:sg the Ne:sg .",
    6: "The Np:S Vs:S that the Np:pl Vi:pl .",
    7: "The Np:S Adv Vs:S that the Np:pl Vi:pl .",
    8: "The Np:S Vs:S that the Np:pl Vi:pl Adv .",
    9: "The Np:S that Vi:S Vt:S the Ne:sg .",
    10: "The Np:S that Vt:S Pro Vt:S the Ne:sg .",
}


def matches(pattern: str, tokens: tuple[str, ...], forms: Forms) -> dict[str, str] | None:
    symbols = pattern.split()
    if len(symbols) != len(tokens):
        return None
    bound: dict[str, str] = {}
    for symbol, token in zip(symbols, tokens):
        if ":" not in symbol and symbol not in forms.classes:
            if symbol != token:
                return None
            continue
        cls, _, number = symbol.partition(":")
        table = forms.classes[cls]
        if token not in table:
            return None
        if number in ("sg", "pl"):
            if table[token] != number:
                return None
        elif number:
            if bound.setdefault(number, table[token]) != table[token]:
                return None
    return bound


def words(text: str) -> list[str]:
    return text.split()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------------------
# synthetic templates


@pytest.mark.parametrize("template", TEMPLATES)
def test_templates_follow_table3_with_agreement(lex, sentences, template):
    forms = Forms(lex)
    numbers = []
    for sentence in sentences[template]:
        bound = matches(PATTERNS[template], sentence.tokens, forms)
        assert bound is not None, (template, sentence.tokens)
        numbers.append(bound.get("S", bound.get("A")))
        # untokenised like the training corpus: "The poet criticises the king."
        assert sentence.text == " ".join(sentence.tokens[:-1]) + "."
    if template != 5:
        share = numbers.count("pl") / len(numbers)
        assert 0.35 < share < 0.65, share


@pytest.mark.parametrize("template", TEMPLATES)
def test_noun_slots_point_at_nouns_of_their_category_and_number(lex, sentences, template):
    forms = Forms(lex)
    category_class = {"people": "Np", "elite": "Ne", "vehicle": "Nv", "group": "Ng"}
    lemma = {form: noun.en_singular for noun in lex.people for form in (noun.en_singular, noun.en_plural)}
    for sentence in sentences[template]:
        roles = [slot.role for slot in sentence.nouns]
        assert len(roles) == len(set(roles))
        assert ("members" if template == 5 else "subject") in roles
        assert ("embedded_subject" if template in (6, 7, 8) else "object") in roles
        for slot in sentence.nouns:
            table = forms.classes[category_class[slot.category]]
            token = sentence.tokens[slot.position]
            assert table[token] == ("pl" if slot.plural else "sg"), (sentence.text, slot)
        people = [lemma[sentence.tokens[s.position]] for s in sentence.nouns if s.category == "people"]
        assert len(set(people)) == len(people)  # t4 conjuncts, t6-8 main/embedded subjects differ


def test_template_1_is_capped_at_its_1960_sentences(lex):
    assert template_space_size(lex, 1) == 20 * 2 * 7 * 7 == 1960
    all_of_them = synthetic_sentences(lex, 1, 3000, seed=0)
    assert len(all_of_them) == 1960
    assert len({s.text for s in all_of_them}) == 1960


@pytest.mark.parametrize("template", TEMPLATES)
def test_sentences_are_unique_and_deterministic(lex, template):
    first = synthetic_sentences(lex, template, 500, seed=3)
    again = synthetic_sentences(lex, template, 500, seed=3)
    other = synthetic_sentences(lex, template, 500, seed=4)
    assert first == again
    assert [s.text for s in first] != [s.text for s in other]
    assert len({s.text for s in first}) == 500


def test_unknown_template_is_an_error(lex):
    with pytest.raises(ValueError, match="template"):
        synthetic_sentences(lex, 11, 5, seed=0)


# --------------------------------------------------------------------------------------
# S -> NP VP


def diff_positions(a: str, b: str) -> list[int]:
    wa, wb = words(a), words(b)
    assert len(wa) == len(wb), (a, b)
    return [i for i, (x, y) in enumerate(zip(wa, wb)) if x != y]


@pytest.mark.parametrize("template", TEMPLATES)
def test_np_vp_items_change_exactly_one_noun_keeping_its_number(lex, sentences, template):
    forms = Forms(lex)
    rows = np_vp_items(sentences[template], template, N_ITEMS, seed=1, lexicon=lex)
    assert [r["condition"] for r in rows] == ["np_prime"] * N_ITEMS + ["vp_prime"] * N_ITEMS
    assert [r["item"] for r in rows] == list(range(2 * N_ITEMS))
    assert all(tuple(r) == NP_VP_COLUMNS and r["template"] == template for r in rows)
    # both conditions are built on the same base sentences
    assert [r["source_a"] for r in rows[:N_ITEMS]] == [r["source_a"] for r in rows[N_ITEMS:]]
    texts = {s.text for s in sentences[template]}
    for row in rows:
        assert row["source_a"] in texts
        (position,) = diff_positions(row["source_a"], row["source_b"])
        if row["condition"] == "np_prime":
            assert position == (3 if template == 5 else 1)
        else:
            assert position == (5 if template in (6, 8) else 6 if template == 7 else len(words(row["source_a"])) - 1)
        old = words(row["source_a"])[position].rstrip(".")
        new = words(row["source_b"])[position].rstrip(".")
        assert old in forms.person and new in forms.person
        assert forms.person[old] == forms.person[new]
        # the changed sentence still follows its template (agreement kept)
        tokens = tuple(words(row["source_b"][:-1]) + ["."])
        pattern = PATTERNS[template].replace("Np:", "N*:").replace("Ne:", "N*:")
        forms.classes["N*"] = forms.person
        assert matches(pattern, tokens, forms) is not None, row["source_b"]


def test_np_prime_only_for_semi_natural_style_calls(lex, sentences):
    rows = np_vp_items(sentences[3], 3, 5, seed=1, lexicon=lex, conditions=("np_prime",))
    assert {r["condition"] for r in rows} == {"np_prime"} and len(rows) == 5


# --------------------------------------------------------------------------------------
# S -> S CONJ S


def split_conjuncts(source: str) -> tuple[str, str]:
    first, second = source.split(", and ", 1)
    return first, second


@pytest.mark.parametrize("template", TEMPLATES)
def test_s_conj_items(lex, sentences, all_sentences, template):
    template_of = {s.text[:-1]: s.template for s in all_sentences}
    seconds = [s.text for s in sentences[template]]
    rows = s_conj_items(all_sentences, seconds, template, N_ITEMS, seed=2, lexicon=lex)
    assert [r["condition"] for r in rows] == ["s1_prime"] * N_ITEMS + ["s3"] * N_ITEMS
    assert all(tuple(r) == S_CONJ_COLUMNS for r in rows)
    lowered = {s[0].lower() + s[1:] for s in seconds}
    forms = Forms(lex)
    for k in range(N_ITEMS):
        s1_row, s3_row = rows[k], rows[N_ITEMS + k]
        assert s1_row["source_a"] == s3_row["source_a"]
        s1, s2 = split_conjuncts(s1_row["source_a"])
        s1p, s2p = split_conjuncts(s1_row["source_b"])
        s3, s2q = split_conjuncts(s3_row["source_b"])
        assert s2 == s2p == s2q and s2 in lowered and s2.startswith("the ")
        for source in (s1_row["source_a"], s1_row["source_b"], s3_row["source_b"]):
            assert re.fullmatch(r"The [a-z ]+[a-z], and the [a-z ]+[a-z]\.", source), source
        # S1' differs from S1 in exactly its VP noun, with elite <-> people
        (position,) = diff_positions(s1, s1p)
        old, new = words(s1)[position], words(s1p)[position]
        assert position == len(words(s1)) - 1 or template_of[s1] in (6, 7, 8)
        assert {old in forms.classes["Ne"], new in forms.classes["Ne"]} == {True, False}
        assert forms.person[old] == forms.person[new]
        # S1 and S3 from templates other than each other's and the second conjunct's
        assert template_of[s1] != template
        assert template_of[s3] not in (template, template_of[s1])


def test_conjoin_lowercases_only_the_first_character(lex):
    first = synthetic_sentences(lex, 1, 1, seed=0)[0]
    joined = conjoin(first, "I met Anna in Paris (France).")
    assert joined == first.text[:-1] + ", and i met Anna in Paris (France)."
    with pytest.raises(ValueError):
        conjoin(first, "   ")


def test_conjuncts_give_back_what_conjoin_joined(lex):
    first = synthetic_sentences(lex, 1, 1, seed=0)[0]
    joined = conjoin(first, "Prices rose sharply.")
    assert conjuncts(joined) == [first.text[:-1], "prices rose sharply."]
    assert conjuncts("Prices rose sharply.") == []
    # a second conjunct holding the conjunction: every split, so the whole of it is among them
    assert conjuncts("A, and b, and c.") == ["A", "A, and b", "b, and c.", "c."]


def test_s_conj_natural_second_conjuncts_stay_byte_identical(lex, all_sentences):
    natural = ["Prices rose sharply in 2020.", "Überall gibt es Kritik.", "NATO met on Monday."]
    rows = s_conj_items(all_sentences, natural, 2, 3, seed=0, lexicon=lex)
    seconds = {split_conjuncts(r["source_b"])[1] for r in rows}
    assert seconds == {"prices rose sharply in 2020.", "überall gibt es Kritik.", "nATO met on Monday."}


# --------------------------------------------------------------------------------------
# synthetic sampling: paper (the default) and released (the original study's items)

# Sizes of the released data: template 1 has all its 1960 sentences, the others 3000.
PAPER_SCALE = 3000
RELEASED_ITEMS = 500  # per template: 5,000 S1' and 5,000 S3 items in all
# The released synthetic items: S1' keeps the VP noun's category in 38%, S3 shares S2's
# template in 565 of 5,000.
RELEASED_SAME_CATEGORY = 0.38
RELEASED_S3_FROM_S2_TEMPLATE = 565 / 5000


@pytest.fixture(scope="module")
def paper_scale(lex) -> dict[str, dict[int, list[SyntheticSentence]]]:
    return {
        sampling: {t: synthetic_sentences(lex, t, PAPER_SCALE, seed=1, sampling=sampling) for t in TEMPLATES}
        for sampling in SYNTHETIC_SAMPLING
    }


def s_conj_draws(lex, data: dict[int, list[SyntheticSentence]], sampling: str) -> list[dict]:
    """Per item of all ten templates: the templates of S1, S3 and S2, and the S1' nouns."""
    pool = [s for t in TEMPLATES for s in data[t]]
    template_of = {s.text[:-1]: s.template for s in pool}
    draws = []
    for t in TEMPLATES:
        rows = s_conj_items(pool, [s.text for s in data[t]], t, RELEASED_ITEMS, seed=1, lexicon=lex, sampling=sampling)
        half = len(rows) // 2
        for s1_row, s3_row in zip(rows[:half], rows[half:]):
            s1, _ = split_conjuncts(s1_row["source_a"])
            s1p, _ = split_conjuncts(s1_row["source_b"])
            s3, _ = split_conjuncts(s3_row["source_b"])
            (position,) = diff_positions(s1, s1p)
            draws.append(
                {
                    "s2": t,
                    "s1": template_of[s1],
                    "s3": template_of[s3],
                    "old": words(s1)[position],
                    "new": words(s1p)[position],
                    "vp_noun": position == len(words(s1)) - 1 or template_of[s1] in (6, 7, 8),
                }
            )
    return draws


def test_sampling_must_be_known(lex, all_sentences):
    with pytest.raises(ValueError, match="sampling"):
        synthetic_sentences(lex, 4, 5, seed=0, sampling="original")
    with pytest.raises(ValueError, match="sampling"):
        s_conj_items(all_sentences, ["A b."], 1, 1, seed=0, lexicon=lex, sampling="original")


@pytest.mark.parametrize("sampling", SYNTHETIC_SAMPLING)
def test_template_4_conjunct_numbers(lex, sampling):
    forms = Forms(lex)
    sentences = synthetic_sentences(lex, 4, 1000, seed=2, sampling=sampling)
    both = [(s.nouns[0].plural, s.nouns[1].plural) for s in sentences]
    for sentence, numbers in zip(sentences, both):
        bound = matches(PATTERNS[4], sentence.tokens, forms)  # the verb is plural either way
        assert bound is not None and (bound["A"], bound["B"]) == tuple("pl" if p else "sg" for p in numbers)
    disagreeing = sum(a != b for a, b in both) / len(both)
    first_plural = sum(a for a, _ in both) / len(both)
    assert 0.45 < first_plural < 0.55
    if sampling == "released":
        # the released data: "The bakers and the teachers", "The baker and the victim", never mixed
        assert disagreeing == 0
        assert template_space_size(lex, 4, sampling=sampling) == 2 * 20 * 19 * 7 * 7
    else:
        assert 0.45 < disagreeing < 0.55  # each conjunct singular or plural on its own
        assert template_space_size(lex, 4, sampling=sampling) == 4 * 20 * 19 * 7 * 7


@pytest.mark.parametrize("template", [t for t in TEMPLATES if t != 4])
def test_sampling_changes_no_other_template(lex, template):
    assert synthetic_sentences(lex, template, 200, seed=3, sampling="released") == synthetic_sentences(
        lex, template, 200, seed=3
    )


def test_released_s1_prime_keeps_the_category_in_38_percent(lex, paper_scale):
    forms = Forms(lex)
    draws = s_conj_draws(lex, paper_scale["released"], "released")
    assert len(draws) == 10 * RELEASED_ITEMS
    for draw in draws:
        assert draw["vp_noun"] and draw["old"] != draw["new"]
        assert forms.person[draw["old"]] == forms.person[draw["new"]]  # same number
    same = sum((d["old"] in forms.classes["Ne"]) == (d["new"] in forms.classes["Ne"]) for d in draws)
    # two-sided binomial test against the released share (seed fixed: 0.394 here)
    assert binomtest(same, len(draws), RELEASED_SAME_CATEGORY).pvalue > 0.001, same / len(draws)
    # per category as in the released items: an elite object keeps its category with 6 of
    # about 25 alternatives, a people noun (templates 6-8) with 19 of about 25
    elite_kept = [d["new"] in forms.classes["Ne"] for d in draws if d["old"] in forms.classes["Ne"]]
    people_kept = [d["new"] in forms.classes["Np"] for d in draws if d["old"] in forms.classes["Np"]]
    assert 0.19 < sum(elite_kept) / len(elite_kept) < 0.29
    assert 0.67 < sum(people_kept) / len(people_kept) < 0.79


def test_paper_s1_prime_always_changes_the_category(lex, paper_scale):
    forms = Forms(lex)
    draws = s_conj_draws(lex, paper_scale["paper"], "paper")
    assert all((d["old"] in forms.classes["Ne"]) != (d["new"] in forms.classes["Ne"]) for d in draws)


def test_released_s3_comes_from_s2s_template_about_one_in_nine(lex, paper_scale):
    draws = s_conj_draws(lex, paper_scale["released"], "released")
    assert all(d["s3"] != d["s1"] and d["s1"] != d["s2"] for d in draws)
    shared = sum(d["s3"] == d["s2"] for d in draws)
    assert binomtest(shared, len(draws), RELEASED_S3_FROM_S2_TEMPLATE).pvalue > 0.001, shared
    # S1 is drawn over sentences: template 1 (1960 sentences) weighs less than the others
    s1_templates = Counter(d["s1"] for d in draws if d["s2"] != 1)
    expected_template_1 = 1960 / (1960 + 8 * PAPER_SCALE) * sum(s1_templates.values())
    assert abs(s1_templates[1] - expected_template_1) < 4 * math.sqrt(expected_template_1)


def test_paper_s1_and_s3_never_share_s2s_template(lex, paper_scale):
    draws = s_conj_draws(lex, paper_scale["paper"], "paper")
    assert all(len({d["s1"], d["s2"], d["s3"]}) == 3 for d in draws)


def test_released_s1_may_share_the_number_of_a_non_synthetic_second_conjunct(lex, all_sentences):
    # a semi-natural template number names no synthetic template: the released S1 come
    # from every synthetic template there (e.g. "The butchers understand the leader" in
    # semi-natural template 1)
    seconds = [f"the people number {i} want to do something." for i in range(300)]
    rows = s_conj_items(
        all_sentences, seconds, 1, 300, seed=0, lexicon=lex, sampling="released", second_data_type="semi_natural"
    )
    template_of = {s.text[:-1]: s.template for s in all_sentences}
    first = Counter(template_of[split_conjuncts(r["source_a"])[0]] for r in rows[:300])
    assert first[1] > 0 and set(first) == set(TEMPLATES)
    synthetic = s_conj_items(all_sentences, seconds, 1, 300, seed=0, lexicon=lex, sampling="released")
    assert all(template_of[split_conjuncts(r["source_a"])[0]] != 1 for r in synthetic)


def test_released_s_conj_needs_two_templates(lex, sentences):
    with pytest.raises(ValueError, match="two templates"):
        s_conj_items(sentences[3], ["A b."], 3, 1, seed=0, lexicon=lex, sampling="released")


# sha256 of the item files the generator wrote with the demo settings (seed 1, 120
# synthetic sentences per template, 6 items per template) before the sampling option was
# added: the default sampling must keep them byte-identical.
DEFAULT_ITEM_DIGESTS = {
    "np_vp": "9e40191104645803a268e1e95e8a1059d4bcabcfd497c1dbe376669ef169432b",
    "s_conj": "f2ca0c4f2cc834039792ab7a920d3e2e5ce2074a06716ddb82a240a08b7128ec",
}
# s_conj with the 40 made-up second conjuncts below, per template, same settings
DEFAULT_STRING_CONJUNCT_DIGEST = "a58b67be0633b78449792349d96755ba03e1b1f864b22a6b3b00673f9b4474b1"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("test", sorted(DEFAULT_ITEM_DIGESTS))
def test_default_sampling_keeps_the_demo_items_byte_identical(tmp_path, test):
    resources = item_sets.ItemResources(RESOURCES / "lexicon", RESOURCES / "synonyms.tsv", RESOURCES / "idioms.tsv")
    block = {
        "seed": 1,
        "synthetic_per_template": 120,
        "samples_per_template": 6,
        "natural_max_items": 60,
        "random_word_samples": 10,
        "semi_natural_per_template": 60,
        "natural_conjunct_reference": "semi_natural",
    }
    settings = item_sets.TestSettings.from_config(block)
    assert settings.synthetic_sampling == "paper"  # the default when the key is left out
    write_items(item_sets.build_items(test, "synthetic", settings, resources), tmp_path / "default.tsv")
    write_items(
        item_sets.build_items(
            test, "synthetic", item_sets.TestSettings.from_config({**block, "synthetic_sampling": "paper"}), resources
        ),
        tmp_path / "paper.tsv",
    )
    assert sha256(tmp_path / "default.tsv") == sha256(tmp_path / "paper.tsv") == DEFAULT_ITEM_DIGESTS[test]
    released = item_sets.TestSettings.from_config({**block, "synthetic_sampling": "released"})
    write_items(item_sets.build_items(test, "synthetic", released, resources), tmp_path / "released.tsv")
    assert sha256(tmp_path / "released.tsv") != DEFAULT_ITEM_DIGESTS[test]


@pytest.mark.parametrize("second_data_type", ["synthetic", "semi_natural", "natural"])
def test_default_sampling_ignores_the_second_conjuncts_data_type(lex, tmp_path, second_data_type):
    first = [s for t in TEMPLATES for s in synthetic_sentences(lex, t, 120, 1)]
    rows = []
    for t in TEMPLATES:
        seconds = [f"Sentence {t} number {i} , with and en ." for i in range(40)]
        rows += s_conj_items(first, seconds, t, 6, 1, lexicon=lex, second_data_type=second_data_type)
    write_items(rows, tmp_path / "items.tsv")
    assert sha256(tmp_path / "items.tsv") == DEFAULT_STRING_CONJUNCT_DIGEST


# --------------------------------------------------------------------------------------
# substitutivity and overgeneralisation


def host_words(source: str, clause: list[str]) -> int:
    """Index of the word the clause follows."""
    ws = words(source.rstrip("."))
    for i in range(len(ws)):
        if ws[i + 1 : i + 1 + len(clause)] == clause:
            return i
    raise AssertionError(f"clause {clause} not in {source!r}")


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("pair_index", [2, 12, 16, 18])
def test_substitutivity_items(lex, synonyms, sentences, template, pair_index):
    pair = synonyms[pair_index]
    forms = Forms(lex)
    rows = substitutivity_items(sentences[template], synonyms, template, pair_index, N_ITEMS, seed=3)
    assert len(rows) == N_ITEMS and all(tuple(r) == SUBSTITUTIVITY_COLUMNS for r in rows)
    assert all(r["pair"] == pair.name and r["template"] == template for r in rows)
    base_texts = {s.text for s in sentences[template]}
    for row in rows:
        a, b = row["source_a"], row["source_b"]
        assert re.sub(rf"\b{pair.british}\b", pair.american, a) == b
        assert pair.british in a and pair.american not in a and pair.british not in b
        ws = words(a.rstrip("."))
        for plural in (False, True):
            clause = pair.clause("british", plural).split()
            if any(ws[i : i + len(clause)] == clause for i in range(len(ws))):
                break
        else:
            raise AssertionError(a)
        position = host_words(a, clause)
        noun = ws[position]
        if template in (6, 7, 8):
            assert position == 1  # the subject
            assert noun in forms.classes["Np"]
        else:
            assert position == len(ws) - 1 - len(clause)  # the elite object, sentence-final
            assert noun in forms.classes["Ne"]
        expected = pair.clause_plural if forms.person[noun] == "pl" else pair.clause_singular
        assert clause == expected.split()
        # removing the clause gives back a template sentence
        assert " ".join(ws[: position + 1] + ws[position + 1 + len(clause) :]) + "." in base_texts


def test_substitutivity_clause_agrees_with_plural_subjects(lex, synonyms, sentences):
    forms = Forms(lex)
    rows = substitutivity_items(sentences[6], synonyms, 6, 2, N_ITEMS, seed=3)
    plural = [r for r in rows if " that eat the doughnut " in r["source_a"]]
    singular = [r for r in rows if " that eats the doughnut " in r["source_a"]]
    assert plural and singular and len(plural) + len(singular) == N_ITEMS
    assert all(forms.person[words(r["source_a"])[1]] == "pl" for r in plural)
    assert all(forms.person[words(r["source_a"])[1]] == "sg" for r in singular)


@pytest.mark.parametrize("template", TEMPLATES)
def test_overgeneralisation_items(lex, idioms, sentences, template):
    forms = Forms(lex)
    for index in (3, 10):
        idiom = idioms[index]
        rows = overgeneralisation_items(sentences[template], idioms, template, index, N_ITEMS, seed=4)
        assert len(rows) == N_ITEMS and all(tuple(r) == OVERGENERALISATION_COLUMNS for r in rows)
        quoted = f'that said "{idiom.clause}"'
        for row in rows:
            assert row["reference"] == "" and row["idiom"] == idiom.idiom
            source = row["source"]
            assert quoted in source and source.count('"') == 2
            before = words(source[: source.index(quoted)])
            host = before[-1]
            if template in (6, 7, 8):
                assert len(before) == 2 and host in forms.classes["Np"]
            else:
                assert source.endswith(quoted + ".") and host in forms.classes["Ne"]


def test_random_word_items(lex, idioms):
    nouns = set()
    for group in (lex.people, lex.elite, lex.vehicles, lex.groups, lex.abstract_nouns):
        for noun in group:
            nouns |= {noun.en_singular, noun.en_plural}
    for index, idiom in enumerate(idioms):
        rows = random_word_items(idioms, lex, index, 20, seed=6)
        assert len(rows) == 20 and len({r["source"] for r in rows}) == 20
        for row in rows:
            assert row["template"] == 0 and row["reference"] == "" and row["idiom"] == idiom.idiom
            before, after = row["source"].split(" " + idiom.idiom + " ")
            others = words(before) + words(after)
            assert len(words(before)) == 5 and len(words(after)) == 5
            assert len(set(others)) == 10 and set(others) <= nouns
            assert not any(w in idiom.english_keywords for w in others)
    assert random_word_items(idioms, lex, 4, 5, seed=1) == random_word_items(idioms, lex, 4, 5, seed=1)


def test_items_are_deterministic(lex, synonyms, idioms, sentences, all_sentences):
    def build(seed):
        return (
            np_vp_items(sentences[4], 4, 10, seed, lexicon=lex),
            s_conj_items(all_sentences, [s.text for s in sentences[9]], 9, 10, seed, lexicon=lex),
            substitutivity_items(sentences[7], synonyms, 7, 5, 10, seed),
            overgeneralisation_items(sentences[1], idioms, 1, 8, 10, seed),
        )

    assert build(7) == build(7)
    assert build(7) != build(8)


# --------------------------------------------------------------------------------------
# natural data

CORPUS = [
    ("We went on holiday last summer.", "NL1"),
    ("The holidays were long.", "NL2"),
    ("Holiday prices rise every year.", "NL3"),
    ("She took a VACATION in May.", "NL4"),
    ("He learnt the poem BY HEART.", "NL5"),
    ("By heart-felt thanks we close.", "NL6"),
    ("Football and soccer are the same game.", "NL7"),
    ("The holiday-maker arrives.", "NL8"),
    ("It is a state-of-the-art facility.", "NL9"),
    ("This is a state of the art, official facility.", "NL10"),
    ("We went on holiday last summer.", "NL11"),
    ("She knew it by\theart.", "NL12"),
    ("I knew the formula By Heart.", "NL13"),
    ("The postcode and the zip code match.", "NL14"),
]


def write_corpus(tmp_path: Path, pairs, name="train") -> tuple[Path, Path]:
    en, nl = tmp_path / f"{name}.en", tmp_path / f"{name}.nl"
    en.write_text("".join(e + "\n" for e, _ in pairs), encoding="utf-8")
    nl.write_text("".join(n + "\n" for _, n in pairs), encoding="utf-8")
    return en, nl


def test_natural_substitutivity_matching_swapping_and_alignment(tmp_path, synonyms):
    en, nl = write_corpus(tmp_path, CORPUS)
    rows = natural_substitutivity(en, nl, synonyms, 10, seed=0)
    assert all(tuple(r) == NATURAL_SUBSTITUTIVITY_COLUMNS and r["template"] == 0 for r in rows)
    holiday = [(r["source_a"], r["source_b"], r["reference"]) for r in rows if r["pair"] == synonyms[15].name]
    # whole words only: "holidays" and "holiday-maker" are not the term; the duplicate
    # line 11 is kept once; casing of the match is kept
    assert holiday == [
        ("We went on holiday last summer.", "We went on vacation last summer.", "NL1"),
        ("Holiday prices rise every year.", "Vacation prices rise every year.", "NL3"),
        ("She took a HOLIDAY in May.", "She took a VACATION in May.", "NL4"),
    ]
    football = [(r["source_a"], r["source_b"], r["reference"]) for r in rows if r["pair"] == synonyms[14].name]
    assert football == [("Football and football are the same game.", "Soccer and soccer are the same game.", "NL7")]
    postcode = [(r["source_a"], r["source_b"]) for r in rows if r["pair"] == synonyms[18].name]
    assert postcode == [("The postcode and the postcode match.", "The zip code and the zip code match.")]
    assert [r["item"] for r in rows] == list(range(len(rows)))


def test_natural_overgeneralisation_is_case_insensitive_whole_phrase(tmp_path, idioms):
    en, nl = write_corpus(tmp_path, CORPUS)
    rows = natural_overgeneralisation(en, nl, idioms, 10, seed=0)
    by_idiom = {}
    for row in rows:
        by_idiom.setdefault(row["idiom"], []).append((row["source"], row["reference"]))
    assert by_idiom[idioms[10].idiom] == [
        ("He learnt the poem BY HEART.", "NL5"),
        ("I knew the formula By Heart.", "NL13"),  # line 12 has a tab: skipped
    ]
    assert by_idiom[idioms[3].idiom] == [("This is a state of the art, official facility.", "NL10")]
    assert set(by_idiom) == {idioms[3].idiom, idioms[10].idiom}
    assert all(r["template"] == 0 for r in rows)


def test_reservoir_sampling_is_deterministic_and_capped(tmp_path, idioms):
    pairs = [(f"Line {i} was learnt by heart.", f"NL {i}") for i in range(200)]
    en, nl = write_corpus(tmp_path, pairs)
    first = natural_overgeneralisation(en, nl, idioms, 7, seed=1)
    assert first == natural_overgeneralisation(en, nl, idioms, 7, seed=1)
    assert len(first) == 7
    for row in first:
        number = int(row["source"].split()[1])
        assert row["reference"] == f"NL {number}"
    numbers = [int(r["source"].split()[1]) for r in first]
    assert numbers == sorted(numbers)  # corpus order
    samples = {tuple(r["source"] for r in natural_overgeneralisation(en, nl, idioms, 7, seed=s)) for s in range(5)}
    assert len(samples) > 1
    assert numbers != list(range(7))


@pytest.mark.parametrize("extra", ["en", "nl"])
def test_misaligned_corpus_files_are_an_error(tmp_path, synonyms, idioms, extra):
    en, nl = write_corpus(tmp_path, CORPUS)
    longer = en if extra == "en" else nl
    with open(longer, "a", encoding="utf-8") as handle:
        handle.write("One more line.\n")
    for function, resource in ((natural_substitutivity, synonyms), (natural_overgeneralisation, idioms)):
        with pytest.raises(InputError) as error:
            function(en, nl, resource, 10, seed=0)
        shorter = nl if extra == "en" else en
        assert str(shorter) in str(error.value) and "line 15" in str(error.value)
        assert "line-aligned" in str(error.value)


def test_missing_corpus_file_is_an_error(tmp_path, synonyms):
    en, _ = write_corpus(tmp_path, CORPUS)
    with pytest.raises(InputError, match="not found"):
        natural_substitutivity(en, tmp_path / "missing.nl", synonyms, 10, seed=0)


CONJUNCT_CORPUS = [
    "Quixotic zebras juggle violet xylophones.",  # rare words, 6 tokens
    "The man sees the dog.",  # frequent words, 6 tokens
    "The man and the dog.",  # contains " and "
    "Does the man see it?",  # a question
    "The man left. He sat.",  # two sentences
    "The man loves the holiday.",  # contains a synonym term
    "The man knew it by heart.",  # contains an idiom
    "the man sees the dog.",  # no capital
    "The dog sees him...",  # not a single final period
    "My brother reads a long book about the sea every day.",  # 12 tokens
    "The man sees the dog.",  # duplicate
    "Used elsewhere in the tests.",
] + ["the man sees the dog the man sees the dog ?"] * 50  # frequency filler


def test_natural_conjuncts_filters_and_matches_length_and_frequency(tmp_path):
    path = tmp_path / "train.en"
    path.write_text("".join(line + "\n" for line in CONJUNCT_CORPUS), encoding="utf-8")
    references = {1: ["The man sees the cat."], 2: ["The woman reads a short book about the moon every day."]}
    kwargs = {"exclude_phrases": ["holiday", "by heart"], "exclude_sentences": {"Used elsewhere in the tests."}}
    chosen = natural_conjuncts(path, references, 2, seed=0, **kwargs)
    # nearest mean log-frequency first: the frequent-word sentence, then the rare one;
    # each sentence is used once over all templates; template 2 matches the long one
    assert chosen[1] == ["The man sees the dog.", "Quixotic zebras juggle violet xylophones."]
    assert chosen[2] == ["My brother reads a long book about the sea every day."]
    assert chosen == natural_conjuncts(path, references, 2, seed=0, **kwargs)
    # length before frequency: a long reference of frequent words gets the long sentence
    long_frequent = {3: ["The man sees the dog, the man sees the dog now."], 4: ["The man sees the cat."]}
    assert natural_conjuncts(path, long_frequent, 1, seed=0, **kwargs)[3] == [CONJUNCT_CORPUS[9]]
    # every other sentence of length 4..8 is filtered out
    everything = natural_conjuncts(path, {1: references[1]}, 20, seed=3, **kwargs)[1]
    assert sorted(everything) == ["Quixotic zebras juggle violet xylophones.", "The man sees the dog."]
    unfiltered = natural_conjuncts(path, {1: references[1]}, 20, seed=3)[1]
    assert set(unfiltered) == set(everything) | {
        "The man loves the holiday.",
        "The man knew it by heart.",
        "Used elsewhere in the tests.",
    }


def test_natural_conjuncts_prefer_the_exact_length(tmp_path):
    path = tmp_path / "train.en"
    lines = ["Quixotic zebras juggle violet xylophones.", "The man sees the dog now."] + CONJUNCT_CORPUS[-50:]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    chosen = natural_conjuncts(path, {1: ["The man sees the cat."]}, 1, seed=0)
    assert chosen == {1: ["Quixotic zebras juggle violet xylophones."]}


def test_natural_extraction_on_a_large_corpus(tmp_path, synonyms, idioms, lex):
    """Counts on a 100,000-pair corpus (benchmarks/mt_item_generation.py times the same steps)."""
    lines = []
    for i in range(100_000):
        lines.append(
            (f"The man {i} sees the dog on holiday." if i % 50 == 0 else f"Sentence number {i} is here.", f"Zin {i}.")
        )
    en, nl = write_corpus(tmp_path, lines)
    assert len(natural_substitutivity(en, nl, synonyms, 3000, seed=0)) == 2000
    references = {t: [s.text for s in synthetic_sentences(lex, t, 50, seed=0)] for t in TEMPLATES}
    chosen = natural_conjuncts(en, references, 40, seed=0)
    assert sum(len(v) for v in chosen.values()) == 400


# --------------------------------------------------------------------------------------
# item files


def test_write_and_read_items_round_trip(tmp_path, idioms, lex):
    rows = random_word_items(idioms, lex, 0, 3, seed=0) + random_word_items(idioms, lex, 1, 2, seed=0)
    path = tmp_path / "items.tsv"
    assert write_items(rows, path) == 5
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "item\ttemplate\tidiom\tsource\treference"
    back = read_items(path, "overgeneralisation", {i.idiom for i in idioms})  # the reader the workflow scores with
    assert back["item"].tolist() == ["0", "1", "2", "3", "4"]  # renumbered per file
    assert list(zip(back["idiom"], back["source"], back["reference"])) == [(r["idiom"], r["source"], "") for r in rows]
    empty = tmp_path / "empty.tsv"
    write_items([], empty, columns=OVERGENERALISATION_COLUMNS)
    assert empty.read_text(encoding="utf-8") == "item\ttemplate\tidiom\tsource\treference\n"


def test_write_items_rejects_tabs_and_wrong_columns(tmp_path):
    row = {"item": 0, "template": 1, "pair": 0, "source_a": "a\tb", "source_b": "c"}
    with pytest.raises(ValueError, match="tab"):
        write_items([row], tmp_path / "x.tsv")
    with pytest.raises(ValueError, match="columns"):
        write_items([{"item": 0, "template": 1}], tmp_path / "x.tsv", columns=SUBSTITUTIVITY_COLUMNS)
    assert not (tmp_path / "x.tsv").exists()


def test_read_items_reports_bad_lines(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("item\ttemplate\tidiom\tsource\treference\n0\t1\t2\tA b.\t\n1\t1\t2\tC d.\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3"):
        read_items(path, "overgeneralisation")
    path.write_text("item\ttemplate\tidiom\tsource\treference\n0\t1\tx\tA b.\t\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown idiom 'x'"):
        read_items(path, "overgeneralisation", {"by heart"})
    path.write_text("item\ttemplate\tidiom\tsource\treference\n0\t1\t2\tA b.\t\n0\t1\t2\tC d.\t\n", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate item id"):
        read_items(path, "overgeneralisation")
