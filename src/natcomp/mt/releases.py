"""Read the corpus releases the MT family trains and evaluates on.

Three layouts (see ``config/README.md``):

* a Tatoeba-Challenge language-pair tar (``<anything>/<pair>/train.src.gz``,
  ``train.trg.gz``, ...), whatever folder the release puts the pair in. The release names
  a pair by its two ISO 639-3 codes in alphabetical order, the first on the ``.src`` side
  (``deu-eng``: German in ``.src``, English in ``.trg``; ``eng-nld``: English in ``.src``):
  :func:`tatoeba_folder` and :func:`tatoeba_sides`;
* the FLORES-101 tarball (``<anything>/dev/<lang>.dev``, ``<anything>/devtest/<lang>.devtest``);
* the original study's repository archive, whose test files are extracted and checked one
  by one against their sizes and sha256 (:func:`extract_checked_files`;
  ``natcomp.mt.released_items`` reads them).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from natcomp.errors import InputError
from natcomp.files import atomic_open, check_parallel, iter_lines


def _members(archive: tarfile.TarFile, tar_path: Path) -> dict[str, tarfile.TarInfo]:
    try:
        return {member.name: member for member in archive.getmembers() if member.isfile()}
    except (tarfile.TarError, OSError, EOFError) as error:
        raise InputError(tar_path, f"damaged or truncated tar archive: {error}") from None


def _find_member(members: dict[str, tarfile.TarInfo], suffix: str, tar_path: Path) -> tarfile.TarInfo:
    """The one member whose path ends with ``suffix`` (path components, not characters)."""
    wanted = PurePosixPath(suffix).parts
    hits = [m for name, m in members.items() if PurePosixPath(name).parts[-len(wanted) :] == wanted]
    if not hits:
        raise InputError(tar_path, f"no member */{suffix} in the archive; expected a release with that file")
    if len(hits) > 1:
        names = ", ".join(sorted(m.name for m in hits))
        raise InputError(tar_path, f"several members match */{suffix} ({names}); expected exactly one")
    return hits[0]


def _copy_member_text(archive: tarfile.TarFile, member: tarfile.TarInfo, destination: Path, tar_path: Path) -> None:
    """Write a member (gzipped or not) as plain UTF-8 text, atomically."""
    source = archive.extractfile(member)
    if source is None:
        raise InputError(tar_path, f"member {member.name} cannot be read")
    try:
        if member.name.endswith(".gz"):
            source = gzip.GzipFile(fileobj=source)
        with atomic_open(destination, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
    except (OSError, EOFError, tarfile.TarError) as error:
        raise InputError(tar_path, f"member {member.name} is damaged or truncated: {error}") from None


def _open_tar(tar_path: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(tar_path)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise InputError(tar_path, f"not a readable tar archive: {error}") from None


def tatoeba_folder(source: str, target: str) -> str:
    """The release's folder of the pair of two ISO 639-3 codes: the codes in alphabetical
    order (``eng``, ``deu`` -> ``deu-eng``; ``eng``, ``nld`` -> ``eng-nld``), as the
    release lists every pair (``afr-eng``, ``deu-eng``, ``eng-fra``, ``eng-spa``)."""
    return "-".join(sorted((source, target)))


def tatoeba_sides(source: str, target: str) -> tuple[str, str]:
    """Which file of the release's pair folder holds ``source`` and which ``target``:
    ``("src", "trg")`` when ``source`` comes first in the folder's name, else
    ``("trg", "src")`` (English into German: English is the ``.trg`` of ``deu-eng``)."""
    if source == target:
        raise ValueError(f"a pair of two languages, not {source} twice")
    return ("src", "trg") if tatoeba_folder(source, target).startswith(f"{source}-") else ("trg", "src")


def extract_tatoeba(
    tar_path: str | Path, source: str, target: str, split: str, source_out: str | Path, target_out: str | Path
) -> int:
    """Extract one split (``train``, ``dev`` or ``test``) of a Tatoeba pair tar.

    ``source`` and ``target`` are ISO 639-3 codes (``eng``, ``deu``): the pair's folder
    is :func:`tatoeba_folder` and ``source_out`` receives the side of ``source``,
    ``target_out`` that of ``target`` (:func:`tatoeba_sides`), as plain text. Returns the
    number of lines; raises :class:`InputError` when the files are missing or have
    different line counts.
    """
    tar_path = Path(tar_path)
    folder = tatoeba_folder(source, target)
    suffix = ".gz" if split == "train" else ""
    with _open_tar(tar_path) as archive:
        members = _members(archive, tar_path)
        found = [
            _find_member(members, f"{folder}/{split}.{side}{suffix}", tar_path)
            for side in tatoeba_sides(source, target)
        ]
        for member, out in zip(found, (source_out, target_out), strict=True):
            _copy_member_text(archive, member, Path(out), tar_path)
    return _check_or_remove(source_out, target_out)


def extract_flores(
    tar_path: str | Path, split: str, source_lang: str, target_lang: str, source_out: str | Path, target_out: str | Path
) -> int:
    """Extract one FLORES-101 split (``dev`` or ``devtest``) for two ISO 639-3 languages."""
    tar_path = Path(tar_path)
    with _open_tar(tar_path) as archive:
        members = _members(archive, tar_path)
        for lang, out in ((source_lang, source_out), (target_lang, target_out)):
            member = _find_member(members, f"{split}/{lang}.{split}", tar_path)
            _copy_member_text(archive, member, Path(out), tar_path)
    return _check_or_remove(source_out, target_out)


def _check_or_remove(source_out: str | Path, target_out: str | Path) -> int:
    """Line-count, UTF-8 and empty-line checks of an extracted pair; on failure no output is left."""
    try:
        n = check_parallel(source_out, target_out)
        for path in (source_out, target_out):
            for _ in iter_lines(path):
                pass
        return n
    except InputError:
        Path(source_out).unlink(missing_ok=True)
        Path(target_out).unlink(missing_ok=True)
        raise


def extract_checked_files(tar_path: str | Path, files: Mapping[str, tuple[int, str]], destination: str | Path) -> int:
    """Extract the listed files of a release archive into the folder ``destination``, each
    checked against its ``(bytes, sha256)``; returns how many were extracted.

    A member is matched by its path below the archive's top folder (GitHub's
    ``<repository>-<commit>/``) or by its whole path; other members are skipped. A listed file
    that is missing or whose bytes differ is an :class:`InputError` naming the archive and
    the file; the folder appears whole or not at all.
    """
    tar_path, destination = Path(tar_path), Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
    found: set[str] = set()
    try:
        with _open_tar(tar_path) as archive:
            try:
                for member in archive:
                    name = _listed_name(member.name, files)
                    if name is None or not member.isfile():
                        continue
                    if name in found:
                        raise InputError(tar_path, f"{name} is in the archive twice; expected one copy")
                    _extract_checked(archive, member, name, files[name], staging, tar_path)
                    found.add(name)
            except (tarfile.TarError, OSError, EOFError) as error:
                raise InputError(tar_path, f"damaged or truncated archive: {error}") from None
        missing = sorted(set(files) - found)
        if missing:
            raise InputError(
                tar_path, f"has no {missing[0]} ({len(missing)} listed file(s) missing); expected the release's files"
            )
        if destination.exists():
            shutil.rmtree(destination)
        os.replace(staging, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(found)


def _listed_name(member: str, files: Mapping[str, object]) -> str | None:
    parts = PurePosixPath(member).parts
    for name in ("/".join(parts[1:]), "/".join(parts)):
        if name in files:
            return name
    return None


def _extract_checked(
    archive: tarfile.TarFile, member: tarfile.TarInfo, name: str, expected: tuple[int, str], root: Path, tar_path: Path
) -> None:
    size, sha256 = expected
    source = archive.extractfile(member)
    if source is None:
        raise InputError(tar_path, f"member {member.name} cannot be read")
    target = root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with open(target, "wb") as out:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    got = (target.stat().st_size, digest.hexdigest())
    if got != (size, sha256):
        raise InputError(
            tar_path,
            f"{name}: {got[0]} bytes, sha256 {got[1]}; the release lists {size} bytes, sha256 {sha256} "
            "(a different commit, or a damaged archive)",
        )
