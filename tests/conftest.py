"""Shared fixtures: the repository root, a local HTTP server for download tests, corpus
archives, a single-node SLURM cluster, a headless Chromium and the finished demo workflow."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import logging
import os
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest

from natcomp.allocator import keep_freed_memory
from system_tests import slurm_unavailable
from worker_groups import claim_for_this_worker, xdist_groups
from workflow_copy import DemoRun, copy_workflow, run_snakemake

REPO = Path(__file__).resolve().parents[1]
CLUSTER_SCRIPTS = REPO / "tests" / "slurm"

#: The per-user caches and settings that matplotlib (its font list) and Snakemake (its source
#: cache) write under ~/.cache and ~/.config, for every test and every Snakemake run a test
#: starts (they inherit the environment): in /tmp, so that `make test` writes nothing outside
#: the checkout and /tmp on a user's machine (docs/testing.md).
TEST_HOME = Path(os.environ.get("TMPDIR", "/tmp")) / f"natcomp-tests-{os.getuid()}"
for _variable, _folder in (("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"), ("MPLCONFIGDIR", "mpl")):
    os.environ[_variable] = str(TEST_HOME / _folder)
    (TEST_HOME / _folder).mkdir(parents=True, exist_ok=True)

# The tests train and decode models in their own processes, as the workflow's jobs do in
# theirs: the same malloc settings, so that their steps do not fault freed memory in again.
keep_freed_memory()


@pytest.fixture
def repo() -> Path:
    return REPO


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    truncate: dict[str, int] = {}

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        name = self.path.lstrip("/")
        if name in self.truncate:
            # Announce the full length, send fewer bytes, close: a cut-off transfer.
            data = (Path(self.directory) / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: self.truncate[name]])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture
def http_server(tmp_path):
    """Serve ``tmp_path / 'www'`` on 127.0.0.1 (a free port); yields (base_url, root, truncate)."""
    root = tmp_path / "www"
    root.mkdir()
    truncate: dict[str, int] = {}
    handler = type("Handler", (_QuietHandler,), {"truncate": truncate})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, truncate
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def add_tar_member(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


@pytest.fixture
def tar_member():
    """``add(archive, name, data)``: add a file with these bytes to an open tarfile."""
    return add_tar_member


@pytest.fixture
def tatoeba_archive():
    """Write a Tatoeba-layout release tarball: ``make(path, folder, src=..., trg=..., pair=...)``
    (``src`` and ``trg`` are the pair folder's ``.src`` and ``.trg`` sides)."""
    add = add_tar_member

    def make(path, folder="data/release/v2020-07-28", src=b"Hello .\nBye .\n", trg=b"Hallo .\nDag .\n", pair="eng-nld"):
        with tarfile.open(path, "w") as archive:
            add(archive, f"{folder}/{pair}/train.src.gz", gzip.compress(src))
            add(archive, f"{folder}/{pair}/train.trg.gz", gzip.compress(trg))
            add(archive, f"{folder}/{pair}/dev.src", b"a\n")
            add(archive, f"{folder}/{pair}/dev.trg", b"b\n")
        return path

    return make


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A single-node SLURM cluster (tests/slurm/cluster_up.sh) for the whole session.

    Yields the Snakemake options that send every non-local job through sbatch with the
    repository's cluster profile. The test cluster has no accounting database, so the
    plugin asks squeue for job states; short status intervals keep small jobs quick.
    """
    reason = slurm_unavailable()
    if reason:
        pytest.skip(reason)
    claim_for_this_worker(tmp_path_factory, "slurm_cluster")
    up = subprocess.run([CLUSTER_SCRIPTS / "cluster_up.sh"], capture_output=True, text=True, timeout=900)
    if up.returncode != 0:
        pytest.fail(f"tests/slurm/cluster_up.sh failed on a machine that should host SLURM:\n{up.stdout}{up.stderr}")
    try:
        yield (
            "--profile",
            "slurm",
            "--slurm-status-command",
            "squeue",
            "--slurm-init-seconds-before-status-checks",
            "2",
        )
    finally:
        down = subprocess.run([CLUSTER_SCRIPTS / "cluster_down.sh"], capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr


def install_chromium() -> str | None:
    """Debian's chromium installed with apt, on CI only (``CI`` set) and as root, as the SLURM
    tests install theirs (tests/slurm/cluster_up.sh); why not, or None once installed."""
    if not os.environ.get("CI"):
        return "no chromium on this machine (Debian: apt-get install chromium); only CI installs it"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "CI without root or apt-get: chromium is installed from Debian packages"
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
    ):
        done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
        if done.returncode != 0:
            pytest.fail(f"{' '.join(command)} failed on CI:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return None


@pytest.fixture(scope="session")
def chromium(tmp_path_factory) -> str:
    """A headless Chromium's binary (tests/browser.py drives it); skipped with the reason
    where the machine has none and may not install it."""
    from browser import chromium_binary

    claim_for_this_worker(tmp_path_factory, "chromium")
    binary = chromium_binary()
    if binary is None:
        reason = install_chromium()
        if reason:
            pytest.skip(reason)
        binary = chromium_binary()
        if binary is None:
            pytest.fail("apt-get installed chromium, but no chromium binary is on PATH")
    return binary


#: what tests asked to show in the run's summary (``record_property("ci_log", text)``): a
#: test's own prints do not reach the terminal from a pytest-xdist worker, its properties do
CI_LOG: list[str] = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        CI_LOG.extend(value for name, value in report.user_properties if name == "ci_log")


def pytest_terminal_summary(terminalreporter):
    for text in CI_LOG:
        terminalreporter.write_sep("-", "recorded for the CI log")
        terminalreporter.write_line(text)


# before pytest-xdist's own hook, which reads the groups off the marks: after it, they are ignored
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    groups = xdist_groups(items)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))


@pytest.fixture(autouse=True)
def _natcomp_logger_restored():
    """A command run in-process (``natcomp.cli.main``) sets the ``natcomp`` logger's level and
    handler as a real process would; the next test must not inherit them (a WARNING level
    hides the INFO records ``caplog`` waits for)."""
    logger = logging.getLogger("natcomp")
    level, handlers = logger.level, list(logger.handlers)
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> DemoRun:
    """The whole demo, run once per session in a fresh copy of the workflow, locally on 2 cores.

    Not through the test cluster: there every job starts Snakemake twice more (sbatch, then
    srun), some 16 s per job, and the demo's 130 cluster jobs took 37 min instead of the local
    run's 10 to 20 (docs/testing.md#why-the-demo-does-not-go-through-the-test-cluster). tests/test_slurm.py sends a sample of the
    finished demo's jobs, one of each kind, through the cluster instead.
    """
    from natcomp.machine_speed import children_cpu_seconds, measure

    claim_for_this_worker(tmp_path_factory, "demo_run")
    workdir = copy_workflow(tmp_path_factory.mktemp("demo"))
    reference = measure()  # the demo's budgets are in units of it (tests/test_demo_budget.py)
    cpu = children_cpu_seconds()
    result = run_snakemake(workdir, "--cores", "2")
    run = DemoRun(workdir, result.stdout + result.stderr, reference, children_cpu_seconds() - cpu)
    run_snakemake(
        workdir, "--cores", "2", "--report", "results/report.html", "--report-stylesheet", "workflow/report/style.css"
    )
    return run


@pytest.fixture(scope="session")
def real_shapes(tmp_path_factory) -> dict[str, Path]:
    """Folders with the config of Qwen2.5-0.5B, Llama-3.1-8B and Llama-3.1-70B (their real
    sizes, built by transformers' config classes) and a tiny tokenizer: no weights
    (natcomp.hf.tiny_architectures.real_shape_model)."""
    from natcomp.hf.tiny_architectures import REAL_SHAPES, real_shape_model

    root = tmp_path_factory.mktemp("real_shapes")
    return {name: real_shape_model(name, root / name) for name in REAL_SHAPES}


@pytest.fixture(scope="session")
def served_model(tmp_path_factory):
    """A tiny trained Llama 3 instruct served by ``transformers serve`` on a free local port,
    offline, for the whole session (tests/served_fixtures.py); stopped after. Yields a
    namespace: ``base`` (the API's URL), ``model`` (its id there), ``folder`` (the same
    weights, for natcomp to load) and ``hub`` (the Hub cache it is served from)."""
    import types

    from served_fixtures import MODEL_ID, TransformersServe, build_served_model

    claim_for_this_worker(tmp_path_factory, "served_model")
    root = tmp_path_factory.mktemp("served")
    folder, hub = build_served_model(root)
    server = TransformersServe(hub, root / "transformers_serve.log")
    try:
        yield types.SimpleNamespace(
            base=server.base, model=MODEL_ID, folder=folder, hub=hub, log=root / "transformers_serve.log"
        )
    finally:
        server.stop()
