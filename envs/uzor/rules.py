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
from envs.core.game import Game, SnapshotError, require
from envs.core.notation import cell_name
from envs.uzor.common import (
    CHANCE_OUTCOMES, COLOURS, COPIES, DEAD_TAKE, DEAL, DEALT, DISCARD, EMPTY, FORK, GOAL, HAND, IDLE_LIMIT, MARKET,
    MOTIFS, OVER, PASS, PHASES, PLACE, REFILL, STONE, SUPPLY_MAX, TAKE, TILES, TYPES, ActionLayout, tile_name,
)
from envs.uzor.notation import NotationMixin
from envs.uzor.options import DEFAULTS, check_options
from envs.uzor.patterns import MAP_SIZE, laid_map_bytes
from envs.uzor.state import STATE_FIELDS, StateMixin, read_state
from envs.uzor.table import Geometry, TableMixin, geometry
from envs.uzor.turns import TurnsMixin, start_fields

__all__ = [
    "COLOURS", "COPIES", "DEAD_TAKE", "DISCARD", "EMPTY", "FORK", "HAND", "IDLE_LIMIT", "MARKET", "MOTIFS", "OVER",
    "PASS", "PHASES", "PLACE", "STATE_FIELDS", "STONE", "TAKE", "TILES", "TYPES", "Geometry", "UzorGame", "bits_of",
    "geometry", "tile_name",
]


class UzorGame(TableMixin, TurnsMixin, NotationMixin, StateMixin, Game):
    """The whole state of a game of Uzor (hidden parts included; the observer filters)."""

    NAME = "uzor_v0"
    OPTIONS = DEFAULTS
    NEUTRAL_OPTIONS = ("tiles", "goals")  # scripted chance
    STATE_KEYS = tuple(f.key for f in STATE_FIELDS)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        return check_options(options)

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        size = options["board_size"]
        return ActionLayout.count(size * size)

    MEMORY_OPTIONS = ("patterns", "board_size")

    @classmethod
    def memory_estimate_for(cls, options: dict[str, Any]) -> int:
        """A user's Map is laid on the table for the game (``laid_map_bytes``: up to about
        100 MB on the largest table); the standard Map is laid once per table size and shared
        by every game."""
        if options["patterns"] is None:
            return 0
        return laid_map_bytes(options["board_size"], options["patterns"])

    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        """Outcome ids 0…24 (a tile type drawn) and 25…39 (a pattern dealt as a goal)."""
        return CHANCE_OUTCOMES

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        """A bound on the player actions in a game: at most ``TILES - 1`` placements (every tile
        but the centre), each turn with one at most 3 actions (place, close or continue, take);
        and before each of them and after the last at most ``IDLE_LIMIT`` turns without a
        placement (the game ends at the start of the next), each at most 2 actions (discard,
        take)."""
        placements = min(TILES - 1, options["board_size"] ** 2 - 1)
        return 3 * placements + 2 * IDLE_LIMIT * (placements + 1)

    # ----- setup ----------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        """A new game at its first chance node (player_0's secret goal); ``rng`` is not used:
        the chance nodes are resolved by whoever plays them (the AEC env from its seeded
        generator, a search by the probabilities, a scripted option by the script)."""
        del rng
        geo = geometry(options["board_size"], options["patterns"])
        self.set_fields(options, start_fields(geo.cells))

    @classmethod
    def from_position(
        cls,
        options: dict[str, Any],
        table: dict[int, int],
        hands: list[list[int]],
        market: list[int],
        to_move: int = 0,
        goals: tuple[int, int] = (0, 1),
        discards: list[int] = (),
    ) -> "UzorGame":
        """A position for puzzles, tutorials and tests: open tiles ``{cell: type}`` on the
        table (the centre among them), both hands, the market (-1 for an empty slot), the
        player to move, both goals and the face-up discards at the bottom of the supply (in
        the order they will be drawn); every other tile is face down in the supply. The turn
        starts as the rules start any turn. (Unlike a snapshot, a position need not be one a
        game reaches: a test may leave more than 59 tiles in the supply, or lay tiles apart
        from the centre's; such a position's snapshot is refused.)"""
        options = cls.resolve_options(dict(options))
        geo = geometry(options["board_size"], options["patterns"])
        counts = [0] * TYPES
        for t in list(table.values()) + list(hands[0]) + list(hands[1]) + list(discards) + [x for x in market if x >= 0]:
            counts[t] += 1
        if any(x > COPIES for x in counts):
            raise ValueError(f"a position may hold at most {COPIES} tiles of each type")
        board = [EMPTY] * geo.cells
        for cell, t in table.items():
            board[cell] = t
        if board[geo.centre] == EMPTY:
            raise ValueError("a position needs a tile in the centre cell")
        game = cls.assemble(options, start_fields(
            geo.cells, board=board, hands=[sorted(hands[0]), sorted(hands[1])], market=list(market),
            facedown=[COPIES - x for x in counts], discards=list(discards), goals=list(goals), phase=PLACE,
        ))
        game._start_turn(to_move, False)
        return game

    # ----- snapshots ------------------------------------------------------------------------
    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "UzorGame":
        geo = geometry(options["board_size"], options["patterns"])
        game = cls.assemble(options, read_state(options, state, geo))
        check_position(game)
        return game


def _check_joined(game: UzorGame) -> None:
    """Every tile is placed next to a tile on the table (stones stay on it): the tiles form one
    group, side by side, with the centre's. A tile outside it is named."""
    geo, board = game.geo, game.board
    tiles = sum(1 << x for x, v in enumerate(board) if v != EMPTY)
    group = 1 << geo.centre
    while True:
        grown = group | geo.neighbours(group) & tiles
        if grown == group:
            break
        group = grown
    apart = tiles & ~group
    if apart:
        cell = (apart & -apart).bit_length() - 1
        raise SnapshotError(
            f"snapshot field 'board': the tile in {cell_name(*divmod(cell, geo.size))} is not joined to the centre's "
            "tile by tiles side by side (every tile is placed next to one on the table)"
        )


