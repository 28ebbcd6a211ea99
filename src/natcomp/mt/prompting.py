"""Translation by prompting a causal language model: the prompt, its few-shot examples and
the answer's extraction (no model is loaded here; :mod:`natcomp.mt.prompted_translation`
decodes).

A prompt is a template with ``{source}`` and, optionally, ``{source_language}`` and
``{target_language}`` (the languages' English names). The default is a plain completion
prompt naming the two languages, as lm-evaluation-harness's WMT tasks do::

    English: The cat sleeps .
    Dutch:

``k`` few-shot examples come first, each the template filled with an example's source and
followed by ``" " + its target``, separated by a blank line (lm-evaluation-harness's
``target_delimiter`` and ``fewshot_delimiter``). The examples are drawn once, seeded, and
are the same for every item: the tests compare the translations of two sources, and a
difference in the examples would be a difference in the prompts, not in the sources.

An example is never a sentence the run translates, nor one an S -> S CONJ S item conjoins
(:func:`excluded_texts`). Sentences are compared as :func:`comparable_text` writes them,
since an item shows a corpus line changed: s2 with its first letter lowercased, S1 with
its final period made a comma (:func:`natcomp.mt.items.conjoin`), natural lines stripped
(:mod:`natcomp.mt.items`). The items record no corpus line numbers, and text is what leaks
(a duplicate of the line elsewhere in the corpus would leak as much), so the comparison is
by text, whichever the pool.

The answer is the first line of what the model writes after the prompt (generation stops
at a newline), stripped; a model that repeats the target language's label
(``Dutch: De kat slaapt .``) has it removed.

The prompt goes through the tokenizer's chat template (as the user's turn) only when
``chat_template`` is ``on`` (:func:`natcomp.configcheck.chat_template_mode`); never because
the tokenizer has one: a base model's may have one too (Qwen2.5's does), and
lm-evaluation-harness applies one only when asked (``--apply_chat_template``).
"""

from __future__ import annotations

import hashlib
import random
import string
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.configcheck import CHAT_TEMPLATE_MODES, chat_template_mode  # noqa: F401  (re-exported)
from natcomp.errors import ConfigError
from natcomp.files import read_lines
from natcomp.mt.items import conjuncts
from natcomp.tsv import read_tsv, write_tsv

__all__ = [
    "CHAT_TEMPLATE_MODES",
    "chat_template_mode",
    "comparable_text",
    "DEFAULT_PROMPT",
    "DEFAULT_PROMPTING",
    "FewShotExample",
    "PromptFormat",
    "draw_few_shot",
    "excluded_texts",
    "extract_translation",
    "few_shot_examples",
    "language_name",
    "read_few_shot",
    "usable_pool_lines",
    "write_few_shot",
]

DEFAULT_PROMPT = "{source_language}: {source}\n{target_language}:"
#: mt.prompting's defaults (the schema's): how a causal system prompts unless told otherwise
DEFAULT_PROMPTING = {
    "prompt": DEFAULT_PROMPT,
    "few_shot": {"k": 0, "pool": "train", "seed": 1},
    "chat_template": "off",
    "decoding": "greedy",
}
#: between an example's prompt and its target, and between examples
TARGET_DELIMITER = " "
FEW_SHOT_DELIMITER = "\n\n"
TEMPLATE_FIELDS = ("source", "source_language", "target_language")


def language_name(code: str) -> str:
    """A language's English name (``nl`` -> ``Dutch``) from its resource file
    (``resources/mt/languages/<code>.yaml``); a code without one as it is."""
    from natcomp.errors import ConfigError
    from natcomp.mt.languages import load_language

    try:
        return load_language(code).name
    except ConfigError:
        return code


def check_template(template: str, key: str) -> str:
    """``template`` when it is a prompt template: ``{source}`` exactly once, no other field
    than :data:`TEMPLATE_FIELDS`, no format spec; else :class:`ConfigError` naming ``key``."""
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(template)]
    except ValueError as error:
        raise ConfigError(key, f"is not a prompt template ({error}); write a literal brace as {{{{ or }}}}") from None
    names = [name for name, _, _ in fields if name is not None]
    unknown = sorted({name for name in names if name not in TEMPLATE_FIELDS})
    if unknown:
        raise ConfigError(
            key,
            f"has the unknown field(s) {', '.join('{' + n + '}' for n in unknown)}; known: {', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)}",
        )
    if names.count("source") != 1:
        raise ConfigError(key, f"must hold {{source}} exactly once, not {names.count('source')} times")
    if any(spec or conversion for name, spec, conversion in fields if name is not None):
        raise ConfigError(
            key, "fields take no format spec or conversion (write {source}, not {source!r} or {source:>9})"
        )
    return template


