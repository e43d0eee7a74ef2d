"""The README works exactly as written.

* Its ```python blocks run in order in one namespace, and each one also runs alone (a reader
  may paste any one of them), from the repository root, without input.
* Its bot-server transcript (the block of ``>`` requests and ``<`` answers) is what
  ``python -m training.serve`` answers (``[...]`` stands for any list).
* Its shell blocks use one form (``python`` of the activated venv); every ``python -m <module>
  --flag …`` names a module that exists and flags its ``--help`` lists, and every repository path
  it names exists.
* It shows a picture of every published game (``docs`` set), and every relative link and picture in it points at a file
  that exists.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

import envs
from tests.cases import published_games
from tests.docs.markdown import README, ROOT, blocks, check_command, run_block, shell_commands

PYTHON = blocks(README, "python")


def test_the_readme_has_python_blocks():
    assert len(PYTHON) >= 4


def test_python_blocks_run_in_order_in_one_namespace(monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__readme__"}
    for index, code in enumerate(PYTHON):
        run_block(code, namespace, f"README python block {index + 1}")


@pytest.mark.parametrize("index", range(len(PYTHON)), ids=lambda i: f"block{i + 1}")
def test_each_python_block_runs_on_its_own(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = run_block(PYTHON[index], {"__name__": "__readme__"}, f"README python block {index + 1}")
    assert printed.strip(), "every README block shows its reader something"


# ----- the bot server transcript -------------------------------------------------------------------
def transcripts() -> list[list[tuple[str, str]]]:
    """Plain blocks made of ``> request`` / ``< answer`` lines."""
    found = []
    for body in blocks(README, ""):
        lines = [line for line in body.splitlines() if line.strip()]
        if lines and all(line[:2] in ("> ", "< ") for line in lines):
            found.append([(line[0], line[2:]) for line in lines])
    return found


def matches(expected, actual) -> bool:
    """``actual`` equals ``expected``, where the list ``["..."]`` in ``expected`` stands for any list."""
    if expected == ["..."]:
        return isinstance(actual, list)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(
            matches(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            matches(e, a) for e, a in zip(expected, actual))
    return expected == actual


def test_the_server_transcript_is_what_the_server_answers():
    found = transcripts()
    assert found, "the README shows the bot server at work"
    for transcript in found:
        requests = [text for side, text in transcript if side == ">"]
        expected = [json.loads(text.replace("[...]", '["..."]')) for side, text in transcript if side == "<"]
        assert len(requests) == len(expected)
        result = subprocess.run(
            [sys.executable, "-m", "training.serve"], cwd=ROOT, input="\n".join(requests) + "\n",
            capture_output=True, text=True, timeout=120,
        )
        answers = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(answers) == len(expected), result.stderr
        for want, got in zip(expected, answers):
            assert matches(want, got), f"README shows {want}, the server answers {got}"


# ----- shell commands ------------------------------------------------------------------------------
def test_shell_commands_use_one_form_of_python():
    for words in shell_commands(README):
        assert not words[0].startswith(".venv/"), f"{shlex.join(words)}: the README activates .venv once and says python"
        assert words[0] in ("bash", "source", "python", "abstract-games"), shlex.join(words)


def test_the_readme_says_once_to_activate_the_venv():
    activations = [words for words in shell_commands(README) if words[0] == "source"]
    assert activations == [["source", ".venv/bin/activate"]]


def test_commands_name_real_scripts_modules_flags_and_files():
    for words in shell_commands(README):
        if words[0] == "bash":
            assert (ROOT / words[1]).is_file(), words[1]
        check_command(words)


# ----- pictures ------------------------------------------------------------------------------------
def test_the_readme_shows_every_published_game():
    text = README.read_text(encoding="utf-8")
    for game in published_games():
        short = envs.describe(game).short_name
        assert f"(docs/images/{short}.png)" in text, f"no picture of {short} in the README"
        assert (ROOT / "docs" / "images" / f"{short}.png").is_file()


# ----- links -----------------------------------------------------------------------------------------
LINK = re.compile(r"\]\(([^)\s]+)\)")


def markdown_files():
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files_that_exist(path):
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#")[0]
        assert (path.parent / file).exists(), f"{path.relative_to(ROOT)} links to {target}, which does not exist"
