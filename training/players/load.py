"""``load_agent``: every agent spec — a bot, a search, a calibrated level, an agent file —
resolved to an agent in one place (the layer above ``training.bots`` and ``training.search``)."""

from __future__ import annotations

from typing import Any

from envs.registry import canonical_name
from training.agents.base import Agent, check_agent_options, check_seed
from training.agents.files import load_agent_file, names_a_file
from training.agents.levels import level_spec
from training.agents.manifest import resolve
from training.bots import bot_kit
from training.search.guided import GuidedMCTSAgent
from training.search.mcts import MCTSAgent, parse_mcts_spec


def bot_table(game: str) -> dict[str, Any]:
    """Every named bot of a game: ``{"random": RandomAgent, "heuristic": ..., ...}``."""
    return bot_kit(game).named_bots()


def load_agent(spec: str, game: str, seed: int | None = None, **options: Any) -> Agent:
    """An agent (``act(observation) -> int``) for ``game`` — an env name (``"loom_v0"``, or just
    ``"loom"``) — playing under ``options``, the env options it will meet (board size, bounty, …).
    ``spec`` is one of:

    * ``"random"`` — uniform over the legal actions;
    * ``"heuristic"``, ``"solver"``, … — the rule-based bots of the game's bot kit
      (``training.bots.<game>``, ``KIT``; :func:`bot_table` lists them);
    * ``"mcts:N"`` (``"mcts:N:c=X"`` …) — Monte Carlo tree search with N simulations per move over
      states sampled from the observation (``training.search.mcts``);
    * ``"trained"`` — the agent shipped for these options: the file with the role ``trained`` in
      the game's manifest, ``checkpoints/<game>/agents.json`` (``training.agents.manifest``),
      playing its policy alone; ``"mcts:N:net=trained"`` (the manifest's ``net``) or
      ``"mcts:N:net=PATH"`` — search guided by a network (``training.search.guided``);
    * an agent file path of any kind — a MaskablePPO or RLlib policy or a policy-value network
      (``.zip``), or an ONNX export of one run by onnxruntime alone (docs/onnx.md) — read by the
      one reader, ``training.agents.files``, which goes by the kind the file's metadata declares
      (never by its name) and checks it against the game and options;
    * ``"level:K"`` — strength level K of the game's calibrated levels for these options
      (``training.agents.levels.agent_levels``; docs/agents.md).

    Whatever the spec, the options are checked by the game and the seed must be None or a whole
    number 0…2**63 − 1: an invalid one is a ValueError naming it, raised here rather than at the
    agent's first move.
    """
    name = canonical_name(game)
    # every agent is made for a valid seed and options the game accepts: refused here, by name,
    # not at the agent's first move
    seed = check_seed(seed)
    check_agent_options(name, options)
    if str(spec).startswith("level:"):  # a calibrated level (training.agents.levels)
        return load_agent(level_spec(spec, name, **options), name, seed=seed, **options)
    table = bot_table(name)
    if spec in table:
        return table[spec](game=name, seed=seed, **options)
    if spec == "trained":
        return load_agent_file(resolve(name, options, "trained"), name, seed=seed, **options)
    if str(spec).split(":")[0] == "mcts":
        settings = parse_mcts_spec(spec)
        if "network_path" in settings:
            return GuidedMCTSAgent(name, seed=seed, **settings, **options)
        return MCTSAgent(name, seed=seed, **settings, **options)
    if names_a_file(str(spec)):
        return load_agent_file(spec, name, seed=seed, **options)
    raise ValueError(
        f"unknown agent {spec!r} for {name}; choose one of: {', '.join(table)}, trained, level:K, mcts:N, mcts:N:net=trained, "
        "or an agent file (.zip or .onnx)"
    )


__all__ = ["bot_table", "load_agent"]