def template_hash(template: str) -> str:
    """The first 12 hex digits of the template's sha256 (in decode signatures)."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class FewShotExample:
    """One example pair; ``line`` is its 0-based line in its pool (the decode signature names it)."""

    line: int
    source: str
    target: str


@dataclass(frozen=True)
class PromptFormat:
    """How a source sentence becomes a prompt: the template, the two languages (codes) and
    the few-shot examples, in the order they are shown."""

    template: str = DEFAULT_PROMPT
    source_lang: str = "en"
    target_lang: str = "nl"
    examples: tuple[FewShotExample, ...] = ()

    def _fill(self, source: str) -> str:
        return self.template.format(
            source=source,
            source_language=language_name(self.source_lang),
            target_language=language_name(self.target_lang),
        )

    def render(self, source: str) -> str:
        """The prompt of one source sentence, its few-shot examples first."""
        shots = [self._fill(example.source) + TARGET_DELIMITER + example.target for example in self.examples]
        return FEW_SHOT_DELIMITER.join([*shots, self._fill(source)])

    def training_pair(self, source: str, target: str) -> tuple[str, str]:
        """The (prompt, completion) a model is trained on to answer this prompt with
        ``target`` (the demo's tiny causal LM): the completion ends with the newline that
        stops generation."""
        return self.render(source), TARGET_DELIMITER + target + "\n"

    @property
    def signature(self) -> str:
        """The prompt's part of a decode signature: the template's hash and the examples' lines."""
        shots = ",".join(str(example.line) for example in self.examples) or "-"
        return f"prompt:{template_hash(self.template)}|shots:{shots}"


def comparable_text(text: str) -> str:
    """``text`` as few-shot exclusion compares sentences: Unicode NFKC, case-folded,
    whitespace collapsed and stripped, without punctuation at its end."""
    # NFKC again after case folding: folding can decompose (U+0390 folds to three code points).
    text = " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).split())
    # An S -> S CONJ S item shows S1 without its final period.
    end = len(text)
    while end and (text[end - 1] == " " or unicodedata.category(text[end - 1]).startswith("P")):
        end -= 1
    return text[:end]


def excluded_texts(sentences: Iterable[str]) -> set[str]:
    """The comparable texts (:func:`comparable_text`) no few-shot example may have: each
    sentence's and each of its conjuncts' (:func:`natcomp.mt.items.conjuncts`: a pool line
    that is the second conjunct of an item is as much a test item as the item itself)."""
    texts = {comparable_text(sentence) for sentence in sentences}
    return texts | {comparable_text(part) for text in texts for part in conjuncts(text)}


def usable_pool_lines(sources: Sequence[str], targets: Sequence[str], exclude: Iterable[str] = ()) -> list[int]:
    """The 0-based lines of a pool of parallel lines an example may be drawn from: neither
    side empty, the source at most 50 words (a prompt of five long examples would crowd out
    a small model's context) and neither one of ``exclude`` (the sentences a run translates:
    an example must never be a test item) nor a conjunct of one, as :func:`excluded_texts`
    compares them."""
    excluded = excluded_texts(exclude)
    return [
        line
        for line, (source, target) in enumerate(zip(sources, targets))
        if source.strip() and target.strip() and len(source.split()) <= 50 and comparable_text(source) not in excluded
    ]


def draw_few_shot(
    sources: Sequence[str],
    targets: Sequence[str],
    k: int,
    seed: int,
    exclude: Iterable[str] = (),
    *,
    pool_name: str = "pool",
) -> tuple[FewShotExample, ...]:
    """``k`` example pairs drawn, seeded, from the usable lines of a pool of parallel lines
    (:func:`usable_pool_lines`). :class:`ConfigError` when the pool has fewer."""
    if len(sources) != len(targets):
        raise ConfigError(pool_name, f"has {len(sources)} source lines but {len(targets)} target lines")
    if k == 0:
        return ()
    candidates = usable_pool_lines(sources, targets, exclude)
    if len(candidates) < k:
        raise ConfigError(
            pool_name, f"has {len(candidates)} usable example pairs (not a test item, not empty); {k} are asked for"
        )
    lines = random.Random(seed).sample(candidates, k)
    return tuple(FewShotExample(line, sources[line].strip(), targets[line].strip()) for line in lines)


def extract_translation(answer: str, target_lang: str) -> str:
    """The translation in a model's answer: its first line (any line break ends it, ``\r``
    included), stripped, without a leading ``<target language>:`` label; a tab in it is a
    space (an untrained model writes any bytes, and a translation is one TSV field)."""
    lines = answer.strip().splitlines()
    first = " ".join(lines[0].split("\t")).strip() if lines else ""
    label = f"{language_name(target_lang)}:"
    if first.lower().startswith(label.lower()):
        first = first[len(label) :].strip()
    return first


def few_shot_examples(
    system: Mapping, pool_files: tuple[str, str] | None, exclude: Iterable[str], key: str
) -> tuple[FewShotExample, ...]:
    """The few-shot examples of a system (``few_shot: {k, pool, seed}``), drawn from its
    pool's parallel files (``pool_files``: source, target; None when k is 0) without any
    sentence in ``exclude`` or conjunct of one (:func:`draw_few_shot`)."""
    few_shot = system.get("few_shot") or {}
    k = int(few_shot.get("k", 0))
    if k == 0:
        return ()
    if pool_files is None:
        raise ValueError(f"{key}: {k} few-shot examples asked for but no pool files given")
    source_file, target_file = pool_files
    return draw_few_shot(
        read_lines(source_file),
        read_lines(target_file),
        k,
        int(few_shot.get("seed", 1)),
        set(exclude),
        pool_name=f"{key}.few_shot.pool ({source_file})",
    )


#: the columns of a system's few_shot.tsv: each example's line in its pool and the pair
FEW_SHOT_COLUMNS = ("line", "source", "target")


def write_few_shot(path: str | Path, examples: Sequence[FewShotExample]) -> int:
    rows = ({"line": e.line, "source": e.source, "target": e.target} for e in examples)
    return write_tsv(path, rows, FEW_SHOT_COLUMNS)


def read_few_shot(path: str | Path) -> tuple[FewShotExample, ...]:
    """The examples of a few_shot.tsv, in their order."""
    table = read_tsv(path, FEW_SHOT_COLUMNS)
    return tuple(FewShotExample(int(row.line), row.source, row.target) for row in table.itertuples(index=False))
