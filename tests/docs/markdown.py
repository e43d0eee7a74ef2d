"""Reading the code of markdown pages, running it, and checking the commands they show."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def blocks(path: Path, language: str | None = None) -> list[str]:
    """The fenced blocks of a markdown file, in order (of one language: ``""`` for plain)."""
    found = FENCE.findall(path.read_text(encoding="utf-8"))
    return [body for lang, body in found if language is None or lang == language]


def run_block(code: str, namespace: dict, label: str) -> str:
    """Execute one block (the caller sets the working folder); returns what it printed. A block
    that asks for input fails: pages show code that runs as written."""
    out = io.StringIO()

    def no_input(prompt=""):
        raise AssertionError(f"{label} asks for input ({prompt!r}); code on a page must run without it")

    namespace.setdefault("__builtins__", __builtins__)
    namespace["input"] = no_input
    with contextlib.redirect_stdout(out):
        exec(compile(code, label, "exec"), namespace)
    return out.getvalue()


def shell_commands(path: Path) -> list[list[str]]:
    """Each command of a page's bash blocks as words (continuation lines joined, comments cut)."""
    commands = []
    for body in blocks(path, "bash"):
        for line in body.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append(words)
    return commands


@lru_cache(maxsize=None)
def module_help(module: str) -> str:
    """What ``python -m module --help`` prints (it must succeed)."""
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"python -m {module} --help failed:\n{result.stderr[-2000:]}"
    return result.stdout


@lru_cache(maxsize=None)
def files_that_left() -> frozenset[str]:
    """The agent files docs/history.md names as having left the tree: a command that ran when
    one was there may still name it."""
    history = ROOT / "docs" / "history.md"
    text = history.read_text(encoding="utf-8") if history.exists() else ""
    section = text.split("## Agent files that left the tree", 1)[-1].split("\n## ", 1)[0] if text else ""
    return frozenset(re.findall(r"`(checkpoints/[^`]+)`", section))


def check_command(words: list[str]) -> None:
    """A ``python -m module …`` (or ``abstract-games command …``) command names a module whose ``--help`` lists each of its
    flags, and every repository path in it exists (paths with a ``<placeholder>`` or a glob
    are for the reader to fill in; agent files docs/history.md names as having left the tree
    are the ones the command ran with); ``python script.py`` names a script that exists."""
    shown = shlex.join(words)
    if words[0] == "abstract-games":  # the console command: its subcommand's python -m launcher
        from training.cli import COMMANDS

        assert len(words) > 1 and words[1] in COMMANDS, f"{shown}: abstract-games has no command {words[1:2]}"
        words = ["python", "-m", COMMANDS[words[1]].launcher, *words[2:]]
    if words[0] == "python" and len(words) > 1 and words[1].endswith(".py"):
        assert (ROOT / words[1]).is_file(), f"{shown}: no script {words[1]}"
        return
    if words[:2] != ["python", "-m"] or words[2] == "pip":
        return
    module = words[2]
    text = module_help(module)
    for word in words[3:]:
        if word.startswith("--"):
            flag = word.split("=")[0]
            assert re.search(re.escape(flag) + r"(?![\w-])", text), f"{shown}: python -m {module} has no flag {flag}"
        elif word.startswith(("checkpoints/", "docs/", "scripts/")) and not re.search(r"[<*]", word):
            assert (ROOT / word).exists() or word in files_that_left(), f"{shown}: {word} does not exist"
