"""The README's test command, ``bash scripts/test.sh`` (what CI runs: ``.ci/run``), says what it
does as it goes and, at the end, the ten slowest tests and how long each step and the whole took,
passed or failed. Run here on a copy of the script whose set-up and Python are stand-ins that
record how they were called (the real suite is not run from inside itself)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.docs.markdown import ROOT

FAKE_PYTHON = """#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/../../calls.log"
if [[ "$*" == *pytest* ]]; then
    echo "fake pytest output"
    exit "${FAKE_PYTEST_STATUS:-0}"
fi
"""


@pytest.fixture
def checkout(tmp_path):
    """A folder with scripts/test.sh as committed, a stand-in scripts/setup.sh and .venv/bin/python."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test.sh", tmp_path / "scripts" / "test.sh")
    (tmp_path / "scripts" / "setup.sh").write_text('echo "setup.sh ran" >> calls.log\n')
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return tmp_path


def run(checkout, *args, status=0):
    return subprocess.run(["bash", str(checkout / "scripts" / "test.sh"), *args], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "FAKE_PYTEST_STATUS": str(status)})


def test_it_says_what_it_does_and_ends_with_the_slowest_tests_and_the_times(checkout):
    result = run(checkout, "-k", "loom")
    assert result.returncode == 0, result.stderr
    calls = (checkout / "calls.log").read_text().splitlines()
    assert calls[0] == "setup.sh ran"
    pytest_call = calls[-1]
    assert pytest_call.startswith("-m pytest") and "--durations=10" in pytest_call.split()
    assert pytest_call.endswith("-k loom")  # the arguments given go to pytest
    out = result.stdout
    steps = [line for line in out.splitlines() if line.startswith("== test.sh: ")]
    said = out.index("== test.sh: running the test suite")
    assert said < out.index("fake pytest output")
    assert "setting up .venv" in steps[0] and "optional extras" in steps[1] and "Chromium" in steps[2]
    assert "test suite" in steps[3]
    assert len(steps) == 5 and out.splitlines()[-1] == steps[-1]
    assert re.fullmatch(r"== test\.sh: passed in \d+ min \d\d s \(setup \d+ s, extras \d+ s, chromium \d+ s, "
                        r"tests \d+ s\)", steps[-1])


def test_a_failing_suite_still_gets_its_times_and_keeps_its_exit_status(checkout):
    result = run(checkout, status=1)
    assert result.returncode == 1
    last = result.stdout.splitlines()[-1]
    assert re.fullmatch(r"== test\.sh: FAILED \(exit status 1\) in \d+ min \d\d s \(setup \d+ s, extras \d+ s, "
                        r"chromium \d+ s, tests \d+ s\)", last)  # the failed suite's own time too


def test_ci_runs_exactly_the_test_command():
    assert (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1] == "bash scripts/test.sh"
