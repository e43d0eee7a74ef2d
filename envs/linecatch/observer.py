"""What a Linecatch seat sees: everything (perfect information), told from its own side."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, as_vector
from envs.linecatch.rules import NO_MARK, LinecatchGame, geometry


class LinecatchObserver(Observer):
    """Layout (``n = rows*cols``, cells in action order):

    ``[0, n)`` black squares · ``[n, 2n)`` squares last caught by me · ``[2n, 3n)`` squares last
    caught by the opponent · ``3n`` my score / total · ``3n+1`` their score / total ·
    ``3n+2`` pro mode · ``3n+3`` per square, the points blackening it would catch now ·
    ``4n+3`` per square, the points it would hand over (lines it would leave one square
    short). ``total`` is the sum of all line lengths (the most anyone can score); the two
    last planes are divided by ``4 * max(rows, cols)``, more than any square can touch.

    The last two planes are public arithmetic on the board (what the seed's tip asks a player
    to see: "a square that almost completes a line gives the point to the other person").
    """

    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.geo = geometry(options["rows"], options["cols"], options["pro"])
        self.n = self.geo.size
        self.size = 5 * self.n + 3
        self.scale = float(self.geo.total_points)
        self.square_scale = float(4 * max(self.geo.rows, self.geo.cols))
        incidence = np.zeros((self.n, len(self.geo.lines)), np.float32)
        for cell, lines in enumerate(self.geo.cell_lines):
            incidence[cell, list(lines)] = 1.0
        # Incidence weighted by line length: one matrix product prices every square.
        self._priced = incidence * np.asarray(self.geo.line_length, np.float32) / self.square_scale

    def observe(self, game: LinecatchGame, player: int) -> np.ndarray:
        n = self.n
        obs = np.zeros(self.size, np.float32)
        obs[:n] = game.black
        marks = np.asarray(game.marks)
        obs[n:2 * n] = marks == player
        obs[2 * n:3 * n] = (marks != NO_MARK) & (marks != player)
        obs[3 * n] = game.points[player] / self.scale
        obs[3 * n + 1] = game.points[1 - player] / self.scale
        obs[3 * n + 2] = float(self.options["pro"])
        remaining = np.asarray(game.remaining)
        white = obs[:n] == 0
        obs[3 * n + 3:4 * n + 3] = (self._priced @ (remaining == 1)) * white
        obs[4 * n + 3:5 * n + 3] = (self._priced @ (remaining == 2)) * white
        return obs

    def decode(self, observation) -> dict[str, Any]:
        vec = as_vector(observation)
        n, shape = self.n, (self.geo.rows, self.geo.cols)
        return {
            "black": vec[:n].reshape(shape) > 0.5,
            "my_marks": vec[n:2 * n].reshape(shape) > 0.5,
            "their_marks": vec[2 * n:3 * n].reshape(shape) > 0.5,
            "my_score": int(round(vec[3 * n] * self.scale)),
            "their_score": int(round(vec[3 * n + 1] * self.scale)),
            "pro": bool(vec[3 * n + 2] > 0.5),
            "catch_now": np.rint(vec[3 * n + 3:4 * n + 3] * self.square_scale).astype(int).reshape(shape),
            "hands_over": np.rint(vec[4 * n + 3:5 * n + 3] * self.square_scale).astype(int).reshape(shape),
        }
