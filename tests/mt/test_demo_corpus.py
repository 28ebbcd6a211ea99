"""Tests of the synthetic English-Dutch demo corpus (natcomp.mt.demo_corpus)."""

from __future__ import annotations

import gzip
import random
import re
import tarfile
from collections import Counter
from pathlib import Path

import pytest
import sacremoses

from natcomp.mt.demo_corpus import (
    CORPUS_ID,
    DemoGrammar,
    SentencePair,
    build_demo_data,
    generate_pairs,
    split_heldout,
    write_flores_release,
)
from natcomp.mt.lexicon import load_lexicon, tree_leaves

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
LEXICON = RESOURCES / "lexicon"
SYNONYMS = RESOURCES / "synonyms.tsv"
IDIOMS = RESOURCES / "idioms.tsv"
N = 20000


@pytest.fixture(scope="module")
def pairs() -> list[SentencePair]:
    return generate_pairs(LEXICON, SYNONYMS, IDIOMS, N, seed=11)


@pytest.fixture(scope="module")
def grammar() -> DemoGrammar:
    return DemoGrammar.from_paths(LEXICON, SYNONYMS, IDIOMS)


@pytest.fixture(scope="module")
def lex():
    return load_lexicon(LEXICON)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class Words:
    """Independent English -> Dutch lookups for checking simple sentences."""

    def __init__(self, lex):
        self.nouns = {}
        for group in ("people", "elite", "vehicles", "abstract_nouns", "keyword_nouns"):
            for noun in getattr(lex, group):
                self.nouns[noun.en_singular] = (noun, False)
                self.nouns[noun.en_plural] = (noun, True)
        self.humans = {w: v for w, v in self.nouns.items() if v[0] in lex.people + lex.elite}
        self.tv = self._verbs(lex.transitive_verbs)
        self.iv = self._verbs(lex.intransitive_verbs)
        self.stative = self._verbs(lex.stative_verbs)
        self.adverbs = {a.en: a.nl for a in lex.adverbs}
        self.pronouns = {p.en: p.nl for p in lex.pronouns}

    @staticmethod
    def _verbs(verbs):
        out = {}
        for verb in verbs:
            out[verb.en_singular] = (verb, False)
            out[verb.en_plural] = (verb, True)
        return out

    def np(self, word):
        noun, plural = self.nouns[word]
        return f"{noun.nl_definite(plural)} {noun.nl(plural)}", plural, noun.nl_relative_pronoun(plural)


# ---------------------------------------------------------------- form


def test_trees_are_well_formed_and_leaves_are_moses_tokens(pairs):
    tokenizer = sacremoses.MosesTokenizer("en")
    for pair in pairs[:6000]:
        assert pair.tree.startswith("(ROOT (") and pair.tree.count("(") == pair.tree.count(")")
        leaves = tree_leaves(pair.tree)
        assert leaves == tokenizer.tokenize(pair.en, escape=False), pair.en
        assert 4 <= len(leaves) <= 25
        assert "\n" not in pair.tree and "\t" not in pair.en + pair.nl


def test_untokenised_capitalised_text(pairs):
    for pair in pairs:
        assert pair.en[0].isupper() and pair.nl[0].isupper(), pair
        assert pair.en[-1] in ".?" and pair.nl[-1] == pair.en[-1]
        for text in (pair.en, pair.nl):
            assert " ." not in text and " ," not in text and " ?" not in text and "  " not in text
    assert any(p.en.endswith('".') for p in pairs)  # closing quote before the full stop


def test_vocabulary_and_length(pairs):
    vocabulary = Counter(w for p in pairs for w in tree_leaves(p.tree))
    assert 250 <= len(vocabulary) <= 700
    lengths = [len(tree_leaves(p.tree)) for p in pairs]
    assert 8 <= sum(lengths) / len(lengths) <= 16


