"""The layers of training/ point one way: each package imports only the packages below it
(lazy imports inside functions count too), as docs/architecture.md draws them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = "training"  # `from training import load_agent`: the agents package, re-exported
# package -> the training packages it may import
ALLOWED = {
    "common": set(),
    "bots": {"agents"},
    "agents": {"bots", "common", "search"},  # search only lazily, for mcts:N specs
    "search": {"agents", "bots", "common"},
    "evaluation": {"agents", "bots", "common", "search"},
    "serving": {"agents", "bots", "common", "evaluation", "search"},
    "jobs": {"agents", "bots", "common", "evaluation", "search"},
}
TOP_NAMES = {"load_agent": "agents", "bot_table": "agents", "game_name": "agents", "Agent": "agents",
             "RandomAgent": "agents", "agent_levels": "evaluation"}


def imported_packages(path: Path) -> set[str]:
    """The training packages a module imports, anywhere in its body."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != TOP:
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:
                found |= {TOP_NAMES.get(alias.name, alias.name) for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith(TOP + ".")}
    return found


def test_every_training_package_imports_only_the_layers_below_it():
    packages = sorted(p.name for p in (ROOT / TOP).iterdir() if (p / "__init__.py").exists())
    assert set(packages) == set(ALLOWED), "a new package needs its row in ALLOWED (and in docs/architecture.md)"
    wrong = []
    for package in packages:
        for path in sorted((ROOT / TOP / package).rglob("*.py")):
            for target in imported_packages(path) - ALLOWED[package] - {package}:
                wrong.append(f"{path.relative_to(ROOT)} imports training.{target}")
    assert not wrong, "\n".join(wrong)


def test_the_command_modules_are_launchers():
    """What is left at training/'s top level is the commands users type: a few lines each."""
    for path in sorted((ROOT / TOP).glob("*.py")):
        if path.name == "__init__.py":
            continue
        assert len(path.read_text().splitlines()) <= 12, f"{path.name} should only call its job's main"
        assert "def main" not in path.read_text(), path.name


def test_the_layer_check_sees_lazy_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from training.jobs.ppo import train\n    from training import load_agent\n")
    assert imported_packages(module) == {"jobs", "agents"}
