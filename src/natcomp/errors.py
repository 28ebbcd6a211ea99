"""Errors that name the file, the line and what was expected, and their one-line form.

:func:`one_line` is the one place that turns an error on a named path (natcomp's own
:class:`NatcompError` and the operating system's errors on a file) into the line the
command line prints (``natcomp: error: <path>[, line N]: <what was expected>``) and the
workflow's logs show.
"""

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


class OptionError(NatcompError):
    """A bad value of a command-line option: names the option and what was expected."""

    def __init__(self, option: str, message: str):
        self.option, self.message = option, message
        super().__init__(f"{option}: {message}")


class DownloadError(NatcompError):
    """A download failed: names the URL and what went wrong."""

    def __init__(self, url: str, message: str):
        self.url = url
        super().__init__(f"download of {url} failed: {message}")


class ConfigError(NatcompError):
    """A config value the schema cannot check (it depends on an installed tool): names the key."""

    def __init__(self, key: str, message: str):
        self.key, self.message = key, message
        # the same checks serve config keys and command-line options (``--model``): an option is named as it is typed
        super().__init__(f"{key}: {message}" if key.startswith("-") else f"config {key}: {message}")


#: what each operating-system error on a named path means for the user
OS_ERRORS: dict[type[OSError], str] = {
    FileNotFoundError: "file not found; expected an existing file",
    IsADirectoryError: "is a folder; expected a file",
    NotADirectoryError: "a part of the path is a file; expected a folder",
    FileExistsError: "already exists as a file; expected a folder or a new name",
    PermissionError: "permission denied",
}


def os_error_message(error: OSError) -> str:
    """What an operating-system error on a file means, without its path (for :class:`InputError`)."""
    for kind, message in OS_ERRORS.items():
        if isinstance(error, kind):
            return message
    return f"cannot read or write: {error.strerror or error}"


def as_input_error(error: BaseException) -> NatcompError | None:
    """``error`` as a :class:`NatcompError` when it is one or an OS error on a named path, else None.

    For an OS error with two paths (a rename), the second (the target) is named.
    """
    if isinstance(error, NatcompError):
        return error
    if isinstance(error, OSError) and (error.filename is not None or error.filename2 is not None):
        path = error.filename2 if error.filename2 is not None else error.filename
        return InputError(path, os_error_message(error))
    return None


def one_line(error: BaseException) -> str | None:
    """The one line that reports ``error`` (see :func:`as_input_error`), or None for other errors."""
    known = as_input_error(error)
    if known is None and isinstance(error, UnicodeDecodeError):
        # every natcomp reader names the file and line itself; this is the last resort
        known = NatcompError(f"an input is not valid UTF-8 ({error.reason} at byte {error.start}); expected UTF-8 text")
    if known is None:
        return None
    return " ".join(str(known).split("\n")).strip()
