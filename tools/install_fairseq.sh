#!/usr/bin/env bash
# Install fairseq (the fairseq-fixed fork of 0.12, pinned) into a virtual environment WITHOUT
# torchaudio, so that transformers and fairseq both import in a plain interpreter.
#
#   bash tools/install_fairseq.sh VENV_DIR
#
# Why: fairseq-fixed requires `torchaudio>=0.8.0`, and the newest torchaudio on PyPI (2.11)
# was built for torch 2.11; beside natcomp's torch 2.13 its compiled library fails to load,
# and transformers, which imports torchaudio whenever it is installed, then cannot load any
# model class (`from transformers import BertForMaskedLM` -> OSError). No torch that matches
# torchaudio 2.11 installs offline here, and natcomp uses no speech code: fairseq imports
# torchaudio only in its speech tasks. So the wheel is built from the pinned sdist with that
# one requirement removed from its setup.py (nothing else changes), and `pip check` stays
# clean. docs/hf.md (torchaudio) has the decision; tests/test_venv.py checks the imports.
#
# The sdist is checked against its SHA-256. The built wheel is kept in a cache keyed by the
# sdist, torch and Python versions (pip does not cache wheels built from a local folder), so a
# second venv on the same machine installs in seconds instead of a 5-minute C++ build.
set -euo pipefail

FAIRSEQ_VERSION=0.12.3.1
FAIRSEQ_SHA256=c607577a54ab30e2ee0f0b0a754ea5cdbc6ad0a9f99a1726638a2201445bc1cc
DROPPED_REQUIREMENT='"torchaudio>=0.8.0",'

if [[ $# -ne 1 ]]; then
    echo "usage: $0 VENV_DIR" >&2
    exit 2
fi
VENV=$(cd "$1" && pwd)
PYTHON="$VENV/bin/python"
[[ -x $PYTHON ]] || { echo "install_fairseq: $PYTHON not found; create the venv first" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)

KEY=$("$PYTHON" -c 'import sys, torch; print(f"py{sys.version_info[0]}{sys.version_info[1]}-torch{torch.__version__}")')
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/natcomp/wheels/fairseq-fixed-${FAIRSEQ_VERSION}-${FAIRSEQ_SHA256:0:12}-${KEY}"

if ! compgen -G "$CACHE/fairseq_fixed-*.whl" > /dev/null; then
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
    "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
        "fairseq-fixed==${FAIRSEQ_VERSION}" -d "$WORK"
    SDIST="$WORK/fairseq_fixed-${FAIRSEQ_VERSION}.tar.gz"
    echo "${FAIRSEQ_SHA256}  ${SDIST}" | sha256sum --check --quiet
    tar -xzf "$SDIST" -C "$WORK"
    SOURCE="$WORK/fairseq_fixed-${FAIRSEQ_VERSION}"
    # Exactly one line goes; anything else in setup.py stays as released.
    [[ $(grep -cF -- "$DROPPED_REQUIREMENT" "$SOURCE/setup.py") -eq 1 ]] || {
        echo "install_fairseq: $SOURCE/setup.py: expected the line $DROPPED_REQUIREMENT once" >&2
        exit 1
    }
    grep -vF -- "$DROPPED_REQUIREMENT" "$SOURCE/setup.py" > "$WORK/setup.py"
    mv "$WORK/setup.py" "$SOURCE/setup.py"
    rm -rf "$SOURCE"/*.egg-info  # its requires.txt still names torchaudio
    "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation "$SOURCE" -w "$WORK/wheel"
    mkdir -p "$(dirname "$CACHE")"
    rm -rf "$CACHE.partial" && mv "$WORK/wheel" "$CACHE.partial" && mv "$CACHE.partial" "$CACHE"
fi

WHEEL=$(compgen -G "$CACHE/fairseq_fixed-*.whl")
"$PYTHON" -m pip install --quiet "$WHEEL" -c "$ROOT/requirements.lock"  # with its other requirements
# The same version from PyPI counts as installed already: replace its files and metadata with ours.
"$PYTHON" -m pip install --quiet --no-deps --force-reinstall "$WHEEL"
# A venv made before this script had torchaudio from fairseq's old requirement: remove it.
if "$PYTHON" -m pip show --quiet torchaudio > /dev/null 2>&1; then
    "$PYTHON" -m pip uninstall --quiet --yes torchaudio
fi
