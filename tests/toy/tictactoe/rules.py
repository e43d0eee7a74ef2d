"""Tic-tac-toe on a ``size`` × ``size`` board (3 or 4): players take turns marking an empty
square (``player_0`` x, ``player_1`` o); three of one's marks in a row, a column or a diagonal
wins (1 point to 0), a full board without one is a draw. Perfect information, no chance.

Action ``r * size + c`` marks row ``r``, column ``c``; notation: column letter, row number from 1
(``b2``).
"""

from __future__ import annotations

from typing import Any

from envs.core.game import TERMINAL, Game, IllegalActionError, int_field, int_list, require
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_int

EMPTY = -1
LINE = 3  # marks in a row that win


def lines_of(size: int) -> list[tuple[int, ...]]:
    """Every run of three squares across, down or diagonal."""
    found = []
    for r in range(size):
        for c in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(LINE)]
                if all(0 <= y < size and 0 <= x < size for y, x in cells):
                    found.append(tuple(y * size + x for y, x in cells))
    return found


class TicTacToeGame(Game):
    NAME = "tictactoe_v0"
    OPTIONS = {"size": 3}
    STATE_KEYS = ("board", "to_move")

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "size", 3, 4)
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return options["size"] ** 2

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        return options["size"] ** 2

    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        self.size = options["size"]
        self.lines = lines_of(self.size)
        self.board = [EMPTY] * self.size ** 2
        self.to_move = 0

    def winner(self) -> int | None:
        for line in self.lines:
            first = self.board[line[0]]
            if first != EMPTY and all(self.board[x] == first for x in line):
                return first
        return None

    def current_player(self) -> int:
        if self.winner() is not None or EMPTY not in self.board:
            return TERMINAL
        return self.to_move

    def legal_actions(self) -> list[int]:
        if self.current_player() == TERMINAL:
            return []
        return [x for x, owner in enumerate(self.board) if owner == EMPTY]

    def why_illegal(self, action: Any) -> str | None:
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        if not 0 <= action < self.num_actions:
            return f"action {action} is not a square: actions are 0…{self.num_actions - 1}"
        if self.current_player() == TERMINAL:
            return "the game is over"
        if self.board[action] != EMPTY:
            return f"{self.action_to_string(action)} is marked already"
        return None

    def apply(self, action: Any) -> None:
        if self.why_illegal(action) is not None:
            self._raise_illegal(action)
        self.board[int(action)] = self.to_move
        self.to_move = 1 - self.to_move

    def scores(self) -> list[int]:
        winner = self.winner()
        return [int(seat == winner) for seat in (0, 1)]

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is not a square: actions are 0…{self.num_actions - 1}")
        return cell_name(*divmod(action, self.size))

    def string_to_action(self, text: str) -> int:
        row, col = parse_cell(text, self.size, self.size)
        return row * self.size + col

    def clone(self) -> TicTacToeGame:
        other = object.__new__(TicTacToeGame)
        other.__dict__.update(self.__dict__)
        other.board = self.board[:]
        return other

    def state_dict(self) -> dict[str, Any]:
        return {"board": list(self.board), "to_move": self.to_move}

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> TicTacToeGame:
        game = cls(options)
        board = int_list(state, "board", game.size ** 2, EMPTY, 1)
        to_move = int_field(state, "to_move", 0, 1)
        require(board.count(0) - board.count(1) == to_move, "player_0 moves first: it has as many marks as "
                "player_1 when player_0 is to move, one more otherwise")
        game.board, game.to_move = board, to_move
        wins = {game.board[line[0]] for line in game.lines if game.board[line[0]] != EMPTY
                and all(game.board[x] == game.board[line[0]] for x in line)}
        require(len(wins) <= 1, "both players cannot have three in a row")
        return game
