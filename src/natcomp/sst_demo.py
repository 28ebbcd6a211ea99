"""A demo sentiment treebank in SST's exact release layout, generated from a seed.

The demo world has a small sentiment lexicon and rules by which the sentiment of a
phrase composes from its words (:func:`compose_polarity`):

* a sentiment word contributes its lexicon polarity (in [-1, 1]; other words 0);
* an intensifier (``very``, ``truly``...) scales the next sentiment word by its factor
  (a down-toner such as ``slightly`` has a factor below 1);
* a negator (``not``, ``never``) flips and damps the next sentiment word
  (``-NEGATION_DAMPING`` times its value);
* contributions add up and are clipped to [-1, 1];
* contrast: in ``X but Y`` the part after the last ``but`` dominates:
  ``CONTRAST_WEIGHT * p(Y) + (1 - CONTRAST_WEIGHT) * p(X)``.

Planted *non-compositional* phrases (idioms, sarcasm: :func:`planted_phrases`) break
those rules: the combination of their two subphrases ``A B`` has a sentiment that the
rules do not predict (``all the excitement`` + ``of watching paint dry`` is negative),
while ``A`` and ``B`` alone, and every other combination with them, compose by the rules.
:class:`DemoWorld` is the demo's ground truth: the rules plus the planted overrides; the
simulated SST annotators and the simulated study participants rate by it.

:func:`generate_treebank` draws sentences from a small binary grammar (categories S, NP,
VP, PP, SBAR, ADJP, NOM, CONJP and part-of-speech tags), each planted phrase in a few
sentences, and :func:`write_release` writes the three archives of the SST release
(``stanfordSentimentTreebank.zip``, ``stanfordSentimentTreebankRaw.zip``,
``trainDevTestTrees_PTB.zip``) with three raw 1-25 scores per phrase from noisy simulated
annotators, plus side files the demo uses instead of stanza: the category trees (the
demo's own "parser"), the named-entity lexicon and the planted phrases. Everything is
deterministic from the seed: the same settings give byte-identical archives.

Sentiment *values* follow SST: ``v = (p + 1) / 2`` in [0, 1] for a polarity ``p``.
"""

from __future__ import annotations

import random
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from natcomp.files import atomic_path
from natcomp.sst import format_ptb_tree, sst5_label
from natcomp.trees import Tree

__all__ = [
    "CONTRAST_WEIGHT",
    "NEGATION_DAMPING",
    "DemoSentence",
    "DemoTreebank",
    "DemoWorld",
    "Lexicon",
    "PlantedPhrase",
    "compose_polarity",
    "demo_lexicon",
    "generate_treebank",
    "planted_phrases",
    "polarity_to_value",
    "value_to_polarity",
    "write_release",
]

NEGATION_DAMPING = 0.6
CONTRAST_WEIGHT = 0.7
_ZIP_DATE = (2013, 8, 1, 0, 0, 0)


@dataclass(frozen=True)
class Lexicon:
    """The demo's words by part of speech, with the polarity of each sentiment word.

    ``polarity`` maps a (lower-case) word to its polarity in [-1, 1]; words not in it are
    neutral. ``pos`` maps a part-of-speech tag (DT, NN, JJ, ...) to its words.
    """

    polarity: Mapping[str, float]
    intensifiers: Mapping[str, float]
    negators: frozenset[str]
    contrast: frozenset[str]
    pos: Mapping[str, tuple[str, ...]]
    entities: tuple[str, ...]

    @property
    def positive(self) -> dict[str, float]:
        return {w: p for w, p in self.polarity.items() if p > 0}

    @property
    def negative(self) -> dict[str, float]:
        return {w: p for w, p in self.polarity.items() if p < 0}

    @property
    def neutral(self) -> tuple[str, ...]:
        """Content words (nouns, adjectives, verbs) without polarity."""
        words = {w for tag in ("NN", "JJ", "VB", "VBZ") for w in self.pos.get(tag, ())}
        return tuple(sorted(w for w in words if w not in self.polarity))


