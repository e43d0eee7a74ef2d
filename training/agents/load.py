"""``load_agent``: every agent spec resolved in one place.

``load_agent(spec, game, seed=None, **options)`` returns an agent (``act(observation) -> int``):

* ``"random"`` — uniform over legal actions;
* ``"heuristic"``, ``"solver"``, … — the rule-based bots of the game's bot kit
  (``training.bots.<game>``, ``KIT``);
* ``"mcts:N"`` (``"mcts:N:c=X"``) — Monte Carlo tree search with N simulations per move over
  states sampled from the observation (see ``training.mcts``);
* ``"trained"`` — the agent shipped for these options: the file with the role ``trained`` for
  them in the game's manifest, ``checkpoints/<game>/agents.json`` (``training.agents.manifest``),
  playing its policy alone; ``"mcts:N:net=trained"`` (the file with the role ``net``) or
  ``"mcts:N:net=PATH"`` — search guided by a network (``training.search.guided``);
* an agent file path, of any kind (``training.agents.files``: a MaskablePPO or RLlib policy or a
  policy-value network, ``.zip``; their ONNX exports, run by onnxruntime alone, see
  docs/onnx.md), read by the one reader — which dispatches on what the file's metadata says it
  is, not on its name — and checked against the game and options.
* ``"level:K"`` — strength level K of the game's calibrated levels for these options
  (``agent_levels``, ``training.agents.levels``; docs/agents.md);

``game`` is an env name (``"loom_v0"``, or just ``"loom"``); ``options`` are the env options the
agent will play under (board size, bounty, …) where the bot needs them. Whatever the spec, the
options are checked by the game and the seed must be None or a whole number 0…2**63 − 1: an
invalid one is a ValueError naming it, raised here rather than at the agent's first move.
"""

from __future__ import annotations

from typing import Any

from training.agents.base import Agent, RandomAgent, check_agent_options, check_seed


def game_name(game: str) -> str:
    """The env name of a game (``"loom"`` → ``"loom_v0"``); a ValueError lists the games."""
    import envs

    return envs.canonical_name(game)


def bot_table(game: str) -> dict[str, Any]:
    """Every named bot of a game: ``{"random": RandomAgent, "heuristic": ..., ...}``."""
    from training.bots import bot_kit

    return bot_kit(game).named_bots()


def load_agent(spec: str, game: str, seed: int | None = None, **options: Any) -> Agent:
    name = game_name(game)
    # every agent is made for a valid seed and options the game accepts: refused here, by name,
    # not at the agent's first move
    seed = check_seed(seed)
    check_agent_options(name, options)
    if str(spec).startswith("level:"):  # a calibrated level (training.agents.levels)
        from training.agents.levels import level_spec

        return load_agent(level_spec(spec, name, **options), name, seed=seed, **options)
    table = bot_table(name)
    if spec in table:
        return table[spec](game=name, seed=seed, **options)
    if spec == "trained":
        from training.agents.files import load_agent_file
        from training.agents.manifest import resolve

        return load_agent_file(resolve(name, options, "trained"), name, seed=seed, **options)
    if str(spec).split(":")[0] == "mcts":
        from training.search.mcts import MCTSAgent, parse_mcts_spec

        settings = parse_mcts_spec(spec)
        if "network_path" in settings:
            from training.search.guided import GuidedMCTSAgent

            return GuidedMCTSAgent(name, seed=seed, **settings, **options)
        return MCTSAgent(name, seed=seed, **settings, **options)
    if names_a_file(str(spec)):
        from training.agents.files import load_agent_file

        return load_agent_file(spec, name, seed=seed, **options)
    raise ValueError(
        f"unknown agent {spec!r} for {name}; choose one of: {', '.join(table)}, trained, level:K, mcts:N, mcts:N:net=trained, "
        "or an agent file (.zip or .onnx)"
    )


def names_a_file(spec: str) -> bool:
    """Whether a spec that names no bot is read as an agent file: a path, with a folder
    separator or a file suffix (a bare word is an unknown bot, whatever lies in the working
    folder). What the file is, its metadata says, not its name."""
    return "/" in spec or "\\" in spec or "." in spec


__all__ = ["bot_table", "game_name", "load_agent", "names_a_file"]
