"""Helpers shared by the Loom tests."""

from __future__ import annotations

import random

from envs.core.game import draw_outcome
from envs.loom.rules import LoomGame


def throw_dice(state: LoomGame, rng: random.Random) -> LoomGame:
    """Resolve the chance node ``state`` may be at (the shuttle's throw) from ``rng``."""
    while state.is_chance_node():
        state.apply(draw_outcome(state.chance_outcomes(), rng))
    return state


def random_play(state: LoomGame, rng: random.Random, moves: int | None = None) -> LoomGame:
    """Random legal weaves (``moves`` of them, or to the end), dice thrown from ``rng``."""
    throw_dice(state, rng)
    while not state.is_terminal() and moves != 0:
        state.apply(rng.choice(state.legal_actions()))
        throw_dice(state, rng)
        moves = None if moves is None else moves - 1
    return state
