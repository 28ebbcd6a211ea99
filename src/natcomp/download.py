"""Fetch a URL (https, http or file) to a local file, atomically and checksummed."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from natcomp.errors import DownloadError
from natcomp.files import atomic_path

CHUNK_BYTES = 1 << 20
SCHEMES = ("https", "http", "file")


def fetch(url: str, destination: str | Path, sha256: str | None = None, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``destination`` and return the destination path.

    The data is written under a temporary name and renamed only after the whole body has
    arrived (and, when ``sha256`` is given, its checksum matched), so a failed or
    interrupted download never leaves a file at ``destination``. Failures raise
    :class:`DownloadError` naming the URL and what went wrong.
    """
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise DownloadError(url, f"unsupported URL scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")
    digest = hashlib.sha256()
    with atomic_path(destination) as tmp:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
                expected_bytes = _content_length(response)
                received = 0
                while chunk := response.read(CHUNK_BYTES):
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
        except urllib.error.HTTPError as error:
            raise DownloadError(url, f"HTTP {error.code} {error.reason}") from None
        except urllib.error.URLError as error:
            raise DownloadError(url, f"cannot connect or open: {error.reason}") from None
        except (OSError, ValueError) as error:
            raise DownloadError(url, f"transfer interrupted: {error}") from None
        if expected_bytes is not None and received != expected_bytes:
            raise DownloadError(url, f"truncated: received {received} of {expected_bytes} bytes")
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise DownloadError(url, f"sha256 mismatch: expected {sha256.lower()}, got {digest.hexdigest()}")
    return Path(destination)


def _content_length(response) -> int | None:
    value = response.headers.get("Content-Length") if response.headers else None
    return int(value) if value and value.isdigit() else None


def sha256_of(path: str | Path) -> str:
    """The hex sha256 of a file (to fill a checksum into the config)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def download_entry(entry: dict, fields: dict[str, str]) -> tuple[str, str | None]:
    """The URL and checksum of a config download entry for one run: ``{name}`` fields of
    the URL filled in (MT's ``{pair}``: ``deu-eng``), and a ``sha256`` given per pair
    (pair -> checksum) narrowed to the run's pair (None: not checked)."""
    url = entry["url"]
    for name, value in fields.items():
        url = url.replace("{" + name + "}", value)
    sha256 = entry.get("sha256")
    if isinstance(sha256, dict):
        sha256 = sha256.get(fields.get("pair"))
    return url, sha256
