#!/usr/bin/env bash
# Set up a fresh machine: .venv with the pinned CPU torch FIRST (an unpinned torch, even one
# pulled in by stable-baselines3, would download a multi-GB CUDA build), then the suite with
# its training, test and web extras. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[train,dev,onnx,web]"
