"""The test groups of a parallel run (tests/worker_groups.py): which modules share a worker,
and the claim that stops a worker-owned fixture from being made twice."""

import types

import pytest

from worker_groups import claim_for_this_worker, xdist_groups


def _item(nodeid: str, *fixtures: str):
    return types.SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures))


def test_a_module_is_one_group_and_modules_sharing_a_worker_owned_fixture_join_it():
    items = [
        _item("tests/a.py::test_one", "tmp_path"),
        _item("tests/a.py::test_two", "demo_run"),  # one test of a.py uses the demo: all of a.py goes with it
        _item("tests/b.py::test_one", "demo_run", "slurm_cluster"),
        _item("tests/c.py::test_one", "slurm_cluster"),  # joined to the demo's group by way of b.py
        _item("tests/d.py::test_one", "served_model"),
        _item("tests/e.py::test_one"),
        _item("tests/e.py::test_two"),
    ]
    groups = xdist_groups(items)
    assert groups["tests/a.py::test_one"] == groups["tests/a.py::test_two"] == groups["tests/b.py::test_one"]
    assert groups["tests/c.py::test_one"] == groups["tests/b.py::test_one"]
    assert groups["tests/d.py::test_one"] != groups["tests/a.py::test_one"]
    assert groups["tests/e.py::test_one"] == groups["tests/e.py::test_two"] == "tests/e.py"
    assert len(set(groups.values())) == 3


def test_a_fixture_claimed_by_one_worker_fails_on_another(tmp_path):
    factory = types.SimpleNamespace(getbasetemp=lambda: tmp_path / "popen-gw0")
    claim_for_this_worker(factory, "demo_run", worker="gw0")
    claim_for_this_worker(factory, "demo_run", worker="gw0")  # the same worker again: fine
    claim_for_this_worker(factory, "served_model", worker="gw1")
    with pytest.raises(RuntimeError, match="demo_run is made by worker gw0 and again by gw1"):
        claim_for_this_worker(factory, "demo_run", worker="gw1")


def test_outside_a_parallel_run_nothing_is_claimed(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    factory = types.SimpleNamespace(getbasetemp=lambda: tmp_path / "base")
    claim_for_this_worker(factory, "demo_run")
    assert list(tmp_path.iterdir()) == []


def test_the_groups_reach_pytest_xdist(request):
    """In a parallel run, xdist appends each test's group to its node id; it does so only for
    marks that are there before its own collection hook (conftest's runs first)."""
    if not hasattr(request.config, "workerinput"):
        pytest.skip("not a pytest-xdist worker: run with -n 2 --dist loadgroup (make test) to check this")
    assert request.node.nodeid.endswith("@tests/test_worker_groups.py")
