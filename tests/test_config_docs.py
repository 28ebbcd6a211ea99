"""config/README.md tells the truth: its tables render and the demo column is config.yaml."""

import re
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

REPO = Path(__file__).resolve().parents[1]
README = REPO / "config" / "README.md"
# Rows whose demo cell describes the value in words instead of giving it.
DESCRIBED = {
    "sizes",
    "systems",
    "train.fairseq",
    "train.epoch_checkpoints",
    "tests.data_types",
    "downloads.tatoeba.url",
    "downloads.released_tests",  # the demo has none: it generates its items
}


def demo_config() -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate(config, str(REPO / "config" / "schema.yaml"), set_default=True)
    validate(config["mt"], str(REPO / "config" / "schema" / "mt.yaml"), set_default=True)
    return config


def mt_rows() -> list[tuple[list[str], str]]:
    text = README.read_text()
    section = text[text.index("## `mt`") : text.index("## Output tables")]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        keys = re.findall(r"`([^`]+)`", cells[0])
        # `a.b.c`, `d`: a later key without dots is a sibling of the first one.
        prefix = keys[0].rsplit(".", 1)[0] + "." if "." in keys[0] else ""
        keys = [keys[0], *[key if "." in key else prefix + key for key in keys[1:]]]
        rows.append((keys, cells[2]))
    return rows


def split_values(cell: str) -> list[str]:
    """`a`, `b` / 1.2, 10 / `[x, y]`: top-level comma-separated values, backticks removed."""
    cell = cell.replace("`", "")
    values, depth, current = [], 0, ""
    for char in cell:
        depth += char in "[{"
        depth -= char in "]}"
        if char == "," and depth == 0:
            values.append(current.strip())
            current = ""
        else:
            current += char
    return [*values, current.strip()]


def lookup(config: dict, dotted: str):
    value = config
    for part in dotted.split("."):
        value = value[part]
    return value


def test_tables_have_no_blank_line_inside():
    lines = README.read_text().splitlines()
    for number in range(1, len(lines) - 1):
        if not lines[number].strip() and lines[number - 1].startswith("|") and lines[number + 1].startswith("|"):
            pytest.fail(f"config/README.md line {number + 1}: a blank line splits a table")


@pytest.mark.parametrize(("keys", "cell"), mt_rows(), ids=lambda value: str(value))
def test_demo_column_is_the_demo_config(keys, cell):
    if keys[0] in DESCRIBED or "*" in keys[0]:
        pytest.skip(f"{keys[0]}: the demo cell describes the value in words")
    config = demo_config()["mt"]
    values = split_values(cell)
    assert len(values) == len(keys), f"{keys}: {len(keys)} keys but demo cell {cell!r}"
    for key, text in zip(keys, values):
        assert yaml.safe_load(text) == lookup(config, key), (
            f"mt.{key}: README says {text}, config.yaml has {lookup(config, key)!r}"
        )


def _documented_columns(table_path: str) -> list[str]:
    """The backquoted column list the outputs table (docs/outputs.md) gives for ``table_path``."""
    outputs = (REPO / "docs" / "outputs.md").read_text(encoding="utf-8")
    row = next(line for line in outputs.splitlines() if line.startswith(f"| `{table_path}` |"))
    return row.split("|")[2].strip().split("`")[1].split(", ")


def test_the_outputs_page_names_the_bleu_columns_the_code_writes():
    from natcomp.mt.bleu import BLEU_TABLE_COLUMNS

    assert _documented_columns("results/tables/mt/bleu.tsv") == BLEU_TABLE_COLUMNS
