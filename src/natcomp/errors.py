"""Errors that name the file, the line and what was expected."""

from __future__ import annotations

from pathlib import Path


class NatcompError(Exception):
    """Base class of every error natcomp raises on purpose."""


class InputError(NatcompError):
    """Bad input: names the file, the line (1-based, when known) and what was expected."""

    def __init__(self, path: str | Path, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {message}")


class DownloadError(NatcompError):
    """A download failed: names the URL and what went wrong."""

    def __init__(self, url: str, message: str):
        self.url = url
        super().__init__(f"download of {url} failed: {message}")


class ConfigError(NatcompError):
    """A config value the schema cannot check (it depends on an installed tool): names the key."""

    def __init__(self, key: str, message: str):
        self.key, self.message = key, message
        super().__init__(f"config {key}: {message}")
