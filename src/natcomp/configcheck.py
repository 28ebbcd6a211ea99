"""Config errors in one line: the dotted key, the value and what was expected.

Snakemake's ``validate`` reports a schema violation with the whole schema section and the
whole config section (hundreds of lines). :func:`check_config` checks the same schema with
jsonschema and raises :class:`natcomp.errors.ConfigError` naming the first problem, with a
"did you mean" for a mistyped key. Defaults are still filled in by Snakemake's ``validate``
afterwards, on a config known to be valid.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from natcomp.errors import ConfigError

_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like ``word`` (difflib's ratio of at least 0.6), or None."""
    matches = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest candidate, else ``""``."""
    match = closest(word, candidates)
    return f" (did you mean '{match}'?)" if match else ""


def load_schema(path: str | Path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def check_config(config: Mapping, schema: Mapping, prefix: str = "") -> None:
    """Raise :class:`ConfigError` for the first violation of ``schema`` in ``config``.

    ``prefix`` is the dotted path of ``config`` in the whole configuration (``"mt"`` for
    the MT section). Errors are ordered by where they are in the config, so the message
    is the same on every run.
    """
    errors = sorted(Draft202012Validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        key, message = describe(errors[0])
        raise ConfigError(_join(prefix, key), message)


def describe(error: ValidationError) -> tuple[str, str]:
    """(dotted key, one-line message) of a jsonschema error."""
    key = ".".join(str(part) for part in error.absolute_path)
    schema = error.schema
    if error.validator == "additionalProperties":
        known = set(schema.get("properties", {}))
        unknown = sorted(set(error.instance) - known)
        name = unknown[0]
        valid = ", ".join(sorted(known)) or "none"
        hint = did_you_mean(name, known) or f" (valid keys here: {valid})"
        return _join(key, name), f"unknown key{hint}"
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return _join(key, missing[0]), "missing; this key is required"
    value = _show(error.instance)
    if error.validator == "type":
        expected = error.validator_value
        names = [expected] if isinstance(expected, str) else list(expected)
        return key, f"{value} is not {' or '.join(_TYPE_NAMES.get(n, n) for n in names)}"
    if error.validator == "enum":
        options = ", ".join(_show(option) for option in error.validator_value)
        hint = did_you_mean(str(error.instance), map(str, error.validator_value))
        return key, f"{value} is not one of {options}{hint}"
    bounds = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
        "minItems": "at least this many items:",
        "maxItems": "at most this many items:",
    }
    if error.validator in bounds:
        return key, f"{value}: expected {bounds[error.validator]} {error.validator_value}"
    if error.validator == "pattern":
        what = schema.get("description") or f"a string matching {error.validator_value}"
        return key, f"{value}: expected {what}"
    return key, error.message.splitlines()[0]


def _join(prefix: str, key: str) -> str:
    return ".".join(part for part in (prefix, key) if part) or "(top level)"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
