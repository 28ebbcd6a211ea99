"""Time NonCompSST candidate selection on the full SST trees (goal: under 30 s on one core).

Usage: python benchmarks/noncompsst_candidates.py [TREES_DIR_OR_PTB_ZIP]
(default ../shared/data/sst). Prints the time to read the trees, the time to select the
candidates (parser, NER and spread filters off: stanza is not available offline), the
total CPU time of the process, and the number of candidates. Run it with one thread, e.g.
``taskset -c 0 python benchmarks/noncompsst_candidates.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from natcomp.noncompsst.candidates import CandidateSettings, select_candidates  # noqa: E402
from natcomp.sst import PTB_MEMBERS, read_ptb_trees  # noqa: E402


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data" / "sst"
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    if source.is_dir():
        trees = {split: read_ptb_trees(source / f"{split}.txt") for split in PTB_MEMBERS}
    else:
        trees = {split: read_ptb_trees(source, split) for split in PTB_MEMBERS}
    read_wall, read_cpu = time.perf_counter(), time.process_time()
    table, counts = select_candidates(trees, CandidateSettings(parser=False, ner=False, max_raw_sd=None))
    end_wall, end_cpu = time.perf_counter(), time.process_time()
    print(f"trees: {sum(map(len, trees.values()))} sentences, {counts['nodes']} nodes")
    print(f"read trees: {read_wall - start_wall:.2f} s wall, {read_cpu - start_cpu:.2f} s CPU")
    print(f"select candidates: {end_wall - read_wall:.2f} s wall, {end_cpu - read_cpu:.2f} s CPU")
    print(f"total: {end_wall - start_wall:.2f} s wall, {end_cpu - start_cpu:.2f} s CPU; {len(table)} candidates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