def test_every_lexical_item_is_frequent(pairs, lex):
    counts = Counter(w for p in pairs for w in tree_leaves(p.tree))
    lower = Counter({w.lower(): 0 for w in counts})
    for word, count in counts.items():
        lower[word.lower()] += count
    rare = []
    for group in ("people", "elite", "vehicles", "abstract_nouns"):
        for noun in getattr(lex, group):
            rare += [w for w in (noun.en_singular, noun.en_plural) if lower[w] < 20]
    rare += [g.en_singular for g in lex.groups if lower[g.en_singular] < 20]  # groups: singular only
    for group in ("transitive_verbs", "intransitive_verbs", "stative_verbs"):
        for verb in getattr(lex, group):
            rare += [w for w in (verb.en_singular, verb.en_plural) if lower[w] < 20]
    for group in ("adverbs", "prepositions", "pronouns", "adjectives"):
        rare += [w.en for w in getattr(lex, group) if lower[w.en] < 20]
    assert rare == []


# ---------------------------------------------------------------- agreement and word order


def test_simple_transitive(pairs, lex):
    """The N V the N . -> De/Het N V de/het N . with number agreement in both languages."""
    words = Words(lex)
    checked = 0
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) (\w+) the (\w+)\.", pair.en)
        if not m or m.group(1) not in words.humans or m.group(2) not in words.tv:
            continue
        subj, plural, _ = words.np(m.group(1))
        verb, verb_plural = words.tv[m.group(2)]
        assert verb_plural == plural, pair.en  # English agreement
        obj, _, _ = words.np(m.group(3))
        assert pair.nl == cap(f"{subj} {verb.nl(plural)} {obj}."), pair
        checked += 1
    assert checked >= 200


def test_adverb_after_finite_verb(pairs, lex):
    words = Words(lex)
    checked = 0
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) (\w+) (\w+) the (\w+)\.", pair.en)
        if not m or m.group(2) not in words.adverbs or m.group(1) not in words.humans:
            continue
        subj, plural, _ = words.np(m.group(1))
        verb, _ = words.tv[m.group(3)]
        obj, _, _ = words.np(m.group(4))
        assert pair.nl == cap(f"{subj} {verb.nl(plural)} {words.adverbs[m.group(2)]} {obj}."), pair
        checked += 1
    assert checked >= 50


def test_subject_relative_clause_with_comma(pairs, lex):
    """The boy that runs admires the mayor . -> De jongen die rent , bewondert de burgemeester ."""
    words = Words(lex)
    checked = Counter()
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) that (\w+) (\w+) the (\w+)\.", pair.en)
        if m and m.group(2) in words.iv:
            subj, plural, pronoun = words.np(m.group(1))
            inner, inner_plural = words.iv[m.group(2)]
            verb, verb_plural = words.tv[m.group(3)]
            assert inner_plural == verb_plural == plural, pair.en
            obj, _, _ = words.np(m.group(4))
            expected = cap(f"{subj} {pronoun} {inner.nl(plural)}, {verb.nl(plural)} {obj}.")
            assert pair.nl == expected, pair
            checked["t9", pronoun] += 1
        m = re.fullmatch(r"The (\w+) that (\w+) (me|him|her|us) (\w+) the (\w+)\.", pair.en)
        if m:
            subj, plural, pronoun = words.np(m.group(1))
            inner, _ = words.tv[m.group(2)]
            verb, _ = words.tv[m.group(4)]
            obj, _, _ = words.np(m.group(5))
            object_pronoun = words.pronouns[m.group(3)]
            expected = cap(f"{subj} {pronoun} {object_pronoun} {inner.nl(plural)}, {verb.nl(plural)} {obj}.")
            assert pair.nl == expected, pair
            checked["t10", pronoun] += 1
    for key in (("t9", "die"), ("t9", "dat"), ("t10", "die"), ("t10", "dat")):
        assert checked[key] >= 5, key


