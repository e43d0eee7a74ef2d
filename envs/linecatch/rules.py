"""Linecatch rules engine: blacken squares, catch lines (the rules: ``docs/linecatch.md``).

Two players blacken white squares of a grid in turn. Whoever blackens the last white square of
a line (a row, a column, and in pro mode a diagonal of 3 or more squares) catches it, scores
its length and moves again while white squares remain. No chance, nothing hidden.

Pure Python, no PettingZoo. The hot path (``legal_actions``/``apply``) works on flat lists and
a per-geometry table of lines, so a move costs a handful of list operations. The position is
``black``, ``marks``, ``points`` and ``to_move``; ``remaining`` (white squares per line) and
``whites`` follow from ``black`` and are kept for speed (``_set_position`` derives them).
"""

from __future__ import annotations

from typing import Any

from envs.core.game import TERMINAL, Game, IllegalActionError
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_bool, check_int
from envs.linecatch.geometry import NO_MARK, Geometry, geometry
from envs.linecatch.snapshots import STATE_FIELDS, read_state

__all__ = ["NO_MARK", "Geometry", "LinecatchGame", "geometry"]

class LinecatchGame(Game):
    """State: which squares are black, who last caught across each square, the scores."""

    NAME = "linecatch_v0"
    STATE_KEYS = STATE_FIELDS
    OPTIONS = {"rows": 5, "cols": 5, "pro": False}

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "rows", 3, 12)
        check_int(options, "cols", 3, 12)
        check_bool(options, "pro")
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return options["rows"] * options["cols"]

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        """Every move blackens one square: a game has exactly ``rows*cols`` moves."""
        return options["rows"] * options["cols"]

    def __init__(self, options: dict[str, Any], rng=None):
        # No chance in Linecatch: the engine never reaches a chance node, and rng (the common
        # constructor's argument) is unused.
        self.options = options
        self.geo = geometry(options["rows"], options["cols"], options["pro"])
        size = self.geo.size
        self._set_position([0] * size, [NO_MARK] * size, [0, 0], 0)

    def _set_position(self, black: list[int], marks: list[int], points: list[int], to_move: int) -> None:
        """The one place a position is set (a new game, a snapshot): the lists are taken as
        they are, ``remaining`` and ``whites`` derived from ``black``."""
        self.black = black
        self.marks = marks
        self.points = points
        self.to_move = to_move
        if any(black):
            self.remaining = [sum(1 for cell in line if not black[cell]) for line in self.geo.lines]
        else:  # a new game: every line all white (the common case, kept cheap)
            self.remaining = list(self.geo.line_length)
        self.whites = len(black) - sum(black)

    # ----- state interface ----------------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move if self.whites else TERMINAL

    def legal_actions(self) -> list[int]:
        return [cell for cell, b in enumerate(self.black) if not b]

    def why_illegal(self, action: Any) -> str | None:
        try:
            cell = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        if not 0 <= cell < self.geo.size:
            return f"action {cell} is off the board: squares are 0…{self.geo.size - 1}"
        if not self.whites:
            return "the game is over: every square is black"
        if self.black[cell]:
            return f"square {self._name(cell)} is already black"
        return None

    def apply(self, action: Any) -> None:
        """Blacken the square: every line it completes is caught by the mover (its length
        scored, its squares marked); a move that caught nothing passes the turn."""
        cell = action if type(action) is int else self._check_action(action)
        if not (0 <= cell < self.geo.size) or self.black[cell] or not self.whites:
            self._raise_illegal(cell)
        geo, player = self.geo, self.to_move
        self.black[cell] = 1
        self.whites -= 1
        remaining = self.remaining
        gained = 0
        for line in geo.cell_lines[cell]:
            remaining[line] -= 1
            if remaining[line] == 0:
                gained += geo.line_length[line]
                marks = self.marks
                for square in geo.lines[line]:
                    marks[square] = player
        if gained:
            self.points[player] += gained
        else:
            self.to_move = 1 - player

    def catch_points(self, cell: int) -> int:
        """The points blackening white square ``cell`` would catch now (a query: nothing
        changes): the lengths of the lines whose last white square it is."""
        remaining, lengths = self.remaining, self.geo.line_length
        return sum(lengths[line] for line in self.geo.cell_lines[cell] if remaining[line] == 1)

    def black_mask(self) -> int:
        """The black squares as a bit set (bit ``r*cols + c``): the solver's key."""
        return sum(1 << cell for cell, b in enumerate(self.black) if b)

    def scores(self) -> list[int]:
        return list(self.points)

    # ----- notation -------------------------------------------------------------------------------
    def _name(self, cell: int) -> str:
        return cell_name(*divmod(cell, self.geo.cols))

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < self.geo.size:
            raise ValueError(f"action {action} is off the board: squares are 0…{self.geo.size - 1}")
        return self._name(action)

    def string_to_action(self, text: str) -> int:
        row, col = parse_cell(text, self.geo.rows, self.geo.cols)
        return row * self.geo.cols + col

    # ----- copies and snapshots ---------------------------------------------------------------------
    def clone(self) -> "LinecatchGame":
        # Written out: the fastest copy (search clones a state per simulation); a test checks
        # that it copies every attribute and shares no list.
        other = object.__new__(LinecatchGame)
        other.options = self.options
        other.geo = self.geo
        other.black = self.black[:]
        other.marks = self.marks[:]
        other.remaining = self.remaining[:]
        other.points = self.points[:]
        other.to_move = self.to_move
        other.whites = self.whites
        return other

    def state_dict(self) -> dict[str, Any]:
        return {
            "black": list(self.black),
            "marks": list(self.marks),
            "scores": list(self.points),
            "to_move": self.to_move,
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "LinecatchGame":
        """A game at the snapshot's position, every field checked by name and the position
        against what a game can leave behind (``envs.linecatch.snapshots``)."""
        game = cls(options)
        game._set_position(*read_state(game.geo, state))
        return game
