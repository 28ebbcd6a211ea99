"""natcomp.summary: the run's one static page and its numbers; and, in the workflow, which
families the page has and that every final table is an HTML table of the report."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from natcomp.summary import (
    FamilySection,
    long_form,
    run_scale,
    run_settings,
    short_signatures,
    summary_page,
    write_summary,
)
from natcomp.tsv import read_tsv, write_tsv

REPO = Path(__file__).resolve().parents[1]
# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fe"
    "a7d6a4a30000000049454e44ae426082"
)


def sections(tmp_path: Path) -> list[FamilySection]:
    write_tsv(
        tmp_path / "table1.tsv",
        pd.DataFrame({"encoder": ["minilm", "random"], "pss": ["0.1234", "0.0100"], "paper_pss": ["0.2000", ""]}),
    )
    write_tsv(tmp_path / "table2.tsv", pd.DataFrame({"setting": ["dev"], "rho": ["-0.5880"]}))
    (tmp_path / "figure.png").write_bytes(PNG)
    return [
        FamilySection(
            "pss", "demo", tables=[("PSS (paper Table 1)", str(tmp_path / "table1.tsv"))], settings="demo scale; x"
        ),
        FamilySection(
            "tre",
            "paper",
            tables=[("TRE", str(tmp_path / "table2.tsv"))],
            figures=[("TRE vs WNS", str(tmp_path / "figure.png"))],
        ),
    ]


def test_the_page_has_a_section_per_family_its_scale_tables_figures_and_the_config(tmp_path):
    page, numbers = summary_page(sections(tmp_path), "run_name: demo\n")
    assert re.findall(r'<h2 id="(\w+)">', page) == ["pss", "tre"]
    assert "<script" not in page.lower(), "a static page: no JavaScript"
    assert 'href="report.html"' in page
    assert page.count("<table") == 2 and page.count("data:image/png;base64,") == 1
    assert "Demo scale" in page and "Paper scale" in page
    assert page.count("This run: ") == 1 and "This run: demo scale; x</p>" in page, "settings where given"
    assert "paper_&lt;column&gt;" in page, "the paper column is explained where a table has one"
    assert "run_name: demo" in page
    assert numbers.to_dict("records") == [
        {"family": "pss", "scale": "demo", "table": "table1", "row": "minilm", "column": "pss", "value": "0.1234"},
        {
            "family": "pss",
            "scale": "demo",
            "table": "table1",
            "row": "minilm",
            "column": "paper_pss",
            "value": "0.2000",
        },
        {"family": "pss", "scale": "demo", "table": "table1", "row": "random", "column": "pss", "value": "0.0100"},
        {"family": "tre", "scale": "paper", "table": "table2", "row": "dev", "column": "rho", "value": "-0.5880"},
    ]


DECODE = "ckpt:{}|beam:5|maxlen:1.2*src+10|bpe:4c3d2f7d48b5|tok:moses-en|prec:fp32"
PRETRAINED = "hf:605508a12f4e0ad3|family:marian|beam:5|maxnew:256|maxlen:1.2*src+10|lang:en-nl|prec:fp32"
SACREBLEU = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


def bleu_sections(tmp_path: Path) -> list[FamilySection]:
    """Two families at demo scale, one with a BLEU table whose rows differ in their checkpoint."""
    write_tsv(
        tmp_path / "bleu.tsv",
        pd.DataFrame(
            {
                "system": ["trained", "trained", "tiny-marian"],
                "split": ["dev", "devtest", "dev"],
                "bleu_sacrebleu": ["56.31", "54.93", "73.57"],
                "sacrebleu_signature": [SACREBLEU] * 3,
                "decode_signature": [DECODE.format("d592f092117c26b6"), DECODE.format("8273e41a5b92affb"), PRETRAINED],
            }
        ),
    )
    write_tsv(tmp_path / "table1.tsv", pd.DataFrame({"encoder": ["minilm"], "pss": ["0.1234"]}))
    return [
        FamilySection("mt", "demo", tables=[("BLEU", str(tmp_path / "bleu.tsv"))], settings="demo scale; mt"),
        FamilySection("pss", "demo", tables=[("PSS", str(tmp_path / "table1.tsv"))], settings="demo scale; pss"),
    ]


def test_the_page_is_short_config_folded_one_banner_signatures_shortened(tmp_path):
    config = "run_name: demo\n" + "".join(f"key{number}: {number}\n" for number in range(200))
    (tmp_path / "config.yaml").write_text(config, encoding="utf-8")
    write_summary(bleu_sections(tmp_path), tmp_path / "config.yaml", tmp_path / "s.html", tmp_path / "s.tsv")
    page = (tmp_path / "s.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "onclick" not in page.lower(), "no JavaScript"
    folded = re.search(r"<details[^>]*><summary>[^<]*</summary>\s*<pre>(.*?)</pre>\s*</details>", page, re.S)
    assert folded and "key199: 199" in folded.group(1), "the whole config, folded in <details>"
    assert page.count("key199: 199") == 1, "the config once, only inside <details>"
    assert page.count("Demo scale:") == 1, "the demo-scale banner once, not once per family"
    assert page.index("Demo scale:") < page.index('<h2 id="mt">'), "at the top"
    assert page.count("This run: demo scale; ") == 2, "each family's own settings stay"
    # the decode signatures differ only in their checkpoint: the page shows that, the whole is the title
    cells = re.findall(r'<td><span title="([^"]*)">([^<]*)</span></td>', page)
    decode = [(html.unescape(whole), shown) for whole, shown in cells if "beam:5" in html.unescape(whole)]
    assert decode == [
        (DECODE.format("d592f092117c26b6"), "ckpt:d592f092117c26b6|\N{HORIZONTAL ELLIPSIS}"),
        (DECODE.format("8273e41a5b92affb"), "ckpt:8273e41a5b92affb|\N{HORIZONTAL ELLIPSIS}"),
        (PRETRAINED, "hf:605508a12f4e0ad3|\N{HORIZONTAL ELLIPSIS}"),
    ]
    assert ">" + DECODE.format("d592f092117c26b6") not in page and ">" + SACREBLEU + "<" not in page
    # the TSV keeps every signature whole (in the row labels of the numbers)
    rows = set(read_tsv(tmp_path / "s.tsv")["row"])
    assert f"trained / dev / {SACREBLEU} / {DECODE.format('d592f092117c26b6')}" in rows
    assert f"tiny-marian / dev / {SACREBLEU} / {PRETRAINED}" in rows


def test_a_run_at_two_scales_names_the_families_of_each_banner(tmp_path):
    page, _ = summary_page(sections(tmp_path), "run_name: demo\n")
    assert page.count("Demo scale:") == 1 and page.count("Paper scale:") == 1
    assert "PSS: Demo scale:" in page and "TRE: Paper scale:" in page


def test_short_signatures_keep_the_first_field_and_the_fields_that_differ():
    cells = ["ckpt:a|beam:5|prec:fp32", "ckpt:b|beam:4|prec:fp32", "", "hf:c|beam:5|prec:fp32"]
    assert short_signatures(cells) == ["ckpt:a|beam:5|\u2026", "ckpt:b|beam:4|\u2026", "", "hf:c|beam:5|\u2026"]
    assert short_signatures(["moses:nl"]) == ["moses:nl"], "nothing left out: no ellipsis"


def test_write_summary_writes_both_files(tmp_path):
    (tmp_path / "config.yaml").write_text("run_name: x\n", encoding="utf-8")
    write_summary(sections(tmp_path), tmp_path / "config.yaml", tmp_path / "s.html", tmp_path / "s.tsv")
    assert (tmp_path / "s.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert len(read_tsv(tmp_path / "s.tsv")) == 4


def test_long_form_keeps_verdicts_as_values_not_in_row_names(tmp_path):
    """A ``<size>_vs_paper`` verdict is a cell of its row, not part of the row's name."""
    table = pd.DataFrame(
        {"data_type": ["synthetic"], "condition": ["s3"], "small": ["0.5"], "small_vs_paper": ["outside"]}
    )
    long = long_form(table, "mt", "paper", "systematicity_summary")
    assert long["row"].tolist() == ["synthetic / s3", "synthetic / s3"]
    assert long["column"].tolist() == ["small", "small_vs_paper"] and long["value"].tolist() == ["0.5", "outside"]
    write_tsv(tmp_path / "summary.tsv", table)
    page, _ = summary_page([FamilySection("mt", "paper", tables=[("S", str(tmp_path / "summary.tsv"))])], "")
    assert "*_vs_paper: within where |ours - the paper&#x27;s mean over its seeds| &lt;= 2" in page, "the rule, stated"


