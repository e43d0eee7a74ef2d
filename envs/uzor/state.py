"""Uzor's state as declared fields: the copy, the snapshot and its validation.

``STATE_FIELDS`` lists every attribute that makes a position (with its snapshot key and its
kind); ``clone`` and ``state_dict`` are generated from it, and ``assemble`` is the one way a
state is put together from such fields (a deal, a snapshot, a position for a puzzle): it sets
them and derives the rest (the table's bitboards and counts, the crossed-out patterns).
``read_state`` validates a snapshot's state explicitly, field by field, and returns the fields.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from envs.core.game import int_field, int_list, require, short_repr
from envs.uzor.common import COPIES, EMPTY, HAND, IDLE_LIMIT, MARKET, PHASES, STONE, TYPES, tile_name
from envs.uzor.patterns import MAP_SIZE


def ints(state: dict, key: str, length: int, low: int, high: int) -> list[int]:
    """``envs.core.game.int_list`` with a fast path: a valid list is checked in one pass; only
    an invalid one goes through the core's check, for its message."""
    value = state.get(key)
    if type(value) is list and len(value) == length and all(type(x) is int and low <= x <= high for x in value):
        return list(value)
    return int_list(state, key, length, low, high)


class Field(NamedTuple):
    attr: str  # the engine's attribute
    key: str  # the snapshot's key
    kind: str  # "value", "list", "hands", "goals", "phase", "closed" or "fork": how it is copied and written


STATE_FIELDS = (
    Field("board", "board", "list"),  # a code per cell (envs.uzor.common)
    Field("hands", "hands", "hands"),  # two lists of tile types, sorted
    Field("market", "market", "list"),  # a type or EMPTY per slot
    Field("facedown", "facedown", "list"),  # the supply's face-down tiles: a count per type (no order)
    Field("discards", "discards", "list"),  # its face-up discards at the bottom, in the order drawn
    Field("goals", "goals", "goals"),  # the secret goals (pattern numbers), seat order; None: not dealt
    Field("points", "scores", "list"),
    Field("closed", "closed", "closed"),  # (player, pattern, cells) per closed pattern, in order
    Field("to_move", "to_move", "value"),
    Field("phase", "phase", "phase"),
    Field("repeated", "repeated", "value"),  # this turn is a repeated turn
    Field("continued", "continued", "value"),  # the player to move has continued this turn
    Field("placed", "placed", "value"),  # the player to move has placed this turn
    Field("fork", "fork", "fork"),  # pattern -> the instance CLOSE would turn to stones
    Field("last_cell", "last_cell", "value"),  # -1 before the first placement
    Field("idle", "idle", "value"),  # turns in a row without a placement
    Field("pending", "pending", "value"),  # the market slot a REFILL chance node fills (-1: none)
)
# Derived from ``board`` by ``rebuild_table`` and copied by ``clone`` (ints are shared).
TABLE_LISTS = ("codes", "motif_bb", "colour_bb", "nb_motif", "nb_colour", "on_table", "outside_motif", "outside_colour")

_COPIED = tuple(f.attr for f in STATE_FIELDS if f.kind in ("list", "closed", "goals")) + TABLE_LISTS
_WRITE = {
    "value": lambda v: v,
    "list": list,
    "hands": lambda v: [list(h) for h in v],
    "goals": lambda v: [g for g in v if g is not None],  # those dealt (player_0's first)
    "phase": lambda v: PHASES[v],
    "closed": lambda v: [[p, k, list(cells)] for p, k, cells in v],
    "fork": lambda v: [[k, list(cells)] for k, cells in sorted(v.items())],
}


def _clone_function():
    """``clone``, written out from the declared fields (as fast as a hand-written copy): the
    state's dict copied, then every list-like field copied one level down (the two ``hands``
    two levels)."""
    lines = [
        "def clone(self):",
        "    other = object.__new__(type(self))",
        "    other.__dict__.update(self.__dict__)  # ints, flags and the caches (never changed in place) are shared",
    ]
    lines += [f"    other.{name} = self.{name}[:]" for name in _COPIED]
    for f in STATE_FIELDS:
        if f.kind == "hands":
            lines.append(f"    other.{f.attr} = [self.{f.attr}[0][:], self.{f.attr}[1][:]]  # one per seat")
        elif f.kind == "fork":
            lines.append(f"    other.{f.attr} = dict(self.{f.attr})")
    lines.append("    return other")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)
    return namespace["clone"]


