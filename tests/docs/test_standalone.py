"""The repository stands alone: its text points at nothing outside it.

The README, every page of docs/, and the comments and strings (docstrings included) of every
Python file are searched for words that would send a reader outside the project — to an
internal specification (``shared/``), to the texts the games were first described in (``seed
00…``, "the seeds"), to issue trackers, working sessions, helpers, or a bar someone set. Code is
not searched (an ``onnxruntime`` session object is no pointer), only what a person reads.

Each hit must be an exception listed in ``ALLOWED`` with its reason; ``PENDING`` lists text
owned by others that is known to need rewording (the test fails as soon as an entry is no
longer needed, so the list only shrinks).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from tests.docs.markdown import ROOT

WORDS = re.compile(
    r"shared/|seed 00\d|\bissues?\b|\bsessions?\b|\bthe bar\b|\bhelpers?\b|\bthe seeds\b|\bseed texts?\b|\bspec:",
    re.IGNORECASE,
)

ALLOWED: list[tuple[str, str, str]] = [
    # (file glob, a regex the hit's whole source line must match, why it is no pointer outside the project)
    ("training/agents/onnx*.py", r"(?i)session", "onnxruntime's session object, the library's own term"),
    ("**/*.py", r"onnx\.helper|numpy_helper|helper\.make_|from onnx import .*helper", "the onnx library's module onnx.helper"),
    ("docs/onnx.md", r"(?i)onnx\.helper|session", "onnx's module onnx.helper and onnxruntime's InferenceSession"),
    ("tests/training/test_onnx.py", r"session", "onnxruntime's session object"),
    ("envs/**/*.py", r"(?i)(drawing|bitboard|observation|snapshot validation|shared|board) helpers|the helpers they share"
     r"|framing, helpers", "helper functions of the code"),
    ("README.md", r"drawing helpers", "helper functions of the code"),
    ("tests/*/helpers.py", r".", "a test module named helpers"),
    ("tests/**/*.py", r"tests\.\w+\.helpers|[Hh]elpers (shared by|for) |(scenario|test) helper", "test helper functions"),
    ("tests/training/test_alphazero.py", r"symmetry_helpers", "a test's name: helper functions"),
    ("tests/docs/test_standalone.py", r".", "this test names the words it searches for"),
    ("tests/*/test_render.py", r'for word in|"shared/" not in', "a game's test that its own texts hold none of these words"),
    ("docs/protocol.md", r"\bsession\b", "the bot server's game session: the protocol's own term for what new_game starts"),
    ("training/serving/bot_server.py", r"(?i)session|# -+ helpers -+", "the bot server's game session (the protocol's term); a banner"),
    ("training/serving/terminal.py", r"session", "a terminal game session"),
    ("training/jobs/alphazero/*.py", r"session|the game and the seeds", "one sitting of a resumable run; random seeds"),
    ("training/evaluation/tournament.py", r"bar", "a bar of the round-robin chart"),
    ("tests/training/test_evaluate_outputs.py", r"bar", "a bar of the round-robin chart"),
    ("training/jobs/rllib.py", r"owns the session", "Ray's session (ray.init), the library's term"),
    ("docs/linecatch.md", r"the sampling helpers'", "the sampling module's functions"),
    ("envs/fill/*.py", r"with the seeds that allows", "Fill's seed: the first cell filled, a rule of the game"),
    ("tests/fill/test_bots.py", r"the seeds' trajectories", "random seeds"),
]

PENDING: dict[str, str] = {
}


def readable_text(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of what a person reads in a file: every line of a markdown page; the
    comments and string literals of a Python file (line by line)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return list(enumerate(text.splitlines(), 1))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for offset, line in enumerate(token.string.splitlines()):
                found.append((token.start[0] + offset, line))
    return found


def searched_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for folder in ("envs", "training", "wrappers", "scripts", "tests"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def allowed(relative: str, line: str) -> bool:
    return any(Path(relative).match(pattern) and re.search(regex, line) for pattern, regex, _ in ALLOWED)


def hits() -> dict[str, list[str]]:
    """Per file, the lines whose readable text holds a searched word and no exception covers
    (an exception's regex is matched against the whole source line)."""
    found: dict[str, list[str]] = {}
    for path in searched_files():
        relative = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8").splitlines()
        for number, text in readable_text(path):
            if WORDS.search(text) and not allowed(relative, source[number - 1]):
                found.setdefault(relative, []).append(f"{relative}:{number}: {text.strip()}")
    return found


def test_nothing_points_outside_the_project():
    found = hits()
    unexpected = [line for relative, lines in found.items() if relative not in PENDING for line in lines]
    assert not unexpected, "text that points outside the project:\n" + "\n".join(unexpected)


@pytest.mark.parametrize("relative", sorted(PENDING))
def test_pending_entries_are_still_needed(relative):
    assert relative in hits(), f"{relative} no longer points outside the project: remove it from PENDING"


def test_the_search_finds_what_it_looks_for(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("The rules are in shared/rules/x.md (seed 000), as issue 7 and the bar say.\n")
    assert len(WORDS.findall(readable_text(page)[0][1])) == 4
    code = tmp_path / "code.py"
    code.write_text('session = 1  # a comment on the session\n"""A docstring of the helpers."""\n')
    assert [line for _, line in readable_text(code) if WORDS.search(line)] == [
        "# a comment on the session", '"""A docstring of the helpers."""']
