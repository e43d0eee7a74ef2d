"""Seat bots into an AEC env, so a person or another program plays the remaining seats.

    env = SeatBots(loom_v0.env(), {"player_1": load_agent("heuristic", "loom", seed=0)})
    env.reset(seed=1)
    for agent in env.agent_iter():   # yields only the seats not given to bots
        ...

After ``reset`` and after every ``step`` the bots move until a free seat is to act (or the
game is over); the bots' dead steps at the end are taken for them too.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper


class SeatBots(BaseWrapper):
    def __init__(self, env, bots: dict[str, Any]):
        super().__init__(env)
        unknown = sorted(set(bots) - set(env.possible_agents))
        if unknown:
            raise ValueError(f"no seat named {unknown[0]!r}; the seats are {', '.join(env.possible_agents)}")
        if len(bots) >= len(env.possible_agents):
            raise ValueError("every seat has a bot: leave at least one seat free to play")
        self.bots = dict(bots)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._play_bots()

    def step(self, action: Any) -> None:
        self.env.step(action)
        self._play_bots()

    def _play_bots(self) -> None:
        env = self.env
        while env.agents and env.agent_selection in self.bots:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                env.step(self.bots[agent].act(env.observe(agent)))
