"""The README works exactly as written.

* Its ```python blocks run in order in one namespace, and each one also runs alone (a reader
  may paste any one of them), from the repository root, without input.
* Its bot-server transcript (the block of ``>`` requests and ``<`` answers) is what
  ``python -m training.serve`` answers (``[...]`` stands for any list).
* Every ``python -m <module> --flag …`` in its shell blocks names a module that exists and
  flags its ``--help`` lists, and every repository path it names exists.
* Every relative link and picture in the README and in docs/ points at a file that exists.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def blocks(language: str | None = None, path: Path = README) -> list[str]:
    """The fenced blocks of a markdown file, in order (of one language: ``""`` for plain)."""
    found = FENCE.findall(path.read_text(encoding="utf-8"))
    return [body for lang, body in found if language is None or lang == language]


def run_block(code: str, namespace: dict, label: str) -> str:
    """Execute one block (from the repository root, stdin closed); returns what it printed."""
    out = io.StringIO()

    def no_input(prompt=""):
        raise AssertionError(f"{label} asks for input ({prompt!r}); README blocks must run without it")

    namespace.setdefault("__builtins__", __builtins__)
    namespace["input"] = no_input
    with contextlib.redirect_stdout(out):
        exec(compile(code, label, "exec"), namespace)
    return out.getvalue()


def test_the_readme_has_python_blocks():
    assert len(blocks("python")) >= 4


def test_python_blocks_run_in_order_in_one_namespace(monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__readme__"}
    for index, code in enumerate(blocks("python")):
        run_block(code, namespace, f"README python block {index + 1}")


@pytest.mark.parametrize("index", range(len(blocks("python"))), ids=lambda i: f"block{i + 1}")
def test_each_python_block_runs_on_its_own(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = run_block(blocks("python")[index], {"__name__": "__readme__"}, f"README python block {index + 1}")
    assert printed.strip(), "every README block shows its reader something"


# ----- the bot server transcript -------------------------------------------------------------------
def transcripts() -> list[list[tuple[str, str]]]:
    """Plain blocks made of ``> request`` / ``< answer`` lines."""
    found = []
    for body in blocks(""):
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
def shell_commands() -> list[list[str]]:
    """Each command of the README's bash blocks as words (continuation lines joined, comments cut)."""
    commands = []
    for body in blocks("bash"):
        for line in body.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append(words)
    return commands


def test_shell_commands_use_one_form_of_python():
    for words in shell_commands():
        assert not words[0].startswith(".venv/"), f"{shlex.join(words)}: the README activates .venv once and says python"
        assert words[0] in ("bash", "source", "python"), shlex.join(words)


def module_help(module: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"python -m {module} --help failed:\n{result.stderr[-2000:]}"
    return result.stdout


def test_python_commands_name_real_modules_flags_and_files():
    helps: dict[str, str] = {}
    for words in shell_commands():
        if words[0] == "bash":
            assert (ROOT / words[1]).is_file(), words[1]
            continue
        if words[:2] != ["python", "-m"] or words[2] == "pip":
            continue
        module = words[2]
        text = helps.setdefault(module, module_help(module))
        for word in words[3:]:
            if word.startswith("--"):
                flag = word.split("=")[0]
                assert re.search(re.escape(flag) + r"\b", text), f"python -m {module} has no flag {flag}"
            elif word.startswith(("checkpoints/", "docs/", "scripts/")):
                assert (ROOT / word).exists(), f"{shlex.join(words)}: {word} does not exist"


def test_script_commands_exist():
    for words in shell_commands():
        if words[0] == "python" and words[1].endswith(".py"):
            assert (ROOT / words[1]).is_file(), words[1]


# ----- links -----------------------------------------------------------------------------------------
LINK = re.compile(r"\]\(([^)\s]+)\)")


def markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files_that_exist(path):
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#")[0]
        assert (path.parent / file).exists(), f"{path.relative_to(ROOT)} links to {target}, which does not exist"
