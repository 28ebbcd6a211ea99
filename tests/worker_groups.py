"""Which pytest-xdist worker runs which tests (``make test`` runs CORES workers with
``--dist loadgroup``; tests/conftest.py applies the groups).

A module runs on one worker, and the modules that use the same worker-owned session
fixture (:data:`WORKER_OWNED_FIXTURES`) run on the same worker, so that the fixture is
made once: a second demo run, SLURM cluster or model server at the same time would double
the suite's time and fight over the machine. :func:`claim_for_this_worker` makes such a
fixture fail at once where the groups were not applied, instead of quietly doing the work
twice.
"""

from __future__ import annotations

import os
from pathlib import Path

#: session fixtures that one worker of a parallel run (``make test``: pytest-xdist) must own
#: alone: one demo run, one SLURM cluster, one model server, one apt install of Chromium
WORKER_OWNED_FIXTURES = ("demo_run", "slurm_cluster", "served_model", "chromium")


def xdist_groups(items) -> dict[str, str]:
    """Each test's group for pytest-xdist's ``--dist loadgroup`` (node id -> group name): a
    module runs on one worker (its module fixtures, some of them demo-scale runs, are built
    once), and modules that use the same :data:`WORKER_OWNED_FIXTURES` run on the same
    worker, one after another, so that fixture is made once and never twice at a time."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            node = parent[node]
        return node

    modules = {item.nodeid: item.nodeid.split("::")[0] for item in items}
    for item in items:
        for fixture in WORKER_OWNED_FIXTURES:
            if fixture in item.fixturenames:
                # the fixture's node is the root, so the group is named after the first fixture it owns
                parent[find(modules[item.nodeid])] = find(f"fixture {fixture}")
    return {nodeid: find(module) for nodeid, module in modules.items()}


def claim_for_this_worker(tmp_path_factory, fixture: str, worker: str | None = None) -> None:
    """Record that this worker makes ``fixture``; raise RuntimeError where another worker of
    the same run already has. Outside a parallel run (no ``PYTEST_XDIST_WORKER``) there is
    one process and nothing to check. The claims lie in the run's own temporary folder, the
    parent of each worker's (``.../pytest-N/popen-gw0``)."""
    worker = worker or os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    claim = Path(tmp_path_factory.getbasetemp()).parent / f"{fixture}.worker"
    try:
        with open(claim, "x", encoding="utf-8") as handle:
            handle.write(worker)
    except FileExistsError:
        owner = claim.read_text(encoding="utf-8")
        if owner != worker:
            raise RuntimeError(
                f"the session fixture {fixture} is made by worker {owner} and again by {worker}: the "
                "xdist groups were not applied (tests/worker_groups.py, tests/conftest.py)"
            ) from None
