"""The original study's released test sets, read into natcomp's item tables
(``mt.tests.items: released``).

The release (repository compositionality_paradox_mt at :data:`RELEASE_COMMIT`) holds every
test item the paper scored, Moses-tokenised English, one item per line, one file per
template and condition (or synonym pair, or idiom); pairs of files are paired line by line.
The readers below turn each test's layout into the rows natcomp's generated items have
(:mod:`natcomp.mt.items`: the same columns, templates 1-10, template 0 for natural
substitutivity and overgeneralisation), in the release's order: per template, then
condition, then line (systematicity); per pair or idiom, then template, then line. The text
stays as released: natcomp's translator Moses-tokenises every source before BPE, as the
original's ``binarise_data.sh`` ran ``tokenizer.perl`` over these files.

Layouts (paths under the release's root; ``{dt}`` a data type, ``{t}`` 1-10):

* S -> NP VP: ``systematicity/s_np_vp/{dt}/systematicity_{dt}_{t}_{np,np_prime,vp_prime}.en``
  (no ``vp_prime`` for semi-natural data): item k of ``np_prime`` is line k of ``_np`` and of
  ``_np_prime``, which differ in exactly one token (checked);
* S -> S CONJ S: ``systematicity/s_conj/{dt}/systematicity_{dt}_{t}_{s1,s1p,s3}_s2.en``:
  every line is ``S1 , and S2``; line k of the three files shares S2 (checked), ``s1_prime``
  pairs ``s1`` with ``s1p`` (S1 and S1' differ in exactly one token, checked), ``s3`` pairs
  ``s1`` with ``s3``;
* substitutivity: ``substitutivity/{dt}/substitutivity_{dt}_{t}/{k}-1.en`` and ``{k}-2.en``
  (the British and the American term of pair k, checked), natural data
  ``substitutivity/natural/{k}-1.en``, ``{k}-2.en`` and the reference ``{k}.nl``;
* overgeneralisation: ``overgeneralisation/{dt}/overgeneralisation_{dt}_{t}/{i}.en``, natural
  data ``overgeneralisation/natural/{i}.en`` and the reference ``{i}.nl``; every source holds
  its idiom (case-insensitive, as the original code asserted).

Pairs and idioms are numbered by the release's own ``substitutivity/synonyms.tsv`` and
``overgeneralisation/idioms.tsv`` and named by natcomp's lists (``resources/synonyms.tsv``,
``resources/idioms.tsv``). The ten-random-words context of appendix D was not released:
``random_words`` items are generated whatever ``mt.tests.items`` says. Natural files are read
whole (``mt.tests.natural_max_items`` caps generated items only). A file that breaks its
layout is one :class:`~natcomp.errors.InputError` naming it and the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.mt.items import (
    NATURAL_SUBSTITUTIVITY_COLUMNS,
    NATURAL_TEMPLATE,
    NP_VP_COLUMNS,
    OVERGENERALISATION_COLUMNS,
    S_CONJ_COLUMNS,
    SUBSTITUTIVITY_COLUMNS,
)
from natcomp.mt.lexicon import Idiom, SynonymPair, load_idioms, load_synonyms
from natcomp.mt.registry import get_test
from natcomp.shipped import resource_path
from natcomp.tsv import read_tsv

__all__ = [
    "RELEASED_DATA_TYPES",
    "RELEASE_COMMIT",
    "RELEASE_URL",
    "manifest_path",
    "np_vp_items",
    "overgeneralisation_items",
    "read_manifest",
    "release_idioms",
    "release_pairs",
    "released_items",
    "s_conj_items",
    "substitutivity_items",
]

RELEASE_REPOSITORY = "i-machine-think/compositionality_paradox_mt"
#: the commit whose files resources/mt/released_tests.tsv lists
RELEASE_COMMIT = "b69f2332cf7f0709593d486bb20055d1b2d54cf1"
#: GitHub's archive of that commit (its top folder: compositionality_paradox_mt-<commit>/)
RELEASE_URL = f"https://github.com/{RELEASE_REPOSITORY}/archive/{RELEASE_COMMIT}.tar.gz"
#: the data types the release has items of (random_words: generated)
RELEASED_DATA_TYPES = ("synthetic", "semi_natural", "natural")
TEMPLATES = range(1, 11)
#: what joins S1 and S2 in a released S -> S CONJ S source (tokenised)
RELEASED_CONJUNCTION = " , and "
_S_CONJ_FILES = {"s1": "s1_s2", "s1_prime": "s1p_s2", "s3": "s3_s2"}

Row = dict[str, object]


def manifest_path() -> Path:
    """The shipped list of the release's files: resources/mt/released_tests.tsv."""
    return resource_path("mt", "released_tests.tsv")


def read_manifest(path: str | Path | None = None) -> dict[str, tuple[int, str]]:
    """``path -> (bytes, sha256)`` of every release file natcomp reads (``path``: the shipped list)."""
    path = manifest_path() if path is None else Path(path)
    files = {}
    for line, row in zip(*_rows(path, ["path", "bytes", "sha256"]), strict=True):
        size, digest = row["bytes"], row["sha256"].lower()
        if not size.isdigit() or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise InputError(path, f"{row['path']}: bytes must be a whole number and sha256 64 hex digits", line)
        if row["path"] in files:
            raise InputError(path, f"{row['path']} is listed twice", line)
        files[row["path"]] = (int(size), digest)
    return files


