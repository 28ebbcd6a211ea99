"""The workflow itself: dry runs of both configs, lint, formatting, config errors."""

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from workflow_copy import copy_workflow, rule_blocks

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
pytestmark = pytest.mark.workflow
FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")
# Dry runs plan in a run folder of their own (--directory), so they neither depend on nor
# touch the repository's results/ (which may hold a demo: a paper plan there is refused).
DRY_RUN_DIR = Path(tempfile.mkdtemp(prefix="natcomp-dry-runs-"))


def snakemake(*args, cwd=REPO, check=True):
    if cwd == REPO and "--directory" not in args:
        args = ("--directory", str(DRY_RUN_DIR), *args)
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
    assert jobs["mt_train"] == 4, "demo: 2 sizes x 2 seeds"
    assert jobs["mt_tokenise_train_chunk"] == 4, "2 chunks x 2 languages"
    assert jobs["mt_demo_corpus"] == 1
    assert jobs["mt_bleu"] == 8
    epochs = 2 * (2 + 3)  # small: 2 kept epoch checkpoints, full: 3, for 2 seeds each
    assert jobs["mt_translate"] == 4, "one translation job per model's best checkpoint"
    assert jobs["mt_translate_epochs"] == 4, "one job per model translates every kept epoch checkpoint"
    assert "mt_export_epoch_checkpoint" not in jobs, "the epoch checkpoints are read where training left them"
    assert jobs["mt_score"] == 4 * 3 + epochs, "per model: 3 tests at the best checkpoint, 1 per kept epoch"
    assert jobs["mt_items"] == 12, "the demo generates its own items"
    assert "mt_released_items" not in jobs and "mt_released_tests" not in jobs
    assert jobs["mt_treebank"] == jobs["mt_extract_fragments"] == jobs["mt_search_fragments"] == 1
    assert jobs["mt_tables"] == jobs["mt_figures"] == 1
    assert "plane_finetune_released" not in jobs, "the demo has no released splits"
    # the demo's TRE encoders set no max_length: one length setting each (issue 42), no new job
    assert jobs["tre_embed"] == jobs["tre_fit"] == jobs["tre_held_out_fit"] == 2
    # the demo's input-length sweep has two lengths; at 12, the training's own max_length, the
    # point is the main One-IT fine-tuning, read instead of trained again
    assert jobs["plane_finetune_length"] == jobs["plane_finetune_length_of_finetune"] == 1
    assert jobs["plane_subword_figure"] == 1


def test_paper_dry_run():
    jobs = dry_run_jobs("--configfile", "config/paper.yaml")
    assert jobs["mt_train"] == 15, "paper: 3 sizes x 5 seeds"
    assert jobs["mt_apply_bpe_train_chunk"] == 128
    assert "mt_demo_corpus" not in jobs
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    assert jobs["download"] == sum(len(paper[family].get("downloads", {})) for family in FAMILIES), (
        "every release archive of every family, once"
    )
    assert jobs["mt_translate"] == jobs["mt_translate_epochs"] == 15, "a best and an epochs job per model"
    assert jobs["mt_score"] == 15 * 3 + 15 * 10, "3 tests at the best checkpoint, 1 at each of 10 epochs"
    # the original study's test items (mt.tests.items: released): one download, one checked
    # extraction and 11 item sets read from it; only random_words (not released) is generated,
    # and no treebank, fragment or natural-corpus job builds items
    assert jobs["mt_released_tests"] == 1 and jobs["mt_released_items"] == 11
    assert jobs["mt_items"] == 1, "overgeneralisation on random_words"
    assert not {"mt_treebank", "mt_extract_fragments", "mt_search_fragments", "mt_choose_fragments"} & set(jobs)
    assert jobs["mt_stanza_models"] == 1, "NonCompSST's candidates still fetch stanza's models"
    assert jobs["plane_finetune_released"] == 10, "Table 6 as the paper: 5 released splits x 2 layouts"
    assert jobs["plane_finetune"] == 10, "the own splits stay as a second setting: 5 seeds x 2 kinds"
    assert jobs["plane_zero_shot"] == 6, "Table 8: the 6 prompting models"
    assert jobs["plane_finetune_length"] == 25, "Figure 8: 5 in-distribution splits x 5 input lengths"
    # TRE: bert_base at bert-as-service's 25 tokens and with no limit, mpnet and minilm once (issue 42)
    assert jobs["tre_embed"] == jobs["tre_fit"] == jobs["tre_held_out_fit"] == 4


