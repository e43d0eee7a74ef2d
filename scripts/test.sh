#!/usr/bin/env bash
# The test command: set up (scripts/setup.sh), add the optional Ray RLlib and OpenSpiel extras
# (scripts/main.sh needs neither), then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,openspiel]"
.venv/bin/python -m pytest -q "$@"