class StateMixin:
    """``clone``, ``state_dict`` and ``assemble`` for ``UzorGame``, from ``STATE_FIELDS``."""

    clone = _clone_function()

    def state_dict(self) -> dict[str, Any]:
        return {f.key: _WRITE[f.kind](getattr(self, f.attr)) for f in STATE_FIELDS}

    @classmethod
    def assemble(cls, options: dict[str, Any], fields: dict[str, Any]):
        """A state from every field of ``STATE_FIELDS`` (by attribute), the rest derived."""
        game = object.__new__(cls)
        game.set_fields(options, fields)
        return game

    def set_fields(self, options: dict[str, Any], fields: dict[str, Any]) -> None:
        """Make this the state of ``fields`` (every field of ``STATE_FIELDS``, by attribute):
        set them and derive the rest (the table's bitboards and counts, the crossed-out
        patterns)."""
        from envs.uzor.table import geometry

        missing = [f.attr for f in STATE_FIELDS if f.attr not in fields]
        extra = sorted(set(fields) - {f.attr for f in STATE_FIELDS})
        if missing or extra:
            raise TypeError(f"a state needs exactly the state fields (missing {missing}, unknown {extra})")
        self.options = options
        self.geo = geometry(options["board_size"], options["patterns"])
        self.__dict__.update(fields)
        self.crossed = sum(1 << k for _, k, _ in self.closed)
        self.rebuild_table()


def read_state(options: dict[str, Any], state: dict[str, Any], geo) -> dict[str, Any]:
    """The fields of a snapshot's ``state``, each checked on its own and against the others
    where a count says so: every tile there exactly once, stones explained by closed
    instances, scores equal to the recount, goals as the options allow. A ``SnapshotError``
    names the field at fault. (What the phase asks of the position — the deal so far, the
    fork, the turn — is checked on the assembled position by ``UzorGame.from_state_dict``.)"""
    n = geo.cells
    phase_name = state.get("phase")
    require(phase_name in PHASES,
            f"snapshot field 'phase' is {short_repr(phase_name)}; it must be one of {', '.join(PHASES)}")
    tiles = _read_tiles(state, n)
    goals = _read_goals(options, state)
    closed, recount = _read_closed(state, geo, tiles["board"], goals)
    points = ints(state, "scores", 2, 0, 10**6)
    require(points == recount, f"snapshot field 'scores' {points} differs from the recount of closed patterns {recount}")
    flags = {}
    for key in ("repeated", "continued", "placed"):
        require(isinstance(state.get(key), bool), f"snapshot field {key!r} must be true or false")
        flags[key] = state[key]
    last_cell = int_field(state, "last_cell", -1, n - 1)
    require(last_cell < 0 or tiles["board"][last_cell] != EMPTY, "snapshot field 'last_cell' is an empty cell")
    fork_raw = state.get("fork")
    require(isinstance(fork_raw, list), "snapshot field 'fork' must be a list")
    fork = {}
    for entry in fork_raw:
        require(isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], list),
                f"snapshot field 'fork': entry {short_repr(entry)} must be [pattern, cells]")
        k = int_field({"fork": entry[0]}, "fork", 0, MAP_SIZE - 1)
        fork[k] = tuple(ints({"fork": entry[1]}, "fork", len(entry[1]), 0, n - 1))
    return {
        **tiles, "goals": goals, "points": points, "closed": closed,
        "to_move": int_field(state, "to_move", 0, 1), "phase": PHASES.index(phase_name), **flags,
        "fork": fork, "last_cell": last_cell, "idle": int_field(state, "idle", 0, IDLE_LIMIT),
        "pending": int_field(state, "pending", -1, MARKET - 1),
    }