def test_short_steps_run_where_snakemake_runs_and_model_jobs_on_the_cluster():
    """On a cluster a local rule runs in the submitting Snakemake, not as an sbatch job that
    waits in the queue: the paper plan's 195 scoring jobs of the trained models, the
    systems' 16 and every BLEU job take seconds each. No rule that asks for a GPU is local."""
    blocks = rule_blocks()
    local = {name for name, block in blocks.items() if re.search(r"^\s+localrule: True$", block, re.MULTILINE)}
    assert {"mt_score", "mt_system_score", "mt_bleu", "mt_system_bleu"} <= local
    gpu = {name for name, block in blocks.items() if "gpu=" in block}
    assert {"mt_train", "mt_translate", "mt_translate_epochs", "mt_system_translate"} <= gpu
    assert not local & gpu, local & gpu


def test_paper_dry_run_plans_bert_at_25_tokens_and_with_no_limit():
    planned = snakemake("-n", "--forceall", "results/tables/tre/table2.tsv", "--configfile", "config/paper.yaml").stdout
    for length in ("25", "none"):
        for path in (
            f"results/tre/embeddings/bert_base/mean/max_length_{length}/sst.npy",
            f"results/tre/scores/bert_base/max_length_{length}.tsv",
            f"results/tre/held_out/scores/bert_base/max_length_{length}.tsv",
        ):
            assert path in planned, path
    assert "results/tre/scores/minilm/max_length_none.tsv" in planned
    assert "results/tre/scores/minilm/max_length_25" not in planned, "an encoder without a limit runs once"


