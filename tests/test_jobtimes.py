"""natcomp.jobtimes: a run's jobs from Snakemake's log and benchmark files, totals and the
critical path, on a hand-written log whose answers are known."""

import pytest

from natcomp.errors import InputError
from natcomp.jobtimes import breakdown, critical_path, family_of, load_run, parse_log, read_benchmark, totals

# Four jobs: corpus (0-2 s) feeds train (2-12 s, benchmarked 9.5 s) and items (2-3 s);
# translate (12-20 s) needs both train and items; a lone download (0-1 s) feeds nothing.
LOG = """\
Building DAG of jobs...
[Fri Nov 27 08:00:00 2026]
localrule mt_corpus:
    input: resources/lexicon
    output: results/corpus.txt
    jobid: 3
    reason: Missing output files: results/corpus.txt
Shell command: None

[Fri Nov 27 08:00:00 2026]
localrule download:
    output: results/downloads/a.tar
    jobid: 7
[Fri Nov 27 08:00:01 2026]
Finished jobid: 7 (Rule: download)
[Fri Nov 27 08:00:02 2026]
Finished jobid: 3 (Rule: mt_corpus)

[Fri Nov 27 08:00:02 2026]
rule mt_train:
    input: results/corpus.txt
    output: results/model.pt, results/manifest.tsv
    log: results/logs/train.log
    jobid: 1
    benchmark: results/benchmarks/train.tsv
    wildcards: size=small

[Fri Nov 27 08:00:02 2026]
localrule report_mt_items:
    input: results/corpus.txt, resources/idioms.tsv
    output: results/items.tsv
    jobid: 2
[Fri Nov 27 08:00:03 2026]
Finished jobid: 2 (Rule: report_mt_items)
[Fri Nov 27 08:00:12 2026]
Finished jobid: 1 (Rule: mt_train)

[Fri Nov 27 08:00:12 2026]
rule plane_translate:
    input: results/model.pt, results/items.tsv
    output: results/translations.tsv
    jobid: 0
[Fri Nov 27 08:00:20 2026]
Finished jobid: 0 (Rule: plane_translate)
"""

BENCHMARK = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def test_the_log_gives_every_job_with_its_files_and_times():
    jobs, elapsed = parse_log(LOG)
    assert elapsed == 20
    by_id = {job.jobid: job for job in jobs}
    assert [job.jobid for job in jobs] == [3, 7, 1, 2, 0], "in the order they started"
    train = by_id[1]
    assert (train.rule, train.local, train.start, train.finish) == ("mt_train", False, 2, 12)
    assert train.inputs == ["results/corpus.txt"] and train.outputs == ["results/model.pt", "results/manifest.tsv"]
    assert train.benchmark == "results/benchmarks/train.tsv"
    assert by_id[7].local and (by_id[7].start, by_id[7].finish) == (0, 1)
    assert by_id[2].inputs == ["results/corpus.txt", "resources/idioms.tsv"]


def test_a_benchmark_replaces_the_logs_wall_time(tmp_path):
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    rows = "3.0\t0:00:03\t1\t1\t1\t1\t0\t0\t50\t1.5\n9.5\t0:00:09\t1\t1\t1\t1\t0\t0\t97\t9.2\n"
    (tmp_path / "results" / "benchmarks" / "train.tsv").write_text(BENCHMARK + rows)
    jobs, _ = load_run(tmp_path, LOG)
    by_id = {job.jobid: job for job in jobs}
    assert (by_id[1].wall, by_id[1].cpu) == (9.5, 9.2), "the last row: a rerun appends"
    assert (by_id[0].wall, by_id[0].cpu) == (8, None), "no benchmark: the log's finish minus start"


def test_totals_per_rule_and_family_sum_the_jobs():
    jobs, _ = parse_log(LOG)
    per_family = {row.name: row for row in totals(jobs, key=lambda job: job.family)}
    assert per_family["mt"].jobs == 3 and per_family["mt"].wall == 2 + 10 + 1
    assert per_family["mt"].longest == 10
    assert per_family["plane"].wall == 8 and per_family["core"].wall == 1
    assert [row.name for row in totals(jobs, key=lambda job: job.rule)][:2] == ["mt_train", "plane_translate"]


def test_the_critical_path_is_the_longest_chain_of_waiting_jobs():
    jobs, _ = parse_log(LOG)
    assert [job.rule for job in critical_path(jobs)] == ["mt_corpus", "mt_train", "plane_translate"]
    # With the items job made the longest, the path goes through it instead.
    for job in jobs:
        if job.rule == "report_mt_items":
            job.wall = 30
    assert [job.rule for job in critical_path(jobs)] == ["mt_corpus", "report_mt_items", "plane_translate"]


@pytest.mark.parametrize(
    ("rule", "family"),
    [("mt_train", "mt"), ("report_plane_table4", "plane"), ("pss_embed", "pss"), ("download", "core"), ("mtx", "core")],
)
def test_family_of_a_rule(rule, family):
    assert family_of(rule) == family


def test_not_a_snakemake_log_or_benchmark_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="no timestamp"):
        parse_log("hello\n")
    bad = tmp_path / "bench.tsv"
    bad.write_text("wall\n3\n")
    with pytest.raises(InputError, match="benchmark columns"):
        read_benchmark(bad)


def test_the_breakdown_names_the_totals_and_the_critical_path():
    jobs, elapsed = parse_log(LOG)
    text = breakdown(jobs, elapsed, rules=2)
    assert text.startswith("5 jobs; first to last timestamp of the log: 20 s")
    rule_rows = [line.split()[0] for line in text.split("\n\n")[2].splitlines()[1:]]
    assert rule_rows == ["mt_train", "plane_translate"], "the two largest rules only"
    assert "critical path: 20 s in 3 jobs" in text and text.rstrip().endswith("results/translations.tsv")
