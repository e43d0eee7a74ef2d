"""High card's observation for one seat: its own card (one-hot; never the opponent's), the round
(one-hot), the betting so far this round (one of the four histories a player acts on), whether
it opened the round, its seat, and both players' chips ``(chips + 2·rounds) / (4·rounds)``.
Planes ``(1, 1, size)``: every entry a constant plane; the policy is four global actions."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.observer import Observer, PolicyLayout, Symmetry, as_vector
from tests.toy.highcard.rules import HISTORIES, WORDS


class HighCardObserver(Observer):
    def __init__(self, options: dict[str, Any]):
        super().__init__(options)
        self.cards, self.rounds = options["cards"], options["rounds"]
        self.CARD = self.layout.take(self.cards, "card")
        self.ROUND = self.layout.take(self.rounds, "round")
        self.HISTORY = self.layout.take(len(HISTORIES), "history")
        self.OPENED = self.layout.take(1, "opened")
        self.SEAT = self.layout.take(2, "seat")
        self.CHIPS = self.layout.take(2, "chips")
        self.size = self.layout.size

    def observe(self, game, player: int) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        if game.hands[player] >= 0:
            out[self.CARD + game.hands[player]] = 1
        if game.round < self.rounds:
            out[self.ROUND + game.round] = 1
            out[self.OPENED] = game.round % 2 == player
            if -1 not in game.hands:
                out[self.HISTORY + HISTORIES.index(tuple(game.history))] = 1
        out[self.SEAT + player] = 1
        scale = 4 * self.rounds
        out[self.CHIPS] = (game.chips[player] + 2 * self.rounds) / scale
        out[self.CHIPS + 1] = (game.chips[1 - player] + 2 * self.rounds) / scale
        return out

    def decode(self, observation) -> dict[str, Any]:
        v = np.asarray(as_vector(observation))

        def index(name: str) -> int:
            block = self.layout.view(v, name)
            return int(np.argmax(block)) if block.any() else -1

        chips = np.rint(self.layout.view(v, "chips") * 4 * self.rounds - 2 * self.rounds).astype(int).tolist()
        history = index("history")
        return {"card": index("card"), "round": index("round"), "history": HISTORIES[history] if history >= 0 else None,
                "opened": bool(v[self.OPENED]), "seat": index("seat"), "chips": chips}

    def planes_shape(self) -> tuple[int, int, int]:
        return (1, 1, self.size)

    def planes(self, observation) -> np.ndarray:
        vector = np.asarray(as_vector(observation), np.float32)
        planes = vector.reshape(-1, 1, 1, self.size)
        return planes[0] if vector.ndim == 1 else planes

    def policy_layout(self) -> PolicyLayout:
        return PolicyLayout(0, len(WORDS), np.arange(len(WORDS)))

    def symmetries(self) -> tuple[Symmetry, ...]:
        return (Symmetry("identity", "identity", np.arange(len(WORDS))),)
