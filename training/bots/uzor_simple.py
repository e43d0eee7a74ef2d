"""What Uzor's bots share, and the two simple ones (``closer`` and ``greedy``).

A bot sees only its seat's observation. ``SeatBot.position`` turns it into an engine position
through the game's one route (``envs.uzor.sampling.read_position``: the public position the
observation shows, checked to reproduce it); the opponent's goal is left as the route sets it
(a bot never prices the opponent's goal: it is not its to know).

* ``closer``: plays at random, except that at the fork it always closes the best completed
  pattern (about 75 % against random);
* ``greedy``: places where it completes the most valuable pattern (else at random), closes the
  best completed pattern, takes at random.
"""

from __future__ import annotations

import random
from typing import Any

from envs.uzor.common import FORK, PLACE
from envs.uzor.rules import UzorGame, geometry
from envs.uzor.sampling import read_position
from training.agents.base import legal_from_mask


def pattern_reach(patterns) -> int:
    """How far (rows or columns) a pattern's cells lie from each other at most: a placement
    changes what completes only within this distance of its cell (4 for the standard Map,
    whose longest patterns are five in a row)."""
    from envs.uzor.patterns import STANDARD_MAP

    return max(max(max(r, c) for r, c in shape) for p in (patterns or STANDARD_MAP) for shape in p["shapes"])


class SeatBot:
    """The options, a seeded generator, the table geometry, and the position from an
    observation (see the module docstring)."""

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = UzorGame.resolve_options(options)
        self.rng = random.Random(seed)
        self.geo = geometry(self.options["board_size"], self.options["patterns"])
        size = self.geo.size
        reach = pattern_reach(self.options["patterns"])
        # per cell, the cells within ``reach`` rows and columns: where a placement changes patterns
        near = []
        for x in range(self.geo.cells):
            r, c = divmod(x, size)
            mask = 0
            for rr in range(max(0, r - reach), min(size, r + reach + 1)):
                for cc in range(max(0, c - reach), min(size, c + reach + 1)):
                    mask |= 1 << (rr * size + cc)
            near.append(mask)
        self.near = near
        self.me = 0

    def value(self, k: int, game: UzorGame, player: int) -> float:
        """What closing pattern ``k`` is worth to ``player``: its points, doubled for my own goal."""
        points = game.geo.map.points[k]
        return points * 2 if game.goals[player] == k and player == self.me else points

    def position(self, observation) -> UzorGame:
        """The position the observation shows (the opponent's goal as the route sets it)."""
        seat = read_position(observation, self.options)
        self.me = seat.seat
        return seat.state.clone()


class CloserBot:
    """Random play, but the fork always closes the best completed pattern (no goal, no
    observation decoding: the fork's choices are in the mask, their points in the Map)."""

    name = "closer"

    def __init__(self, game: str | None = None, seed: int | None = None, **options: Any):
        self.options = UzorGame.resolve_options(options)
        self.geo = geometry(self.options["board_size"], self.options["patterns"])
        self.rng = random.Random(seed)

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        geo = self.geo
        closes = [a for a in legal if geo.close0 <= a < geo.cont]
        if closes:
            return max(closes, key=lambda a: (geo.map.points[a - geo.close0], -a))
        return self.rng.choice(legal)


class GreedyBot(SeatBot):
    """Completes and closes the most valuable pattern it can; otherwise plays at random."""

    name = "greedy"

    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        game = self.position(observation)
        geo = game.geo
        if game.phase == PLACE:
            best, choice = 0.0, []
            hand = game.hands[game.to_move]
            for a in legal:
                s, cell = divmod(a, geo.cells)
                done = game.completions(cell, hand[s])
                v = max((self.value(k, game, self.me) for k in done), default=0.0)
                if v > best:
                    best, choice = v, [a]
                elif v == best and v > 0:
                    choice.append(a)
            if choice:
                return self.rng.choice(choice)
        if game.phase == FORK:
            return max(legal[:-1], key=lambda a: (self.value(a - geo.close0, game, self.me), -a))
        return self.rng.choice(legal)
