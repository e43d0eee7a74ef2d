"""What a Loom seat sees: both cloths, the current throw, the round; never future throws."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.loom.rules import CELLS, MAX_BOUNTY, ROUNDS, SIDE, LoomGame

DYE_SLOTS = 7  # empty + dyes 1…6


class LoomObserver(Observer):
    """Layout (offsets in the vector):

    ``0`` my cloth, 16 cells × 7 one-hot (empty, dye 1…6) · ``112`` their cloth, same ·
    ``224`` the current throw, thread 0 then thread 1, each 6 one-hot (dye 1…6) ·
    ``236`` which threads are still available (2) · ``238`` the round, 16 one-hot ·
    ``254`` I am the drafter · ``255`` my score / scale · ``256`` their score / scale ·
    ``257`` bounty / 100. ``scale = 144 + 8*bounty`` is the most a cloth can score.
    After the last round the throw, availability and round entries are all zero.
    """

    MINE, THEIRS, THROW, AVAILABLE, ROUND = 0, 112, 224, 236, 238
    DRAFTER, MY_SCORE, THEIR_SCORE, BOUNTY = 254, 255, 256, 257

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.size = 258
        self.scale = float(144 + 8 * options["bounty"])
        self._rows = np.arange(CELLS) * DYE_SLOTS

    def observe(self, game: LoomGame, player: int) -> np.ndarray:
        obs = np.zeros(self.size, np.float32)
        rows = self._rows
        obs[self.MINE + rows + np.asarray(game.cloths[player])] = 1.0
        obs[self.THEIRS + rows + np.asarray(game.cloths[1 - player])] = 1.0
        if game.round < ROUNDS:
            low, high = game.throws[game.round]
            obs[self.THROW + low - 1] = 1.0
            obs[self.THROW + 6 + high - 1] = 1.0
            if game.taken < 0:
                obs[self.AVAILABLE] = obs[self.AVAILABLE + 1] = 1.0
            else:
                obs[self.AVAILABLE + 1 - game.taken] = 1.0
            obs[self.ROUND + game.round] = 1.0
        obs[self.DRAFTER] = float(game.round % 2 == player)
        obs[self.MY_SCORE] = game.points[player] / self.scale
        obs[self.THEIR_SCORE] = game.points[1 - player] / self.scale
        obs[self.BOUNTY] = game.bounty / MAX_BOUNTY
        return obs

    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)

        def cloth(offset: int) -> list[int]:
            return [int(np.argmax(vec[offset + c * DYE_SLOTS: offset + (c + 1) * DYE_SLOTS])) for c in range(CELLS)]

        throw_part = vec[self.THROW:self.THROW + 12]
        round_part = vec[self.ROUND:self.ROUND + ROUNDS]
        has_throw = throw_part.sum() > 0.5
        return {
            "my_cloth": cloth(self.MINE),
            "their_cloth": cloth(self.THEIRS),
            "throw": (int(np.argmax(throw_part[:6])) + 1, int(np.argmax(throw_part[6:])) + 1) if has_throw else None,
            "available": tuple(bool(x > 0.5) for x in vec[self.AVAILABLE:self.AVAILABLE + 2]),
            "round": int(np.argmax(round_part)) if round_part.sum() > 0.5 else ROUNDS,
            "drafter": bool(vec[self.DRAFTER] > 0.5),
            "my_score": int(round(vec[self.MY_SCORE] * self.scale)),
            "their_score": int(round(vec[self.THEIR_SCORE] * self.scale)),
            "bounty": int(round(vec[self.BOUNTY] * MAX_BOUNTY)),
            "side": SIDE,
        }
