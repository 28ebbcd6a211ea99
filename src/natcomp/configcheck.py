"""Config errors in one line: the dotted key, the value and what was expected.

Snakemake's ``validate`` reports a schema violation with the whole schema section and the
whole config section (hundreds of lines). :func:`check_config` checks the same schema with
jsonschema and raises :class:`natcomp.errors.ConfigError` naming the first problem, with a
"did you mean" for a mistyped key, and why for a value the schema took once and refuses
now (:data:`REMOVED_VALUES`: ``chat_template: auto``). Defaults are still filled in by
Snakemake's ``validate`` afterwards, on a config known to be valid.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from natcomp.errors import ConfigError
from natcomp.files import load_yaml

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

#: the dtypes a config's ``dtype`` (and ``natcomp evaluate --dtype``) names: ``auto`` (the
#: checkpoint's own on a GPU, fp32 on a CPU) or one dtype; what each means is
#: :mod:`natcomp.hf.precision`'s, kept here so that building the command line imports no torch
DTYPES = ("auto", "fp32", "fp16", "bf16")

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
        return load_yaml(handle)


_BOOLEAN_WORDS = {"true": True, "false": False}

#: the values of a causal LM's ``chat_template`` (``mt.prompting``, ``mt.systems.<name>``,
#: ``plane.prompting``): off unless asked, as lm-evaluation-harness's ``--apply_chat_template``
CHAT_TEMPLATE_MODES = ("on", "off")
#: values a schema took once and refuses now, by the key's last part: value -> why (the one line)
REMOVED_VALUES: dict[str, dict[str, str]] = {
    "chat_template": {
        "auto": "auto was removed: a base model's tokenizer may have a chat template too; set on or off",
    },
}


def removed_value(key: str, value: object) -> str | None:
    """Why ``value`` of the dotted ``key`` is no longer taken (:data:`REMOVED_VALUES`), or None."""
    if not isinstance(value, str):
        return None
    return REMOVED_VALUES.get(key.rsplit(".", 1)[-1], {}).get(value)


def chat_template_mode(value: object, key: str = "chat_template") -> str:
    """``on`` or ``off`` (YAML reads a bare ``on``/``off`` as true/false); any other value
    is a :class:`ConfigError` naming ``key`` (``auto``: why it was removed)."""
    mode = {True: "on", False: "off"}[value] if isinstance(value, bool) else value
    reason = removed_value(key, value)
    if reason:
        raise ConfigError(key, reason)
    if mode not in CHAT_TEMPLATE_MODES:
        raise ConfigError(key, f"must be one of {', '.join(CHAT_TEMPLATE_MODES)}, not {value!r}")
    return str(mode)


def read_typed_strings(config: dict, schema: Mapping) -> dict:
    """Give text values the type the schema asks for, in place; returns ``config``.

    Snakemake reads a nested ``--config`` value as YAML with every scalar kept as text
    (``--config plane='{enabled: false}'`` gives ``{"enabled": "false"}``). Where the schema
    expects a boolean, an integer or a number and no string, the text ``true``/``false``
    (any case), an integer or a number becomes that value; any other text is left for
    :func:`check_config` to report. A value the schema allows as a string stays text.
    """
    _read_typed(config, schema, schema)
    return config


def _resolve(schema, root: Mapping):
    """A local ``$ref`` (``#/$defs/name``) replaced by what it points at."""
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/"):
        target = root
        for part in schema["$ref"][2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        schema = target
    return schema


def _alternatives(schema: Mapping, root: Mapping) -> list[Mapping]:
    """The schema and each branch of its oneOf/anyOf, references resolved."""
    branches = [schema]
    for keyword in ("oneOf", "anyOf"):
        branches += [_resolve(branch, root) for branch in schema.get(keyword, ())]
    return [branch for branch in branches if isinstance(branch, Mapping)]


def _types(schema: Mapping) -> set[str]:
    expected = schema.get("type")
    return {expected} if isinstance(expected, str) else set(expected or ())


def _read_typed(value, schema, root: Mapping):
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):
        return value
    branches = _alternatives(schema, root)
    if isinstance(value, dict):
        for branch in branches:
            properties = branch.get("properties", {})
            extra = branch.get("additionalProperties")
            for key in list(value):
                sub_schema = properties.get(key, extra if isinstance(extra, Mapping) else None)
                if sub_schema is not None:
                    value[key] = _read_typed(value[key], sub_schema, root)
        return value
    if isinstance(value, list):
        for branch in branches:
            if isinstance(branch.get("items"), Mapping):
                return [_read_typed(item, branch["items"], root) for item in value]
        return value
    if not isinstance(value, str):
        return value
    types = set().union(*(_types(branch) for branch in branches))
    if "string" in types:
        return value
    text = value.strip()
    if "boolean" in types and text.lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[text.lower()]
    if types & {"integer", "number"}:
        try:
            return int(text)
        except ValueError:
            pass
    if "number" in types:
        try:
            return float(text)
        except ValueError:
            pass
    return value


def check_config(config: Mapping, schema: Mapping, prefix: str = "") -> None:
    """Raise :class:`ConfigError` for the first violation of ``schema`` in ``config``.

    ``prefix`` is the dotted path of ``config`` in the whole configuration (``"mt"`` for
    the MT section). Errors are ordered by where they are in the config, so the message
    is the same on every run.
    """
    # imported here: the jobs that read DTYPES or the chat template modes (every Hugging
    # Face job, through natcomp.hf.precision) check no config, and jsonschema takes 0.1 s
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        key, message = describe(errors[0])
        raise ConfigError(_join(prefix, key), message)


def check_sections(config: dict, config_dir: str | Path, families: Iterable[str]) -> None:
    """The workflow's first config check (``workflow/rules/common.smk``), also run by
    ``natcomp evaluate`` on its run's config before the plan is printed: the top level and
    each family section present against their schemas (``config/schema.yaml``,
    ``config/schema/<family>.yaml``), text values of ``--config`` read as the schema's type
    first. Raises :class:`ConfigError` naming the first bad key."""
    config_dir = Path(config_dir)
    top = load_schema(config_dir / "schema.yaml")
    read_typed_strings(config, top)
    check_config(config, top)
    for family in families:
        if family in config:
            schema = load_schema(config_dir / "schema" / f"{family}.yaml")
            read_typed_strings(config[family], schema)
            check_config(config[family], schema, family)


def describe(error: ValidationError) -> tuple[str, str]:
    """(dotted key, one-line message) of a jsonschema error."""
    key = ".".join(str(part) for part in error.absolute_path)
    schema = error.schema
    if error.validator == "additionalProperties":
        known = set(schema.get("properties", {}))
        unknown = sorted(set(error.instance) - known)
        name = unknown[0]
        valid = ", ".join(sorted(known)) or "none"
        hint = _misplaced(name) or did_you_mean(name, known) or f" (valid keys here: {valid})"
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
        reason = removed_value(key, error.instance)
        if reason:
            return key, reason
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


def _misplaced(name: str) -> str | None:
    """Why a key that some sections take is unknown in this one (``fine_tuning``: only the
    fine-tuning families' training sections take it), else None."""
    if name != "fine_tuning":
        return None
    from natcomp.finetuning import FAMILY_SECTIONS, family_key

    places = [family_key(family).removesuffix(".fine_tuning") for family in FAMILY_SECTIONS]
    return f": this section fine-tunes no model; fine_tuning is a setting of {', '.join(places[:-1])} and {places[-1]}"


def _join(prefix: str, key: str) -> str:
    return ".".join(part for part in (prefix, key) if part) or "(top level)"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
