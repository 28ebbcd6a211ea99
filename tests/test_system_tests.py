"""`make test` on a user's machine touches nothing outside the checkout and /tmp: the tests
that install Debian packages, start daemons or write /etc run on CI only, and the per-user
caches the libraries write go to /tmp during the tests (docs/testing.md)."""

import os
import re
from pathlib import Path

from conftest import install_chromium
from system_tests import slurm_unavailable

REPO = Path(__file__).resolve().parents[1]


def test_the_slurm_cluster_starts_on_ci_only(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("NATCOMP_TEST_SLURM", raising=False)
    assert "run on CI only (CI set)" in slurm_unavailable()
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("NATCOMP_TEST_SLURM", "0")
    assert "switched off" in slurm_unavailable()
    monkeypatch.delenv("NATCOMP_TEST_SLURM")
    if os.geteuid() != 0:
        assert "needs root" in slurm_unavailable()


def test_chromium_is_installed_on_ci_only(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert "only CI installs it" in install_chromium()


def test_the_libraries_caches_are_in_tmp_during_the_tests():
    home = Path.home().resolve()
    for variable in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "MPLCONFIGDIR"):
        folder = Path(os.environ[variable]).resolve()
        assert home not in (folder, *folder.parents), f"{variable}={folder} is under {home}"


#: what installs software or writes system files, in the test code and the Makefile
SYSTEM_CHANGE = re.compile(r"apt-get (?:update|install)|dpkg -i|/etc/|useradd|systemctl")
#: the places allowed to, each reached only through a CI-gated fixture
CI_ONLY = {
    "tests/slurm/cluster_up.sh",  # slurm_cluster (system_tests.slurm_unavailable)
    "tests/slurm/cluster_down.sh",
    "tests/slurm/common.sh",
    "tests/conftest.py",  # install_chromium: CI only
    "tests/system_tests.py",  # the gate itself (its messages name /etc)
    "tests/test_system_tests.py",
}


def test_only_ci_gated_code_installs_packages_or_writes_system_files():
    found = []
    for path in [*sorted((REPO / "tests").rglob("*.py")), *sorted((REPO / "tests").rglob("*.sh")), REPO / "Makefile"]:
        relative = path.relative_to(REPO).as_posix()
        if relative in CI_ONLY:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SYSTEM_CHANGE.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
    conftest = (REPO / "tests" / "conftest.py").read_text(encoding="utf-8")
    installs = conftest[conftest.index("def install_chromium") :]
    assert installs.index('os.environ.get("CI")') < installs.index("apt-get")
