"""natcomp.rulelog: a job's process starts its work with malloc and the garbage collector set
for it and ends without the interpreter's teardown, and only a job's (tests/test_errors.py
covers the log's error line)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from natcomp.rulelog import is_job_process, logged
from test_allocator import FAULT_PROBE, needs_glibc, without_malloc_settings

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "workflow" / "scripts").rglob("*.py"))


def ends_with_its_logged_block(script: Path) -> bool:
    body = ast.parse(script.read_text(encoding="utf-8")).body
    last = body[-1] if body else None
    return isinstance(last, ast.With) and any(
        isinstance(item.context_expr, ast.Call) and ast.unparse(item.context_expr.func) == "logged"
        for item in last.items
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: str(path.relative_to(REPO / "workflow" / "scripts")))
def test_every_workflow_script_is_its_logged_block_and_nothing_after_it(script):
    # the job's process ends when the block finishes: a statement after it would never run
    assert ends_with_its_logged_block(script), f"{script}: the last statement must be `with logged(...)`"


def test_the_check_sees_a_statement_after_the_block(tmp_path):
    script = tmp_path / "late.py"
    script.write_text("with logged(snakemake.log[0]):\n    pass\nprint('never')\n", encoding="utf-8")
    assert not ends_with_its_logged_block(script)


def run_job_script(tmp_path: Path, body: str, job: bool = True) -> subprocess.CompletedProcess:
    """Run ``body`` inside ``with logged(...)`` as Snakemake runs a script: the main program,
    with a ``snakemake`` global (``job=False``: without one)."""
    script = tmp_path / "job.py"
    header = "import types\nsnakemake = types.SimpleNamespace(log=[{log!r}])\n" if job else ""
    script.write_text(
        header.format(log=str(tmp_path / "job.log"))
        + "import atexit, threading, time\nfrom pathlib import Path\nfrom natcomp.rulelog import logged\n"
        + f"with logged({str(tmp_path / 'job.log')!r}) as log:\n"
        + textwrap.indent(textwrap.dedent(body), "    "),
        encoding="utf-8",
    )
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_a_finished_job_ends_with_status_0_after_its_atexit_functions_and_streams(tmp_path):
    done = run_job_script(
        tmp_path,
        """
        atexit.register(lambda: Path("atexit_ran").write_text("yes"))
        log.info("the job's last line")
        print("to stdout, unflushed", end="")
        atexit.register(lambda: print(" and from atexit", end=""))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "atexit_ran").read_text() == "yes"
    assert done.stdout == "to stdout, unflushed and from atexit"
    assert "the job's last line" in (tmp_path / "job.log").read_text()


def test_a_job_that_fails_still_fails(tmp_path):
    done = run_job_script(tmp_path, "raise ValueError('bad value')\n")
    assert done.returncode == 1
    assert "ValueError: bad value" in (tmp_path / "job.log").read_text()


def test_a_running_thread_is_waited_for(tmp_path):
    # a non-daemon thread still working: the process ends the normal way, after it
    done = run_job_script(
        tmp_path,
        """
        threading.Thread(target=lambda: (time.sleep(1), Path("thread_done").write_text("yes"))).start()
        """,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread_done").read_text() == "yes"


def test_the_teardown_is_skipped_in_a_job_and_only_there(tmp_path):
    # an atexit function registered before Python's own teardown starts sees the exit; a
    # module's __del__ at teardown is what a job's process no longer runs
    body = """
    import sys
    class Teardown:
        def __del__(self):
            sys.__stdout__.write("teardown ran")
    sys.modules["natcomp_teardown_probe"] = Teardown()
    """
    assert run_job_script(tmp_path, body).stdout == ""
    assert run_job_script(tmp_path, body, job=False).stdout == "teardown ran"


@needs_glibc
def test_a_job_keeps_the_memory_its_steps_free_and_only_a_job(tmp_path, monkeypatch):
    for name in set(os.environ) - set(without_malloc_settings()):
        monkeypatch.delenv(name)
    job = run_job_script(tmp_path, FAULT_PROBE)
    other = run_job_script(tmp_path, FAULT_PROBE, job=False)
    assert job.returncode == other.returncode == 0, (job.stderr, other.stderr)
    assert int(job.stdout) < int(other.stdout) / 20, (job.stdout, other.stdout)


def test_a_jobs_imports_leave_the_collectors_full_collections_and_only_in_a_job(tmp_path):
    # what the script imported before its block (here natcomp.rulelog, pathlib, threading)
    # is frozen; a script run inside another program keeps its collector as it was
    body = "import gc\nprint(gc.get_freeze_count())\n"
    assert int(run_job_script(tmp_path, body).stdout) > 1_000
    assert int(run_job_script(tmp_path, body, job=False).stdout) == 0


def test_pytest_is_not_a_job_process(tmp_path):
    assert not is_job_process()
    with logged(tmp_path / "in_process.log"):
        pass
    assert (tmp_path / "in_process.log").exists()  # and this process is still here


#: scripts that read and write tables and figures only: importing torch would cost each of
#: their jobs about a second (0.8 s to import, 0.4 s to tear down) for nothing
TORCH_FREE_SCRIPTS = (
    "tre/correlations.py",
    "tre/scatter.py",
    "tre/sentences.py",
    "tre/held_out_sets.py",
    "pss/table.py",
    "pss/sets.py",
)


@pytest.mark.parametrize("name", TORCH_FREE_SCRIPTS)
def test_table_scripts_import_no_torch(name):
    tree = ast.parse((REPO / "workflow" / "scripts" / name).read_text(encoding="utf-8"))
    imports = "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom))
    probe = f"{imports}\nimport sys\nprint(sorted(m for m in ('torch', 'transformers', 'fairseq') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"{name} imports {done.stdout.strip()}"