def demo_lexicon() -> Lexicon:
    """The demo lexicon (fixed; the PSS/TRE demo builds its sentences from it too)."""
    adjectives_pos = {
        "brilliant": 0.8,
        "wonderful": 0.8,
        "gorgeous": 0.7,
        "delightful": 0.7,
        "moving": 0.6,
        "charming": 0.5,
        "clever": 0.5,
        "witty": 0.5,
        "engaging": 0.5,
        "funny": 0.4,
        "fresh": 0.4,
        "good": 0.6,
        "best": 0.8,
    }
    adjectives_neg = {
        "awful": -0.8,
        "dreadful": -0.8,
        "lifeless": -0.7,
        "bad": -0.7,
        "dull": -0.6,
        "boring": -0.6,
        "tedious": -0.6,
        "pointless": -0.6,
        "terminal": -0.6,
        "horrified": -0.6,
        "clumsy": -0.5,
        "clichéd": -0.5,
        "bland": -0.4,
        "predictable": -0.4,
        "messy": -0.4,
    }
    nouns_pos = {"excitement": 0.6, "awe": 0.5, "charm": 0.5, "delight": 0.7}
    nouns_neg = {"mess": -0.6, "bore": -0.6, "disaster": -0.8}
    verbs_neg = {"die": -0.7}
    # words that occur only in the planted phrases
    planted_only = {"treat": 0.6, "killer": -0.7, "funniest": 0.7}
    polarity = {**adjectives_pos, **adjectives_neg, **nouns_pos, **nouns_neg, **verbs_neg, **planted_only}
    pos = {
        "DT": ("the", "this", "its", "a"),
        "NN": (
            "film",
            "movie",
            "script",
            "plot",
            "story",
            "cast",
            "director",
            "soundtrack",
            "ending",
            "dialogue",
            "premise",
            "sequel",
            "score",
            "camera",
            "pacing",
            "humor",
            "romance",
            "thriller",
        ),
        "NN+": tuple(nouns_pos),
        "NN-": tuple(nouns_neg),
        "JJ": ("long", "new", "french", "quiet", "familiar", "small", "old", "second"),
        "JJ+": tuple(adjectives_pos),
        "JJ-": tuple(a for a in adjectives_neg if a not in ("terminal", "horrified")),
        "RB": ("very", "truly", "remarkably", "slightly", "rather"),
        "NEG": ("not", "never"),
        "VBZ": ("is", "seems", "feels", "remains"),
        "VB": ("offers", "has", "delivers", "shows"),
        "IN": ("of", "about", "with", "from"),
        "SB": ("because", "since"),
        "CC": ("but",),
    }
    return Lexicon(
        polarity=polarity,
        intensifiers={"very": 1.5, "truly": 1.5, "remarkably": 1.5, "slightly": 0.5, "rather": 0.7},
        negators=frozenset({"not", "never", "n't"}),
        contrast=frozenset({"but"}),
        pos=pos,
        entities=("marta velde", "jon rusk", "ada okafor", "lena brandt", "tomas ilves"),
    )


def _clip(value: float) -> float:
    return max(-1.0, min(1.0, value))


def polarity_to_value(polarity: float) -> float:
    """SST value in [0, 1] of a polarity in [-1, 1]."""
    return (_clip(polarity) + 1.0) / 2.0


def value_to_polarity(value: float) -> float:
    return 2.0 * value - 1.0


def _flat_polarity(tokens: Sequence[str], lexicon: Lexicon, units: Mapping[int, tuple[int, float]]) -> float:
    total = 0.0
    factor = 1.0
    negated = False
    i = 0
    while i < len(tokens):
        if i in units:  # a planted phrase: one unit with its own polarity
            end, polarity = units[i]
            total += polarity
            factor, negated = 1.0, False
            i = end
            continue
        word = tokens[i].lower()
        if word in lexicon.negators:
            negated = not negated
        elif word in lexicon.intensifiers:
            factor *= lexicon.intensifiers[word]
        elif word in lexicon.polarity:
            value = _clip(lexicon.polarity[word] * factor)
            total += -NEGATION_DAMPING * value if negated else value
            factor, negated = 1.0, False
        i += 1
    return _clip(total)


