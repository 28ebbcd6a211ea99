"""AN phrases from text: a stanza-parsed corpus, PTB trees, and the demo corpus generator.

The paper parsed a Wikipedia dump with spaCy (``en_core_web_lg``) and kept phrases whose
adjective is in the class list. natcomp parses any English text with stanza instead (the
project's parser; docs/plane.md): an AN phrase is an ``amod`` dependent with UPOS ``ADJ``
immediately before its head noun (UPOS ``NOUN``); both are lower-cased, the noun keeps
its surface form (plurals included, as in the released files).

The demo does not parse: :func:`generate_corpus` writes English sentences with AN phrases
over the class lists and common WordNet nouns together with their PTB trees, and
:func:`phrases_from_trees` reads the phrases back from those trees.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.files import atomic_open, iter_lines
from natcomp.plane.adjectives import CLASSES
from natcomp.trees import Tree, parse_tree

NOUN_TAGS = ("NN", "NNS")
ADJECTIVE_TAGS = ("JJ",)


def phrases_from_trees(trees: Iterable[Tree]) -> Iterator[tuple[str, str]]:
    """(adjective, noun) for every ``(JJ a) (NN n)`` pair that ends an NP (the noun is its head)."""
    for tree in trees:
        yield from _tree_phrases(tree)


def _tree_phrases(node: Tree) -> Iterator[tuple[str, str]]:
    children = node.children
    if node.label == "NP" and len(children) >= 2:
        adj, noun = children[-2], children[-1]
        if adj.word is not None and noun.word is not None and adj.label in ADJECTIVE_TAGS and noun.label in NOUN_TAGS:
            yield adj.word.lower(), noun.word.lower()
    for child in children:
        yield from _tree_phrases(child)


def read_tree_phrases(path: str | Path) -> list[tuple[str, str]]:
    """AN phrases of a file of PTB trees, one per line (errors name file and line)."""
    pairs = []
    for number, line in enumerate(iter_lines(path), start=1):
        from natcomp.errors import InputError

        try:
            tree = parse_tree(line)
        except InputError as error:
            raise InputError(path, error.message, number) from None
        pairs.extend(_tree_phrases(tree))
    return pairs


def phrases_from_stanza(document) -> Iterator[tuple[str, str]]:
    """(adjective, noun) of every adjacent ``amod`` ADJ + NOUN pair of a stanza Document."""
    for sentence in document.sentences:
        words = sentence.words
        for word in words:
            if word.deprel != "amod" or word.upos != "ADJ" or not word.head:
                continue
            head = words[word.head - 1]
            if head.upos == "NOUN" and head.id == word.id + 1:
                yield word.text.lower(), head.text.lower()


def stanza_pipeline(model_dir: str | None = None, use_gpu: bool | None = None):
    """An English stanza pipeline (tokenize, pos, lemma, depparse) from installed models only."""
    import stanza

    kwargs = {"dir": model_dir} if model_dir else {}
    if use_gpu is not None:
        kwargs["use_gpu"] = use_gpu
    try:
        return stanza.Pipeline(
            "en", processors="tokenize,mwt,pos,lemma,depparse", download_method=None, verbose=False, **kwargs
        )
    except Exception as error:  # stanza raises several kinds for missing resources
        raise ConfigError(
            "plane.phrases.stanza",
            f"the English stanza models are not installed ({type(error).__name__}: {error}); "
            "download them first with `python -c \"import stanza; stanza.download('en')\"`",
        ) from None


def parse_text_phrases(path: str | Path, pipeline, lines_per_batch: int = 200) -> list[tuple[str, str]]:
    """AN phrases of a UTF-8 text file (one or more sentences per line), parsed with ``pipeline``."""
    pairs: list[tuple[str, str]] = []
    batch: list[str] = []
    for line in iter_lines(path, allow_empty=True):
        if line.strip():
            batch.append(line)
        if len(batch) >= lines_per_batch:
            pairs.extend(phrases_from_stanza(pipeline("\n\n".join(batch))))
            batch = []
    if batch:
        pairs.extend(phrases_from_stanza(pipeline("\n\n".join(batch))))
    return pairs


# -------------------------------------------------------------------------------------
# the demo corpus


@dataclasses.dataclass(frozen=True)
class CorpusSettings:
    """The demo corpus (config ``plane.demo_corpus``)."""

    seed: int = 1
    nouns: int = 120
    min_noun_count: int = 5  # WordNet tag count of the noun's first sense: common nouns only
    adjectives_per_noun: Mapping[str, int] = dataclasses.field(default_factory=lambda: {"I": 3, "S": 3, "O": 6})


_VERBS = ("saw", "described", "mentioned", "found", "discussed", "praised", "studied", "noticed")


def demo_nouns(settings: CorpusSettings) -> list[str]:
    """Common WordNet nouns with an all-unigram hypernym chain of length 3 (seeded sample)."""
    from natcomp.plane import wordnet as wn_lookup

    wn = wn_lookup.wordnet()
    rng = random.Random(settings.seed)
    names = sorted(name for name in wn.all_lemma_names(pos="n") if name.isalpha() and name.islower() and len(name) > 2)
    rng.shuffle(names)
    chosen = []
    for name in names:
        synset = wn.synsets(name, pos="n")[0]
        lemma = synset.lemmas()[0]
        if lemma.name() != name or lemma.count() < settings.min_noun_count:
            continue
        if wn_lookup.hypernym_chain(name, 3) and wn_lookup.hypernyms(name, 1):
            chosen.append(name)
            if len(chosen) == settings.nouns:
                break
    return sorted(chosen)


def generate_corpus(adjectives: Mapping[str, str], nouns: Sequence[str], settings: CorpusSettings) -> list[Tree]:
    """Sentences (as PTB trees) with two AN phrases each: every noun occurs with
    ``adjectives_per_noun[cls]`` adjectives of each class. Deterministic for a seed."""
    rng = random.Random(settings.seed)
    by_class = {cls: sorted(a for a, c in adjectives.items() if c == cls and a.isalpha()) for cls in CLASSES}
    phrases = []
    for noun in sorted(nouns):
        for cls in CLASSES:
            for adj in rng.sample(by_class[cls], settings.adjectives_per_noun[cls]):
                phrases.append((adj, noun))
    rng.shuffle(phrases)
    if len(phrases) % 2:
        phrases.append(phrases[0])
    trees = []
    for (a1, n1), (a2, n2) in zip(phrases[0::2], phrases[1::2]):
        verb = rng.choice(_VERBS)
        text = f"(ROOT (S (NP (DT The) (JJ {a1}) (NN {n1})) (VP (VBD {verb}) (NP (DT a) (JJ {a2}) (NN {n2}))) (. .)))"
        trees.append(parse_tree(text))
    return trees


def write_corpus(path: str | Path, trees: Iterable[Tree]) -> int:
    """Write trees one per line, atomically; return how many."""
    count = 0
    with atomic_open(path) as out:
        for tree in trees:
            out.write(str(tree) + "\n")
            count += 1
    return count
