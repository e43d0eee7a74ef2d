"""The console command ``abstract-games`` as installed (``[project.scripts]`` in pyproject.toml):
the list of commands, every command's ``--help`` with its options, the ``python -m`` launchers
running the same entry, and the errors for an unknown command or a missing extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from training import cli

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "abstract-games"
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "SUITE_GAMES"}  # the suite's games alone, as a user has them
# an option each command's --help must name (and its default where the parser shows one)
OPTION = {
    "train": "--total-timesteps", "train-rllib": "--num-env-runners", "train-and-evaluate": "--tournament",
    "alphazero": "--simulations", "gumbel": "--simulations", "tune-endgame": "--agent", "evaluate": "--agents",
    "ladder": "--top-games", "levels": "--resume", "rate": "--agent", "play": "--opponent",
    "serve": "--max-line-bytes", "web": "--port", "export-onnx": "--no-check", "manifest": "--update",
}


def console(*args: str) -> subprocess.CompletedProcess:
    assert SCRIPT.exists(), f"{SCRIPT} is missing: pip install -e . --no-deps (scripts/setup.sh does it)"
    return subprocess.run([str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, env=ENVIRONMENT)


def test_every_command_has_an_option_to_check():
    assert set(OPTION) == set(cli.COMMANDS)


def test_the_console_command_lists_every_command():
    done = console("--help")
    assert done.returncode == 0, done.stderr
    for name, command in cli.COMMANDS.items():
        assert f"  {name} " in done.stdout and command.summary in done.stdout


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_command_prints_its_options(name):
    done = console(name, "--help")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("usage: ") and "-h, --help" in done.stdout
    assert OPTION[name] in done.stdout, f"abstract-games {name} --help does not name {OPTION[name]}"


def test_a_launcher_runs_the_same_command():
    by_module = subprocess.run([sys.executable, "-m", "training.evaluate", "--help"], cwd=ROOT,
                               capture_output=True, text=True, timeout=300, env=ENVIRONMENT)
    by_console = console("evaluate", "--help")
    assert by_module.returncode == by_console.returncode == 0
    assert by_module.stdout.startswith("usage: python -m training.evaluate ")
    assert by_console.stdout.startswith("usage: abstract-games evaluate ")
    # the same options, told the same way, once the usage lines (which name the command) are left out
    assert by_module.stdout.split("options:")[1] == by_console.stdout.split("options:")[1]


def test_an_unknown_command_is_refused_with_the_list():
    done = console("trian")
    assert done.returncode == 2
    assert "unknown command 'trian'" in done.stderr and "train, train-rllib" in done.stderr
    assert console().returncode == 2  # no command: the list, and a failing status


def test_every_command_runs_a_main_and_every_launcher_exists():
    import importlib.util

    for name, command in cli.COMMANDS.items():
        assert importlib.util.find_spec(command.module) is not None, name
        source = Path(importlib.util.find_spec(command.module).origin).read_text()
        assert "\ndef main(argv" in source, f"{command.module}, which {name} runs, defines no main(argv)"
        launcher = ROOT / Path(*command.launcher.split(".")).with_suffix(".py")
        assert launcher.exists(), f"{command.launcher} (python -m) is missing"


def test_a_missing_extra_is_named(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "fake", cli.Command("not_installed_package.job", "a job", "training.fake", "web"))
    assert cli.dispatch("fake", ["--help"]) == 2
    assert "needs 'not_installed_package', from the 'web' extra (pip install -e '.[web]')" in capsys.readouterr().err


def test_a_command_status_is_its_mains(monkeypatch, tmp_path):
    package = tmp_path / "fake_commands"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "status.py").write_text("def main(argv):\n    return int(argv[0])\n")
    (package / "summary.py").write_text("def main(argv):\n    return {'run': 'x'}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # dispatch names the command in argv[0]
    monkeypatch.setitem(cli.COMMANDS, "status", cli.Command("fake_commands.status", "", "training.status"))
    monkeypatch.setitem(cli.COMMANDS, "summary", cli.Command("fake_commands.summary", "", "training.summary"))
    assert cli.main(["status", "3"]) == 3
    assert cli.main(["summary"]) == 0
    assert sys.argv[0] == "abstract-games summary"


def test_the_readme_table_lists_every_command_and_its_module():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, command in cli.COMMANDS.items():
        row = f"| `{name}` | {command.summary} | `{command.module}` | `python -m {command.launcher}` |"
        assert row in readme, f"README.md's command table lacks (or has another) row for {name}: {row}"


@pytest.mark.parametrize("args, message", [
    (["gumbel", "--game", "linecatch", "--iterations", "0"], "--iterations must be a positive integer, not 0"),
    (["alphazero", "--game", "linecatch", "--iterations", "-1"], "--iterations must be a whole number >= 0, not -1"),
    (["alphazero", "--game", "linecatch", "--iterations", "0"], "--iterations 0 runs the warm start alone: it needs --warm-start"),
    (["tune-endgame", "--agent", "no/such/agent.zip"], "--agent 'no/such/agent.zip': agent file"),
    (["gumbel", "--game", "chess"], "unknown game 'chess'; the games are: linecatch_v0"),
    (["alphazero", "--game", "linecatch", "--options", '{"rows": 2}'], "option 'rows' must be an integer 3…12, not 2"),
    (["train-and-evaluate", "--game", "chess"], "unknown game 'chess'"),  # --game is not taken for --games
    (["evaluate", "--game", "fill", "--agents", "random", "no/such.zip", "--games", "2"],
     "agent file 'no/such.zip' does not exist"),
])
def test_a_refused_command_line_is_one_error_line_and_status_2(args, message, monkeypatch, capsys, tmp_path):
    """A job's refused flag, unknown game or bad option is reported as argparse reports a flag it
    cannot parse (``PROG: error: MESSAGE``, status 2), not as a traceback; nothing is written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    out_dir = ["--out-dir", str(tmp_path / "runs")] if args[0] != "evaluate" else []
    assert cli.dispatch(args[0], args[1:] + out_dir) == 2
    err = capsys.readouterr().err
    last = err.rstrip("\n").split("\n")[-1]  # (the main job first prints the command it runs, evaluate its bar)
    assert last.startswith(f"abstract-games {args[0]}: error: ") and message in last
    assert "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_an_error_that_is_not_about_the_command_line_still_raises(monkeypatch, tmp_path):
    """Only refusals of the command line become one line: any other ValueError is a bug and keeps its traceback."""
    package = tmp_path / "failing_commands"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "job.py").write_text("def main(argv):\n    raise ValueError('a bug, not a flag')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setitem(cli.COMMANDS, "failing", cli.Command("failing_commands.job", "", "training.failing"))
    with pytest.raises(ValueError, match="a bug, not a flag"):
        cli.dispatch("failing", [])