def test_verb_final_subordinate_clauses(pairs, lex):
    """The N V_stat [Adv] that the N V_intr [Adv] . -> ... dat de N [adv] V_intr ."""
    words = Words(lex)
    checked = Counter()
    for pair in pairs:
        m = re.fullmatch(r"The (\w+)(?: (\w+))? (\w+) that the (\w+) (\w+)(?: (\w+))?\.", pair.en)
        if not m or m.group(3) not in words.stative or m.group(5) not in words.iv:
            continue
        if m.group(1) not in words.humans or m.group(4) not in words.humans:
            continue
        if any(m.group(g) and m.group(g) not in words.adverbs for g in (2, 6)):
            continue
        subj, plural, _ = words.np(m.group(1))
        stative, stative_plural = words.stative[m.group(3)]
        inner_subj, inner_plural = words.np(m.group(4))[:2]
        inner, verb_plural = words.iv[m.group(5)]
        assert stative_plural == plural and verb_plural == inner_plural, pair.en
        adverb = f" {words.adverbs[m.group(2)]}" if m.group(2) else ""
        end = f"{words.adverbs[m.group(6)]} " if m.group(6) else ""
        expected = cap(f"{subj} {stative.nl(plural)}{adverb} dat {inner_subj} {end}{inner.nl(inner_plural)}.")
        assert pair.nl == expected, pair
        checked["t7" if m.group(2) else "t8" if m.group(6) else "t6"] += 1
    assert min(checked["t6"], checked["t7"], checked["t8"]) >= 20, checked


def test_questions_use_the_perfect(pairs, lex):
    """Did the N V the N ? -> Heeft/Hebben/Is/Zijn de N de N <participle> ?"""
    words = Words(lex)
    checked = Counter()
    for pair in pairs:
        m = re.fullmatch(r"Did the (\w+) (\w+) the (\w+)\?", pair.en)
        if not m or m.group(2) not in words.tv:
            continue
        subj, plural, _ = words.np(m.group(1))
        verb, _ = words.tv[m.group(2)]
        obj, _, _ = words.np(m.group(3))
        aux = verb.nl_aux_form(plural)
        assert pair.nl == cap(f"{aux} {subj} {obj} {verb.nl_past_participle}?"), pair
        checked[aux] += 1
    assert checked["heeft"] >= 5 and checked["hebben"] >= 5 and checked["is"] + checked["zijn"] >= 2, checked
    hear = [p for p in pairs if re.match(r"Did the \w+ hear about ", p.en)]
    assert len(hear) > 300
    for pair in hear:
        assert re.match(r"(Heeft|Hebben) (de|het) \S+ gehoord over ", pair.nl), pair
    with_relative = [p for p in pairs if re.match(r"Did the \w+ that \w+ [^\"]+ hear about ", p.en)]
    assert len(with_relative) > 20
    for pair in with_relative:  # comma between the relative clause and the participle
        assert re.match(r"(Heeft|Hebben) (de|het) \S+ (die|dat) [^,]+, gehoord over ", pair.nl), pair


def test_coordinated_subjects_take_a_plural_verb(pairs, lex):
    words = Words(lex)
    checked = 0
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) and the (\w+) (\w+) the (\w+)\.", pair.en)
        if not m:
            continue
        verb, verb_plural = words.tv[m.group(3)]
        assert verb_plural
        first, second, obj = words.np(m.group(1))[0], words.np(m.group(2))[0], words.np(m.group(4))[0]
        assert pair.nl == cap(f"{first} en {second} {verb.nl_plural} {obj}."), pair
        checked += 1
    assert checked >= 100


def test_group_and_pp_subjects(pairs, lex):
    words = Words(lex)
    preps = {p.en: p.nl for p in lex.prepositions}
    groups = {g.en_singular: g for g in lex.groups}
    checked = Counter()
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) of (\w+) (\w+) the (\w+) (\w+) the (\w+)\.", pair.en)
        if m and m.group(1) in groups:
            group = groups[m.group(1)]
            members = words.nouns[m.group(2)][0]
            verb, verb_plural = words.tv[m.group(5)]
            assert not verb_plural
            expected = (
                f"{group.nl_definite(False)} {group.nl_singular} van {members.nl_plural} {preps[m.group(3)]} "
                f"{words.np(m.group(4))[0]} {verb.nl_singular} {words.np(m.group(6))[0]}."
            )
            assert pair.nl == cap(expected), pair
            checked["group"] += 1
        m = re.fullmatch(r"The (\w+) (behind|beside|near) the (\w+) (\w+) the (\w+)\.", pair.en)
        if m:
            subj, plural, _ = words.np(m.group(1))
            verb, verb_plural = words.tv[m.group(4)]
            assert verb_plural == plural
            expected = (
                f"{subj} {preps[m.group(2)]} {words.np(m.group(3))[0]} {verb.nl(plural)} {words.np(m.group(5))[0]}."
            )
            assert pair.nl == cap(expected), pair
            checked["pp"] += 1
    assert checked["group"] >= 100 and checked["pp"] >= 100, checked


