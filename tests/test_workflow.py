"""The workflow itself: dry runs of both configs, lint, formatting, config errors."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
pytestmark = pytest.mark.workflow


def snakemake(*args, cwd=REPO, check=True):
    result = subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def dry_run_jobs(*args, cwd=REPO) -> dict[str, int]:
    """Job counts per rule from a dry run (forced, so existing results do not matter)."""
    out = snakemake("-n", "--forceall", "--quiet", "rules", *args, cwd=cwd).stdout
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def test_demo_dry_run():
    jobs = dry_run_jobs()
    assert jobs["train_model"] == 4, "demo: 2 sizes x 2 seeds"
    assert jobs["tokenise_train_chunk"] == 4, "2 chunks x 2 languages"
    assert jobs["generate_demo_corpus"] == 1
    assert jobs["score_bleu"] == 8
    assert jobs["translate_best_checkpoint"] == 4, "one translation job per model's best checkpoint"
    assert jobs["translate_epoch_checkpoint"] == 2 * 2 * 5, "every kept epoch of every model"
    assert jobs["make_test_items"] == 12
    assert jobs["build_treebank"] == jobs["extract_fragments"] == jobs["search_fragments"] == 1
    assert jobs["mt_tables"] == jobs["mt_figures"] == 1


def test_paper_dry_run():
    jobs = dry_run_jobs("--configfile", "config/paper.yaml")
    assert jobs["train_model"] == 15, "paper: 3 sizes x 5 seeds"
    assert jobs["apply_bpe_train_chunk"] == 128
    assert "generate_demo_corpus" not in jobs
    assert jobs["download_release"] == 2
    assert jobs["translate_epoch_checkpoint"] == 5 * 3 * 10
    assert jobs["download_stanza_models"] == 1, "paper scale parses its treebank with stanza"


def test_lint_is_clean():
    result = snakemake("--lint", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakefmt_is_clean():
    snakefmt = shutil.which("snakefmt", path=str(Path(sys.executable).parent))
    if snakefmt is None:
        pytest.skip("snakefmt is not installed next to this Python")
    files = ["Snakefile", *map(str, sorted((REPO / "workflow" / "rules").glob("*.smk")))]
    result = subprocess.run([snakefmt, "--check", *files], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("mt:\n  seeds: [1]\n  sizez: {small: 10}\n", "Additional properties are not allowed ('sizez' was unexpected)"),
        ("mt:\n  seeds: one\n", "'one' is not of type 'array'"),
        ("mt:\n  preprocess: {chunks: 0}\n", "0 is less than the minimum of 1"),
    ],
)
def test_config_errors_are_clear(tmp_path, patch, message):
    import yaml

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for key, value in yaml.safe_load(patch)["mt"].items():
        config["mt"][key] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--configfile", str(path), check=False)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_missing_epoch_checkpoints_for_a_size(tmp_path):
    import yaml

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["mt"]["sizes"]["medium"] = 100
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--configfile", str(path), check=False)
    assert "epoch_checkpoints has no entry for corpus size(s) ['medium']" in result.stdout + result.stderr
