"""Suite agents as OpenSpiel bots: :class:`SuiteBot` is ``envs.openspiel.AgentBot`` with its
agent built from a ``load_agent`` spec, so any suite agent enters OpenSpiel's ``evaluate_bots``.

    import pyspiel
    import envs.openspiel  # registers the games
    from training.players.openspiel import SuiteBot
    fill = pyspiel.load_game("abstract_fill", {"traps": True})
    heuristic = SuiteBot(fill, 1, "heuristic", seed=0)

Needs the ``openspiel`` extra (``pip install -e .[openspiel]``).
"""

from __future__ import annotations

from envs.openspiel import AgentBot, SuiteGame
from training.players.load import load_agent


class SuiteBot(AgentBot):
    """A suite agent (any ``load_agent`` spec) as a ``pyspiel.Bot`` for ``player_id``, built
    under the pyspiel game's options: it sees only that seat's observation."""

    def __init__(self, game: SuiteGame, player_id: int, spec: str, seed: int | None = None):
        agent = load_agent(spec, game.description.name, seed=seed, **game.env_options)
        super().__init__(game, player_id, agent)


__all__ = ["SuiteBot"]
