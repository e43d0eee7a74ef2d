"""``load_agent``: every agent spec resolved in one place.

``load_agent(spec, game, seed=None, **options)`` returns an agent (``act(observation) -> int``):

* ``"random"`` — uniform over legal actions;
* ``"heuristic"``, ``"solver"``, … — the rule-based bots of the game's bot kit
  (``training.bots.<game>``, ``KIT``);
* ``"mcts:N"`` (``"mcts:N:c=X"``) — Monte Carlo tree search with N simulations per move over
  states sampled from the observation (see ``training.mcts``);
* ``"level:K"`` — strength level K of the game's calibrated levels for these options
  (``agent_levels``, ``training.agents.levels``; docs/agents.md);
* ``"trained"`` — the agent shipped for these options (``checkpoints/<game>/``: a network or a
  MaskablePPO checkpoint, the best recorded score against the heuristic), playing its policy
  alone; ``"mcts:N:net=trained"`` or ``"mcts:N:net=PATH"`` — search guided by a network
  (``training.az_search``);
* an agent file path: a network from ``training.alphazero`` (``training.network_agent``) or a
  MaskablePPO checkpoint (``checkpoints/loom/loom__maskppo__0.zip``, ``training.checkpoint``),
  checked against the game and options.
* an exported ``.onnx`` path: the same policy run by onnxruntime alone, no torch (see
  ``training.onnx_agent`` and docs/onnx.md).

``game`` is an env name (``"loom_v0"``, or just ``"loom"``); ``options`` are the env options the
agent will play under (board size, bounty, …) where the bot needs them.
"""

from __future__ import annotations

from typing import Any

from training.agents.base import Agent, RandomAgent


def game_name(game: str) -> str:
    """The env name of a game (``"loom"`` → ``"loom_v0"``); a ValueError lists the games."""
    import envs

    return envs.canonical_name(game)


def bot_table(game: str) -> dict[str, Any]:
    """Every named bot of a game: ``{"random": RandomAgent, "heuristic": ..., ...}``."""
    import envs

    return envs.describe(game).bot_kit().named_bots()


def load_agent(spec: str, game: str, seed: int | None = None, **options: Any) -> Agent:
    name = game_name(game)
    if str(spec).startswith("level:"):  # a calibrated level (training.agents.levels)
        from training.agents.levels import level_spec

        return load_agent(level_spec(spec, name, **options), name, seed=seed, **options)
    table = bot_table(name)
    if spec in table:
        return table[spec](game=name, seed=seed, **options)
    if spec == "trained":
        from training.agents.network_agent import shipped_agent

        return load_agent(str(shipped_agent(name, options)), name, seed=seed, **options)
    if str(spec).split(":")[0] == "mcts":
        from training.search.mcts import MCTSAgent, parse_mcts_spec

        settings = parse_mcts_spec(spec)
        if "network_path" in settings:
            from training.search.guided import GuidedMCTSAgent

            return GuidedMCTSAgent(name, seed=seed, **settings, **options)
        return MCTSAgent(name, seed=seed, **settings, **options)
    if str(spec).endswith(".onnx"):
        from training.agents.onnx_agent import load_onnx_agent

        return load_onnx_agent(spec, name, seed=seed, **options)
    if str(spec).endswith(".zip") or "/" in str(spec) or "\\" in str(spec):
        from training.agents.network_agent import is_network_file, load_network_agent

        if is_network_file(spec):
            return load_network_agent(spec, name, seed=seed, **options)
        from training.agents.checkpoint import load_checkpoint_agent

        return load_checkpoint_agent(spec, name, seed=seed, **options)
    raise ValueError(
        f"unknown agent {spec!r} for {name}; choose one of: {', '.join(table)}, trained, level:K, mcts:N, mcts:N:net=trained, "
        "or an agent file (.zip or .onnx)"
    )


__all__ = ["bot_table", "game_name", "load_agent"]