def _rows(path: Path, columns: Sequence[str]) -> tuple[list[int], list[dict[str, str]]]:
    frame = read_tsv(path, columns, non_empty=columns, strip=True)
    return frame.attrs["lines"], frame.to_dict("records")


def release_pairs(folder: str | Path, pairs: Sequence[SynonymPair]) -> list[SynonymPair]:
    """natcomp's synonym pairs in the release's numbering (its ``substitutivity/synonyms.tsv``)."""
    path = Path(folder) / "substitutivity" / "synonyms.tsv"
    ours = {(pair.british.lower(), pair.american.lower()): pair for pair in pairs}
    numbered = []
    for line, row in zip(*_rows(path, ["en1", "en2"]), strict=True):
        key = (row["en1"].lower(), row["en2"].lower())
        if key not in ours:
            raise InputError(path, f"the pair {'/'.join(key)} is not one of natcomp's (resources/synonyms.tsv)", line)
        numbered.append(ours[key])
    return numbered


def release_idioms(folder: str | Path, idioms: Sequence[Idiom]) -> list[Idiom]:
    """natcomp's idioms in the release's numbering (its ``overgeneralisation/idioms.tsv``)."""
    path = Path(folder) / "overgeneralisation" / "idioms.tsv"
    ours = {idiom.idiom.lower(): idiom for idiom in idioms}
    numbered = []
    for line, row in zip(*_rows(path, ["idiom"]), strict=True):
        if row["idiom"].lower() not in ours:
            raise InputError(path, f"the idiom {row['idiom']!r} is not one of natcomp's (resources/idioms.tsv)", line)
        numbered.append(ours[row["idiom"].lower()])
    return numbered


def _read(path: Path) -> list[str]:
    """A released file's lines: UTF-8, none empty, none with a tab (an item table cannot hold one)."""
    lines = read_lines(path)
    for number, line in enumerate(lines, start=1):
        if "\t" in line:
            raise InputError(path, "holds a tab; expected one sentence per line", number)
    return lines


def _paired(paths: Sequence[Path]) -> list[list[str]]:
    """The lines of files paired line by line; a file with another number of lines is an error."""
    files = [_read(path) for path in paths]
    for path, lines in zip(paths[1:], files[1:]):
        if len(lines) != len(files[0]):
            raise InputError(
                path,
                f"has {len(lines)} lines but {paths[0].name} has {len(files[0])}; "
                "expected one line per item, paired line by line",
            )
    return files


def _one_token_apart(a: str, b: str) -> bool:
    left, right = a.split(), b.split()
    return len(left) == len(right) and sum(x != y for x, y in zip(left, right)) == 1


def _check_one_token(path: Path, other: Path, lines: Sequence[str], changed: Sequence[str], what: str) -> None:
    for number, (a, b) in enumerate(zip(lines, changed), start=1):
        if not _one_token_apart(a, b):
            raise InputError(
                path, f"{what} differs from line {number} of {other.name} in other than exactly one token", number
            )


def _row(columns: Sequence[str], *values: object) -> Row:
    return dict(zip(columns, values, strict=True))


def np_vp_items(folder: str | Path, data_type: str, templates: Sequence[int] = TEMPLATES) -> list[Row]:
    """S -> NP VP items (``np_prime``; ``vp_prime`` where released: synthetic data) of
    ``templates`` (every reader reads all ten unless told otherwise)."""
    root = Path(folder) / "systematicity" / "s_np_vp" / data_type
    conditions = ("np_prime", "vp_prime") if data_type == "synthetic" else ("np_prime",)
    rows: list[Row] = []
    for t in templates:
        names = ["np", *conditions]
        paths = [root / f"systematicity_{data_type}_{t}_{name}.en" for name in names]
        base, *changed = _paired(paths)
        for condition, path, lines in zip(conditions, paths[1:], changed):
            _check_one_token(path, paths[0], base, lines, f"the {condition} sentence")
            rows += [
                _row(NP_VP_COLUMNS, len(rows) + k, t, condition, a, b) for k, (a, b) in enumerate(zip(base, lines))
            ]
    return rows


def _split_conjunction(path: Path, lines: Sequence[str]) -> list[tuple[str, str]]:
    parts = []
    for number, line in enumerate(lines, start=1):
        first, found, second = line.partition(RELEASED_CONJUNCTION)
        if not found or not first or not second:
            raise InputError(path, f"expected 'S1{RELEASED_CONJUNCTION}S2', found {line[:80]!r}", number)
        parts.append((first, second))
    return parts


