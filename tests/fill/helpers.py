"""Helpers shared by the Fill tests."""

from __future__ import annotations

import random

from envs import fill_v0
from envs.core.game import draw_outcome
from training.players.load import load_agent


def settle(game, rng: random.Random | None = None):
    """Play the chance nodes the game has reached (rocks, gems) from ``rng``, as the env does
    (scripted rocks and gems need none: their nodes have one outcome). Returns the game."""
    rng = rng or random.Random(0)
    while game.is_chance_node():
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game


def play(options, seed, specs):
    """One game through the env between ``load_agent`` specs (``player_i`` seeded ``seed + i``),
    checking every action is legal: ``(rewards by seat, engine phases played, actions)``."""
    env = fill_v0.env(**options)
    env.reset(seed=seed)
    agents = {f"player_{i}": load_agent(spec, "fill_v0", seed=seed + i, **options) for i, spec in enumerate(specs)}
    results, phases, actions = {}, set(), []
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            results[name] = reward
            env.step(None)
            continue
        phases.add(env.unwrapped.game.phase)
        action = agents[name].act(obs)
        assert obs["action_mask"][action] == 1, "bots only play legal actions"
        actions.append(action)
        env.step(action)
    assert not env.unwrapped.ended_by_illegal_action
    return results, phases, actions