def test_control_verbs_put_the_infinitive_last(pairs, lex):
    words = Words(lex)
    controls = {c.en_singular: c for c in lex.control_verbs} | {c.en_plural: c for c in lex.control_verbs}
    checked = 0
    for pair in pairs:
        m = re.fullmatch(r"The (\w+) (wants|want|tries|try|hopes|hope|has|have) to (\w+) the (\w+)\.", pair.en)
        if not m or m.group(3) not in words.tv or m.group(1) not in words.humans:
            continue
        subj, plural, _ = words.np(m.group(1))
        control = controls[m.group(2)]
        verb = words.tv[m.group(3)][0]
        te = "te " if control.nl_te else ""
        expected = f"{subj} {control.nl(plural)} {words.np(m.group(4))[0]} {te}{verb.nl_plural}."
        assert pair.nl == cap(expected), pair
        checked += 1
    assert checked >= 30


def test_articles_and_relative_pronouns_agree(pairs, lex):
    """het only with singular het-nouns, de with everything else; dat after a singular
    het-noun, die after everything else."""
    het_sg, de_sg, plural = set(), set(), set()
    for group in ("people", "elite", "vehicles", "groups", "abstract_nouns", "keyword_nouns"):
        for noun in getattr(lex, group):
            (het_sg if noun.nl_article == "het" else de_sg).add(noun.nl_singular)
            plural.add(noun.nl_plural)
    het_sg -= plural | de_sg
    counts = Counter()
    for pair in pairs:
        tokens = re.findall(r"[\w']+|[^\w\s]", pair.nl.lower())
        for left, right in zip(tokens, tokens[1:]):
            if left == "het":
                assert right not in plural and right not in de_sg or right in het_sg, pair.nl
            if left == "de":
                assert right not in het_sg, pair.nl
            if left == "een":
                assert right not in plural or right in de_sg | het_sg, pair.nl
            if left in het_sg and right in ("die", "dat"):
                assert right == "dat", pair.nl
                counts["dat"] += 1
            if (left in plural or left in de_sg) and left not in het_sg and right in ("die", "dat"):
                assert right == "die", pair.nl
                counts["die"] += 1
    assert counts["dat"] > 100 and counts["die"] > 1000


def test_object_relative_clause_is_extraposed_behind_the_cluster(pairs, grammar):
    seen = 0
    for pair in pairs:
        if not pair.frame.startswith("question_transitive|synonym:"):
            continue
        k = int(pair.frame.split(":")[1])
        synonym = grammar.synonyms[k]
        if not synonym.is_relative or not re.search(r"\?$", pair.nl):
            continue
        clause_nl = f"(die|dat) ({re.escape(synonym.clause_nl_singular)}|{re.escape(synonym.clause_nl_plural)})\\?$"
        if re.search(r"Did the \w+ \w+ the \w+ (that|with) ", pair.en):  # modifier on the object
            assert re.search(clause_nl, pair.nl), pair
            seen += 1
    assert seen >= 3


def test_sentence_coordination(pairs):
    coordinated = [p for p in pairs if p.frame.startswith("coordination")]
    assert len(coordinated) > 0.1 * len(pairs)
    first_frames = Counter(p.frame.split(":")[1].split("+")[0] for p in coordinated)
    second_frames = Counter(p.frame.split("+")[1].split("|")[0] for p in coordinated)
    assert len(first_frames) >= 15 and len(second_frames) >= 15
    for pair in coordinated:
        assert ", and " in pair.en and ", en " in pair.nl, pair
        assert re.search(r", and [a-z]", pair.en)


