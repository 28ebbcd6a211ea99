"""Modules that most of the demo's jobs read import their slow dependencies where they are
first used (docs/performance.md, "What the jobs import"), and work the same when they are."""

import subprocess
import sys

CODE = """
import sys
import natcomp.configcheck, natcomp.hf.precision, natcomp.mt.preprocess, natcomp.plane.scoring
loaded = sorted(name for name in ("jsonschema", "sacremoses", "sklearn") if name in sys.modules)
assert not loaded, loaded
from natcomp.errors import ConfigError
from natcomp.mt.preprocess import detokenise, tokenise
from natcomp.plane.scoring import f1
assert tokenise("It's 5 o'clock, isn't it?", "en") == "It &apos;s 5 o &apos;clock , isn &apos;t it ?"
assert detokenise("It &apos;s late .", "en") == "It's late."
# support-weighted over the labels 0 and 1: label 0 F1 2/3 (2 items), label 1 F1 6/7 (3 items)
assert abs(f1([0, 0, 1, 1, 1], [0, 1, 1, 1, 1]) - 100 * (2 * 2 / 3 + 3 * 6 / 7) / 5) < 1e-9
try:
    natcomp.configcheck.check_config({"n": "x"}, {"type": "object", "properties": {"n": {"type": "integer"}}})
except ConfigError as error:
    assert "n" in str(error) and "integer" in str(error), str(error)
else:
    raise AssertionError("a string where an integer belongs passed the check")
print("ok")
"""


def test_jsonschema_sacremoses_and_sklearn_load_when_first_used():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr
