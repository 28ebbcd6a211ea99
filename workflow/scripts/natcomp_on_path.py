"""Make ``natcomp`` importable in rule environments where it is not installed.

In the project's venv natcomp is installed; in per-rule conda envs it is not, so the
package is taken from the repository's ``src/`` (the scripts' grandparent folder).
"""

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("natcomp") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
