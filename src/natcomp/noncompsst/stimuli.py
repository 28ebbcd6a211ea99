"""Study stimuli: phrases ``A B`` with control subphrases, in the layout of the released files.

The study files (``stimuli_study1.tsv``, ``stimuli_study2.tsv``) have the header
``phrase 1, phrase 1 clean, phrase 2, phrase 2 clean, side to be replaced, SST replacement
1, ..., SST replacement n`` (tab-separated) and two rows per phrase: the ``left`` row (its
replacements substitute phrase 1 = A) then the ``right`` row (they substitute phrase 2 =
B). "phrase X" is in SST tokenisation, "clean" is detokenised; replacements are clean.

The released files are partly UTF-7 encoded (``-`` written ``+AC0-``, ``_`` ``+AF8-``);
:func:`decode_utf7` undoes it on reading.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from natcomp.errors import ConfigError, InputError
from natcomp.tsv import iter_tsv, read_header, write_tsv

__all__ = [
    "STIMULI_COLUMNS",
    "Phrase",
    "StimulusTokenizer",
    "clean_form",
    "decode_utf7",
    "read_stimuli",
    "read_flat_stimuli",
    "sst_tokenize",
    "stanza_tokenizer_installed",
    "write_stimuli",
]

STIMULI_COLUMNS = ["phrase 1", "phrase 1 clean", "phrase 2", "phrase 2 clean", "side to be replaced"]
_UTF7 = re.compile(r"\+([A-Za-z0-9/+]+)-")
_CLITIC = re.compile(r" (?=(?:'s|'re|'ve|'ll|'d|'m|n't|[,.;:!?%']|'')(?: |$))", re.IGNORECASE)


def decode_utf7(text: str) -> str:
    """Undo UTF-7 escapes such as ``+AC0-`` (``-``) and ``+AC0ALQ-`` (``--``); other text is kept."""

    def decode(match: re.Match) -> str:
        try:
            return match.group(0).encode("ascii").decode("utf-7")
        except UnicodeDecodeError:
            return match.group(0)

    return _UTF7.sub(decode, text) if "+" in text else text


def clean_form(tokens: str | Sequence[str]) -> str:
    """Clean form of SST tokens, as the released files write it: lower case, clitics and
    punctuation attached (``her son 's`` -> ``her son's``), brackets restored."""
    text = tokens if isinstance(tokens, str) else " ".join(tokens)
    text = text.replace("-LRB- ", "(").replace(" -RRB-", ")").replace("-LRB-", "(").replace("-RRB-", ")")
    text = text.replace("`` ", '"')
    return _CLITIC.sub("", text).lower()


_SST_BRACKETS = {"(": "-LRB-", ")": "-RRB-"}


@functools.lru_cache(maxsize=1)
def _treebank():
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


def sst_tokenize(text: str) -> list[str]:
    """SST's tokens of clean text: the Penn Treebank rules SST's own tokens follow (NLTK's
    ``TreebankWordTokenizer``: ``son's`` -> ``son 's``, ``characters'`` -> ``characters '``,
    ``doesn't`` -> ``does n't``), brackets written as SST writes them (``-LRB-``, ``-RRB-``)."""
    return [_SST_BRACKETS.get(token, token) for token in _treebank().tokenize(text)]


def stanza_tokenizer_installed(stanza_dir: str | Path | None) -> bool:
    """Whether ``stanza_dir`` holds stanza's English tokenizer model (``stanza.download('en',
    model_dir=..., processors='tokenize')``)."""
    if not stanza_dir:
        return False
    folder = Path(stanza_dir)
    return (folder / "resources.json").is_file() and any((folder / "en" / "tokenize").glob("*.pt"))


class StimulusTokenizer:
    """Stimuli as the sentiment models' training text: SST-7 holds SST's tokens joined by
    spaces (``her son 's discovery``, ``does n't``), so a stimulus is tokenised the same way
    before prediction, not fed in its clean form (``her son's discovery``).

    As the released code (``dataset.py``): stanza's English tokenizer, then lower case. Where
    stanza's tokenizer model is not in ``stanza_dir`` the Penn Treebank tokeniser
    (:func:`sst_tokenize`) stands in; which one ran is :attr:`name` (``stanza`` / ``ptb``).
    Brackets become SST's ``-LRB-`` / ``-RRB-`` (as in the SST-7 text) after lower-casing.
    """

    def __init__(self, stanza_dir: str | Path | None = None, *, lowercase: bool = True):
        self.lowercase = lowercase
        self._stanza = None
        if stanza_tokenizer_installed(stanza_dir):
            import stanza

            try:
                self._stanza = stanza.Pipeline(
                    "en", dir=str(stanza_dir), processors="tokenize", download_method=None, logging_level="WARN"
                )
            except Exception as error:  # stanza raises plain exceptions for broken model files
                raise ConfigError(
                    "noncompsst.candidates.stanza_dir",
                    f"stanza could not load its tokenizer from {stanza_dir}: {error}",
                ) from None
        self.name = "stanza" if self._stanza is not None else "ptb"

    def tokens(self, text: str) -> list[str]:
        if self._stanza is not None:
            words = [word.text for sentence in self._stanza(text).sentences for word in sentence.words]
        else:
            words = _treebank().tokenize(text)
        if self.lowercase:
            words = [word.lower() for word in words]
        return [_SST_BRACKETS.get(word, word) for word in words]

    def __call__(self, text: str) -> str:
        return " ".join(self.tokens(text))


@dataclass(frozen=True)
class Phrase:
    """A phrase ``A B`` with its control subphrases (clean form) for each side."""

    left: str
    left_clean: str
    right: str
    right_clean: str
    left_controls: tuple[str, ...]
    right_controls: tuple[str, ...]
    line: int = 0  # line of the left row in the file it came from (0: not from a file)

    @property
    def natural(self) -> str:
        """The natural phrase in clean form (the key of ratings tables)."""
        return f"{self.left_clean} {self.right_clean}"

    def control_stimuli(self, side: str) -> list[str]:
        if side == "left":
            return [f"{control} {self.right_clean}" for control in self.left_controls]
        if side == "right":
            return [f"{self.left_clean} {control}" for control in self.right_controls]
        raise ValueError(f"side is left or right, not {side!r}")

    def stimuli(self) -> list[str]:
        """The Study 2 stimuli in ``stimuli_flat.txt`` order: natural, left-replaced, right-replaced."""
        return [self.natural, *self.control_stimuli("left"), *self.control_stimuli("right")]

    def subphrases(self) -> list[str]:
        """Study 1 items of this phrase: A, B and every control (clean form)."""
        return [self.left_clean, self.right_clean, *self.left_controls, *self.right_controls]


def _replacement_columns(header: Sequence[str]) -> list[str]:
    columns = [name for name in header if re.fullmatch(r"SST replacement \d+", name)]
    return sorted(columns, key=lambda name: int(name.rsplit(" ", 1)[1]))


def read_stimuli(path: str | Path) -> list[Phrase]:
    """Phrases of a study stimuli file (UTF-7 damage decoded).

    Rows must pair up: a ``left`` row then a ``right`` row with the same four phrase
    columns; otherwise :class:`InputError` names the line.
    """
    header = [decode_utf7(name) for name in read_header(path)]
    missing = [name for name in STIMULI_COLUMNS if name not in header]
    if missing:
        raise InputError(
            path,
            f"missing column(s) {', '.join(missing)}; expected {', '.join(STIMULI_COLUMNS)}, SST replacement 1..n",
            1,
        )
    replacements = _replacement_columns(header)
    if not replacements:
        raise InputError(path, "no 'SST replacement N' columns", 1)
    phrases = []
    pending: tuple[int, dict[str, str]] | None = None
    for number, raw in iter_tsv(path):
        row = {decode_utf7(key): decode_utf7(value).strip() for key, value in raw.items()}
        side = row["side to be replaced"]
        if side not in ("left", "right"):
            raise InputError(path, f"side to be replaced is 'left' or 'right', got {side!r}", number)
        controls = tuple(row[name] for name in replacements if row[name])
        if not controls:
            raise InputError(path, "a row without replacements", number)
        if side == "left":
            if pending is not None:
                raise InputError(
                    path, f"a 'left' row follows the 'left' row of line {pending[0]}; expected its 'right' row", number
                )
            pending = (number, row | {"_controls": controls})
            continue
        if pending is None:
            raise InputError(path, "a 'right' row without the 'left' row of its phrase before it", number)
        left_line, left = pending
        keys = STIMULI_COLUMNS[:4]
        if any(left[key] != row[key] for key in keys):
            raise InputError(
                path,
                f"the 'right' row does not pair up with the 'left' row of line {left_line}: the phrase columns differ",
                number,
            )
        phrases.append(
            Phrase(
                row["phrase 1"],
                row["phrase 1 clean"],
                row["phrase 2"],
                row["phrase 2 clean"],
                left["_controls"],
                controls,
                left_line,
            )
        )
        pending = None
    if pending is not None:
        raise InputError(path, "the last 'left' row has no 'right' row", pending[0])
    return phrases


def write_stimuli(path: str | Path, phrases: Iterable[Phrase]) -> int:
    """Write phrases in the study layout (as many replacement columns as the most controls)."""
    phrases = list(phrases)
    width = max((max(len(p.left_controls), len(p.right_controls)) for p in phrases), default=0)
    columns = STIMULI_COLUMNS + [f"SST replacement {n}" for n in range(1, width + 1)]
    rows = []
    for p in phrases:
        for side, controls in (("left", p.left_controls), ("right", p.right_controls)):
            row = dict(zip(STIMULI_COLUMNS, (p.left, p.left_clean, p.right, p.right_clean, side)))
            row.update({f"SST replacement {n}": c for n, c in enumerate(controls, start=1)})
            rows.append(row)
    return write_tsv(path, rows, columns)


def read_flat_stimuli(path: str | Path) -> list[str]:
    """``stimuli_flat.txt``: one stimulus a line."""
    from natcomp.files import read_lines

    return [decode_utf7(line) for line in read_lines(path)]
