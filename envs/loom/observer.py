"""What a Loom seat sees: both cloths, the current throw, the round; never future throws."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.loom.rules import CELLS, LINES, MAX_BOUNTY, NEIGHBOURS, ROUNDS, SIDE, LoomGame

DYE_SLOTS = 7  # empty + dyes 1…6

# Vectorised cloth arithmetic for the rings (the same rules as ``rules.cloth_gain`` and
# ``rules.allowed_cells``, which the tests compare them with).
_LINE_CELLS = np.array(LINES)                                   # 8 lines × 4 cells
_ROW_LINE = np.array([c // SIDE for c in range(CELLS)])
_COL_LINE = np.array([SIDE + c % SIDE for c in range(CELLS)])
_DYES = np.arange(DYE_SLOTS)
_NEIGHBOUR_CELLS = np.array([list(n) + [CELLS] * (4 - len(n)) for n in NEIGHBOURS])  # padded


def ring_gains(cloths: np.ndarray, bounty: int) -> np.ndarray:
    """``gains[k, cell, dye]``: what weaving ``dye`` into ``cell`` of cloth ``k`` would gain.

    ``cloths`` is ``(k, 16)``; filled cells gain 0. All cloths and dyes in one pass.
    """
    count = cloths.shape[0]
    values = cloths[:, _LINE_CELLS]                              # k × 8 lines × 4
    presence = np.zeros((count, len(LINES), DYE_SLOTS), bool)
    presence[np.arange(count)[:, None, None], np.arange(len(LINES))[None, :, None], values] = True
    empties = (values == 0).sum(2)
    distinct = presence[:, :, 1:].sum(2)
    fresh = ~presence                                            # k × 8 × 7 (dye 0 unused)
    finishing = ((empties == 1) & (distinct == SIDE - 1))[:, :, None]
    line_gain = fresh * _DYES + bounty * (finishing & fresh)
    gains = line_gain[:, _ROW_LINE] + line_gain[:, _COL_LINE]   # k × 16 × 7
    gains[cloths != 0] = 0
    return gains


def touching_allowed(cloth: np.ndarray, dye: int) -> np.ndarray:
    """The touching law as a boolean per cell."""
    empty = cloth == 0
    padded = np.append(cloth, -1)
    clean = empty & ~(padded[_NEIGHBOUR_CELLS] == dye).any(1)
    return clean if clean.any() else empty


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
        self._rows = np.arange(CELLS) * DYE_SLOTS

    def observe(self, game: LoomGame, player: int) -> np.ndarray:
        obs = np.zeros(self.size, np.float32)
        rows = self._rows
        obs[self.MINE + rows + np.asarray(game.cloths[player])] = 1.0  # one-hot per cell
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
            both = np.array((game.cloths[player], game.cloths[1 - player]))
            gains = ring_gains(both, game.bounty)[:, :, (low, high)] / self.gain_scale  # 2 × 16 × 2
            obs[self.MY_RINGS:self.MY_RINGS + 32] = gains[0].T.ravel()
            obs[self.THEIR_RINGS:self.THEIR_RINGS + 32] = gains[1].T.ravel()
            for t, dye in enumerate((low, high)):
                at = self.THEIR_ROOM + 16 * t
                obs[at:at + 16] = touching_allowed(both[1], dye)
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