def test_a_disabled_family_adds_no_job(tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    everything = dry_run_jobs()
    config["mt"]["enabled"] = False
    (tmp_path / "mt_off.yaml").write_text(yaml.safe_dump(config))
    jobs = dry_run_jobs("--configfile", str(tmp_path / "mt_off.yaml"))
    assert not [rule for rule in jobs if rule.startswith("mt_")], jobs
    assert jobs["download"] == everything["download"] - len(config["mt"]["downloads"]), "nor MT downloads"
    for family in FAMILIES:
        config[family]["enabled"] = False
    (tmp_path / "all_off.yaml").write_text(yaml.safe_dump(config))
    jobs = dry_run_jobs("--configfile", str(tmp_path / "all_off.yaml"))
    assert set(jobs) <= {"all", "run_config", "summary", "total"}, f"only the run's record and summary: {jobs}"


def test_a_family_is_switched_off_from_the_command_line():
    """The documented form (docs/running.md, "Switching families off"): --config FAMILY='{enabled: false}'."""
    jobs = dry_run_jobs("--config", "plane={enabled: false}", "tre={enabled: False}")
    assert not [rule for rule in jobs if rule.startswith(("plane_", "tre_"))], jobs
    assert [rule for rule in jobs if rule.startswith("pss_")], "the other families still run"
    result = snakemake("-n", "--config", "plane={enabled: perhaps}", check=False)
    assert result.returncode != 0
    assert "plane.enabled: 'perhaps' is not true or false" in result.stdout + result.stderr


def test_lint_is_clean():
    result = snakemake("--lint", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakefmt_is_clean():
    snakefmt = shutil.which("snakefmt", path=str(Path(sys.executable).parent))
    if snakefmt is None:
        pytest.skip("snakefmt is not installed next to this Python")
    files = ["Snakefile", *map(str, sorted((REPO / "workflow" / "rules").rglob("*.smk")))]
    result = subprocess.run([snakefmt, "--check", *files], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def _ruff(*args: str) -> subprocess.CompletedProcess:
    """ruff from the venv (pinned in requirements.txt), with the settings in pyproject.toml."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None, "ruff is not installed next to this Python: run make install"
    return subprocess.run([ruff, *args], cwd=REPO, capture_output=True, text=True)


def test_ruff_check_is_clean():
    result = _ruff("check", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("mt:\n  seeds: [1]\n  sizez: {small: 10}\n", "config mt.sizez: unknown key (did you mean 'sizes'?)"),
        ("mt:\n  seeds: one\n", "config mt.seeds: 'one' is not a list"),
        ("mt:\n  preprocess: {chunks: 0}\n", "config mt.preprocess.chunks: 0: expected >= 1"),
        ("mt:\n  translate: {beams: 5}\n", "config mt.translate.beams: unknown key (did you mean 'beam'?)"),
        ("mt:\n  translate: {beam: five}\n", "config mt.translate.beam: 'five' is not an integer"),
        (
            "mt:\n  train: {fairseq: {arch: transformer, max-epochs: 3}, epoch_checkpoints: {small: [1], full: [1]}}\n",
            "config mt.train.fairseq.max-epochs: fairseq-train has no option --max-epochs; did you mean 'max-epoch'?",
        ),
        (
            "mt:\n  train: {fairseq: {arch: transformer, max-epoch: 3}, epoch_checkpoints: {small: [2, 4], full: [1]}}\n",
            "config mt.train.fairseq.max-epoch: 3 is below the last kept epoch checkpoint of size small",
        ),
        (
            "mt:\n  train: {fairseq: {arch: transformer, seed: 3}, epoch_checkpoints: {small: [1], full: [1]}}\n",
            "config mt.train.fairseq.seed: is set by the workflow for each model",
        ),
        (
            "mt:\n  sizes: {small: 10, medium: 20, full: all}\n",
            "config mt.train.epoch_checkpoints: no entry for corpus size(s) ['medium']",
        ),
    ],
)
def test_config_errors_are_one_line(tmp_path, patch, message):
    """A config mistake stops the dry run with one line naming the dotted key (no schema dump)."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for key, value in yaml.safe_load(patch)["mt"].items():
        config["mt"][key] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--configfile", str(path), check=False)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"natcomp: {message}" in output, output[-3000:]
    assert len(output.strip().splitlines()) <= 2, f"one line (after Snakemake's profile note):\n{output}"


def test_a_named_config_is_used_alone(tmp_path):
    """--configfile replaces the demo config: nothing of config.yaml leaks into the paper run
    (its fairseq options are Transformer-base, not the demo's 2-layer model), and a size
    deleted from a copy of a config adds no job."""
    run = tmp_path / "paper"
    snakemake("--cores", "1", "--directory", str(run), "--configfile", "config/paper.yaml", "--", "results/config.yaml")
    used = yaml.safe_load((run / "results" / "config.yaml").read_text())
    fairseq = used["mt"]["train"]["fairseq"]
    assert fairseq["arch"] == "transformer_wmt_en_de" and fairseq["share-all-embeddings"] is True
    assert not {"encoder-layers", "encoder-embed-dim", "max-epoch", "num-workers"} & set(fairseq), fairseq
    assert "tiny_random" not in used["pss"]["encoders"] and "tiny" not in used["noncompsst"]["models"]
    assert used["run_name"] == "paper" and (run / "results" / "run_name.txt").read_text() == "paper\n"

    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    del paper["mt"]["sizes"]["medium"], paper["mt"]["train"]["epoch_checkpoints"]["medium"]
    (tmp_path / "two_sizes.yaml").write_text(yaml.safe_dump(paper))
    jobs = dry_run_jobs("--configfile", str(tmp_path / "two_sizes.yaml"))
    assert jobs["mt_train"] == 10, "2 sizes x 5 seeds"


def test_a_folder_holds_one_run(tmp_path):
    """The paper plan in a folder holding the demo's results stops and names the way out;
    in a folder of its own (any working directory) it plans."""
    demo = tmp_path / "demo"
    (demo / "results").mkdir(parents=True)
    (demo / "results" / "run_name.txt").write_text("demo\n")
    result = snakemake("-n", "--directory", str(demo), "--configfile", "config/paper.yaml", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "natcomp: config run_name: " in output and "holds the run 'demo', this config is the run 'paper'" in output
    assert "snakemake --directory runs/paper --configfile" in output
    paper = snakemake("-n", "--directory", str(tmp_path / "paper"), "--configfile", "config/paper.yaml")
    assert "This was a dry-run" in paper.stdout + paper.stderr
    assert (tmp_path / "paper" / "resources").resolve() == (REPO / "resources").resolve()
    again = snakemake("-n", "--directory", str(demo))
    assert "This was a dry-run" in again.stdout + again.stderr, "the demo itself still plans there"


def test_missing_resource_file_is_named(tmp_path):
    work = copy_workflow(tmp_path / "work")
    (work / "resources" / "idioms.tsv").unlink()
    result = snakemake("-n", cwd=work, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Missing input files for rule" in output and "resources/idioms.tsv" in output, output[-3000:]


def test_one_models_scores_schedule_only_their_upstream_jobs():
    # The systematicity scores of one paper-scale model: its training, translation and
    # scoring, the data it needs, and nothing of the 14 other models or the tables.
    target = "results/mt/scores/small/seed1/best/np_vp.tsv"
    jobs = dry_run_jobs("--configfile", "config/paper.yaml", "--", target)
    assert jobs["mt_train"] == 1 and jobs["mt_translate"] == 1 and jobs["mt_score"] == 1
    assert jobs["mt_binarise"] == 1, "only the small corpus is binarised"
    assert jobs["mt_take_size_prefix"] == 2, "the small corpus's two languages"
    assert jobs["mt_released_items"] == 8, "the best checkpoint's item sets: np_vp x2, s_conj x3, substitutivity x3"
    for rule in ("mt_translate_epochs", "mt_export_epoch_checkpoint", "mt_bleu", "mt_tables", "mt_items", "all"):
        assert rule not in jobs, rule
    assert jobs["total"] == 289


def test_until_stops_before_training():
    jobs = dry_run_jobs("--configfile", "config/paper.yaml", "--until", "mt_binarise")
    assert jobs["mt_binarise"] == 3
    assert not {"mt_train", "mt_translate", "mt_items", "mt_released_items"} & set(jobs)


def test_corrupt_download_fails_the_rule_cleanly_and_a_rerun_succeeds(http_server, tmp_path, tatoeba_archive):
    base, root, _ = http_server
    good = tatoeba_archive(tmp_path / "good.tar").read_bytes()
    (root / "eng-nld.tar").write_bytes(good[:-600])  # a cut-off archive on the server
    work = copy_workflow(tmp_path / "work")
    config = yaml.safe_load((work / "config" / "config.yaml").read_text())
    config["mt"]["downloads"]["tatoeba"] = {"url": f"{base}/eng-nld.tar", "sha256": hashlib.sha256(good).hexdigest()}
    (work / "remote.yaml").write_text(yaml.safe_dump(config))
    command = ("--cores", "1", "--configfile", "remote.yaml", "--", "results/downloads/mt/tatoeba")

    failed = snakemake(*command, cwd=work, check=False)
    assert failed.returncode != 0
    assert "sha256 mismatch" in failed.stdout + failed.stderr
    assert not (work / "results" / "downloads" / "mt" / "tatoeba").exists()

    (root / "eng-nld.tar").write_bytes(good)
    snakemake(*command, cwd=work)
    assert (work / "results" / "downloads" / "mt" / "tatoeba").read_bytes() == good


def test_cluster_profile_plans_the_paper_run_without_conda():
    # `snakemake --profile slurm` resolves ./slurm (a link to profiles/slurm) from the root;
    # a dry run needs no cluster (in CI the test cluster may be up or not).
    result = snakemake("-n", "--profile", "slurm", "--configfile", "config/paper.yaml")
    assert "This was a dry-run" in result.stdout + result.stderr
    for profile in (REPO / "profiles").glob("*/profile.yaml"):
        assert "software-deployment-method" not in profile.read_text(), f"{profile}: conda must stay a flag"