def s_conj_items(folder: str | Path, data_type: str, templates: Sequence[int] = TEMPLATES) -> list[Row]:
    """S -> S CONJ S items (``s1_prime``: S1 / S1', ``s3``: S1 / S3, both with the same S2)."""
    root = Path(folder) / "systematicity" / "s_conj" / data_type
    rows: list[Row] = []
    for t in templates:
        paths = {name: root / f"systematicity_{data_type}_{t}_{file}.en" for name, file in _S_CONJ_FILES.items()}
        lines = dict(zip(paths, _paired(list(paths.values()))))
        parts = {name: _split_conjunction(paths[name], lines[name]) for name in paths}
        for name in ("s1_prime", "s3"):
            for number, ((s1, s2), (other, other_s2)) in enumerate(zip(parts["s1"], parts[name]), start=1):
                if other_s2 != s2:
                    raise InputError(paths[name], f"S2 differs from line {number} of {paths['s1'].name}", number)
                if name == "s1_prime" and not _one_token_apart(s1, other):
                    raise InputError(
                        paths[name], f"S1' differs from S1 of {paths['s1'].name} in other than one token", number
                    )
            rows += [
                _row(S_CONJ_COLUMNS, len(rows) + k, t, name, a, b)
                for k, (a, b) in enumerate(zip(lines["s1"], lines[name]))
            ]
    return rows


def _check_terms(path: Path, lines: Sequence[str], term: str, what: str) -> None:
    for number, line in enumerate(lines, start=1):
        if term.lower() not in line.lower():
            raise InputError(path, f"does not contain {what} {term!r}", number)


def substitutivity_items(
    folder: str | Path, data_type: str, pairs: Sequence[SynonymPair], templates: Sequence[int] = TEMPLATES
) -> list[Row]:
    """Substitutivity items: per pair (the release's numbering, :func:`release_pairs`) and
    template, ``source_a`` with the British term, ``source_b`` with the American one; natural
    items with their corpus reference."""
    root = Path(folder) / "substitutivity" / data_type
    rows: list[Row] = []
    for k, pair in enumerate(pairs):
        if data_type == "natural":
            british, american, reference = _paired([root / f"{k}-1.en", root / f"{k}-2.en", root / f"{k}.nl"])
            places = [(NATURAL_TEMPLATE, root, british, american, reference)]
        else:
            places = []
            for t in templates:
                folder_t = root / f"substitutivity_{data_type}_{t}"
                british, american = _paired([folder_t / f"{k}-1.en", folder_t / f"{k}-2.en"])
                places.append((t, folder_t, british, american, None))
        for t, where, british, american, reference in places:
            _check_terms(where / f"{k}-1.en", british, pair.british, "the British term")
            _check_terms(where / f"{k}-2.en", american, pair.american, "the American term")
            for index, (a, b) in enumerate(zip(british, american)):
                if reference is None:
                    rows.append(_row(SUBSTITUTIVITY_COLUMNS, len(rows), t, pair.name, a, b))
                else:
                    rows.append(_row(NATURAL_SUBSTITUTIVITY_COLUMNS, len(rows), t, pair.name, a, b, reference[index]))
    return rows


def overgeneralisation_items(
    folder: str | Path, data_type: str, idioms: Sequence[Idiom], templates: Sequence[int] = TEMPLATES
) -> list[Row]:
    """Overgeneralisation items: per idiom (the release's numbering, :func:`release_idioms`)
    and template; natural items with their corpus reference, the others with none."""
    root = Path(folder) / "overgeneralisation" / data_type
    rows: list[Row] = []
    for i, idiom in enumerate(idioms):
        if data_type == "natural":
            sources, references = _paired([root / f"{i}.en", root / f"{i}.nl"])
            places = [(NATURAL_TEMPLATE, root / f"{i}.en", sources, references)]
        else:
            places = []
            for t in templates:
                path = root / f"overgeneralisation_{data_type}_{t}" / f"{i}.en"
                lines = _read(path)
                places.append((t, path, lines, [""] * len(lines)))
        for t, path, sources, references in places:
            _check_terms(path, sources, idiom.idiom, "its idiom")
            rows += [
                _row(OVERGENERALISATION_COLUMNS, len(rows) + n, t, idiom.idiom, source, reference)
                for n, (source, reference) in enumerate(zip(sources, references))
            ]
    return rows


def released_items(
    test: str, data_type: str, folder: str | Path, synonyms: str | Path, idioms: str | Path
) -> list[Row]:
    """The item rows of one test on one data type, read from the extracted release in
    ``folder``; ``synonyms`` and ``idioms`` are natcomp's lists, which name the release's
    numbered pairs and idioms."""
    if data_type not in get_test(test).data_types:
        raise ValueError(f"test {test!r} is not defined on data type {data_type!r}")
    if data_type not in RELEASED_DATA_TYPES:
        raise ValueError(f"the release has no {data_type} items; natcomp generates them")
    if test == "np_vp":
        return np_vp_items(folder, data_type)
    if test == "s_conj":
        return s_conj_items(folder, data_type)
    if test == "substitutivity":
        return substitutivity_items(folder, data_type, release_pairs(folder, load_synonyms(synonyms)))
    return overgeneralisation_items(folder, data_type, release_idioms(folder, load_idioms(idioms)))
