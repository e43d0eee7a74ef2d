"""Positions for the hidden-information tests of the searches: true states a seat cannot tell apart."""

from __future__ import annotations

import random
from collections.abc import Iterator

import envs


def positions_with_two_hidden_worlds(game: str, options: dict, positions: int, rng: random.Random) -> Iterator[tuple]:
    """For each of ``positions`` seeded random games stopped mid-way (finished ones skipped):
    the env, the name of the seat to act, and two full snapshots that differ only in what that
    seat cannot see (its stripped snapshot completed with seeds 1 and 2)."""
    sampling = envs.describe(game).sampling
    for index in range(positions):
        env = envs.load(game).raw_env(**options)
        env.reset(seed=index)
        for _ in range(rng.randrange(4, 30)):
            if env.game.is_terminal():
                break
            env.step(rng.choice(env.game.legal_actions()))
        if env.game.is_terminal():
            continue
        seat = env.game.current_player()
        partial = sampling.strip_hidden(env.snapshot(), seat)
        worlds = [sampling.complete_snapshot(partial, seat, random.Random(s)) for s in (1, 2)]
        yield env, env.possible_agents[seat], worlds