def test_long_form_keeps_empty_cells_out():
    table = pd.DataFrame({"model": ["a", "b"], "f1": ["0.5", ""]})
    assert long_form(table, "noncompsst", "demo", "models")["row"].tolist() == ["a"]


@pytest.mark.parametrize(
    ("section", "scale"),
    [
        ({"downloads": {"sst": {"url": "file:results/noncompsst/demo/releases/x.zip"}}}, "demo"),
        ({"downloads": {"sst": {"url": "https://nlp.stanford.edu/sentiment/x.zip"}}}, "paper"),
        ({}, "demo"),
    ],
)
def test_run_scale_follows_where_the_data_come_from(section, scale):
    assert run_scale(section) == scale


def test_run_settings_name_scale_models_and_seeds_as_the_config_does():
    import yaml

    demo = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    from natcomp.mt.config import derive_pair_settings

    line = run_settings("mt", derive_pair_settings(paper["mt"])[0])  # as the workflow fills in {target}
    assert line.startswith("paper scale; trained models: small (1,072,851 pairs), medium (8,582,811 pairs), full (all")
    assert "seeds 1, 2, 3, 4, 5" in line and "opus-mt-en-nl" in line
    assert line.endswith("; test items: the original study's released test sets"), "which items the run used"
    assert run_settings("mt", demo["mt"]).endswith("; test items: generated by natcomp")
    line = run_settings("noncompsst", demo["noncompsst"])
    assert line == "demo scale; sentiment models: tiny; seeds 1, 2; 8 epoch(s) at learning rate 0.003"
    # a profiled pretrained model trains with appendix D's settings, the tiny BERT beside it with its own
    profiled = {**demo["noncompsst"], "models": {"minilm": "all-MiniLM-L6-v2"}}
    assert run_settings("noncompsst", profiled).endswith("; 5 epoch(s) at learning rate 5e-06")
    both = {**demo["noncompsst"], "models": {"minilm": "all-MiniLM-L6-v2", **demo["noncompsst"]["models"]}}
    assert run_settings("noncompsst", both).endswith(
        "; 5 epoch(s) at learning rate 5e-06 (tiny: 8 epoch(s) at learning rate 0.003)"
    )
    assert "roberta-large" in run_settings("noncompsst", paper["noncompsst"])
    assert "fine-tuning: bert-base-cased (seed 42" in run_settings("plane", paper["plane"])
    assert "bert_base (bert-base-uncased; for the paper's BERT)" in run_settings("pss", paper["pss"])
    line = run_settings("tre", demo["tre"])
    assert line.startswith("demo scale; encoders: minilm (all-MiniLM-L6-v2; for the paper's USE Transformer)")
    assert "tiny_random (tiny random encoder)" in line and "composition add, 400 steps" in line


@pytest.mark.workflow
def test_the_summary_shows_only_enabled_families():
    """The summary job's inputs (its tables and figures) come from the enabled families only."""
    directory = tempfile.mkdtemp(prefix="natcomp-summary-")
    command = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--directory", directory]
    result = subprocess.run(
        [*command, "results/summary.html", "--config", "plane={enabled: false}", "tre={enabled: false}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    job = result.stdout[result.stdout.index("rule summary:") :]
    inputs = job[job.index("input:") : job.index("output:")]
    for family in ("mt", "noncompsst", "pss"):
        assert f"results/tables/{family}/" in inputs, family
    for family in ("plane", "tre"):
        assert f"results/tables/{family}/" not in inputs and f"results/figures/{family}/" not in inputs, family
