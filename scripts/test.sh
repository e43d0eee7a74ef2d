#!/usr/bin/env bash
# The test command: set up (scripts/setup.sh), add the optional JAX backend, Ray RLlib, OpenSpiel and real RL
# clients extras (their tests are skipped without them; scripts/main.sh needs none), then run the
# whole test suite on up to four cores (pytest-xdist; each test file stays on one worker, so a
# module's fixtures, such as its local Ray, start once). The browser tests (tests/web/) drive
# Debian's Chromium through Playwright: it is installed with apt-get when missing (never
# `playwright install`, which downloads a browser of its own). It says what it does as it goes, and at
# the end the ten slowest tests (pytest --durations=10), then whether it passed and how long the
# whole and each step (setup, extras, tests) took.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
timings=()

step() {  # step NAME WORDS -- COMMAND...: say what runs, run it, remember how long it took
    local name=$1 words=$2
    shift 3
    echo "== test.sh: $words"
    local begun=$SECONDS status=0
    "$@" || status=$?
    timings+=("$name $((SECONDS - begun)) s")
    return "$status"
}

finish() {  # the last line, whether the suite passed or not: the outcome and the times
    local status=$? total=$((SECONDS - started)) outcome="passed" parts=""
    [ "$status" -eq 0 ] || outcome="FAILED (exit status $status)"
    for part in ${timings[@]+"${timings[@]}"}; do parts+="${parts:+, }$part"; done
    printf '== test.sh: %s in %d min %02d s (%s)\n' "$outcome" $((total / 60)) $((total % 60)) "$parts"
}
trap finish EXIT
trap "exit 143" TERM  # stopped from outside (a CI limit): the last line says so, not "passed"
trap "exit 130" INT

step setup "setting up .venv (scripts/setup.sh)" -- bash scripts/setup.sh
step extras "installing the optional extras (rllib, openspiel, clients, browser, jax)" -- \
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[rllib,openspiel,clients,browser,jax]"
install_chromium() {
    [ -x /usr/bin/chromium ] && return 0
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}
step chromium "installing Debian's Chromium for the browser tests (when missing)" -- install_chromium
# pytest-timeout ends a test that hangs in Python; "timeout" ends the whole run where a hang holds
# the GIL in C code (no timer can fire then), so CI reports instead of reaching its own limit
step tests "running the test suite (pytest on up to 4 cores; the ten slowest tests at the end)" -- \
    timeout --kill-after 60 2400 .venv/bin/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile --durations=10 "$@"