def test_nested_phrases_for_fragment_extraction(pairs):
    """NP and VP subtrees with 10+ non-terminals (preterminals included) are common."""

    def big_subtrees(tree: str) -> int:
        stack, found = [], 0
        for token in re.findall(r"\(\S+|\)", tree):
            if token.startswith("("):
                stack.append([token[1:], 1])
            else:
                label, size = stack.pop()
                if stack:
                    stack[-1][1] += size
                if label in ("NP", "VP") and size >= 10:
                    found += 1
        return found

    with_big = sum(1 for p in pairs if big_subtrees(p.tree) > 0)
    assert with_big > 0.3 * len(pairs)
    for phrase in (" is read by the ", " read an article about ", " reads an article about ", " to "):
        assert sum(phrase in p.en for p in pairs) > 300, phrase


# ---------------------------------------------------------------- synonyms and idioms


def test_every_synonym_in_both_spellings_is_frequent(pairs, grammar):
    counts = Counter()
    for pair in pairs:
        for part in pair.frame.split("|")[1:]:
            if part.startswith("synonym:"):
                _, k, spelling = part.split(":")
                counts[int(k), spelling] += 1
                synonym = grammar.synonyms[int(k)]
                assert synonym.term(spelling) in pair.en
                other = synonym.term("american" if spelling == "british" else "british")
                assert other not in pair.en or other in synonym.term(spelling)
                assert any(c in pair.nl.lower() for c in synonym.nl_candidates), pair
    for k in range(len(grammar.synonyms)):
        assert counts[k, "british"] + counts[k, "american"] >= 50, k
        assert min(counts[k, "british"], counts[k, "american"]) >= 20, k


def test_synonym_spellings_give_the_same_dutch(grammar):
    for k, synonym in enumerate(grammar.synonyms):
        for seed in range(8):
            british = grammar.synonym_sentence(random.Random(seed), k, "british")
            american = grammar.synonym_sentence(random.Random(seed), k, "american")
            assert british.nl == american.nl
            assert british.en.replace(synonym.british, synonym.american) == american.en
            assert synonym.british in british.en
            clause = synonym.clause_nl_plural if "zeiden" in british.nl else synonym.clause_nl_singular
            assert synonym.clause_nl_singular in british.nl or synonym.clause_nl_plural in british.nl, clause


def test_synonym_clause_dutch(grammar):
    pair = grammar.synonyms[2]  # doughnut
    for seed in range(30):
        sentence = grammar.synonym_sentence(random.Random(seed), 2, "british")
        m = re.search(r"the (\w+) that (eats|eat) the doughnut", sentence.en, re.IGNORECASE)
        assert m, sentence.en
        plural = m.group(2) == "eat"
        clause = pair.clause_nl_plural if plural else pair.clause_nl_singular
        pronoun = "dat" if m.group(1) in ("girl", "child", "victim") else "die"
        assert re.search(rf"\b{pronoun} {clause}\b", sentence.nl), sentence


def test_idiom_clauses_get_the_idiomatic_dutch(pairs, grammar, lex):
    words = Words(lex)
    counts = Counter()
    for pair in pairs:
        for part in pair.frame.split("|")[1:]:
            if not part.startswith("idiom:"):
                continue
            idiom = grammar.idioms[int(part.split(":")[1])]
            counts[idiom.idiom, pair.frame.startswith("idiom_alone")] += 1
            assert idiom.clause in pair.en
            assert idiom.clause_nl_idiomatic in pair.nl
            assert not idiom.has_keyword(idiom.clause_nl_idiomatic)
            if pair.frame.startswith("idiom_alone"):
                assert pair.en == idiom.clause + ("?" if idiom.is_question else ".")
                assert pair.nl == idiom.clause_nl_idiomatic + ("?" if idiom.is_question else ".")
            else:
                assert f'that said "{idiom.clause}"' in pair.en
                antecedent = re.search(r'the (\w+) that said "', pair.en, re.IGNORECASE).group(1)
                _, plural, pronoun = words.np(antecedent)
                said = "zeiden" if plural else "zei"
                assert f'{pronoun} {said} "{idiom.clause_nl_idiomatic}"' in pair.nl, pair
    for idiom in grammar.idioms:
        assert counts[idiom.idiom, False] >= 10, idiom.idiom
        assert counts[idiom.idiom, True] >= 2, idiom.idiom


