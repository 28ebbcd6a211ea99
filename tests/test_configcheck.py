"""natcomp.configcheck: text from Snakemake's --config gets the schema's type (read_typed_strings);
a value the schema took once is refused with why (chat_template: auto)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from natcomp.configcheck import check_config, read_typed_strings
from natcomp.errors import ConfigError

SCHEMA = {
    "type": "object",
    "$defs": {"download": {"type": "object", "properties": {"sha256": {"type": "string"}}}},
    "properties": {
        "enabled": {"type": "boolean"},
        "epochs": {"type": "integer"},
        "rate": {"type": "number"},
        "name": {"type": "string"},
        "seed_or_name": {"type": ["integer", "string"]},
        "seeds": {"type": "array", "items": {"type": "integer"}},
        "beam": {"oneOf": [{"type": "integer"}, {"type": "null"}]},
        "archive": {"$ref": "#/$defs/download"},
        "train": {"type": "object", "properties": {"fp16": {"type": "boolean"}}},
    },
}


def test_text_becomes_the_type_the_schema_asks_for():
    config = {
        "enabled": "false",
        "epochs": "3",
        "rate": "2e-5",
        "seeds": ["1", "2"],
        "beam": "5",
        "train": {"fp16": "True"},
    }
    assert read_typed_strings(config, SCHEMA) is config
    assert config == {"enabled": False, "epochs": 3, "rate": 2e-5, "seeds": [1, 2], "beam": 5, "train": {"fp16": True}}
    check_config(config, SCHEMA)


def test_text_the_schema_allows_stays_text():
    config = {"name": "123", "seed_or_name": "7", "archive": {"sha256": "0012"}}
    read_typed_strings(config, SCHEMA)
    assert config == {"name": "123", "seed_or_name": "7", "archive": {"sha256": "0012"}}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"enabled": "perhaps"}, "enabled: 'perhaps' is not true or false"),
        ({"epochs": "3.5"}, "epochs: '3.5' is not an integer"),
        ({"rate": "fast"}, "rate: 'fast' is not a number"),
    ],
)
def test_text_that_is_not_of_the_type_is_reported(config, message):
    read_typed_strings(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config, SCHEMA)


def test_values_of_the_right_type_are_untouched():
    config = {"enabled": True, "epochs": 0, "rate": 1, "train": {"fp16": False}}
    read_typed_strings(config, SCHEMA)
    assert config == {"enabled": True, "epochs": 0, "rate": 1, "train": {"fp16": False}}


#: the one line an old config's chat_template: auto gets (issue 41)
AUTO_REMOVED = "auto was removed: a base model's tokenizer may have a chat template too; set on or off"


@pytest.mark.parametrize(
    "key", ["mt.prompting.chat_template", "mt.systems.tiny-llama.chat_template", "plane.prompting.chat_template"]
)
def test_chat_template_auto_is_refused_by_the_schema_check_with_why(key):
    """An old config's auto fails in one line naming the key, before any job (not silently
    read as off); on and off pass."""
    repo = Path(__file__).resolve().parents[1]
    family, *path, last = key.split(".")
    schema = yaml.safe_load((repo / "config" / "schema" / f"{family}.yaml").read_text())
    for value, refused in (("auto", True), ("on", False), (False, False)):
        section = yaml.safe_load((repo / "config" / "config.yaml").read_text())[family]
        parent = section
        for part in path:
            parent = parent[part]
        parent[last] = value
        if not refused:
            check_config(section, schema, family)
            continue
        with pytest.raises(ConfigError) as error:
            check_config(section, schema, family)
        assert str(error.value) == f"config {key}: {AUTO_REMOVED}"
