"""Helpers shared by the Fill tests."""

from __future__ import annotations

import random

from envs.core.game import draw_outcome


def settle(game, rng: random.Random | None = None):
    """Play the chance nodes the game has reached (rocks, gems) from ``rng``, as the env does
    (scripted rocks and gems need none: their nodes have one outcome). Returns the game."""
    rng = rng or random.Random(0)
    while game.is_chance_node():
        game.apply(draw_outcome(game.chance_outcomes(), rng))
    return game
