#!/usr/bin/env bash
# The main job: set up (scripts/setup.sh), then run it (see training/jobs/main.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/abstract-games train-and-evaluate "$@"
