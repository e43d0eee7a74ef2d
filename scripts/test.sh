#!/usr/bin/env bash
# The test command: set up (scripts/setup.sh), add the optional Ray RLlib, OpenSpiel and real RL
# clients extras (their tests are skipped without them; scripts/main.sh needs none), then run the
# whole test suite on up to four cores (pytest-xdist; each test file stays on one worker, so a
# module's fixtures, such as its local Ray, start once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,openspiel,clients]"
.venv/bin/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile "$@"