def test_literal_keyword_uses_outnumber_idioms(pairs):
    """Literal uses come first in learning only if they are clearly more frequent."""
    literal = sum(pair.frame.startswith("literal") for pair in pairs)
    idiom = sum("|idiom:" in pair.frame for pair in pairs)
    assert literal > 3 * idiom


def test_idiom_sentence_has_no_literal_keyword_in_its_clause(grammar):
    for i, idiom in enumerate(grammar.idioms):
        sentence = grammar.idiom_sentence(random.Random(i), i)
        quoted = re.search(r'"(.*)"', sentence.nl).group(1)
        assert quoted == idiom.clause_nl_idiomatic
        assert not idiom.has_keyword(quoted)


def test_literal_keyword_uses(pairs, grammar):
    """Every English keyword also occurs outside its idiom, translated literally."""
    candidates = [
        (set(tree_leaves(p.tree)), p) for p in pairs if "said" not in p.en and not p.frame.startswith("idiom_alone")
    ]
    for idiom in grammar.idioms:
        for keyword in idiom.english_keywords:
            literal = [p for leaves, p in candidates if keyword in leaves]
            assert len(literal) >= 30, keyword
            with_keyword = [p for p in literal if idiom.has_keyword(p.nl)]
            # (not all: "Did the girl run ?" -> "Heeft het meisje gerend ?" has no keyword)
            assert len(with_keyword) >= 0.8 * len(literal), (keyword, [p for p in literal if p not in with_keyword][:3])


def test_literal_example_translations(pairs):
    nl_of = {p.en: p.nl for p in pairs}
    assert any(p.nl.endswith("het hart.") for p in pairs)
    for en, nl in nl_of.items():
        if re.fullmatch(r"The \w+ \w+ for a while\.", en):
            assert re.fullmatch(r"(De|Het) \w+ \w+ een tijdje\.", nl), (en, nl)
        if en.startswith("This is the "):
            assert nl.startswith("Dit is "), (en, nl)
        if en.startswith("These are the "):
            assert nl.startswith("Dit zijn de "), (en, nl)


# ---------------------------------------------------------------- determinism and releases


def test_generation_is_deterministic():
    first = generate_pairs(LEXICON, SYNONYMS, IDIOMS, 300, seed=5)
    assert first == generate_pairs(LEXICON, SYNONYMS, IDIOMS, 300, seed=5)
    assert first != generate_pairs(LEXICON, SYNONYMS, IDIOMS, 300, seed=6)


SIZES = dict(n_train=1500, n_dev=100, n_test=120, n_flores_dev=60, n_flores_devtest=70)


def build(directory: Path, seed: int) -> dict[str, Path]:
    paths = {
        "tatoeba": directory / "eng-nld.tar",
        "flores": directory / "flores101_dataset.tar.gz",
        "trees": directory / "treebank.mrg",
    }
    build_demo_data(
        LEXICON, SYNONYMS, IDIOMS, **SIZES, seed=seed,
        tatoeba_tar=paths["tatoeba"], flores_tar=paths["flores"], treebank_path=paths["trees"],
    )  # fmt: skip
    return paths


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> dict[str, Path]:
    return build(tmp_path_factory.mktemp("release"), seed=3)


def test_release_files_are_byte_identical_for_a_seed(release, tmp_path):
    again = build(tmp_path / "a", seed=3)
    other = build(tmp_path / "b", seed=4)
    for key in release:
        assert release[key].read_bytes() == again[key].read_bytes(), key
        assert release[key].read_bytes() != other[key].read_bytes(), key
    assert not list(tmp_path.glob("a/.*.part"))  # no temporary files left


