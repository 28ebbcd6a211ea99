"""The treebank behind the semi-natural data (appendix A, steps 1 and 2).

The paper samples 100k English OPUS sentences and parses them with disco-dop's
``discodop parser en ptb --fmt bracket``. disco-dop does not build on Python 3.11 (see
``ENVIRONMENT.md``), so this workflow parses with stanza's constituency parser (PTB
label set, the same bracket format). Functions:

* :func:`sample_sentences`: ``n`` lines of a (possibly gzipped) corpus file by reservoir
  sampling (algorithm R) in one streamed pass, with ``random.Random`` seeded from
  ``seed``, so equal arguments give equal samples. Lines are stripped; empty lines and
  lines of more than ``max_words`` whitespace-separated words (default
  :data:`MAX_SENTENCE_WORDS`) or with a tab are not eligible. The sample comes back in
  corpus order. Duplicate lines are not removed: a sample of positions, like sampling
  sentences from the corpus (frequent sentences may come twice, as in the corpus).
* :func:`parse_sentences`: one PTB bracketed tree per input sentence, one line each,
  ``(ROOT (S ..))``. Each input line is parsed as **one** sentence: stanza's tokenizer
  runs with ``tokenize_no_ssplit=True`` (no sentence splitting inside a line), like
  disco-dop which parses one line as one sentence. Should stanza still return several
  sentences for a line, their trees are joined under one ``ROOT`` (``(ROOT (S ..) (S
  ..))``), so the output always has exactly one tree per input. Trees are printed with
  stanza's one-line format with spaces inside a token replaced by ``_`` (brackets in
  tokens are ``-LRB-`` / ``-RRB-``), and any remaining whitespace run becomes one space.
  Models are loaded from ``model_dir`` only (``download_method=None``: no network);
  when they are missing :class:`StanzaModelsMissing` says how to download them (a
  damaged model directory gives :class:`StanzaLoadError` with the same hint).
* :func:`sample_trees`: ``n`` trees (lines) of a treebank file, one tree per line, by the
  same reservoir sampling; used by the demo on the demo corpus' own treebank.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from natcomp.errors import InputError, NatcompError
from natcomp.files import iter_lines

__all__ = [
    "MAX_SENTENCE_WORDS",
    "StanzaLoadError",
    "StanzaModelsMissing",
    "StanzaNotInstalled",
    "download_command",
    "load_pipeline",
    "parse_sentences",
    "reservoir_sample",
    "sample_sentences",
    "sample_trees",
    "tree_line",
]

_LOG = logging.getLogger(__name__)

#: lines with more words are not sampled (parsing cost grows fast with length)
MAX_SENTENCE_WORDS = 50
PROCESSORS = "tokenize,pos,constituency"
_WHITESPACE = re.compile(r"\s+")
T = TypeVar("T")


class StanzaModelsMissing(NatcompError):
    """stanza's English models are not in the model directory."""

    def __init__(self, model_dir: str | Path, detail: str = ""):
        self.model_dir = str(model_dir)
        message = (
            f"stanza English models not found in {self.model_dir}; download them with "
            f"{download_command(self.model_dir)}"
        )
        if detail:
            message += f" (stanza: {detail})"
        super().__init__(message)


class StanzaLoadError(NatcompError):
    """stanza failed to build the pipeline from a model directory for another reason
    (e.g. an incomplete or damaged ``resources.json``)."""

    def __init__(self, model_dir: str | Path, error: BaseException):
        self.model_dir = str(model_dir)
        super().__init__(
            f"stanza could not load its English models from {self.model_dir} "
            f"({type(error).__name__}: {error}); if the directory is incomplete or damaged, "
            f"download them again with {download_command(self.model_dir)}"
        )


class StanzaNotInstalled(NatcompError):
    """The stanza package cannot be imported."""


def download_command(model_dir: str | Path) -> str:
    """The shell command that downloads the models :func:`load_pipeline` needs."""
    return f"python -c \"import stanza; stanza.download('en', model_dir='{model_dir}', processors='{PROCESSORS}')\""


# --------------------------------------------------------------------------------------
# sampling


