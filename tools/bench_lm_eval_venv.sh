#!/usr/bin/env bash
# Create .venv-lm-eval: a venv of its own for lm-evaluation-harness, used only by
# benchmarks/causal_generation.py to time lm-eval's Hugging Face backend (HFLM) beside
# natcomp's generator on the same model folder and prompts.
#
#   bash tools/bench_lm_eval_venv.sh [VENV_DIR]     (default: .venv-lm-eval in the repo root)
#
# Why a venv of its own: lm-eval[hf] brings datasets, evaluate, peft, accelerate,
# scikit-learn and more that natcomp does not need, and the main venv is pinned by
# requirements.lock and never changed by hand. The comparison is only fair with the same
# torch, transformers and tokenizers as natcomp's, so every package that the lock names is
# installed at the lock's version (`-c requirements.lock`: torch, transformers, tokenizers,
# numpy, huggingface_hub, sacrebleu, ...); lm-eval's other requirements come in at whatever
# versions fit those. natcomp is not installed there: the benchmark runs a small driver
# (benchmarks/lm_eval_generate.py) in this venv that imports lm_eval only.
# Idempotent: a venv with the marker file is left alone; one without it (an interrupted
# run) is removed and built again.
set -euo pipefail

LM_EVAL_VERSION=0.4.13
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${1:-$ROOT/.venv-lm-eval}
PYTHON=${PYTHON:-python3}
MARKER=$TARGET/.installed-lm-eval-$LM_EVAL_VERSION

if [[ -f $MARKER ]]; then
    echo "bench_lm_eval_venv: $TARGET is ready (lm-eval $LM_EVAL_VERSION)"
    exit 0
fi
rm -rf "$TARGET"
"$PYTHON" -m venv "$TARGET"
"$TARGET/bin/python" -m pip install --quiet --upgrade pip
"$TARGET/bin/python" -m pip install --quiet -c "$ROOT/requirements.lock" \
    torch transformers tokenizers "lm-eval[hf]==$LM_EVAL_VERSION"
"$TARGET/bin/python" -m pip check
touch "$MARKER"
echo "bench_lm_eval_venv: $TARGET is ready (lm-eval $LM_EVAL_VERSION)"
