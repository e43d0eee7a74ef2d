"""Nim's observation: per pile, one entry per stone place (1 while the stone is there), then the
observing seat (one-hot). Planes ``(piles, width, 2)``: the stones, and the seat as a constant
plane; the policy head's one cell channel is the action (take the stones from that place on)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, PolicyLayout, Symmetry, as_vector


class NimObserver(Observer):
    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.piles = options["piles"]
        self.width = self.piles + 2
        self.STONES = self.layout.take(self.piles * self.width, "stones")
        self.SEAT = self.layout.take(2, "seat")
        self.size = self.layout.size

    def observe(self, game, player: int) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        for pile, stones in enumerate(game.piles):
            out[pile * self.width:pile * self.width + stones] = 1
        out[self.SEAT + player] = 1
        return out

    def decode(self, observation) -> dict[str, Any]:
        vector = np.asarray(as_vector(observation))
        stones = self.layout.view(vector, "stones").reshape(self.piles, self.width)
        return {"piles": [int(row.sum()) for row in stones], "seat": int(np.argmax(self.layout.view(vector, "seat")))}

    def planes_shape(self) -> tuple[int, int, int]:
        return (self.piles, self.width, 2)

    def planes(self, observation) -> np.ndarray:
        vector = np.asarray(as_vector(observation), np.float32)
        batch = vector.reshape(-1, self.size)
        out = np.empty((len(batch), self.piles, self.width, 2), np.float32)
        out[..., 0] = batch[:, :self.piles * self.width].reshape(-1, self.piles, self.width)
        out[..., 1] = batch[:, self.SEAT + 1, None, None]
        return out[0] if vector.ndim == 1 else out

    def policy_layout(self) -> PolicyLayout:
        return PolicyLayout(1, 0, np.arange(self.piles * self.width))

    def symmetries(self) -> tuple[Symmetry, ...]:
        return (Symmetry("identity", "identity", np.arange(self.piles * self.width)),)