def _compose(tokens: Sequence[str], lexicon: Lexicon, units: Mapping[int, tuple[int, float]]) -> float:
    lowered = [t.lower() for t in tokens]
    splits = [
        i for i, t in enumerate(lowered) if t in lexicon.contrast and not any(s < i < e for s, (e, _) in units.items())
    ]
    if not splits:
        return _flat_polarity(tokens, lexicon, units)
    cut = splits[-1]
    before_units = {s: u for s, u in units.items() if u[0] <= cut}
    after_units = {s - cut - 1: (e - cut - 1, p) for s, (e, p) in units.items() if s > cut}
    after = _flat_polarity(tokens[cut + 1 :], lexicon, after_units)
    if cut == 0 or all(t in {",", ";"} for t in lowered[:cut]):
        return after
    before = _compose(tokens[:cut], lexicon, before_units)
    return _clip(CONTRAST_WEIGHT * after + (1 - CONTRAST_WEIGHT) * before)


def compose_polarity(tokens: Sequence[str], lexicon: Lexicon | None = None) -> float:
    """Polarity in [-1, 1] of a token sequence by the demo's composition rules (no planted overrides)."""
    return _compose(list(tokens), lexicon or demo_lexicon(), {})


@dataclass(frozen=True)
class PlantedPhrase:
    """A non-compositional phrase ``A B`` whose sentiment the rules do not predict."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    left_type: str
    right_type: str
    polarity: float
    kind: str

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.left + self.right

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    @property
    def phrase_type(self) -> str:
        return "S" if (self.left_type, self.right_type) == ("NP", "VP") else "NP"


def planted_phrases() -> list[PlantedPhrase]:
    """The demo's planted non-compositional phrases (idioms, sarcasm, figurative language)."""
    rows = [
        ("all the excitement", "of watching paint dry", "NP", "PP", -0.8, "sarcasm"),
        ("a nearly terminal case", "of the cutes", "NP", "PP", 0.8, "figurative"),
        ("the best part of the film", "is the closing credits", "NP", "VP", -0.8, "sarcasm"),
        ("the whole plot", "goes off the rails", "NP", "VP", -0.8, "idiom"),
        ("this little gem of a film", "is to die for", "NP", "VP", 0.9, "idiom"),
        ("the dull moments", "are few and far between", "NP", "VP", 0.7, "idiom"),
        ("a movie so bad", "that it is good", "NP", "SBAR", 0.6, "figurative"),
        ("a pressure cooker", "of horrified awe", "NP", "PP", -0.9, "figurative"),
        ("the only surprise", "is the running time", "NP", "VP", -0.7, "sarcasm"),
        ("a real treat", "for fans of sleep", "NP", "PP", -0.7, "sarcasm"),
        ("a killer performance", "from the whole cast", "NP", "PP", 0.9, "idiom"),
        ("the funniest thing about it", "is its running time", "NP", "VP", -0.8, "sarcasm"),
        ("the only thing missing", "is a good plot", "NP", "VP", -0.8, "sarcasm"),
        ("a real laugh riot", "for all the wrong reasons", "NP", "PP", -0.7, "sarcasm"),
        ("this old film", "is not to be missed", "NP", "VP", 0.9, "idiom"),
        ("a script so clever", "that it hurts", "NP", "SBAR", -0.6, "sarcasm"),
        ("the plot twists", "are a real snooze", "NP", "VP", -0.7, "idiom"),
        ("every single scene", "is pure gold", "NP", "VP", 0.9, "idiom"),
        ("the slow pacing", "is a feature not a bug", "NP", "VP", 0.7, "figurative"),
        ("a brilliant career", "in the rear view mirror", "NP", "PP", -0.6, "figurative"),
    ]
    return [PlantedPhrase(tuple(a.split()), tuple(b.split()), ta, tb, p, k) for a, b, ta, tb, p, k in rows]