def reservoir_sample(items: Iterable[T], n: int, seed: int | str) -> list[tuple[int, T]]:
    """``n`` items of a stream (all if fewer) as ``(index, item)`` in stream order, by
    algorithm R with ``random.Random(seed)``; one pass, memory for ``n`` items only."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    rng = random.Random(seed)
    chosen: list[tuple[int, T]] = []
    count = 0
    for index, item in enumerate(items):
        if len(chosen) < n:
            chosen.append((index, item))
        elif n:
            slot = rng.randrange(count + 1)
            if slot < n:
                chosen[slot] = (index, item)
        count += 1
    chosen.sort(key=lambda pair: pair[0])
    return chosen


def _eligible(path: str | Path, max_words: int) -> Iterator[str]:
    for line in iter_lines(path, allow_empty=True):
        text = line.strip()
        if not text or "\t" in text or len(text.split()) > max_words:
            continue
        yield text


def sample_sentences(train_en: str | Path, n: int, seed: int, *, max_words: int = MAX_SENTENCE_WORDS) -> list[str]:
    """``n`` sentences of ``train_en`` (fewer if it has fewer eligible lines; logged), in
    corpus order; deterministic for equal arguments; the file is streamed."""
    if max_words < 1:
        raise ValueError(f"max_words must be >= 1, not {max_words}")
    sample = reservoir_sample(_eligible(train_en, max_words), n, f"sample_sentences/{seed}")
    if len(sample) < n:
        _LOG.info("%s has only %d eligible sentences (%d requested)", train_en, len(sample), n)
    return [text for _, text in sample]


def sample_trees(treebank_path: str | Path, n: int, seed: int) -> list[str]:
    """``n`` trees of a one-tree-per-line treebank (all if fewer; empty lines skipped), in
    file order; deterministic. A chosen line that is not a bracketed tree raises
    :class:`InputError` with its line number."""
    lines = (line.strip() for line in iter_lines(treebank_path, allow_empty=True))
    numbered = ((number, line) for number, line in enumerate(lines, start=1) if line)
    kept = [pair for _, pair in reservoir_sample(numbered, n, f"sample_trees/{seed}")]
    for number, tree in kept:
        if not (tree.startswith("(") and tree.endswith(")")):
            raise InputError(treebank_path, f"expected one bracketed tree per line, found {tree[:60]!r}", number)
    if len(kept) < n:
        _LOG.info("%s has only %d trees (%d requested)", treebank_path, len(kept), n)
    return [tree for _, tree in kept]


# --------------------------------------------------------------------------------------
# parsing


def load_pipeline(model_dir: str | Path, use_gpu: bool = False, **options):
    """A stanza English pipeline (tokenize, pos, constituency) from ``model_dir``, with no
    download attempt; :class:`StanzaModelsMissing` when the models are not there."""
    try:
        import stanza
    except ImportError as error:  # pragma: no cover - stanza is a declared dependency
        raise StanzaNotInstalled(f"stanza is not installed ({error}); pip install stanza") from error
    model_dir = str(model_dir)
    if not Path(model_dir).is_dir():
        raise StanzaModelsMissing(model_dir, "the directory does not exist")
    try:
        return stanza.Pipeline(
            lang="en",
            processors=PROCESSORS,
            tokenize_pretokenized=False,
            tokenize_no_ssplit=True,
            dir=model_dir,
            download_method=None,
            use_gpu=use_gpu,
            logging_level="WARN",
            **options,
        )
    except FileNotFoundError as error:  # includes stanza's ResourcesFileNotFoundError etc.
        raise StanzaModelsMissing(model_dir, str(error).strip()) from error
    except ValueError as error:
        # resources.json present but without English processors
        if "No processors to load" in str(error) or "unsupported" in str(error).lower():
            raise StanzaModelsMissing(model_dir, str(error).strip()) from error
        raise StanzaLoadError(model_dir, error) from error
    except (KeyError, TypeError, AttributeError) as error:  # a resources.json of another shape
        raise StanzaLoadError(model_dir, error) from error


def tree_line(trees: Sequence) -> str:
    """One line for the stanza trees of one input: the tree itself, or several sentence
    trees joined under one ``ROOT``."""
    if not trees:
        raise ValueError("no tree for a sentence")
    lines = [_WHITESPACE.sub(" ", "{:_O}".format(tree)).strip() for tree in trees]
    if len(lines) == 1:
        return lines[0]
    children = []
    for line in lines:
        if line.startswith("(ROOT ") and line.endswith(")"):
            children.append(line[len("(ROOT ") : -1].strip())
        else:
            children.append(line)
    return "(ROOT " + " ".join(children) + ")"


def parse_sentences(
    sentences: Sequence[str],
    model_dir: str | Path,
    batch_size: int = 256,
    use_gpu: bool = False,
    *,
    pipeline=None,
) -> list[str]:
    """One one-line PTB tree per sentence (same order). ``batch_size`` sentences go to
    stanza at a time. ``pipeline`` (tests, reuse) replaces :func:`load_pipeline`."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, not {batch_size}")
    texts = [" ".join(s.split()) for s in sentences]
    empty = [i for i, t in enumerate(texts) if not t]
    if empty:
        raise ValueError(f"sentence {empty[0]} is empty; every sentence must have a word")
    if not texts:
        return []
    nlp = pipeline if pipeline is not None else load_pipeline(model_dir, use_gpu)
    out: list[str] = []
    joined = 0
    for start in range(0, len(texts), batch_size):
        batch = texts[start : start + batch_size]
        docs = nlp.bulk_process(batch)
        if len(docs) != len(batch):
            raise RuntimeError(f"stanza returned {len(docs)} documents for {len(batch)} sentences")
        for doc in docs:
            trees = [sentence.constituency for sentence in doc.sentences]
            joined += len(trees) > 1
            out.append(tree_line(trees))
        _LOG.info("parsed %d / %d sentences", len(out), len(texts))
    if joined:
        _LOG.info("%d inputs gave several sentences; their trees were joined under one ROOT", joined)
    return out


def download_models(model_dir: str | Path) -> None:
    """Download the stanza English models this module needs into ``model_dir`` (paper
    scale, where the model hub is reachable); a failure names the directory and the cause."""
    import stanza

    try:
        stanza.download("en", model_dir=str(model_dir), processors=PROCESSORS)
    except Exception as error:  # stanza raises requests' and its own errors
        raise StanzaModelsMissing(
            f"could not download the stanza English models into {model_dir}: {error}; "
            f"download them where the model hub is reachable with: {download_command(model_dir)}"
        ) from error
