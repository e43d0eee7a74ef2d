#!/usr/bin/env bash
# The test command: set up (scripts/setup.sh), add the optional Ray RLlib extra and the real RL
# clients extra (their tests are skipped without them; scripts/main.sh needs neither), then run
# the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,clients]"
.venv/bin/python -m pytest -q "$@"