@dataclass
class DemoWorld:
    """The demo's ground truth: the composition rules plus the planted overrides."""

    lexicon: Lexicon = field(default_factory=demo_lexicon)
    planted: list[PlantedPhrase] = field(default_factory=planted_phrases)

    def _units(self, tokens: Sequence[str]) -> dict[int, tuple[int, float]]:
        lowered = [t.lower() for t in tokens]
        units: dict[int, tuple[int, float]] = {}
        for phrase in self.planted:
            n = len(phrase.tokens)
            for i in range(len(lowered) - n + 1):
                if tuple(lowered[i : i + n]) == phrase.tokens and not any(s <= i < e for s, (e, _) in units.items()):
                    units[i] = (i + n, phrase.polarity)
        return units

    def polarity(self, tokens: Sequence[str]) -> float:
        """Polarity of a token sequence: planted phrases count as units with their own polarity."""
        tokens = list(tokens)
        return _compose(tokens, self.lexicon, self._units(tokens))

    def value(self, tokens: Sequence[str]) -> float:
        """SST value in [0, 1] (what an ideal annotator would give)."""
        return polarity_to_value(self.polarity(tokens))

    def rule_value(self, tokens: Sequence[str]) -> float:
        """SST value by the rules alone, ignoring planted overrides."""
        return polarity_to_value(compose_polarity(tokens, self.lexicon))


# ----------------------------------------------------------------------------- grammar
def _leaf(tag: str, word: str) -> Tree:
    return Tree(tag, word=word)


def _node(label: str, left: Tree, right: Tree) -> Tree:
    return Tree(label, [left, right])


def _chain(label: str, parts: list[Tree]) -> Tree:
    """Right-branching binary tree over ``parts`` (all inner nodes labelled ``label``)."""
    if len(parts) == 1:
        return parts[0]
    return _node(label, parts[0], _chain(label, parts[1:]))


def _words_tree(label: str, words: Sequence[str], tags: Sequence[str] | None = None) -> Tree:
    tags = tags or ["W"] * len(words)
    return _chain(label, [_leaf(t, w) for t, w in zip(tags, words)])


class _Grammar:
    def __init__(self, lexicon: Lexicon, rng: random.Random, short_share: float = 0.0):
        self.lex = lexicon
        self.rng = rng
        self.short_share = short_share

    def pick(self, tag: str) -> str:
        return self.rng.choice(self.lex.pos[tag])

    def adjective(self) -> tuple[str, str]:
        kind = self.rng.choices(["JJ+", "JJ-", "JJ"], weights=[4, 4, 2])[0]
        return "JJ", self.pick(kind)

    def adjp(self) -> Tree:
        tag, adj = self.adjective()
        if self.rng.random() < 0.35:
            return _node("ADJP", _leaf("RB", self.pick("RB")), _leaf(tag, adj))
        return _leaf(tag, adj)

    def nom(self) -> Tree:
        roll = self.rng.random()
        noun = self.pick("NN+" if roll < 0.1 else "NN-" if roll < 0.2 else "NN")
        if self.rng.random() < 0.7:
            return _node("NOM", self.adjp(), _leaf("NN", noun))
        return _leaf("NN", noun)

    def np(self, depth: int = 0) -> Tree:
        roll = self.rng.random()
        if roll < 0.06 and depth == 0:
            name = self.rng.choice(self.lex.entities).split()
            owner = _node("NP", _words_tree("NNP", name, ["NNP"] * len(name)), _leaf("POS", "'s"))
            return _node("NP", owner, self.nom())
        base = _node("NP", _leaf("DT", self.pick("DT")), self.nom())
        if roll < 0.35 and depth == 0:
            return _node("NP", base, self.pp(depth + 1))
        return base

    def pp(self, depth: int = 0) -> Tree:
        return _node("PP", _leaf("IN", self.pick("IN")), self.np(depth))

    def vp(self) -> Tree:
        roll = self.rng.random()
        if roll < 0.3:
            return _node(
                "VP", _leaf("VBZ", self.pick("VBZ")), _node("ADJP", _leaf("NEG", self.pick("NEG")), self.adjp())
            )
        if roll < 0.65:
            return _node("VP", _leaf("VBZ", self.pick("VBZ")), self.adjp())
        return _node("VP", _leaf("VB", self.pick("VB")), self.np(depth=1))

    def clause(self) -> Tree:
        return _node("S", self.np(), self.vp())

    def short_clause(self) -> Tree:
        """A clause whose noun phrase has two words: no node of it has two subphrases of 3+ tokens."""
        subject = _node("NP", _leaf("DT", self.pick("DT")), _leaf("NN", self.pick("NN")))
        roll = self.rng.random()
        if roll < 0.3:
            predicate = _node(
                "VP", _leaf("VBZ", self.pick("VBZ")), _node("ADJP", _leaf("NEG", self.pick("NEG")), self.adjp())
            )
        else:
            predicate = _node("VP", _leaf("VBZ", self.pick("VBZ")), self.adjp())
        return _node("S", subject, predicate)

    def sentence(self) -> Tree:
        if self.rng.random() < self.short_share:
            return _node("ROOT", self.short_clause(), _leaf(".", "."))
        roll = self.rng.random()
        if roll < 0.2:
            body = _node("S", self.clause(), _node("CONJP", _leaf("CC", "but"), self.clause()))
        elif roll < 0.32:
            body = _node("S", self.clause(), _node("SBAR", _leaf("IN", self.pick("SB")), self.clause()))
        elif roll < 0.4:
            body = self.np()
        else:
            body = self.clause()
        return _node("ROOT", body, _leaf(".", "."))

    def planted_sentence(self, phrase: PlantedPhrase) -> Tree:
        left = _words_tree(phrase.left_type, phrase.left)
        right = _words_tree(phrase.right_type, phrase.right)
        planted = _node(phrase.phrase_type, left, right)
        if phrase.phrase_type == "S":
            body = (
                planted
                if self.rng.random() < 0.5
                else _node("S", planted, _node("CONJP", _leaf("CC", "but"), self.clause()))
            )
        else:
            body = _node("S", planted, self.vp()) if self.rng.random() < 0.6 else planted
        return _node("ROOT", body, _leaf(".", "."))


