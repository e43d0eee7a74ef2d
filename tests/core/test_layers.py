"""The layers point one way and no two files import each other, even through a chain.

Every module of envs/, wrappers/ and training/ is parsed; each import statement counts, those
inside functions too (only imports under ``if TYPE_CHECKING:`` are left out: they never run).
Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so those count as imported
too, except a module's own packages (Python runs them before the module whatever it imports).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("envs", "wrappers", "training")
# The layers, lowest first: a module may import its own layer's modules and those of the layers
# below it. envs knows no training stack, wrappers no bots; in training/ each package's
# __init__ docstring says the same. The top ("training" itself) is the public API, the command
# line (training.cli) and the launchers (python -m training.train …): nothing imports them.
LAYERS = [
    ("envs",),
    ("wrappers",),
    ("training.common",),
    ("training.agents",),
    ("training.bots",),
    ("training.search",),
    ("training.players",),
    ("training.evaluation", "training.serving"),  # side by side: neither imports the other
    ("training.jobs",),
    ("training",),
]


def module_paths(tops=TOPS, root: Path = ROOT) -> dict[str, Path]:
    """Every module of the given top packages, by dotted name (a package by its own name)."""
    found = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_statements(tree: ast.AST):
    """Every import statement, at any depth, except the body of ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The known modules that importing ``name`` (the file ``path``) makes run."""
    parts = name.split(".")
    package = parts if path.name == "__init__.py" else parts[:-1]
    own_packages = {".".join(parts[:i]) for i in range(1, len(parts))}
    found: set[str] = set()

    def add(target: str, outright: bool = True) -> None:
        pieces = target.split(".")
        for i in range(1, len(pieces) + 1):
            prefix = ".".join(pieces[:i])
            # a module's own packages count only when a name is taken from them outright
            # (``from training import load_agent``), not a submodule (``from training import cli``)
            if prefix in known and prefix != name and (prefix not in own_packages or (outright and i == len(pieces))):
                found.add(prefix)

    for node in import_statements(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
            continue
        base = node.module or ""
        if node.level:
            anchor = package[: len(package) - node.level + 1]
            base = ".".join(anchor + ([node.module] if node.module else []))
        submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
        add(base, outright=len(submodules) < len(node.names))
        for submodule in submodules:  # ``from pkg import module``
            add(submodule)
    return found


def import_graph(tops=TOPS, root: Path = ROOT) -> dict[str, set[str]]:
    paths = module_paths(tops, root)
    return {name: imported_modules(name, path, set(paths)) for name, path in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, iterative),
    and any module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1 or node in graph[node]:
                    found.append(sorted(part))
    return found


def layer_of(module: str) -> tuple[int, str]:
    """The index in LAYERS of the most specific layer entry that holds ``module``, and that entry."""
    best = None
    for i, members in enumerate(LAYERS):
        for member in members:
            if (module == member or module.startswith(member + ".")) and (best is None or len(member) > len(best[1])):
                best = (i, member)
    assert best is not None, f"{module} is in no layer: give its package a row in LAYERS"
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in sorted(graph.items()):
        rank, member = layer_of(module)
        for target in sorted(targets):
            target_rank, target_member = layer_of(target)
            if target_rank > rank:
                wrong.append(f"{module} imports {target}")
            elif target_rank == rank and target_member != member:
                wrong.append(f"{module} imports {target}, beside it in the same layer")
    return wrong


def test_no_modules_import_each_other_even_through_a_chain():
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" ↔ ".join(part) for part in found)


def test_every_layer_imports_only_the_layers_below_it():
    wrong = upward_imports(import_graph())
    assert not wrong, "\n".join(wrong)


def test_every_training_package_has_its_layer():
    packages = {f"training.{p.name}" for p in (ROOT / "training").iterdir() if (p / "__init__.py").exists()}
    listed = {member for members in LAYERS for member in members}
    assert packages <= listed, f"{sorted(packages - listed)} need a row in LAYERS (and in training/__init__'s docstring)"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checks_see_lazy_imports_packages_and_chains(tmp_path):
    write(tmp_path, {
        "training/__init__.py": "def __getattr__(name):\n    from training.players import load\n",
        "training/agents/__init__.py": "",
        "training/agents/base.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from training.bots import x\n",
        "training/agents/files.py": "def f():\n    from training.agents import kinds\n",
        "training/agents/kinds.py": "def g():\n    from . import files\n",
        "training/bots/__init__.py": "from training.agents.base import Agent\n",
        "training/bots/loom.py": "def h():\n    from training import load_agent\n",
        "training/players/__init__.py": "",
        "training/players/load.py": "import training.bots.loom\n",
    })
    graph = import_graph(("training",), tmp_path)
    assert graph["training.agents.base"] == set()  # a type-only import never runs
    assert graph["training.bots"] == {"training.agents", "training.agents.base"}
    assert graph["training.agents.files"] == {"training.agents.kinds"}  # its own package, named
    assert graph["training.players.load"] == {"training.bots", "training.bots.loom"}
    assert sorted(cycles(graph)) == [
        ["training", "training.bots.loom", "training.players.load"],
        ["training.agents.files", "training.agents.kinds"],
    ]
    assert upward_imports(graph) == ["training.bots.loom imports training"]


def test_wrappers_and_envs_import_nothing_of_training():
    graph = import_graph()
    wrong = [f"{m} imports {t}" for m, ts in graph.items() if not m.startswith("training") for t in ts
             if t.split(".")[0] == "training"]
    assert not wrong, "\n".join(wrong)


FLAGS_ALONE = """
import json, sys
import training.common.flags
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("envs", "wrappers", "training"))))
"""


def test_importing_one_package_loads_no_game():
    """``training/__init__`` imports its public names when first asked for: a job's flags (or
    any one package) can be read without loading the five games."""
    done = subprocess.run([sys.executable, "-c", FLAGS_ALONE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "training.common.flags" in loaded
    assert [m for m in loaded if m != "training" and not m.startswith("training.common")] == [], loaded


@pytest.mark.parametrize("name", ["load_agent", "bot_table", "agent_levels", "Agent", "RandomAgent"])
def test_the_public_names_come_from_their_modules(name):
    import training

    assert name in training.__all__ and name in dir(training)
    assert getattr(training, name).__module__ in ("training.players.load", "training.agents.levels", "training.agents.base")


def test_an_unknown_public_name_is_an_attribute_error():
    import training

    with pytest.raises(AttributeError, match="no attribute 'load_agnet'"):
        training.load_agnet  # noqa: B018


def reexported_names(module: str, path: Path) -> set[str]:
    """Names a module imports at its top level (and does not define): a caller importing one of
    them from here leans on a re-export."""
    imported, defined = set(), set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return imported - defined


def test_names_are_imported_from_the_module_that_defines_them():
    """No module of training/ or wrappers/, packages included (nor the rules modules of Loom and
    Knot) serves as a re-export: a caller anywhere imports each name from where it is defined.
    The one public API the docs promise, ``from training import load_agent`` …, is
    ``training``'s module ``__getattr__``, which imports nothing until asked."""
    paths = module_paths()
    shims = {name: path for name, path in paths.items()
             if name.split(".")[0] in ("training", "wrappers") or name in ("envs.loom.rules", "envs.knot.rules")}
    borrowed = {name: reexported_names(name, path) for name, path in shims.items()}
    wrong = []
    for path in sorted(p for top in (*TOPS, "tests", "scripts") for p in (ROOT / top).rglob("*.py")):
        for node in import_statements(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in borrowed:
                wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name} from {node.module}"
                          for alias in node.names if alias.name in borrowed[node.module]
                          and f"{node.module}.{alias.name}" not in paths]
    assert not wrong, "import these from the module that defines them:\n" + "\n".join(wrong)


def test_the_command_modules_are_launchers():
    """What is left at training/'s top level besides the command line is the ``python -m``
    launchers: each runs its command through ``training.cli``, the same entry as
    ``abstract-games <command>``."""
    from training.cli import COMMANDS

    launchers = {command.launcher: name for name, command in COMMANDS.items()}
    for path in sorted((ROOT / "training").glob("*.py")):
        if path.name in ("__init__.py", "cli.py"):
            continue
        module = f"training.{path.stem}"
        assert module in launchers, f"{path.name} is not the launcher of any command in training.cli.COMMANDS"
        text = path.read_text()
        assert f'run("{launchers[module]}")' in text and len(text.splitlines()) <= 8, path.name
