"""No function of the suite's code (envs/, wrappers/, training/, scripts/) runs over 80 lines:
a longer one is split into named steps that read top to bottom. Tests are not held to it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("envs", "wrappers", "training", "scripts")
LONGEST = 80


def long_functions(path: Path, longest: int = LONGEST, root: Path = ROOT) -> list[str]:
    """``file:line name (N lines)`` for every function (methods and nested functions included)
    of the file longer than ``longest`` lines, decorators not counted; files named from ``root``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > longest:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_the_check_finds_a_long_function(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(LONGEST))
    sample = tmp_path / "sample.py"
    # a method of LONGEST + 1 lines (its def line and LONGEST statements) beside a short function
    sample.write_text(f"def short():\n    return 1\n\n\nclass A:\n    @staticmethod\n    def long():\n{body}\n")
    assert long_functions(sample, root=tmp_path) == [f"sample.py:7 long ({LONGEST + 1} lines)"]
    assert long_functions(sample, longest=LONGEST + 1, root=tmp_path) == []


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_function_is_over_80_lines(folder):
    found = [entry for path in sorted((ROOT / folder).rglob("*.py")) for entry in long_functions(path)]
    assert not found, "functions over 80 lines (split each into named steps):\n" + "\n".join(found)
