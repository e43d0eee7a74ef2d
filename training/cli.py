"""``abstract-games``: the suite's commands, one entry point with a subcommand each.

    abstract-games --help                 # the commands
    abstract-games train --help           # one command's options, with their defaults
    abstract-games train --game loom --total-timesteps 200000 --seed 0

Each subcommand runs the ``main(argv)`` of the module that :data:`COMMANDS` names for it, so
the table below is the one place a command's name meets its code. Every command also runs as
``python -m training.<launcher>`` (``python -m training.train``, …): those launcher modules
call :func:`run` with their command's name, the same entry.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

from training.common.flags import FlagError

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Command:
    """A subcommand: the module whose ``main(argv)`` it runs, what it does, the
    ``python -m`` launcher that runs it too, and the optional extra its module needs."""

    module: str
    summary: str
    launcher: str
    extra: str | None = None


COMMANDS: dict[str, Command] = {
    "train": Command("training.jobs.ppo", "self-play training with MaskablePPO", "training.train", "train"),
    "train-rllib": Command("training.jobs.rllib", "self-play PPO on Ray RLlib", "training.train_rllib", "rllib"),
    "train-and-evaluate": Command("training.jobs.main", "train an agent on a default setting, then a round robin "
                                  "against the bots (or --tournament: the bots alone)", "training.main", "train"),
    "alphazero": Command("training.jobs.alphazero.job", "search-and-learn training (AlphaZero / Expert Iteration)",
                         "training.alphazero", "train"),
    "gumbel": Command("training.jobs.gumbel.job", "Gumbel AlphaZero on the JAX engines", "training.gumbel", "jax"),
    "tune-endgame": Command("training.jobs.tuning", "tune a network on better labels (solver endgames, DAgger)",
                            "training.endgame_tuning", "train"),
    "evaluate": Command("training.evaluation.tournament", "a tournament between agents (Wilson intervals, Elo)",
                        "training.evaluate"),
    "ladder": Command("training.evaluation.ladder", "the strength ladder: random < heuristic < MCTS",
                      "training.ladder"),
    "levels": Command("training.evaluation.calibration", "calibrate a game's strength levels (levels.json)",
                      "training.levels"),
    "rate": Command("training.evaluation.rating", "an agent's Elo on a game's calibrated levels", "training.rate"),
    "play": Command("training.serving.terminal", "play a game in the terminal", "training.play"),
    "serve": Command("training.serving.stdio", "the JSON-lines bot server on stdin/stdout", "training.serve"),
    "web": Command("training.serving.web.app", "the web page and its WebSocket bot server", "training.web", "web"),
    "export-onnx": Command("training.agents.export_onnx", "export an agent file to ONNX", "training.export_onnx",
                           "onnx"),
    "manifest": Command("training.agents.manifest", "check (or --add, --update) the agent manifests",
                        "training.agents.manifest"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in COMMANDS.items()]
    return ("usage: abstract-games COMMAND [options]   (abstract-games COMMAND --help: its options)\n\n"
            "commands:\n" + "\n".join(lines) + "\n")


def dispatch(name: str, argv: list[str], prog: str | None = None) -> int:
    """Run command ``name`` with ``argv``; its exit status (0 unless its ``main`` returns an
    int status or exits with one). ``prog`` is how its usage names it where its parser does not
    name itself (default ``abstract-games NAME``)."""
    if name not in COMMANDS:
        sys.stderr.write(f"abstract-games: unknown command {name!r}; the commands are {', '.join(COMMANDS)}\n")
        return 2
    command = COMMANDS[name]
    try:
        module = importlib.import_module(command.module)
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if command.extra is None or not missing or (ROOT / missing).exists():  # the suite's own module: a bug
            raise
        sys.stderr.write(f"abstract-games {name}: needs {error.name!r}, from the {command.extra!r} extra "
                         f"(pip install -e '.[{command.extra}]')\n")
        return 2
    sys.argv[0] = prog or f"abstract-games {name}"  # argparse's default prog
    try:
        result = module.main(argv)
    except ValueError as error:  # a refused command line: one line, as argparse reports a bad flag
        from envs.core.game import OptionError
        from envs.registry import UnknownGameError
        from training.agents.archive import CheckpointError

        if not isinstance(error, (FlagError, OptionError, UnknownGameError, CheckpointError)):
            raise
        sys.stderr.write(f"{sys.argv[0]}: error: {error}\n")
        return 2
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(usage())
        return 0 if argv else 2
    return dispatch(argv[0], argv[1:])


def run(name: str) -> None:
    """The ``python -m training.<launcher>`` entry: command ``name`` with this process's
    arguments."""
    sys.exit(dispatch(name, sys.argv[1:], f"python -m {COMMANDS[name].launcher}"))


if __name__ == "__main__":
    sys.exit(main())
