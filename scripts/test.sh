#!/usr/bin/env bash
# The test command: set up (scripts/setup.sh), add the optional Ray RLlib, OpenSpiel, real RL
# clients and browser-test extras and Debian's Chromium (their tests are skipped without them;
# scripts/main.sh needs none), then run the whole test suite on up to four cores (pytest-xdist;
# each test file stays on one worker, so a module's fixtures, such as its local Ray, start once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,openspiel,clients,browser]"
# The browser tests (tests/web/) drive Debian's Chromium through Playwright; install it when
# missing (never `playwright install`, which downloads a browser of its own).
if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    if ! { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
        echo "scripts/test.sh: could not install chromium; the browser tests will be skipped" >&2
    fi
fi
.venv/bin/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile "$@"
