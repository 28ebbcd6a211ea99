"""Faults on a real single-node SLURM cluster (tests/slurm/cluster_up.sh): a cancelled
training job is resubmitted and resumes from its last checkpoint; a job that keeps failing
is retried once, then stops the run with its log shown."""

import re
import shutil
import subprocess
import time

import pytest
import yaml

from natcomp.mt.nmt import FINISHED_STAMP, is_whole_checkpoint
from workflow_copy import copy_workflow, run_snakemake, snakemake_command

pytestmark = pytest.mark.demo
pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")

MODEL = "results/mt/models/small/seed1/checkpoint_best.pt"
TRAIN_WORKDIR = "results/mt/train/small/seed1"
TRAIN_LOG = "results/logs/mt/mt_train/small.seed1.log"


def running_jobs(rule: str) -> list[str]:
    """SLURM ids of the running jobs of ``rule`` (the plugin puts the rule in the job comment)."""
    listing = subprocess.run(
        ["squeue", "-h", "-t", "RUNNING", "-o", "%i %k"], capture_output=True, text=True, check=True
    )
    return [line.split()[0] for line in listing.stdout.splitlines() if f"rule_{rule}_" in line]


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.5)


def test_cancelled_training_job_is_resubmitted_and_resumes(demo_run, slurm_cluster, tmp_path):
    if not demo_run.through_slurm:
        pytest.skip(f"no test cluster: {demo_run.why_local}")
    # A copy of the finished demo (modification times kept), so only the forced model reruns.
    work = tmp_path / "work"
    shutil.copytree(demo_run.workdir, work, symlinks=True)
    train_dir = work / TRAIN_WORKDIR
    command, env = snakemake_command(*slurm_cluster, "--force", MODEL)
    with open(tmp_path / "snakemake.out", "w+") as output:
        process = subprocess.Popen(command, cwd=work, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            # The forced rerun trains afresh (the finished stamp goes); cancel it after an epoch.
            def new_training_saved_an_epoch():
                last = train_dir / "checkpoint_last.pt"
                return not (train_dir / FINISHED_STAMP).exists() and is_whole_checkpoint(last)

            wait_for(new_training_saved_an_epoch, timeout=300, what="the first epoch checkpoint of the new training")
            jobs = running_jobs("mt_train")
            assert len(jobs) == 1, jobs
            subprocess.run(["scancel", jobs[0]], check=True)
            process.wait(timeout=900)
        finally:
            if process.poll() is None:
                process.kill()
        output.seek(0)
        log = output.read()
    assert process.returncode == 0, log[-5000:]
    assert re.search(rf"SLURM-job '{jobs[0]}' failed, SLURM status is: 'CANCELLED'", log), log[-5000:]
    train_log = (work / TRAIN_LOG).read_text()
    assert re.search(r"Loaded checkpoint \S*checkpoint_last\.pt \(epoch \d+", train_log), "the retry must resume"
    assert (work / MODEL).stat().st_size > 0 and (train_dir / FINISHED_STAMP).exists()


def test_a_job_that_keeps_failing_is_retried_once_then_stops_the_run(slurm_cluster, tmp_path, tatoeba_archive):
    work = copy_workflow(tmp_path / "work")
    tatoeba_archive(work / "misaligned.tar", trg=b"Hallo .\n")
    config = yaml.safe_load((work / "config" / "config.yaml").read_text())
    config["mt"]["downloads"]["tatoeba"]["url"] = "file:misaligned.tar"
    (work / "misaligned.yaml").write_text(yaml.safe_dump(config))

    result = run_snakemake(
        work,
        *slurm_cluster,
        "--configfile",
        "misaligned.yaml",
        "--",
        "results/mt/corpus/raw/train.en",
        check=False,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    submissions = re.findall(r"submitted with SLURM jobid \d+ \(log: \S*/rule_mt_extract_tatoeba/", output)
    assert len(submissions) == 2, "one failure and one retry"
    assert output.count("Trying to restart job") == 1
    # The job's own log is shown, and it says which file and what was wrong.
    assert re.search(r"train\.en: has 2 lines but its parallel file \S*train\.nl has 1", output), output[-5000:]
    assert not (work / "results" / "mt" / "corpus" / "raw" / "train.en").exists()
