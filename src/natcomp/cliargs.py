"""The argparse option checkers and the one-line usage errors every family's command line shares.

Every numeric option of every ``natcomp`` command is checked by one of the ``type=``
checkers here (:func:`int_range`, :func:`float_range`, :func:`json_object` and the shared
:data:`positive_int`, :data:`non_negative_int`, :data:`non_negative_float`,
:data:`positive_float`), so a bad value stops the command before it reads or writes a byte;
:class:`ArgumentParser` turns argparse's refusals into natcomp's one line (``natcomp: error:
--beam: expected an integer at least 1, not 0``, :class:`UsageError`). This module sits in
the core below the families: ``natcomp.cli`` imports every family's ``cli`` module, and each
of those imports its checkers from here, so every import points down.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Callable

from natcomp.errors import NatcompError


class UsageError(NatcompError):
    """A command line argparse refuses (an unknown option, an invalid choice, a value a checker refuses)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors are natcomp's one line (``natcomp: error: --option: ...``, exit 2)
    instead of the usage and the error; sub-command parsers inherit the class (``add_subparsers``)."""

    def error(self, message: str):
        raise UsageError(usage_message(message))


def usage_message(message: str) -> str:
    """argparse's error message in natcomp's words: the option first, choices without quotes."""
    message = re.sub(r"^argument ([^:]+): ", lambda found: f"{found.group(1).split('/')[0]}: ", message)
    choice = re.search(r"invalid choice: (.*) \(choose from (.*)\)$", message)
    if choice:
        choices = ", ".join(part.strip().strip("'") for part in choice.group(2).split(","))
        message = f"{message[: choice.start()]}invalid choice {choice.group(1)} (choose from {choices})"
    return message


def _number_checker(kind: type, low: float | None, high: float | None, low_open: bool) -> Callable[[str], object]:
    name = "an integer" if kind is int else "a number"

    def shown(bound: float) -> str:
        # an integer bound in full (4294967295, not 4.29497e+09), a number in its shortest form
        return str(bound) if kind is int else f"{bound:g}"

    if low is not None and high is not None:
        allowed = (
            f"{name} above {shown(low)} and at most {shown(high)}"
            if low_open
            else f"{name} from {shown(low)} to {shown(high)}"
        )
    elif low is not None:
        allowed = f"{name} above {shown(low)}" if low_open else f"{name} at least {shown(low)}"
    else:
        allowed = name

    def check(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}, not {text!r}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        if (kind is float and not math.isfinite(value)) or too_low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {allowed}, not {text}")
        return value

    check.bounds = (kind, low, high)  # what the option sweep (tests/test_bad_inputs.py) reads
    return check


def int_range(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=`` for an integer option from ``low`` to ``high`` (either open: None)."""
    return _number_checker(int, low, high, low_open=False)


def float_range(low: float | None = None, high: float | None = None, *, low_open: bool = False):
    """An argparse ``type=`` for a finite number from ``low`` (excluded with ``low_open``) to ``high``."""
    return _number_checker(float, low, high, low_open)


def json_object(text: str) -> dict:
    """An argparse ``type=`` for a JSON object (``{"key": value}``)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"expected a JSON object, not {text!r} ({error.msg})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f'expected a JSON object ({{"key": value}}), not {text!r}')
    return value


#: the checkers most options share
positive_int = int_range(1)
non_negative_int = int_range(0)
non_negative_float = float_range(0.0)
positive_float = float_range(0.0, low_open=True)
#: a random seed: numpy's and Python's generators take 0 to 2**32 - 1
seed_int = int_range(0, 2**32 - 1)
#: the most cores (or processes) one command may ask for: no machine natcomp runs on has more
MAX_CORES = 4096
#: cores or processes, at least 1
cores_int = int_range(1, MAX_CORES)
