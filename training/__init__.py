"""Bots, trained agents and the jobs that make and compare them, by concern:

* ``training.agents`` — the agent interface, ``load_agent``, agent files, ONNX;
* ``training.search`` — MCTS and the network-guided search;
* ``training.bots`` — each game's bots, search hooks and ladders;
* ``training.evaluation`` — tournaments, Elo, the ladder;
* ``training.serving`` — the bot protocol, its transports, terminal play;
* ``training.jobs`` — the training jobs;
* ``training.common`` — flags, worker processes, progress.

The modules left at this level are the commands users type (``python -m training.train`` …),
each a few lines that call the job's ``main``.

``load_agent(spec, game, seed=None, **options)`` returns an agent (``act(observation) -> int``):

* ``"random"`` — uniform over legal actions;
* ``"heuristic"``, ``"solver"``, … — the rule-based bots of the game's bot kit
  (``training.bots.<game>``, ``KIT``);
* ``"mcts:N"`` (``"mcts:N:c=X"``) — Monte Carlo tree search with N simulations per move over
  states sampled from the observation (see ``training.search.mcts``);
* ``"trained"`` — the agent shipped for these options: the file with the role ``trained`` in the
  game's manifest, ``checkpoints/<game>/agents.json`` (``training.agents.manifest``), playing its
  policy alone; ``"mcts:N:net=trained"`` (the manifest's ``net``) or ``"mcts:N:net=PATH"`` —
  search guided by a network (``training.search.guided``);
* an agent file path of any kind — a network from ``training.alphazero``, a MaskablePPO or RLlib
  policy (``checkpoints/loom/loom__maskppo__0.zip``), or an ONNX export of either run by
  onnxruntime alone (docs/onnx.md) — read by the one reader, ``training.agents.files``, which
  goes by the kind the file's metadata declares and checks it against the game and options.
* ``"level:K"`` — strength level K of the game's calibrated levels for these options
  (``agent_levels``, ``training.agents.levels``; docs/agents.md);

``game`` is an env name (``"loom_v0"``, or just ``"loom"``); ``options`` are the env options the
agent will play under (board size, bounty, …) where the bot needs them.
"""

from __future__ import annotations

from training.agents.base import Agent, RandomAgent
from training.agents.levels import agent_levels
from training.agents.load import bot_table, game_name, load_agent

__all__ = ["Agent", "RandomAgent", "agent_levels", "bot_table", "game_name", "load_agent"]
