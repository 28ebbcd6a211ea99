"""Decodes on a rerun: after a change to scoring, tables or figures, or after adding test
items, no sentence that is already translated may be decoded again (goal: zero).

Works on a copy of a finished demo run (`make demo`, or --workdir): it (1) reruns with a
scoring change (keyword matching by substring), (2) reruns with more random-word items
(a test set grows), and counts the decodes in the translation logs of each rerun and the
sentences decoded twice in the per-checkpoint caches.

Usage: .venv/bin/python benchmarks/rerun_decodes.py [--workdir .]
"""

import argparse
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from workflow_copy import copy_workflow, run_snakemake  # noqa: E402

DECODED = re.compile(r"(\d+) unique sentences: (\d+) from the cache, (\d+) decoded")


def decodes_since(workdir: Path, start: float) -> tuple[int, int, int]:
    """(jobs, unique sentences, decoded sentences) of translation logs written after ``start``."""
    jobs = unique = decoded = 0
    for log in (workdir / "results" / "logs" / "mt" / "mt_translate").glob("*.log"):
        if log.stat().st_mtime < start:
            continue
        for match in DECODED.finditer(log.read_text()):
            jobs += 1
            unique += int(match.group(1))
            decoded += int(match.group(3))
    return jobs, unique, decoded


def decoded_twice(workdir: Path) -> int:
    twice = 0
    for cache in (workdir / "results" / "mt" / "translation_cache").rglob("*.tsv"):
        counts = Counter(line.split("\t", 1)[0] for line in cache.read_text().splitlines()[1:])
        twice += sum(n - 1 for n in counts.values() if n > 1)
    return twice


def rerun(workdir: Path, config: dict, label: str) -> None:
    import time

    path = workdir / "config" / f"{label}.yaml"
    path.write_text(yaml.safe_dump(config))
    start = time.time()
    run_snakemake(workdir, "--cores", "2", "--configfile", str(path))
    jobs, unique, decoded = decodes_since(workdir, start)
    print(
        f"{label}: {jobs} translation jobs reran over {unique} unique sentences, decoded {decoded}; "
        f"sentences decoded twice in all caches: {decoded_twice(workdir)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=".")
    args = parser.parse_args()
    source = Path(args.workdir).resolve()
    if not (source / "results" / "tables" / "overgeneralisation.tsv").exists():
        raise SystemExit(f"{source} has no finished demo run: run `make demo` first or pass --workdir")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "run"
        shutil.copytree(source / "results", workdir / "results", symlinks=True)
        shutil.copytree(source / ".snakemake" / "metadata", workdir / ".snakemake" / "metadata")
        copy_workflow(workdir)
        config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
        print(f"before: sentences decoded twice in all caches: {decoded_twice(workdir)}")
        config["mt"]["tests"]["keyword_matching"] = "substring"
        rerun(workdir, config, "scoring_changed")
        config["mt"]["tests"]["random_word_samples"] *= 2
        rerun(workdir, config, "test_items_added")


if __name__ == "__main__":
    main()
