"""Uzor rules engine (``../shared/rules/uzor.md``): motif/colour tiles and the Map of patterns.

The table is kept twice: ``board`` (one int per cell, for pictures and snapshots) and
bitboards (Python ints, bit ``r*B + c``): the open tiles, the stones, and the open tiles of
each motif and of each colour. Where a tile may go is a handful of shifts of those bitboards;
a placement looks for patterns only among the precomputed instances through its cell.

Cell codes in ``board``: ``EMPTY`` (-1), an open tile's type ``motif*5 + colour`` (0…24), or a
stone ``STONE + type`` (25…49: the face-down tile remembers what it was, as every player does).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Any

from envs.core.bits import set_bits as bits_of
from envs.core.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    OptionError,
    int_field,
    int_list,
    require,
)
from envs.core.notation import cell_name, parse_cell
from envs.core.options import check_int, check_int_pairs
from envs.uzor.patterns import (
    ANY,
    DIFF_COLOURS,
    HOLLOW,
    IDENTICAL,
    MAP_SIZE,
    SAME_COLOUR,
    SAME_EITHER,
    SAME_MOTIF,
    check_map,
    compiled,
    select,
)

MOTIFS = ("cedar", "sun", "wave", "bird", "star")
COLOURS = ("crimson", "azure", "emerald", "amber", "ivory")
TYPES = 25
COPIES = 3
TILES = TYPES * COPIES
HAND = 5
MARKET = 5
EMPTY = -1
STONE = 25
IDLE_LIMIT = 20  # the game ends when none of the last 20 turns had a placement

PLACE, FORK, TAKE, DISCARD, DEAD_TAKE, PASS, OVER = range(7)
_VERSIONS = itertools.count(1)  # table versions, unique in the process (observers cache by them)
PHASES = ("place", "fork", "take", "discard", "dead_take", "pass", "over")


def tile_name(t: int) -> str:
    return f"{MOTIFS[t // 5]}/{COLOURS[t % 5]}"


def _check_tiles(options: dict[str, Any]) -> tuple[tuple[int, int], ...] | None:
    out = check_int_pairs(
        options, "tiles", TILES, 0, 4, plural=f"(motif, colour) pairs (all {TILES} tiles)", entry="tile",
        rule="each tile is a pair (motif 0…4, colour 0…4)",
    )
    if out is None:
        return None
    counts: dict[tuple[int, int], int] = {}
    for pair in out:
        counts[pair] = counts.get(pair, 0) + 1
    for m in range(5):
        for c in range(5):
            n = counts.get((m, c), 0)
            if n != COPIES:
                raise OptionError(
                    f"option 'tiles' holds ({m}, {c}) ({MOTIFS[m]}/{COLOURS[c]}) {n} times; "
                    f"every (motif, colour) pair is there exactly {COPIES} times"
                )
    types = [m * 5 + c for m, c in out]
    centre = types[15]
    if not any(t // 5 == centre // 5 or t % 5 == centre % 5 for t in types[:HAND]):
        raise OptionError(
            "option 'tiles': player_0's hand (tiles 0…4) has no tile matching the centre tile "
            f"(tile 15, {tile_name(centre)}) by motif or colour; the rules would deal again, "
            "which a scripted order cannot do"
        )
    return tuple(out)


def _check_goals(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    ok = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g < MAP_SIZE for g in value)
    )
    if not ok:
        raise OptionError(
            f"option 'goals' must be None or a pair (player_0's, player_1's) of pattern numbers "
            f"0…{MAP_SIZE - 1}, not {value!r}"
        )
    if value[0] == value[1]:
        raise OptionError(f"option 'goals' must name two different patterns, not {value!r}")
    return (value[0], value[1])


class Geometry:
    """Per-table-size constants: bit masks for shifting, action bases, the compiled Map."""

    def __init__(self, size: int, patterns):
        self.size = size
        self.cells = size * size
        self.full = (1 << self.cells) - 1
        first = 0
        last = 0
        for r in range(size):
            first |= 1 << (r * size)
            last |= 1 << (r * size + size - 1)
        self.not_first = self.full & ~first
        self.not_last = self.full & ~last
        self.centre = (size // 2) * size + size // 2
        self.nb_cell = [self.neighbours(1 << x) for x in range(self.cells)]
        self.map = compiled(size, patterns)
        cells = self.cells
        self.close0 = 5 * cells
        self.cont = self.close0 + 15
        self.take0 = self.close0 + 16
        self.discard0 = self.close0 + 21
        self.pass_ = self.close0 + 26
        self.num_actions = self.close0 + 27

    def neighbours(self, x: int) -> int:
        """Cells orthogonally next to any cell of bitboard ``x`` (x itself included if so)."""
        b = self.size
        return (((x & self.not_last) << 1) | ((x & self.not_first) >> 1) | (x << b) | (x >> b)) & self.full


_GEOMETRY: dict[Any, Geometry] = {}
# Placement cell lists per table contents (board codes): a pure function of the table, shared
# by every state that has it; cleared whole when full.
_CELL_LISTS: dict[bytes, dict[int, list[int]]] = {}
_CELL_LISTS_LIMIT = 2048


def geometry(size: int, patterns) -> Geometry:
    key = (size, None if patterns is None else repr(patterns))
    found = _GEOMETRY.get(key)
    if found is None:
        found = Geometry(size, patterns)
        if len(_GEOMETRY) > 16:
            _GEOMETRY.clear()
        _GEOMETRY[key] = found
    return found


class UzorGame(Game):
    """The whole state of a game of Uzor (hidden parts included; the observer filters)."""

    NAME = "uzor_v0"
    _cell_lists: dict[int, list[int]] | None = None  # per-table cache (see _cells_for_type)
    OPTIONS = {"board_size": 21, "patterns": None, "tiles": None, "goals": None}

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        size = check_int(options, "board_size", 9, 31)
        if size % 2 == 0:
            raise OptionError(f"option 'board_size' must be odd (9, 11, …, 31) so the centre tile has a middle, not {size}")
        options["patterns"] = check_map(options["patterns"])
        options["tiles"] = _check_tiles(options)
        options["goals"] = _check_goals(options["goals"])
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        size = options["board_size"]
        return 5 * size * size + 27

    # ----- setup ----------------------------------------------------------------------------
    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        self.geo = geometry(options["board_size"], options["patterns"])
        if options["tiles"] is not None:
            order = [m * 5 + c for m, c in options["tiles"]]
        else:
            if rng is None:
                raise ValueError("UzorGame needs an rng (random.Random) when 'tiles' are not scripted")
            order = [t for t in range(TYPES) for _ in range(COPIES)]
            rng.shuffle(order)
        if options["goals"] is not None:
            self.goals = list(options["goals"])
        else:
            if rng is None:
                raise ValueError("UzorGame needs an rng (random.Random) when 'goals' are not scripted")
            self.goals = rng.sample(range(MAP_SIZE), 2)
        while True:
            self._deal(order)
            if self.phase == PLACE:
                break
            # player_0 cannot place: all 75 tiles are shuffled and dealt again, the goals kept
            # (a scripted order that cannot place is refused by check_options).
            order = [t for t in range(TYPES) for _ in range(COPIES)]
            rng.shuffle(order)

    def _deal(self, order: list[int]) -> None:
        geo = self.geo
        self._clear_table()
        self.hands = [sorted(order[0:5]), sorted(order[5:10])]
        self.market = list(order[10:15])
        self.supply = list(order[16:])
        self.faceup = 0
        self.crossed = 0
        self.points = [0, 0]
        self.closed: list[tuple[int, int, tuple[int, ...]]] = []
        self.fork: dict[int, tuple[int, ...]] = {}
        self.last_cell = -1
        self.idle = 0
        self._put(geo.centre, order[15])
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
        game = object.__new__(cls)
        game.options = options
        geo = game.geo = geometry(options["board_size"], options["patterns"])
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
        game._clear_table()
        for cell, t in table.items():
            game._put(cell, t)
        if game.board[geo.centre] == EMPTY:
            raise ValueError("a position needs a tile in the centre cell")
        game.hands = [sorted(hands[0]), sorted(hands[1])]
        game.market = list(market)
        game.supply = list(supply)
        game.faceup = 0
        game.goals = list(goals)
        game.crossed = 0
        game.points = [0, 0]
        game.closed = []
        game.fork = {}
        game.last_cell = -1
        game.idle = 0
        game._start_turn(to_move, False)
        return game

    # ----- the table ------------------------------------------------------------------------
    def _clear_table(self) -> None:
        geo = self.geo
        self.board = [EMPTY] * geo.cells
        self.codes = bytearray(geo.cells)  # board + 1 as bytes: a cheap numpy view for observers
        self.open_bb = 0
        self.stone_bb = 0
        self.motif_bb = [0] * 5
        self.colour_bb = [0] * 5
        # the cells next to the open tiles of each motif / colour, to any open tile, to any tile
        self.nb_motif = [0] * 5
        self.nb_colour = [0] * 5
        self.nb_open = 0
        self.nb_occupied = 0
        self.on_table = [0] * TYPES
        # tiles outside the table (hands, market, supply) per motif and per colour
        self.outside_motif = [COPIES * 5] * 5
        self.outside_colour = [COPIES * 5] * 5
        self._changed()

    def _count_outside(self) -> None:
        """Recount the tiles outside the table per motif and colour from ``on_table``."""
        self.outside_motif = [COPIES * 5 - sum(self.on_table[m * 5:m * 5 + 5]) for m in range(5)]
        self.outside_colour = [COPIES * 5 - sum(self.on_table[c::5]) for c in range(5)]

    def _changed(self) -> None:
        self._acc = None
        self._room = None
        self._cell_lists = None
        self.table_version = next(_VERSIONS)

    def _put(self, cell: int, t: int) -> None:
        bit = 1 << cell
        m, c = divmod(t, 5)
        self.board[cell] = t
        self.codes[cell] = t + 1
        self.open_bb |= bit
        self.motif_bb[m] |= bit
        self.colour_bb[c] |= bit
        near = self.geo.nb_cell[cell]
        self.nb_motif[m] |= near
        self.nb_colour[c] |= near
        self.nb_open |= near
        self.nb_occupied |= near
        self.on_table[t] += 1
        self.outside_motif[m] -= 1
        self.outside_colour[c] -= 1
        self._changed()

    def _refresh_neighbourhoods(self) -> None:
        """Recompute the neighbourhood bitboards from the tiles (after stones, or a load)."""
        nb = self.geo.neighbours
        self.nb_motif = [nb(x) for x in self.motif_bb]
        self.nb_colour = [nb(x) for x in self.colour_bb]
        self.nb_open = nb(self.open_bb)
        self.nb_occupied = nb(self.open_bb | self.stone_bb)
        self._changed()

    def _room_now(self) -> tuple[int, int]:
        """(empty cells, empty cells whose occupied neighbours are all stones), cached."""
        room = self._room
        if room is None:
            empty = self.geo.full & ~(self.open_bb | self.stone_bb)
            room = self._room = (empty, empty & self.nb_occupied & ~self.nb_open)
        return room

    def cells_for(self, t: int) -> int:
        """The bitboard of empty cells where a tile of type ``t`` may be placed now."""
        empty, free = self._room_now()
        return ((self.nb_motif[t // 5] | self.nb_colour[t % 5]) & empty) | free

    def _cells_for_type(self, t: int) -> list[int]:
        """The empty cells where type ``t`` may go now, ascending; kept per table contents, so
        states with the same table (a search's sampled states and the positions it reaches
        again and again) list them once."""
        lists = self._cell_lists
        if lists is None:  # the first list asked of this table version (replaced when it changes)
            contents = bytes(self.codes)
            lists = _CELL_LISTS.get(contents)
            if lists is None:
                if len(_CELL_LISTS) >= _CELL_LISTS_LIMIT:
                    _CELL_LISTS.clear()
                lists = _CELL_LISTS[contents] = {}
            self._cell_lists = lists
        cells = lists.get(t)
        if cells is None:
            cells = lists[t] = bits_of(self.cells_for(t))
        return cells

    def acceptance(self) -> list[int]:
        """Per tile type, the bitboard of empty cells where it may be placed now."""
        acc = self._acc
        if acc is None:
            empty, free = self._room_now()
            by_motif = [x & empty for x in self.nb_motif]
            by_colour = [x & empty for x in self.nb_colour]
            acc = self._acc = [by_motif[t // 5] | by_colour[t % 5] | free for t in range(TYPES)]
        return acc

    def completions(self, cell: int, t: int) -> dict[int, tuple[int, ...]]:
        """Patterns (not crossed out) that tile ``t`` at ``cell`` completes, with the instance
        CLOSE would turn into stones (first in reading order). ``cell`` may be empty (what a
        placement there would complete) or hold ``t`` already."""
        bit = 1 << cell
        m, c = divmod(t, 5)
        op = self.open_bb | bit
        mb = self.motif_bb[m] | bit
        cb = self.colour_bb[c] | bit
        crossed = self.crossed
        found: dict[int, tuple[int, ...]] = {}
        geo_map = self.geo.map
        stride = geo_map.stride
        window = (op << geo_map.lift) >> cell  # the 3×3 window around cell in the low bits
        key = (window & 7) | (((window >> stride) & 7) << 3) | (((window >> (2 * stride)) & 7) << 6)
        groups = geo_map.selected[cell].get(key)
        if groups is None:
            groups = select(geo_map, cell, key)
        for mask, members in groups:
            if mask & op != mask:
                continue
            for k, crit, cells, hollow in members:
                if crossed >> k & 1:
                    continue
                if crit == SAME_MOTIF:
                    ok = mask & mb == mask
                elif crit == SAME_COLOUR:
                    ok = mask & cb == mask
                elif crit == SAME_EITHER:
                    ok = mask & mb == mask or mask & cb == mask
                elif crit == IDENTICAL:
                    ok = mask & mb & cb == mask
                elif crit == HOLLOW:
                    ok = not hollow & op
                elif crit == ANY:
                    ok = True
                elif crit == DIFF_COLOURS:
                    seen = sum(1 for i, x in enumerate(self.colour_bb) if mask & (x | bit if i == c else x))
                    ok = seen == len(cells)
                else:  # DIFF_MOTIFS
                    seen = sum(1 for i, x in enumerate(self.motif_bb) if mask & (x | bit if i == m else x))
                    ok = seen == len(cells)
                if ok:
                    best = found.get(k)
                    if best is None or cells < best:
                        found[k] = cells
        return found

    # ----- turns ----------------------------------------------------------------------------
    def _start_turn(self, player: int, repeated: bool) -> None:
        self.to_move = player
        self.repeated = repeated
        self.continued = False
        self.placed = False
        self.fork = {}
        if self.idle >= IDLE_LIMIT:
            self.phase = OVER
            return
        empty, free = self._room_now()
        outside_motif, outside_colour = self.outside_motif, self.outside_colour
        if free:
            # a cell among stones takes anything: the game goes on while any tile is outside
            if not any(outside_motif):
                self.phase = OVER
                return
        else:
            # a cell next to an open tile of motif m (colour c) takes every tile of motif m
            # (colour c): the game goes on while one of those is outside the table
            nb_motif, nb_colour = self.nb_motif, self.nb_colour
            if not any(outside_motif[i] and nb_motif[i] & empty or outside_colour[i] and nb_colour[i] & empty
                       for i in range(5)):
                self.phase = OVER
                return
        hand = self.hands[player]
        if hand and (free or any((self.nb_motif[t // 5] | self.nb_colour[t % 5]) & empty for t in hand)):
            self.phase = PLACE
        elif any(x >= 0 for x in self.market):
            self.phase = DISCARD
        else:
            self.phase = PASS

    def _end_turn(self) -> None:
        self.idle = 0 if self.placed else self.idle + 1
        if self.continued and not self.repeated:
            self._start_turn(self.to_move, True)
        else:
            self._start_turn(1 - self.to_move, False)

    def _after_place(self) -> None:
        if any(x >= 0 for x in self.market):
            self.phase = TAKE
        else:
            self._end_turn()

    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            hand = self.hands[self.to_move]
            out: list[int] = []
            prev = -1
            cells = geo.cells
            for s, t in enumerate(hand):
                if t == prev:
                    continue
                prev = t
                if s:
                    base = s * cells
                    out += [base + x for x in self._cells_for_type(t)]
                else:
                    out += self._cells_for_type(t)
            return out
        if phase == FORK:
            return [geo.close0 + k for k in sorted(self.fork)] + [geo.cont]
        if phase == TAKE or phase == DEAD_TAKE:
            return [geo.take0 + m for m, x in enumerate(self.market) if x >= 0]
        if phase == DISCARD:
            hand = self.hands[self.to_move]
            return [geo.discard0 + s for s, t in enumerate(hand) if s == 0 or hand[s - 1] != t]
        if phase == PASS:
            return [geo.pass_]
        return []

    def _legal(self, a: int) -> bool:
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            if not 0 <= a < geo.close0:
                return False
            s, cell = divmod(a, geo.cells)
            hand = self.hands[self.to_move]
            if s >= len(hand) or (s and hand[s - 1] == hand[s]):
                return False
            return bool(self.cells_for(hand[s]) >> cell & 1)
        if phase == FORK:
            return a == geo.cont or (geo.close0 <= a < geo.cont and a - geo.close0 in self.fork)
        if phase == TAKE or phase == DEAD_TAKE:
            return geo.take0 <= a < geo.discard0 and self.market[a - geo.take0] >= 0
        if phase == DISCARD:
            if not geo.discard0 <= a < geo.pass_:
                return False
            s = a - geo.discard0
            hand = self.hands[self.to_move]
            return s < len(hand) and not (s and hand[s - 1] == hand[s])
        if phase == PASS:
            return a == geo.pass_
        return False

    def apply(self, action: Any) -> None:
        a = action if type(action) is int else self._check_action(action)
        if not self._legal(a):
            self._raise_illegal(a)
        phase = self.phase
        geo = self.geo
        if phase == PLACE:
            s, cell = divmod(a, geo.cells)
            hand = self.hands[self.to_move]
            t = hand.pop(s)
            self._put(cell, t)
            self.placed = True
            self.last_cell = cell
            fork = self.completions(cell, t)
            if fork:
                self.fork = fork
                self.phase = FORK
            else:
                self._after_place()
        elif phase == FORK:
            if a == geo.cont:
                self.continued = True
            else:
                self._close(a - geo.close0)
            self.fork = {}
            self._after_place()
        elif phase == TAKE or phase == DEAD_TAKE:
            self._take(a - geo.take0)
            self._end_turn()
        elif phase == DISCARD:
            t = self.hands[self.to_move].pop(a - geo.discard0)
            self.supply.append(t)
            self.faceup += 1
            self.phase = DEAD_TAKE
        else:  # PASS
            self._end_turn()

    def _close(self, k: int) -> None:
        cells = self.fork[k]
        player = self.to_move
        value = self.geo.map.points[k]
        if self.goals[player] == k:
            value *= 2
        self.points[player] += value
        self.crossed |= 1 << k
        self.closed.append((player, k, cells))
        board = self.board
        mask = 0
        for x in cells:
            t = board[x]
            bit = 1 << x
            board[x] = STONE + t
            self.codes[x] = STONE + t + 1
            self.motif_bb[t // 5] &= ~bit
            self.colour_bb[t % 5] &= ~bit
            mask |= bit
        self.open_bb &= ~mask
        self.stone_bb |= mask
        self._refresh_neighbourhoods()

    def _take(self, m: int) -> None:
        t = self.market[m]
        bisect.insort(self.hands[self.to_move], t)
        supply = self.supply
        if supply:
            if self.faceup == len(supply):
                self.faceup -= 1
            self.market[m] = supply.pop(0)
        else:
            self.market[m] = EMPTY

    def scores(self) -> list[int]:
        return list(self.points)

    # ----- explanations and notation ---------------------------------------------------------
    def why_illegal(self, action: Any) -> str | None:
        try:
            a = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        geo = self.geo
        if not 0 <= a < geo.num_actions:
            return f"action {a} is outside 0…{geo.num_actions - 1}"
        if self._legal(a):
            return None
        phase = self.phase
        if phase == OVER:
            return "the game is over: no tile outside the table can be placed" if self.idle < IDLE_LIMIT else (
                f"the game is over: none of the last {IDLE_LIMIT} turns had a placement"
            )
        kind = self._kind(a)
        wanted = {
            PLACE: "place a tile from your hand",
            FORK: "close one of the completed patterns or continue",
            TAKE: "take a tile from the market",
            DISCARD: "you cannot place any tile: discard one of your hand",
            DEAD_TAKE: "you discarded: take a tile from the market",
            PASS: "you cannot place and the market is empty: pass",
        }[phase]
        hand = self.hands[self.to_move]
        if kind == "place" and phase == PLACE:
            s, cell = divmod(a, geo.cells)
            name = cell_name(*divmod(cell, geo.size))
            if s >= len(hand):
                return f"hand slot {s} is empty: your hand holds {len(hand)} tiles"
            if s and hand[s - 1] == hand[s]:
                return f"slot {s} holds the same tile as slot {s - 1}: place it from slot {s - 1}"
            t = hand[s]
            v = self.board[cell]
            if v >= STONE:
                return f"{name} holds a stone"
            if v >= 0:
                return f"{name} already holds {tile_name(v)}"
            bit = 1 << cell
            occupied = self.open_bb | self.stone_bb
            if not geo.neighbours(bit) & occupied:
                return f"{name} is not next to a tile on the table (above, below, left or right)"
            return (
                f"{tile_name(t)} matches no open neighbour of {name} by motif or by colour"
            )
        if kind == "close" and phase == FORK:
            k = a - geo.close0
            names = geo.map.names
            if self.crossed >> k & 1:
                return f"{names[k]} is crossed out: it was closed already"
            done = ", ".join(names[j] for j in sorted(self.fork))
            return f"your placement did not complete {names[k]}; it completed {done}"
        if kind == "take" and phase in (TAKE, DEAD_TAKE):
            return f"market slot {a - geo.take0} is empty"
        if kind == "discard" and phase == DISCARD:
            s = a - geo.discard0
            if s >= len(hand):
                return f"hand slot {s} is empty: your hand holds {len(hand)} tiles"
            return f"slot {s} holds the same tile as slot {s - 1}: discard it from slot {s - 1}"
        if kind == "discard":
            return "you may discard only in a dead end, when no tile of your hand can be placed: " + wanted
        return f"not now: {wanted}"

    def _kind(self, a: int) -> str:
        geo = self.geo
        if a < geo.close0:
            return "place"
        if a < geo.cont:
            return "close"
        if a == geo.cont:
            return "continue"
        if a < geo.discard0:
            return "take"
        if a < geo.pass_:
            return "discard"
        return "pass"

    def action_to_string(self, action: int) -> str:
        a = self._check_action(action)
        geo = self.geo
        if not 0 <= a < geo.num_actions:
            raise ValueError(f"action {a} is outside 0…{geo.num_actions - 1}")
        kind = self._kind(a)
        if kind == "place":
            s, cell = divmod(a, geo.cells)
            where = cell_name(*divmod(cell, geo.size))
            hand = self.hands[self.to_move]
            if s < len(hand) and not (s and hand[s - 1] == hand[s]):
                return f"place {tile_name(hand[s])} @ {where}"
            return f"place slot {s} @ {where}"
        if kind == "close":
            return f"close {geo.map.names[a - geo.close0]}"
        if kind == "continue":
            return "continue"
        if kind == "take":
            return f"take {a - geo.take0}"
        if kind == "discard":
            return f"discard {a - geo.discard0}"
        return "pass"

    def string_to_action(self, text: str) -> int:
        geo = self.geo
        words = text.strip()
        low = words.lower()
        match = re.fullmatch(r"place\s+(\S+?)\s*/\s*(\S+?)\s*@\s*(\S+)", low)
        if match:
            motif, colour, where = match.groups()
            if motif not in MOTIFS:
                raise ValueError(f"{motif!r} is not a motif: {', '.join(MOTIFS)}")
            if colour not in COLOURS:
                raise ValueError(f"{colour!r} is not a colour: {', '.join(COLOURS)}")
            row, col = parse_cell(where, geo.size, geo.size)
            t = MOTIFS.index(motif) * 5 + COLOURS.index(colour)
            hand = self.hands[self.to_move]
            if t not in hand:
                raise ValueError(f"{motif}/{colour} is not in the hand of player_{self.to_move}")
            return hand.index(t) * geo.cells + row * geo.size + col
        match = re.fullmatch(r"place\s+slot\s+([0-9]+)\s*@\s*(\S+)", low)
        if match:
            s = int(match.group(1))
            if s >= HAND:
                raise ValueError(f"hand slots are 0…{HAND - 1}, not {s}")
            row, col = parse_cell(match.group(2), geo.size, geo.size)
            return s * geo.cells + row * geo.size + col
        match = re.fullmatch(r"close\s+(.+)", words, flags=re.IGNORECASE)
        if match:
            name = match.group(1).strip()
            names = geo.map.names
            if name in names:
                return geo.close0 + names.index(name)
            folded = [n.lower() for n in names]
            if name.lower() in folded:
                return geo.close0 + folded.index(name.lower())
            raise ValueError(f"{name!r} is not a pattern of the Map: {', '.join(names)}")
        if low == "continue":
            return geo.cont
        if low == "pass":
            return geo.pass_
        match = re.fullmatch(r"(take|discard)\s+([0-9]+)", low)
        if match:
            n = int(match.group(2))
            if n > 4:
                raise ValueError(f"{match.group(1)} names a slot 0…4, not {n}")
            return (geo.take0 if match.group(1) == "take" else geo.discard0) + n
        raise ValueError(
            f"{text!r} is not an Uzor action: write e.g. 'place cedar/azure @ h8', 'close Line-4', "
            "'continue', 'take 3', 'discard 1' or 'pass'"
        )

    # ----- copies and snapshots ----------------------------------------------------------------
    def clone(self) -> "UzorGame":
        other = object.__new__(UzorGame)
        other.__dict__.update(self.__dict__)
        other.board = self.board[:]
        other.codes = self.codes[:]
        other.motif_bb = self.motif_bb[:]
        other.colour_bb = self.colour_bb[:]
        other.nb_motif = self.nb_motif[:]
        other.nb_colour = self.nb_colour[:]
        other.on_table = self.on_table[:]
        other.outside_motif = self.outside_motif[:]
        other.outside_colour = self.outside_colour[:]
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.market = self.market[:]
        other.supply = self.supply[:]
        other.goals = self.goals[:]
        other.points = self.points[:]
        other.closed = self.closed[:]
        other.fork = dict(self.fork)
        return other  # _acc and _room (never mutated in place) and the table version are shared

    def state_dict(self) -> dict[str, Any]:
        return {
            "board": list(self.board),
            "hands": [list(h) for h in self.hands],
            "market": list(self.market),
            "supply": list(self.supply),
            "faceup": self.faceup,
            "goals": list(self.goals),
            "scores": list(self.points),
            "closed": [[p, k, list(cells)] for p, k, cells in self.closed],
            "to_move": self.to_move,
            "phase": PHASES[self.phase],
            "repeated": self.repeated,
            "continued": self.continued,
            "placed": self.placed,
            "fork": [[k, list(cells)] for k, cells in sorted(self.fork.items())],
            "last_cell": self.last_cell,
            "idle": self.idle,
        }

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> "UzorGame":
        geo = geometry(options["board_size"], options["patterns"])
        n = geo.cells
        board = int_list(state, "board", n, EMPTY, STONE + TYPES - 1)
        hands = state.get("hands")
        require(isinstance(hands, list) and len(hands) == 2, "snapshot field 'hands' must hold two hands")
        hands = [
            int_list({"hand": h}, "hand", len(h) if isinstance(h, list) else -1, 0, TYPES - 1) for h in hands
        ]
        for p, h in enumerate(hands):
            require(len(h) <= HAND, f"snapshot hand of player_{p} holds {len(h)} tiles; at most {HAND}")
            require(h == sorted(h), f"snapshot hand of player_{p} is not sorted by tile type")
        market = int_list(state, "market", MARKET, EMPTY, TYPES - 1)
        supply = state.get("supply")
        require(isinstance(supply, list), "snapshot field 'supply' must be a list")
        supply = int_list(state, "supply", len(supply), 0, TYPES - 1)
        faceup = int_field(state, "faceup", 0, len(supply))
        counts = [0] * TYPES
        for v in board:
            if v >= 0:
                counts[v % STONE] += 1
        for t in hands[0] + hands[1] + supply + [x for x in market if x >= 0]:
            counts[t] += 1
        for t in range(TYPES):
            require(
                counts[t] == COPIES,
                f"snapshot holds {counts[t]} tiles {tile_name(t)} across table, hands, market and supply; "
                f"there are exactly {COPIES}",
            )
        require(board[geo.centre] != EMPTY, "snapshot table has no tile in its centre cell")
        require(not (supply and EMPTY in market), "snapshot market has an empty slot while the supply still holds tiles")
        goals = int_list(state, "goals", 2, 0, MAP_SIZE - 1)
        require(goals[0] != goals[1], "snapshot goals must be two different patterns")
        if options["goals"] is not None:
            require(goals == list(options["goals"]), "snapshot goals differ from its scripted 'goals' option")
        closed_raw = state.get("closed")
        require(isinstance(closed_raw, list), "snapshot field 'closed' must be a list")
        closed = []
        crossed = 0
        stones = 0
        recount = [0, 0]
        for entry in closed_raw:
            require(
                isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], list),
                f"snapshot 'closed' entry {entry!r} must be [player, pattern, cells]",
            )
            p = int_field({"p": entry[0]}, "p", 0, 1)
            k = int_field({"k": entry[1]}, "k", 0, MAP_SIZE - 1)
            cells = tuple(int_list({"cells": entry[2]}, "cells", len(entry[2]), 0, n - 1))
            require(not crossed >> k & 1, f"snapshot closes pattern {k} twice")
            crossed |= 1 << k
            allowed = set(geo.map.instances(cells[0], k)) if cells else set()
            require(cells in allowed, f"snapshot 'closed' cells {list(cells)} are not an instance of pattern {k}")
            for x in cells:
                require(board[x] >= STONE, f"snapshot closed pattern {k} but cell {x} is not a stone")
                require(not stones >> x & 1, f"snapshot closes cell {x} twice")
                stones |= 1 << x
            value = geo.map.points[k] * (2 if goals[p] == k else 1)
            recount[p] += value
            closed.append((p, k, cells))
        for x, v in enumerate(board):
            if v >= STONE:
                require(stones >> x & 1, f"snapshot cell {x} is a stone that no closed pattern explains")
        points = int_list(state, "scores", 2, 0, 10**6)
        require(points == recount, f"snapshot scores {points} differ from the recount of closed patterns {recount}")
        phase_name = state.get("phase")
        require(phase_name in PHASES, f"snapshot field 'phase' is {phase_name!r}; it must be one of {', '.join(PHASES)}")
        to_move = int_field(state, "to_move", 0, 1)
        flags = {}
        for key in ("repeated", "continued", "placed"):
            require(isinstance(state.get(key), bool), f"snapshot field {key!r} must be true or false")
            flags[key] = state[key]
        last_cell = int_field(state, "last_cell", -1, n - 1)
        require(last_cell < 0 or board[last_cell] != EMPTY, "snapshot 'last_cell' is an empty cell")
        idle = int_field(state, "idle", 0, IDLE_LIMIT)
        fork_raw = state.get("fork")
        require(isinstance(fork_raw, list), "snapshot field 'fork' must be a list")

        game = object.__new__(cls)
        game.options = options
        game.geo = geo
        game.board = board
        game.codes = bytearray(v + 1 for v in board)
        game.open_bb = 0
        game.stone_bb = stones
        game.motif_bb = [0] * 5
        game.colour_bb = [0] * 5
        game.on_table = [0] * TYPES
        for x, v in enumerate(board):
            if v >= 0:
                game.on_table[v % STONE] += 1
            if 0 <= v < STONE:
                bit = 1 << x
                game.open_bb |= bit
                game.motif_bb[v // 5] |= bit
                game.colour_bb[v % 5] |= bit
        game._count_outside()
        game._refresh_neighbourhoods()
        game.hands = hands
        game.market = market
        game.supply = supply
        game.faceup = faceup
        game.goals = goals
        game.points = points
        game.closed = closed
        game.crossed = crossed
        game.last_cell = last_cell
        game.idle = idle
        phase = PHASES.index(phase_name)
        if phase in (FORK, TAKE, DEAD_TAKE):
            require(flags["placed"] or phase == DEAD_TAKE, f"snapshot phase {phase_name!r} without a placement this turn")
        if phase == FORK:
            require(last_cell >= 0 and board[last_cell] < STONE, "snapshot fork without an open last placed tile")
            game.crossed = crossed
            expected = game.completions(last_cell, board[last_cell])
            fork = {}
            for entry in fork_raw:
                require(isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], list),
                        f"snapshot 'fork' entry {entry!r} must be [pattern, cells]")
                fork[entry[0]] = tuple(entry[1])
            require(fork and fork == expected, "snapshot 'fork' is not what the last placement completed")
        else:
            require(not fork_raw, "snapshot has a 'fork' outside the fork phase")
            fork = {}
        game.fork = fork
        game.phase = phase
        game.to_move = to_move
        game.repeated = flags["repeated"]
        game.continued = flags["continued"]
        game.placed = flags["placed"]
        if phase in (PLACE, DISCARD, PASS):
            require(not game.placed and not game.continued, "snapshot turn-start phase after a placement")
            check = game.clone()
            check._start_turn(to_move, game.repeated)
            require(check.phase == phase, f"snapshot phase {phase_name!r} is not what the rules give here ({PHASES[check.phase]!r})")
        return game