def _read_tiles(state: dict[str, Any], n: int) -> dict[str, list]:
    """Where the tiles are: ``board``, ``hands``, ``market``, ``facedown``, ``discards``; every
    tile there exactly once."""
    board = ints(state, "board", n, EMPTY, STONE + TYPES - 1)
    hands = state.get("hands")
    require(isinstance(hands, list) and len(hands) == 2, "snapshot field 'hands' must hold two hands")
    hands = [ints({"hands": h}, "hands", len(h) if isinstance(h, list) else -1, 0, TYPES - 1) for h in hands]
    for p, h in enumerate(hands):
        require(len(h) <= HAND, f"snapshot field 'hands': player_{p}'s holds {len(h)} tiles; at most {HAND}")
        require(h == sorted(h), f"snapshot field 'hands': player_{p}'s is not sorted by tile type")
    market = ints(state, "market", MARKET, EMPTY, TYPES - 1)
    facedown = ints(state, "facedown", TYPES, 0, COPIES)
    discards = state.get("discards")
    discards = ints(state, "discards", len(discards) if isinstance(discards, list) else -1, 0, TYPES - 1)
    counts = list(facedown)
    for v in board:
        if v >= 0:
            counts[v % STONE] += 1
    for t in hands[0] + hands[1] + discards + [x for x in market if x >= 0]:
        counts[t] += 1
    for t in range(TYPES):
        require(
            counts[t] == COPIES,
            f"snapshot holds {counts[t]} tiles {tile_name(t)} across 'board', 'hands', 'market', 'facedown' and "
            f"'discards'; there are exactly {COPIES}",
        )
    return {"board": board, "hands": hands, "market": market, "facedown": facedown, "discards": discards}


def _read_goals(options: dict[str, Any], state: dict[str, Any]) -> list[int | None]:
    """The secret goals dealt so far (``None`` for one still to deal), as the options allow."""
    dealt = state.get("goals")
    require(isinstance(dealt, list) and len(dealt) <= 2,
            "snapshot field 'goals' must list the secret goals dealt so far (player_0's first): at most 2")
    dealt = ints(state, "goals", len(dealt), 0, MAP_SIZE - 1)
    require(len(set(dealt)) == len(dealt), "snapshot field 'goals': the two goals must be different patterns")
    if options["goals"] is not None:
        require(dealt == list(options["goals"])[:len(dealt)], "snapshot field 'goals' differs from the scripted 'goals' option")
    return dealt + [None] * (2 - len(dealt))


def _read_closed(state: dict[str, Any], geo, board: list[int], goals: list[int | None]) -> tuple[list, list[int]]:
    """The closed patterns (player, pattern, cells), each an instance on stones no other
    closed pattern uses, every stone explained by one; and the points they give each seat."""
    n = geo.cells
    closed_raw = state.get("closed")
    require(isinstance(closed_raw, list), "snapshot field 'closed' must be a list")
    closed = []
    crossed = stones = 0
    recount = [0, 0]
    for entry in closed_raw:
        require(
            isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], list),
            f"snapshot field 'closed': entry {short_repr(entry)} must be [player, pattern, cells]",
        )
        p = int_field({"closed": entry[0]}, "closed", 0, 1)
        k = int_field({"closed": entry[1]}, "closed", 0, MAP_SIZE - 1)
        cells = tuple(ints({"closed": entry[2]}, "closed", len(entry[2]), 0, n - 1))
        require(not crossed >> k & 1, f"snapshot field 'closed' closes pattern {k} twice")
        crossed |= 1 << k
        require(list(cells) == sorted(cells) and geo.map.is_instance(cells, k),
                f"snapshot field 'closed': cells {short_repr(list(cells))} are not an instance of pattern {k} "
                "(cells in ascending order)")
        for x in cells:
            require(board[x] >= STONE, f"snapshot field 'closed': pattern {k} was closed but cell {x} is not a stone")
            require(not stones >> x & 1, f"snapshot field 'closed' closes cell {x} twice")
            stones |= 1 << x
        require(goals[p] is not None, f"snapshot field 'closed': player_{p} closed a pattern before the goals were dealt")
        recount[p] += geo.map.points[k] * (2 if goals[p] == k else 1)
        closed.append((p, k, cells))
    for x, v in enumerate(board):
        if v >= STONE:
            require(stones >> x & 1, f"snapshot field 'board': cell {x} is a stone that no closed pattern explains")
    return closed, recount