@dataclass(frozen=True)
class DemoSentence:
    """One generated sentence: its category tree (the demo's parse) and its split."""

    categories: Tree
    split: str

    @property
    def tokens(self) -> list[str]:
        return self.categories.leaves()


@dataclass
class DemoTreebank:
    """A generated treebank with its ground truth and its simulated SST annotations."""

    sentences: list[DemoSentence]
    world: DemoWorld
    raw_scores: dict[str, tuple[int, int, int]]  # phrase text -> three 1-25 scores

    def value(self, text: str) -> float:
        """The SST value of a phrase: ``(mean raw - 1) / 24`` rounded to 5 decimals, as SST."""
        scores = self.raw_scores[text]
        return round((sum(scores) / len(scores) - 1) / 24, 5)

    def sentiment_tree(self, sentence: DemoSentence) -> Tree:
        """The SST PTB tree (labels 0-4 from the phrase values) of a sentence."""

        def label(node: Tree) -> Tree:
            text = " ".join(node.leaves())
            tag = str(sst5_label(self.value(text)))
            if node.is_preterminal:
                return Tree(tag, word=node.word)
            return Tree(tag, [label(child) for child in node.children])

        return label(sentence.categories)

    def phrase_types(self) -> dict[str, str]:
        """Lower-cased phrase text -> category of the constituent (the first one seen)."""
        out: dict[str, str] = {}
        for sentence in self.sentences:
            for node in sentence.categories.subtrees():
                if not node.is_preterminal:
                    out.setdefault(" ".join(node.leaves()).lower(), node.label)
        return out


def _raw_scores(value: float, rng: random.Random, noise: float) -> tuple[int, int, int]:
    centre = 1 + 24 * value
    return tuple(int(max(1, min(25, round(rng.gauss(centre, noise))))) for _ in range(3))  # type: ignore[return-value]


