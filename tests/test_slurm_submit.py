"""What the SLURM profile asks sbatch for a job that runs a model spread over several GPUs,
through the SLURM plugin's own functions (no cluster: tests/test_slurm.py runs one)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
plugin = pytest.importorskip("snakemake_executor_plugin_slurm")

from snakemake_executor_plugin_slurm.partitions import get_best_partition, read_partition_file  # noqa: E402
from snakemake_executor_plugin_slurm.submit_string import get_submit_command  # noqa: E402
from snakemake_executor_plugin_slurm.utils import set_gres_string  # noqa: E402


class Resources(dict):
    __getattr__ = dict.__getitem__


class Job:
    """What the plugin reads of a Snakemake job: its name, threads and resources."""

    def __init__(self, name: str, **resources):
        self.name, self.threads = name, 1
        defaults = yaml.safe_load((REPO / "profiles" / "slurm" / "profile.yaml").read_text())["default-resources"]
        self.resources = Resources({**defaults, **resources})

    def is_group(self) -> bool:
        return False


def sbatch(job: Job) -> str:
    params = dict(run_uuid="id", slurm_logfile="log", comment_str="rule", account="", partition="", workdir=".")
    return get_submit_command(job, params) + set_gres_string(job)


def test_a_jobs_gpus_reach_sbatch_on_one_node():
    """natcomp.jobsize asks for 3 GPUs for a 70B model's inference: sbatch gets --gpus=3 and
    --nodes=1 (device_map spreads a model over one machine's GPUs), the host memory and time."""
    command = sbatch(Job("tre_embed", gpu=3, mem_mb=286_210, runtime=19_242))
    assert " --gpus=3" in command and " --nodes=1" in command
    assert " --mem 286210" in command and " -t 19242" in command
    assert " --gpus=1" in sbatch(Job("pss_embed", gpu=1, mem_mb=4880, runtime=30))
    assert "--gpus" not in sbatch(Job("tre_sentences")), "a CPU job asks for none"


def test_jobs_go_to_a_partition_with_enough_gpus_and_none_fits_more_than_a_node_has():
    partitions = read_partition_file(REPO / "profiles" / "slurm" / "partitions.yaml")
    logger = logging.getLogger("test")
    assert get_best_partition(partitions, Job("pss_embed", gpu=1), logger) == "gpu"
    assert get_best_partition(partitions, Job("tre_embed", gpu=2), logger) == "gpu"
    assert get_best_partition(partitions, Job("tre_sentences"), logger) == "cpu"
    # the test cluster's GPU partition has 2 GPUs a node: a 3-GPU job fits none of its partitions
    assert get_best_partition(partitions, Job("tre_embed", gpu=3), logger) is None
