"""The workflow on a real single-node SLURM cluster (tests/slurm/cluster_up.sh): a sample of
the demo's jobs, one of each kind, goes through sbatch to the right partition; a cancelled
training job is resubmitted and resumes from its last checkpoint; a job that keeps failing
is retried once, then stops the run with its log shown."""

import dataclasses
import re
import shutil
import subprocess
import time

import pytest
import yaml

from natcomp.mt.nmt import FINISHED_STAMP, is_whole_checkpoint
from system_tests import slurm_unavailable
from workflow_copy import DemoRun, copy_workflow, rule_blocks, run_snakemake, snakemake_command

# skipped with the reason before any fixture runs (the demo among them) where the cluster is not started
pytestmark = [pytest.mark.demo, pytest.mark.skipif(slurm_unavailable() is not None, reason=str(slurm_unavailable()))]
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


# One job of each kind from the finished demo, rerun through the cluster: a group (the FLORES
# preparation of one file, three rules in one sbatch job), GPU rules of the families other
# than MT (MT's GPU rule mt_train goes through the cluster in the test after this one), CPU
# rules, and a local rule, which must stay in the submitting Snakemake. No job outside the
# sample may lie between two of its jobs, or forcing them would rerun it too (an mt_translate
# job waits for the FLORES files and the fragments by way of the model and the items).
SAMPLE_RULES = (
    "mt_extract_fragments",
    "tre_embed",
    "plane_nli",
    "pss_embed",
    "noncompsst_candidates",
    "plane_nli_table",
)
SAMPLE_GROUP_END = "mt_apply_bpe_flores"


@dataclasses.dataclass
class Job:
    rule: str
    local: bool
    inputs: list[str]
    outputs: list[str]


def demo_jobs(output: str) -> list[Job]:
    """The jobs a Snakemake run printed, in order: rule, local or not, input and output files."""
    jobs = []
    for line in output.splitlines():
        header = re.fullmatch(r"\s*(local)?rule (\w+):", line)
        if header:
            jobs.append(Job(header.group(2), bool(header.group(1)), [], []))
        elif jobs and (files := re.fullmatch(r"\s+(input|output): (.+)", line)):
            getattr(jobs[-1], files.group(1) + "s").extend(files.group(2).split(", "))
    return jobs


def sample_targets(jobs: list[Job], groups: dict[str, str]) -> list[str]:
    """An output of the first job of each sample rule, and a chain of one group's jobs: the
    first SAMPLE_GROUP_END job and the jobs of its group that it waits for."""
    first = {}
    for job in jobs:
        first.setdefault(job.rule, job)
    producer = {path: job for job in jobs for path in job.outputs}
    targets = [first[rule].outputs[0] for rule in SAMPLE_RULES]
    chain = [first[SAMPLE_GROUP_END]]
    while chain:
        job = chain.pop()
        targets.append(job.outputs[0])
        chain += [
            producer[path]
            for path in job.inputs
            if path in producer and groups.get(producer[path].rule) == groups[SAMPLE_GROUP_END]
        ]
    return targets


@pytest.fixture(scope="module")
def slurm_sample(demo_run: DemoRun, slurm_cluster, tmp_path_factory) -> DemoRun:
    """A copy of the finished demo in which the sample's jobs were forced to run again
    through the test cluster (logs of successful jobs kept)."""
    work = tmp_path_factory.mktemp("slurm_sample") / "work"
    shutil.copytree(demo_run.workdir, work, symlinks=True)
    groups = yaml.safe_load((work / "slurm" / "profile.yaml").read_text())["groups"]
    targets = sample_targets(demo_jobs(demo_run.output), groups)
    result = run_snakemake(work, *slurm_cluster, "--slurm-keep-successful-logs", "--force", "--", *targets, timeout=900)
    return DemoRun(work, result.stdout + result.stderr)


def gpu_rules(workdir) -> set[str]:
    """The rules of every family that declare GPUs (resources: gpu=1, or gpu= the GPUs
    natcomp.jobsize gives the job's model)."""
    return {name for name, block in rule_blocks(workdir).items() if re.search(r"^\s+gpu=.+,$", block, re.MULTILINE)}


def test_every_cluster_job_went_through_sbatch(slurm_sample):
    jobs = demo_jobs(slurm_sample.output)
    cluster_rules = {job.rule for job in jobs if not job.local}
    local_rules = {job.rule for job in jobs if job.local}
    groups = yaml.safe_load((slurm_sample.workdir / "slurm" / "profile.yaml").read_text())["groups"]
    group_rules = {rule for rule, group in groups.items() if group == groups[SAMPLE_GROUP_END]}
    assert {*SAMPLE_RULES, *group_rules} - {"plane_nli_table"} == cluster_rules, "the sample ran whole"
    assert local_rules == {"plane_nli_table"}
    # One SLURM log folder per rule, or per group of rules run as one job (the profile's groups).
    submitted = set()
    for folder in (slurm_sample.workdir / ".snakemake" / "slurm_logs").iterdir():
        if folder.name.startswith("rule_"):
            submitted.add(folder.name.removeprefix("rule_"))
        else:
            group = next(g for g in set(groups.values()) if folder.name.startswith(f"group_{g}_"))
            submitted |= {rule for rule, g in groups.items() if g == group}
    assert submitted == cluster_rules, "every non-local job must have been an sbatch job with a log"
    # The group's three rules went as one job.
    assert len(list((slurm_sample.workdir / ".snakemake" / "slurm_logs").glob("group_*/*.log"))) == 1
    # GPU rules (alone or in a group) go to the partition with GPUs, nothing else does.
    partitions = {}
    for partition, job in re.findall(r"Auto-selected partition '(\w+)' for job (\S+)", slurm_sample.output):
        partitions.setdefault(job, set()).add(partition)
    gpu = gpu_rules(slurm_sample.workdir)
    assert {"mt_train", "mt_translate", "tre_embed", "plane_nli", "pss_embed"} <= gpu
    for job, chosen in partitions.items():
        assert chosen == ({"gpu"} if job in gpu else {"cpu"}), (job, chosen)
    assert {"tre_embed", "mt_extract_fragments", "noncompsst_candidates"} <= set(partitions)


def test_cancelled_training_job_is_resubmitted_and_resumes(demo_run, slurm_cluster, tmp_path):
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
    assert re.findall(r"Auto-selected partition '(\w+)' for job mt_train\b", log) == ["gpu", "gpu"], (
        "the job and its retry"
    )
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
