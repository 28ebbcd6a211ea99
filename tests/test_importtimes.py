"""natcomp.importtimes: a one-core run's import profile split into processes and summed per
package and per rule, on a hand-written standard error whose answers are known."""

import pytest

from natcomp.importtimes import parse_importtime, package_totals, rule_packages

HEADER = "import time: self [us] | cumulative | imported package"

# Snakemake's own process, then two jobs of mt_score, a job of the local rule mt_tables
# (whose script starts a helper process of its own), with Snakemake's lines in between.
STDERR = f"""\
{HEADER}
import time:      3000 |       3000 |   yaml
import time:    200000 |     200000 | snakemake
Building DAG of jobs...
[Fri Nov 27 08:00:00 2026]
rule mt_score:
    output: results/a.tsv
    jobid: 1
{HEADER}
import time:     50000 |      50000 |     numpy.core
import time:     10000 |      60000 |   numpy
import time:    120000 |     180000 | pandas
import time:       500 |        500 | natcomp.tsv
[Fri Nov 27 08:00:01 2026]
Finished jobid: 1 (Rule: mt_score)
[Fri Nov 27 08:00:01 2026]
rule mt_score:
    output: results/b.tsv
    jobid: 2
{HEADER}
import time:     70000 |      70000 |   numpy
import time:    130000 |     200000 | pandas
Finished jobid: 2 (Rule: mt_score)
localrule mt_tables:
    jobid: 3
{HEADER}
import time:    400000 |     400000 | scipy.stats
{HEADER}
import time:      1000 |       1000 | json
"""


def test_processes_are_split_at_each_header_and_carry_the_rule_started_before_them():
    processes = parse_importtime(STDERR)
    assert [p.rule for p in processes] == [None, "mt_score", "mt_score", "mt_tables", "mt_tables"]
    first_job = processes[1]
    # each module's own time, not its cumulative one
    assert first_job.self_us == {"numpy.core": 50000, "numpy": 10000, "pandas": 120000, "natcomp.tsv": 500}
    assert first_job.package_us() == {"numpy": 60000, "pandas": 120000, "natcomp": 500}
    assert first_job.seconds == pytest.approx(0.1805)


def test_package_totals_sum_every_process_and_count_the_processes_importing_each():
    totals = package_totals(parse_importtime(STDERR)[1:])
    assert [(t.package, t.processes) for t in totals] == [
        ("scipy", 1),
        ("pandas", 2),
        ("numpy", 2),
        ("json", 1),
        ("natcomp", 1),
    ]
    by_name = {t.package: t.seconds for t in totals}
    assert by_name["pandas"] == pytest.approx(0.25)
    assert by_name["numpy"] == pytest.approx(0.13)


def test_ties_are_ordered_by_package_name():
    text = f"{HEADER}\nrule a:\n{HEADER}\nimport time: 5 | 5 | zlib\nimport time: 5 | 5 | abc\n"
    assert [t.package for t in package_totals(parse_importtime(text)[1:])] == ["abc", "zlib"]


def test_rule_packages_reads_the_first_job_of_each_rule_and_leaves_snakemake_out():
    table = rule_packages(parse_importtime(STDERR), ["pandas", "scipy", "torch"])
    assert set(table) == {"mt_score", "mt_tables"}
    assert table["mt_score"] == pytest.approx({"all": 0.1805, "pandas": 0.12})
    assert table["mt_tables"] == pytest.approx({"all": 0.4, "scipy": 0.4})


def test_text_without_a_profile_has_no_processes():
    assert parse_importtime("Building DAG of jobs...\nrule a:\n") == []
