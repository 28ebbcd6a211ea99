"""Deprecated import path of the MT scoring API: use :mod:`natcomp.mt.scoring`.

Kept as a thin re-export for one release (natcomp 0.2) so existing scripts keep working.
"""

import warnings

from natcomp.mt.scoring import *  # noqa: F403
from natcomp.mt.scoring import __all__  # noqa: F401

warnings.warn(
    "natcomp.scoring moved to natcomp.mt.scoring; the old path will be removed after natcomp 0.2",
    DeprecationWarning,
    stacklevel=2,
)
