"""Bots, trained agents and the jobs that make and compare them, by concern, each package
importing only those above it in this list:

* ``training.common`` — flags, worker processes, progress;
* ``training.agents`` — the agent interface (``Agent``, ``RandomAgent``), agent files, ONNX,
  the manifests and the calibrated levels;
* ``training.bots`` — each game's bots, search hooks and ladders;
* ``training.search`` — MCTS and the network-guided search;
* ``training.players`` — ``load_agent``: any agent by its spec (a bot, a search, a level, an
  agent file);
* ``training.evaluation`` — tournaments, Elo, the ladder, the levels' calibration;
* ``training.serving`` — the bot protocol, its transports, terminal play;
* ``training.jobs`` — the training jobs.

The commands users type are the subcommands of ``abstract-games`` (``training.cli``; each also
runs as ``python -m training.<command>``).

The public API, importable from here: ``load_agent`` and ``bot_table``
(``training.players.load``; ``help(load_agent)`` lists every spec), ``agent_levels``
(``training.agents.levels``), ``Agent`` and ``RandomAgent`` (``training.agents.base``). They are
imported when first asked for, so ``import training.common.flags`` (or any one package) loads
nothing else.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Agent", "RandomAgent", "agent_levels", "bot_table", "load_agent"]


def __getattr__(name: str) -> Any:
    if name in ("load_agent", "bot_table"):
        from training.players import load as module
    elif name == "agent_levels":
        from training.agents import levels as module
    elif name in ("Agent", "RandomAgent"):
        from training.agents import base as module
    else:
        raise AttributeError(f"module 'training' has no attribute {name!r}")
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
