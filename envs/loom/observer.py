"""What a Loom seat sees: both cloths, the current throw, the round; never future throws."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.loom.rules import CELLS, MAX_BOUNTY, ROUNDS, SIDE, LoomGame, line_gain_table

DYE_SLOTS = 7  # empty + dyes 1…6

# The rings by table look-up. The engine keeps each line's contents as one base-7 number
# (``game.codes``); ``rules.line_gain_table(bounty)[code][dye]`` is what that dye adds to that
# line, so a cell's ring is two look-ups. (``rules.cloth_gain`` is the same arithmetic cell by
# cell; the tests compare the two.)
_CELL_LINES = [(c, c // SIDE, SIDE + c % SIDE) for c in range(CELLS)]  # cell, row line, column line


class LoomObserver(Observer):
    """Layout (offsets in the vector):

    ``0`` my cloth, 16 cells × 7 one-hot (empty, dye 1…6) · ``112`` their cloth, same ·
    ``224`` the current throw, thread 0 then thread 1, each 6 one-hot (dye 1…6) ·
    ``236`` which threads are still available (2) · ``238`` the round, 16 one-hot ·
    ``254`` I am the drafter · ``255`` my score / scale · ``256`` their score / scale ·
    ``257`` bounty / 100 · ``258`` the price rings: for thread 0 then thread 1, per cell, what
    weaving it there would gain **me** (16 + 16), then the same for the **opponent's** cloth
    (16 + 16), each ÷ ``12 + 2*bounty`` (0 for a filled cell) · ``322`` where the touching law
    lets each thread go in the **opponent's** cloth (16 + 16; mine is in the action mask).
    ``scale = 144 + 8*bounty`` is the most a cloth can score. After the last round the throw,
    availability, round, rings and touching entries are all zero.

    The rings are the seed's front end's "cells answer as scored rings": public arithmetic on
    public cloths, given so a network need not relearn the scoring rule.
    """

    MINE, THEIRS, THROW, AVAILABLE, ROUND = 0, 112, 224, 236, 238
    DRAFTER, MY_SCORE, THEIR_SCORE, BOUNTY = 254, 255, 256, 257
    MY_RINGS, THEIR_RINGS, THEIR_ROOM = 258, 290, 322

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.size = 354
        self.scale = float(144 + 8 * options["bounty"])
        self.gain_scale = float(12 + 2 * options["bounty"])
        # Where each cell's one-hot block starts: my 16 cells, then the opponent's.
        self._one_hot = np.concatenate([self.MINE + np.arange(CELLS) * DYE_SLOTS, self.THEIRS + np.arange(CELLS) * DYE_SLOTS])
        # Per dye, the gain of every line code as a plain list: list look-ups beat numpy here.
        table = line_gain_table(options["bounty"])
        self._gain_lists = [[row[dye] / self.gain_scale for row in table] for dye in range(DYE_SLOTS)]

    def observe(self, game: LoomGame, player: int) -> np.ndarray:
        obs = np.zeros(self.size, np.float32)
        obs[self._one_hot + np.array(game.cloths[player] + game.cloths[1 - player])] = 1.0
        if game.round < ROUNDS:
            low, high = game.throws[game.round]
            obs[self.THROW + low - 1] = 1.0
            obs[self.THROW + 6 + high - 1] = 1.0
            if game.taken < 0:
                obs[self.AVAILABLE] = obs[self.AVAILABLE + 1] = 1.0
            else:
                obs[self.AVAILABLE + 1 - game.taken] = 1.0
            obs[self.ROUND + game.round] = 1.0
            other = 1 - player
            values: list[float] = []
            for cloth, codes in ((game.cloths[player], game.codes[player]), (game.cloths[other], game.codes[other])):
                for dye in (low, high):
                    per_code = self._gain_lists[dye]
                    line = [per_code[code] for code in codes]
                    values.extend([0.0 if cloth[c] else line[r] + line[k] for c, r, k in _CELL_LINES])
            theirs, near = game.cloths[other], game.near[other]
            for dye in (low, high):
                bit = 1 << dye
                clean = [0.0 if theirs[c] or near[c] & bit else 1.0 for c in range(CELLS)]
                values.extend(clean if 1.0 in clean else [0.0 if theirs[c] else 1.0 for c in range(CELLS)])
            obs[self.MY_RINGS:self.MY_RINGS + 96] = values
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
            "my_rings": np.rint(vec[self.MY_RINGS:self.MY_RINGS + 32] * self.gain_scale).astype(int).reshape(2, CELLS),
            "their_rings": np.rint(vec[self.THEIR_RINGS:self.THEIR_RINGS + 32] * self.gain_scale).astype(int).reshape(2, CELLS),
            "their_room": vec[self.THEIR_ROOM:self.THEIR_ROOM + 32].reshape(2, CELLS) > 0.5,
            "side": SIDE,
        }
