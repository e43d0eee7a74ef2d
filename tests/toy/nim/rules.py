"""Nim: piles of 3, 4, 5… stones; a move takes one or more stones from one pile; whoever takes
the last stone wins (1 point to 0). Perfect information, no chance.

Action ``pile * width + (count - 1)`` takes ``count`` stones from ``pile`` (``width``, the
biggest pile, is ``piles + 2``); notation: the pile's letter and the count (``b3``).
"""

from __future__ import annotations

from typing import Any

from envs.core.game import TERMINAL, Game, IllegalActionError, int_field, int_list, require
from envs.core.options import check_int

LETTERS = "abcdef"


class NimGame(Game):
    NAME = "nim_v0"
    OPTIONS = {"piles": 3}
    STATE_KEYS = ("piles", "to_move")

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "piles", 1, len(LETTERS))
        return options

    @staticmethod
    def start(options: dict[str, Any]) -> list[int]:
        return [pile + 3 for pile in range(options["piles"])]

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return options["piles"] * (options["piles"] + 2)

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        return sum(cls.start(options))

    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        self.width = options["piles"] + 2
        self.piles = self.start(options)
        self.to_move = 0

    def current_player(self) -> int:
        return self.to_move if any(self.piles) else TERMINAL

    def legal_actions(self) -> list[int]:
        return [pile * self.width + k for pile, stones in enumerate(self.piles) for k in range(stones)]

    def why_illegal(self, action: Any) -> str | None:
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        if not 0 <= action < self.num_actions:
            return f"action {action} is not a move: actions are 0…{self.num_actions - 1}"
        if not any(self.piles):
            return "the game is over: every pile is empty"
        pile, count = divmod(action, self.width)
        if count >= self.piles[pile]:
            return f"pile {LETTERS[pile]} holds {self.piles[pile]} stones, not {count + 1}"
        return None

    def apply(self, action: Any) -> None:
        if self.why_illegal(action) is not None:
            self._raise_illegal(action)
        pile, count = divmod(int(action), self.width)
        self.piles[pile] -= count + 1
        self.to_move = 1 - self.to_move

    def scores(self) -> list[int]:
        if any(self.piles):
            return [0, 0]
        winner = 1 - self.to_move  # the player who took the last stone
        return [int(seat == winner) for seat in (0, 1)]

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is not a move: actions are 0…{self.num_actions - 1}")
        pile, count = divmod(action, self.width)
        return f"{LETTERS[pile]}{count + 1}"

    def string_to_action(self, text: str) -> int:
        text = text.strip().lower()
        pile = LETTERS.find(text[:1]) if text else -1
        if not 0 <= pile < len(self.piles) or not text[1:].isdigit() or not 1 <= int(text[1:]) <= self.width:
            raise ValueError(f"{text!r} is not a move: a pile letter and how many stones to take (b3)")
        return pile * self.width + int(text[1:]) - 1

    def clone(self) -> NimGame:
        other = object.__new__(NimGame)
        other.__dict__.update(self.__dict__)
        other.piles = self.piles[:]
        return other

    def state_dict(self) -> dict[str, Any]:
        return {"piles": list(self.piles), "to_move": self.to_move}

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> NimGame:
        game = cls(options)
        start = cls.start(options)
        piles = int_list(state, "piles", len(start), 0, max(start))
        require(all(p <= s for p, s in zip(piles, start)), f"a pile holds more stones than it starts with ({start})")
        game.to_move = int_field(state, "to_move", 0, 1)
        require(game.to_move == 0 or piles != start, "player_1 cannot be to move before any stone is taken")
        game.piles = piles
        return game
