"""Which tests that change the machine run here: they install Debian packages, start daemons
or write /etc, so they run on CI only (``CI`` set, as ``.ci/run`` sets it), and a user's
``make test`` leaves the system alone (docs/testing.md)."""

from __future__ import annotations

import os
import shutil


def slurm_unavailable() -> str | None:
    """Why the test cluster is not started here, or None if it is: on CI only (``CI`` set, as
    ``.ci/run`` sets it), as root with apt, because it installs Debian's SLURM packages, starts
    daemons and writes /etc/slurm (tests/slurm/cluster_up.sh); a user's ``make test`` leaves
    the system alone."""
    if os.environ.get("NATCOMP_TEST_SLURM") == "0":
        return "the SLURM tests are switched off (NATCOMP_TEST_SLURM=0)"
    if not os.environ.get("CI"):
        return (
            "the SLURM tests run on CI only (CI set): they install Debian's SLURM packages, start daemons and "
            "write /etc/slurm; CI=true make test runs them (as root, with apt)"
        )
    if os.geteuid() != 0:
        return "starting a SLURM cluster needs root (Debian packages, daemons); running as a normal user"
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        return "no apt-get/dpkg: SLURM is installed from Debian packages"
    return None
