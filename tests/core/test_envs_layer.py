"""The layers point one way: ``envs`` (engines, observers, descriptions, the adapter, the
registry, OpenSpiel) never imports ``training``; the training stack reads the descriptions
(a description names its bots module by import path; ``training.bots.bot_kit`` imports it)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENVS = ROOT / "envs"

IMPORT_EVERY_ENVS_MODULE = r"""
import importlib, json, pkgutil, sys
import envs
skipped = []
for info in pkgutil.walk_packages(envs.__path__, "envs."):
    try:
        importlib.import_module(info.name)
    except ImportError as error:  # an optional extra that is not installed (pyspiel)
        if getattr(error, "name", None) and error.name.split(".")[0] in ("envs", "training"):
            raise
        skipped.append(info.name)
env = envs.load(envs.GAMES[0]).env()
env.reset(seed=0)
print(json.dumps({"training": sorted(m for m in sys.modules if m == "training" or m.startswith("training.")),
                  "skipped": skipped}))
"""


def test_importing_every_envs_module_imports_nothing_of_training():
    environment = {k: v for k, v in os.environ.items() if k != "SUITE_GAMES"}  # the suite's games alone
    done = subprocess.run([sys.executable, "-c", IMPORT_EVERY_ENVS_MODULE], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["training"] == [], f"importing envs imported {report['training']}"


def imports_of(path: Path) -> list[str]:
    """Every module a file imports: import statements (at any depth, lazy ones included) and
    ``importlib.import_module``/``__import__`` calls with a literal name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append(node.args[0].value)
    return found


def test_no_file_under_envs_imports_training():
    offenders = [f"{path.relative_to(ROOT)}: {name}" for path in sorted(ENVS.rglob("*.py"))
                 for name in imports_of(path) if name == "training" or name.startswith("training.")]
    assert offenders == []


def test_the_static_check_sees_lazy_and_dynamic_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from training.bots import BotKit\n    import training\n"
                      "    importlib.import_module('training.bots')\n")
    assert imports_of(sample) == ["training.bots", "training", "training.bots"]