def generate_treebank(
    sentences: int = 600,
    *,
    seed: int = 1,
    planted_occurrences: int = 2,
    split_shares: tuple[float, float, float] = (0.7, 0.1, 0.2),
    raw_score_noise: float = 1.5,
    short_share: float = 0.6,
    world: DemoWorld | None = None,
) -> DemoTreebank:
    """Draw a treebank of ``sentences`` sentences (plus ``planted_occurrences`` per planted phrase).

    Splits are drawn with ``split_shares`` (train, dev, test); planted sentences go to
    train, dev and test in turn so every split has some. Raw scores: three simulated SST
    annotators per unique phrase, each ``round(N(1 + 24 v, raw_score_noise))`` clipped to 1-25
    around the phrase's true value ``v``. A ``short_share`` of the sentences are short
    clauses (a two-word subject) that hold no candidate phrase, as most SST nodes hold
    none: they keep SST-7 large after the stimulus sentences are removed.
    """
    world = world or DemoWorld()
    rng = random.Random(seed)
    grammar = _Grammar(world.lexicon, rng, short_share)
    drawn: list[DemoSentence] = []
    seen: set[str] = set()
    attempts = 0
    while len(drawn) < sentences:
        attempts += 1
        if attempts > sentences * 50:
            raise ValueError(f"the demo grammar cannot produce {sentences} distinct sentences")
        tree = grammar.sentence()
        text = " ".join(tree.leaves())
        if text in seen:
            continue
        seen.add(text)
        split = rng.choices(["train", "dev", "test"], weights=split_shares)[0]
        drawn.append(DemoSentence(tree, split))
    cycle = ["train", "test", "dev"]
    k = 0
    for phrase in world.planted:
        made = 0
        while made < planted_occurrences:
            tree = grammar.planted_sentence(phrase)
            text = " ".join(tree.leaves())
            if text in seen:
                continue
            seen.add(text)
            drawn.insert(rng.randrange(len(drawn) + 1), DemoSentence(tree, cycle[k % 3]))
            k += 1
            made += 1
    raw: dict[str, tuple[int, int, int]] = {}
    for sentence in drawn:
        for node in sentence.categories.subtrees():
            tokens = node.leaves()
            text = " ".join(tokens)
            if text not in raw:
                raw[text] = _raw_scores(world.value(tokens), rng, raw_score_noise)
    return DemoTreebank(drawn, world, raw)


# ----------------------------------------------------------------------------- writing
def _mojibake(text: str) -> str:
    """UTF-8 read as latin-1: the damage datasetSentences.txt of the real release has."""
    return text.encode("utf-8").decode("latin-1")


def _parent_pointers(tree: Tree) -> list[int]:
    """STree.txt pointers: leaves 1..n first, inner nodes after them (post-order), root's parent 0."""
    leaves: list[Tree] = []
    inner: list[Tree] = []

    def collect(node: Tree) -> None:
        if node.is_preterminal:
            leaves.append(node)
            return
        for child in node.children:
            collect(child)
        inner.append(node)

    collect(tree)
    number = {id(node): i + 1 for i, node in enumerate(leaves + inner)}
    parents = [0] * len(number)

    def link(node: Tree) -> None:
        for child in node.children:
            parents[number[id(child)] - 1] = number[id(node)]
            link(child)

    link(tree)
    return parents


def _write_zip(path: Path, members: Iterable[tuple[str, str]]) -> Path:
    with atomic_path(path) as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, text in members:
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, text.encode("utf-8"))
    return path


