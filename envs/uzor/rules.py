"""Uzor rules engine: motif/colour tiles, a face-up market, and the Map of patterns.

``UzorGame`` is put together from parts a reader can take one at a time (mixins, so the engine
stays one object with the suite's engine interface):

* ``envs.uzor.common`` — tiles, phases, the action numbering;
* ``envs.uzor.options`` — the options and their checks;
* ``envs.uzor.table`` — the table as bitboards: where a tile may go, what a placement completes;
* ``envs.uzor.turns`` — the turn machine: legal actions, what each does, where a turn goes;
* ``envs.uzor.notation`` — why an action is refused, and the move notation;
* ``envs.uzor.state`` — the declared state fields: clone, snapshot, validation;
* here — the setup (the deal), positions for puzzles and tests, and the snapshot's checks
  that need the assembled position.
"""

from __future__ import annotations

from typing import Any

from envs.core.bits import set_bits as bits_of
from envs.core.game import Game, require
from envs.uzor.common import (
    COLOURS,
    COPIES,
    DEAD_TAKE,
    DEALT,
    DISCARD,
    EMPTY,
    FORK,
    HAND,
    IDLE_LIMIT,
    MARKET,
    MOTIFS,
    OVER,
    PASS,
    PHASES,
    PLACE,
    STONE,
    TAKE,
    TILES,
    TYPES,
    ActionLayout,
    tile_name,
)
from envs.uzor.notation import NotationMixin
from envs.uzor.options import DEFAULTS, check_options
from envs.uzor.patterns import MAP_SIZE
from envs.uzor.state import STATE_FIELDS, StateMixin, read_state
from envs.uzor.table import Geometry, TableMixin, geometry
from envs.uzor.turns import TurnsMixin

__all__ = [
    "COLOURS", "COPIES", "DEAD_TAKE", "DISCARD", "EMPTY", "FORK", "HAND", "IDLE_LIMIT", "MARKET", "MOTIFS", "OVER",
    "PASS", "PHASES", "PLACE", "STATE_FIELDS", "STONE", "TAKE", "TILES", "TYPES", "Geometry", "UzorGame", "bits_of",
    "geometry", "tile_name",
]


class UzorGame(TableMixin, TurnsMixin, NotationMixin, StateMixin, Game):
    """The whole state of a game of Uzor (hidden parts included; the observer filters)."""

    NAME = "uzor_v0"
    OPTIONS = DEFAULTS

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        return check_options(options)

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        size = options["board_size"]
        return ActionLayout.count(size * size)

    # ----- setup ----------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        if options["tiles"] is not None:
            order = [m * 5 + c for m, c in options["tiles"]]
        else:
            if rng is None:
                raise ValueError("UzorGame needs an rng (random.Random) when 'tiles' are not scripted")
            order = [t for t in range(TYPES) for _ in range(COPIES)]
            rng.shuffle(order)
        if options["goals"] is not None:
            goals = list(options["goals"])
        else:
            if rng is None:
                raise ValueError("UzorGame needs an rng (random.Random) when 'goals' are not scripted")
            goals = rng.sample(range(MAP_SIZE), 2)
        while True:
            self._deal(options, order, goals)
            if self.phase == PLACE:
                break
            # player_0 cannot place: all 75 tiles are shuffled and dealt again, the goals kept
            # (a scripted order that cannot place is refused by check_options).
            order = [t for t in range(TYPES) for _ in range(COPIES)]
            rng.shuffle(order)

    def _deal(self, options: dict[str, Any], order: list[int], goals: list[int]) -> None:
        """The deal of ``order`` (t0 … t74): hands t0…t4 and t5…t9, market t10…t14, the centre
        t15, the supply t16…t74 (top first); player_0's turn begins."""
        geo = geometry(options["board_size"], options["patterns"])
        board = [EMPTY] * geo.cells
        board[geo.centre] = order[DEALT - 1]
        self.set_fields(options, fresh_fields(
            board=board, hands=[sorted(order[:HAND]), sorted(order[HAND:2 * HAND])],
            market=order[2 * HAND:2 * HAND + MARKET], supply=order[DEALT:], goals=goals,
        ))
        self._start_turn(0, False)

    @classmethod
    def from_position(
        cls,
        options: dict[str, Any],
        table: dict[int, int],
        hands: list[list[int]],
        market: list[int],
        to_move: int = 0,
        goals: tuple[int, int] = (0, 1),
        supply: list[int] | None = None,
    ) -> "UzorGame":
        """A position for puzzles, tutorials and tests: open tiles ``{cell: type}`` on the
        table (the centre among them), both hands, the market (-1 for an empty slot), the
        player to move and both goals. The supply is ``supply`` (top first) or, by default, the
        tiles left over in type order. The turn starts as the rules start any turn."""
        options = cls.resolve_options(dict(options))
        geo = geometry(options["board_size"], options["patterns"])
        counts = [0] * TYPES
        for t in list(table.values()) + hands[0] + hands[1] + [x for x in market if x >= 0]:
            counts[t] += 1
        if any(x > COPIES for x in counts):
            raise ValueError(f"a position may hold at most {COPIES} tiles of each type")
        if supply is None:
            supply = [t for t in range(TYPES) for _ in range(COPIES - counts[t])]
        for t in supply:
            counts[t] += 1
        if counts != [COPIES] * TYPES:
            raise ValueError(f"a position holds every tile exactly once: {COPIES} of each type in all")
        board = [EMPTY] * geo.cells
        for cell, t in table.items():
            board[cell] = t
        if board[geo.centre] == EMPTY:
            raise ValueError("a position needs a tile in the centre cell")
        game = cls.assemble(options, fresh_fields(
            board=board, hands=[sorted(hands[0]), sorted(hands[1])], market=list(market), supply=list(supply),
            goals=list(goals),
        ))
        game._start_turn(to_move, False)
        return game

    # ----- snapshots ------------------------------------------------------------------------
    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "UzorGame":
        geo = geometry(options["board_size"], options["patterns"])
        fields = read_state(options, state, geo)
        game = cls.assemble(options, fields)
        phase, board, last_cell = game.phase, game.board, game.last_cell
        phase_name = PHASES[phase]
        if phase in (FORK, TAKE, DEAD_TAKE):
            require(game.placed or phase == DEAD_TAKE, f"snapshot phase {phase_name!r} without a placement this turn")
        if phase == FORK:
            require(last_cell >= 0 and board[last_cell] < STONE, "snapshot fork without an open last placed tile")
            expected = game.completions(last_cell, board[last_cell])
            require(game.fork and game.fork == expected, "snapshot 'fork' is not what the last placement completed")
        else:
            require(not game.fork, "snapshot has a 'fork' outside the fork phase")
        if phase in (PLACE, DISCARD, PASS):
            require(not game.placed and not game.continued, "snapshot turn-start phase after a placement")
            check = game.clone()
            check._start_turn(game.to_move, game.repeated)
            require(check.phase == phase,
                    f"snapshot phase {phase_name!r} is not what the rules give here ({PHASES[check.phase]!r})")
        return game


def fresh_fields(**given: Any) -> dict[str, Any]:
    """The state fields of a turn about to start, no pattern closed yet: ``given`` (at least
    board, hands, market, supply and goals) over the defaults."""
    fields = {
        "faceup": 0, "points": [0, 0], "closed": [], "to_move": 0, "phase": PLACE, "repeated": False,
        "continued": False, "placed": False, "fork": {}, "last_cell": -1, "idle": 0,
    }
    fields.update(given)
    return fields

