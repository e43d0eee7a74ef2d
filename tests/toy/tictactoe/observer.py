"""Tic-tac-toe's observation, from the observing seat: my marks, the opponent's marks (a square
each, in action order), then the seat (one-hot). Planes ``(size, size, 3)``: mine, theirs, and
the seat as a constant plane; the policy head's one cell channel is the square's action. The
board's eight symmetries (rotations, reflections) are the game's."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import D4, Observer, PolicyLayout, Symmetry, as_vector, transform_grid


class TicTacToeObserver(Observer):
    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.side = options["size"]
        self.n = self.side ** 2
        self.MINE = self.layout.take(self.n, "mine")
        self.THEIRS = self.layout.take(self.n, "theirs")
        self.SEAT = self.layout.take(2, "seat")
        self.size = self.layout.size

    def observe(self, game, player: int) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        board = np.asarray(game.board)
        out[self.MINE:self.MINE + self.n] = board == player
        out[self.THEIRS:self.THEIRS + self.n] = board == 1 - player
        out[self.SEAT + player] = 1
        return out

    def decode(self, observation) -> dict[str, Any]:
        vector = np.asarray(as_vector(observation))
        mine = self.layout.view(vector, "mine") > 0.5
        theirs = self.layout.view(vector, "theirs") > 0.5
        seat = int(np.argmax(self.layout.view(vector, "seat")))
        board = [seat if mine[x] else (1 - seat if theirs[x] else -1) for x in range(self.n)]
        return {"board": board, "seat": seat}

    def planes_shape(self) -> tuple[int, int, int]:
        return (self.side, self.side, 3)

    def planes(self, observation) -> np.ndarray:
        vector = np.asarray(as_vector(observation), np.float32)
        batch = vector.reshape(-1, self.size)
        out = np.empty((len(batch), self.side, self.side, 3), np.float32)
        out[..., 0] = batch[:, self.MINE:self.MINE + self.n].reshape(-1, self.side, self.side)
        out[..., 1] = batch[:, self.THEIRS:self.THEIRS + self.n].reshape(-1, self.side, self.side)
        out[..., 2] = batch[:, self.SEAT + 1, None, None]
        return out[0] if vector.ndim == 1 else out

    def policy_layout(self) -> PolicyLayout:
        return PolicyLayout(1, 0, np.arange(self.n))

    def symmetries(self) -> tuple[Symmetry, ...]:
        grid = np.arange(self.n).reshape(self.side, self.side, 1)
        found = []
        for transform in D4:
            moved = transform_grid(grid, transform).reshape(-1)  # moved[new square] = old square
            actions = np.empty(self.n, np.int64)
            actions[moved] = np.arange(self.n)
            found.append(Symmetry(transform, transform, actions))
        return tuple(found)