def write_release(treebank: DemoTreebank, directory: str | Path) -> dict[str, Path]:
    """Write the three SST archives and the demo's side files into ``directory``.

    Returns {name: path} for ``sst`` (stanfordSentimentTreebank.zip), ``raw``
    (stanfordSentimentTreebankRaw.zip), ``ptb`` (trainDevTestTrees_PTB.zip),
    ``categories`` (phrase_types.tsv: ``phrase<TAB>type``, the demo's stand-in for a
    constituency parser), ``entities`` (entities.txt: one name a line, the stand-in for
    NER) and ``planted`` (planted.tsv: ``phrase, left, right, left_type, right_type, kind,
    polarity``).
    """
    directory = Path(directory)
    sentences = treebank.sentences
    phrases: list[str] = []
    seen: set[str] = set()
    for sentence in sentences:
        for node in sentence.categories.subtrees():
            text = " ".join(node.leaves())
            if text not in seen:
                seen.add(text)
                phrases.append(text)
    ids = {text: i for i, text in enumerate(sorted(phrases))}
    sst_dir = "stanfordSentimentTreebank"
    split_code = {"train": 1, "test": 2, "dev": 3}
    sentence_lines = ["sentence_index\tsentence"] + [
        f"{i}\t{_mojibake(' '.join(s.tokens))}" for i, s in enumerate(sentences, start=1)
    ]
    members = [
        (f"{sst_dir}/dictionary.txt", "".join(f"{text}|{ids[text]}\n" for text in sorted(phrases))),
        (
            f"{sst_dir}/sentiment_labels.txt",
            "phrase ids|sentiment values\n"
            + "".join(f"{i}|{treebank.value(text):.5g}\n" for text, i in sorted(ids.items(), key=lambda kv: kv[1])),
        ),
        (f"{sst_dir}/datasetSentences.txt", "\n".join(sentence_lines) + "\n"),
        (
            f"{sst_dir}/datasetSplit.txt",
            "sentence_index,splitset_label\n"
            + "".join(f"{i},{split_code[s.split]}\n" for i, s in enumerate(sentences, start=1)),
        ),
        (f"{sst_dir}/SOStr.txt", "".join("|".join(s.tokens) + "\n" for s in sentences)),
        (
            f"{sst_dir}/STree.txt",
            "".join("|".join(map(str, _parent_pointers(s.categories))) + "\n" for s in sentences),
        ),
        (f"{sst_dir}/original_rt_snippets.txt", "".join(" ".join(s.tokens) + "\n" for s in sentences)),
        (f"{sst_dir}/README.txt", "Demo Stanford Sentiment Treebank generated by natcomp.sst_demo.\n"),
    ]
    raw_members = [
        (
            "stanfordSentimentTreebankRaw/rawscores_exp12.txt",
            "".join(
                f"{i}," + ",".join(map(str, treebank.raw_scores[text])) + "\n"
                for text, i in sorted(ids.items(), key=lambda kv: kv[1])
            ),
        ),
        (
            "stanfordSentimentTreebankRaw/sentlex_exp12.txt",
            "".join(f"{i},{text}\n" for text, i in sorted(ids.items(), key=lambda kv: kv[1])),
        ),
        ("stanfordSentimentTreebankRaw/README.txt", "Raw 1-25 scores of the demo treebank's phrases.\n"),
    ]
    ptb_members = []
    for split in ("train", "dev", "test"):
        lines = [format_ptb_tree(treebank.sentiment_tree(s)) for s in sentences if s.split == split]
        ptb_members.append((f"trees/{split}.txt", "".join(line + "\n" for line in lines)))
    out = {
        "sst": _write_zip(directory / "stanfordSentimentTreebank.zip", members),
        "raw": _write_zip(directory / "stanfordSentimentTreebankRaw.zip", raw_members),
        "ptb": _write_zip(directory / "trainDevTestTrees_PTB.zip", ptb_members),
    }
    from natcomp.tsv import write_tsv

    out["categories"] = directory / "phrase_types.tsv"
    write_tsv(
        out["categories"],
        [{"phrase": p, "type": t} for p, t in sorted(treebank.phrase_types().items())],
        ["phrase", "type"],
    )
    out["entities"] = directory / "entities.txt"
    with atomic_path(out["entities"]) as tmp:
        tmp.write_text("".join(name + "\n" for name in treebank.world.lexicon.entities), encoding="utf-8")
    out["planted"] = directory / "planted.tsv"
    write_tsv(
        out["planted"],
        [
            {
                "phrase": p.text,
                "left": " ".join(p.left),
                "right": " ".join(p.right),
                "left_type": p.left_type,
                "right_type": p.right_type,
                "kind": p.kind,
                "polarity": p.polarity,
            }
            for p in treebank.world.planted
        ],
    )
    return out
