"""``python -m natcomp``: the natcomp command line (see :mod:`natcomp.cli`)."""

import sys

from natcomp.cli import main

sys.exit(main())
