"""natcomp.configcheck.read_typed_strings: text from Snakemake's --config gets the schema's type."""

from __future__ import annotations

import pytest

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