def read_tar(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            assert member.mtime == 0 and member.uid == 0 and member.gid == 0
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def lines(data: bytes) -> list[str]:
    text = data.decode("utf-8")
    assert text.endswith("\n")
    return text[:-1].split("\n")


def test_tatoeba_layout_and_alignment(release):
    members = read_tar(release["tatoeba"])
    base = "data/release/v2020-07-28/eng-nld/"
    expected = {"README.md", "train.src.gz", "train.trg.gz", "train.id.gz"}
    expected |= {f"{split}.{ext}" for split in ("dev", "test") for ext in ("src", "trg", "id")}
    assert set(members) == {base + name for name in expected}
    with tarfile.open(release["tatoeba"]) as tar:
        assert tar.getmembers()[0].name == "data" and tar.getmembers()[0].isdir()
    train_src = lines(gzip.decompress(members[base + "train.src.gz"]))
    train_trg = lines(gzip.decompress(members[base + "train.trg.gz"]))
    train_id = lines(gzip.decompress(members[base + "train.id.gz"]))
    assert len(train_src) == len(train_trg) == len(train_id) == SIZES["n_train"]
    assert set(train_id) == {f"{CORPUS_ID}\teng\tnld"}
    for split, size in (("dev", SIZES["n_dev"]), ("test", SIZES["n_test"])):
        src, trg, ids = (lines(members[base + f"{split}.{ext}"]) for ext in ("src", "trg", "id"))
        assert len(src) == len(trg) == len(ids) == size
        assert set(ids) == {"eng\tnld"}
    # the treebank is line-aligned with train.src
    trees = lines(release["trees"].read_bytes())
    tokenizer = sacremoses.MosesTokenizer("en")
    assert len(trees) == len(train_src)
    for tree, sentence in list(zip(trees, train_src))[::50]:
        assert tree_leaves(tree) == tokenizer.tokenize(sentence, escape=False)
    # Dutch side aligned: every train pair is a grammar output, English -> Dutch is a function
    mapping = {}
    for en, nl in zip(train_src, train_trg):
        assert mapping.setdefault(en, nl) == nl


def test_flores_layout(release):
    members = read_tar(release["flores"])
    assert release["flores"].read_bytes()[:2] == b"\x1f\x8b"
    for split, size in (("dev", SIZES["n_flores_dev"]), ("devtest", SIZES["n_flores_devtest"])):
        eng = lines(members[f"flores101_dataset/{split}/eng.{split}"])
        nld = lines(members[f"flores101_dataset/{split}/nld.{split}"])
        assert len(eng) == len(nld) == size


def test_heldout_sets_are_disjoint_from_train_and_each_other(release):
    tatoeba = read_tar(release["tatoeba"])
    flores = read_tar(release["flores"])
    base = "data/release/v2020-07-28/eng-nld/"
    train = set(lines(gzip.decompress(tatoeba[base + "train.src.gz"])))
    train |= set(lines(gzip.decompress(tatoeba[base + "train.trg.gz"])))
    heldout = []
    for ext in ("src", "trg"):
        heldout += lines(tatoeba[base + f"dev.{ext}"]) + lines(tatoeba[base + f"test.{ext}"])
    for name in ("dev/eng.dev", "dev/nld.dev", "devtest/eng.devtest", "devtest/nld.devtest"):
        heldout += lines(flores["flores101_dataset/" + name])
    assert not train & set(heldout)
    assert len(heldout) == len(set(heldout))


def test_split_heldout():
    pairs = [SentencePair(f"E{i % 5}.", f"N{i % 5}.", "(ROOT (S (NN x)))") for i in range(5)]
    pairs += [SentencePair("E0.", "N0.", "(ROOT (S (NN x)))"), SentencePair("E9.", "N1.", "(ROOT (S (NN x)))")]
    rest, (held,) = split_heldout(pairs, [3])
    assert [p.en for p in held] == ["E2.", "E3.", "E4."]
    assert [p.en for p in rest] == ["E0.", "E1.", "E0.", "E9."]
    with pytest.raises(ValueError, match="unique"):
        split_heldout(pairs, [4])


def test_flores_release_checks_its_input(tmp_path):
    pair = SentencePair("A.", "B.", "(ROOT (S (NN a)))")
    with pytest.raises(ValueError):
        write_flores_release([pair], tmp_path / "f.tar.gz", 1, 1)
    with pytest.raises(ValueError):
        write_flores_release([pair, pair], tmp_path / "f.tar.gz", 1, 1)
    assert not (tmp_path / "f.tar.gz").exists()