def check_position(game: UzorGame) -> None:
    """What the phase asks of an assembled position (a snapshot's): the setup dealt so far in
    its order; after it, a tile in the centre, a supply of at most 59 tiles, the turn's flags,
    hand sizes and fork as the turn so far leaves them, a turn-start phase as the rules give
    it; the scripted chance options followed. A ``SnapshotError`` names the field at fault."""
    phase, board, hands, market, geo = game.phase, game.board, game.hands, game.market, game.geo
    name = PHASES[phase]
    dealt_goals = sum(g is not None for g in game.goals)
    on_table = sum(v != EMPTY for v in board)
    supply = sum(game.facedown) + len(game.discards)
    scripted = game.options["tiles"]
    if scripted is not None:
        total = sum(game.facedown)
        tail = [0] * TYPES
        for m, c in scripted[TILES - total:]:
            tail[m * 5 + c] += 1
        require(tail == game.facedown,
                f"snapshot field 'facedown' is not the last {total} tiles of the scripted 'tiles' order")
    if phase in (GOAL, DEAL):
        require(dealt_goals < 2 if phase == GOAL else dealt_goals == 2,
                f"snapshot field 'goals': {dealt_goals} dealt in phase {name!r}")
        require(not game.closed and game.points == [0, 0] and game.idle == 0 and game.last_cell < 0
                and not (game.repeated or game.continued or game.placed) and not game.fork and game.pending < 0
                and game.to_move == 0 and not game.discards,
                f"snapshot phase {name!r} is the setup: no turn has begun (fields 'closed', 'scores', 'idle', "
                "'last_cell', 'repeated', 'continued', 'placed', 'fork', 'pending', 'to_move', 'discards')")
        dealt = len(hands[0]) + len(hands[1]) + sum(x >= 0 for x in market) + on_table
        require(phase == DEAL or dealt == 0, "snapshot field 'phase' is 'goal' (before the deal), yet tiles are dealt "
                "(fields 'hands', 'market', 'board')")
        expected = (min(dealt, HAND), min(max(dealt - HAND, 0), HAND))
        filled = max(dealt - 2 * HAND, 0)
        require(on_table == 0 and (len(hands[0]), len(hands[1])) == expected
                and all((x >= 0) == (m < filled) for m, x in enumerate(market)),
                f"snapshot phase 'deal': the {dealt} tiles dealt are not the deal's first {dealt} (fields 'hands', "
                "'market', 'board': player_0's hand, then player_1's, then market slots 0…4, then the centre)")
        return
    require(dealt_goals == 2, f"snapshot field 'goals': both goals are dealt before phase {name!r}")
    require(phase == OVER or game.idle < IDLE_LIMIT,
            f"snapshot field 'idle' is {game.idle}: after {IDLE_LIMIT} turns without a placement the game is over")
    require(board[geo.centre] != EMPTY, "snapshot field 'board' has no tile in its centre cell")
    _check_joined(game)
    require(supply <= SUPPLY_MAX,
            f"snapshot supply holds {supply} tiles (fields 'facedown' and 'discards'); after the deal at most {SUPPLY_MAX}")
    if phase == REFILL:
        require(0 <= game.pending < MARKET and market[game.pending] == EMPTY and any(game.facedown),
                "snapshot phase 'refill': field 'pending' must name an empty market slot, with face-down tiles to draw")
    else:
        require(game.pending < 0, f"snapshot field 'pending' names a slot outside phase 'refill' (phase {name!r})")
    empty_slots = [m for m, x in enumerate(market) if x < 0 and m != game.pending]
    require(not (supply and empty_slots), "snapshot field 'market' has an empty slot while the supply still holds tiles")
    mover = hands[game.to_move]
    if phase in (FORK, TAKE, DEAD_TAKE):
        require(len(mover) < HAND, f"snapshot fields 'hands' and 'to_move': player_{game.to_move}, to move, holds "
                f"{len(mover)} tiles in phase {name!r}, after a placement or discard (at most {HAND - 1})")
    require(not game.continued or game.placed, "snapshot field 'continued' is true without a placement this turn")
    if phase in (FORK, TAKE):
        require(game.placed, f"snapshot phase {name!r} without a placement this turn (field 'placed')")
    if phase == DEAD_TAKE:
        require(not game.placed, "snapshot phase 'dead_take' after a placement this turn (field 'placed')")
    if phase == FORK:
        last = game.last_cell
        require(last >= 0 and board[last] < STONE, "snapshot phase 'fork' without an open last placed tile (field 'last_cell')")
        expected_fork = game.completions(last, board[last])
        require(game.fork and game.fork == expected_fork, "snapshot field 'fork' is not what the last placement completed")
    else:
        require(not game.fork, f"snapshot field 'fork' is set outside the fork phase (phase {name!r})")
    if phase in (PLACE, DISCARD, PASS, OVER):
        require(not game.placed and not game.continued,
                f"snapshot field 'phase' is {name!r}, a turn's start, after a placement (fields 'placed', 'continued')")
        check = game.clone()
        check._start_turn(game.to_move, game.repeated)
        require(check.phase == phase,
                f"snapshot field 'phase' is {name!r}, not what the rules give here ({PHASES[check.phase]!r})")
