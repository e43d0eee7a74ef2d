"""The table: where tiles lie, where a tile may go, and what a placement completes.

The table is kept twice: ``board`` (one code a cell, for pictures and snapshots) and bitboards
(Python ints, bit ``r*B + c``): the open tiles, the stones, the open tiles of each motif and of
each colour, and the cells next to each of those. Where a tile may go is a handful of shifts of
those bitboards; a placement looks for patterns only among the precomputed instances through
its cell (``envs.uzor.patterns.CompiledMap``).

``TableMixin`` holds that part of the engine's state and every query on it; ``rebuild_table``
derives all of it from ``board`` (the one place that does: a new deal, a snapshot, a position).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from envs.core.bits import set_bits
from envs.uzor.common import COPIES, EMPTY, STONE, TYPES, ActionLayout
from envs.uzor.patterns import (
    ANY,
    DIFF_COLOURS,
    HOLLOW,
    IDENTICAL,
    SAME_COLOUR,
    SAME_EITHER,
    SAME_MOTIF,
    USER_MAPS_KEPT,
    compiled,
    select,
)

_VERSIONS = itertools.count(1)  # table versions, unique in the process (observers cache by them)
OUTSIDE_PER_MOTIF = COPIES * 5  # tiles of one motif (or one colour) in the game


class Geometry(ActionLayout):
    """Per table size (and Map): bit masks for shifting, the centre, the action numbers, and
    the compiled Map."""

    def __init__(self, size: int, patterns):
        super().__init__(size * size)
        self.size = size
        self.cells = size * size
        self.full = (1 << self.cells) - 1
        first = last = 0
        for r in range(size):
            first |= 1 << (r * size)
            last |= 1 << (r * size + size - 1)
        self.not_first = self.full & ~first
        self.not_last = self.full & ~last
        self.centre = (size // 2) * size + size // 2
        self.nb_cell = [self.neighbours(1 << x) for x in range(self.cells)]
        self.map = compiled(size, patterns)

    def neighbours(self, x: int) -> int:
        """Cells orthogonally next to any cell of bitboard ``x`` (x itself included if so)."""
        b = self.size
        return (((x & self.not_last) << 1) | ((x & self.not_first) >> 1) | (x << b) | (x >> b)) & self.full


_GEOMETRY: dict[Any, Geometry] = {}
_GEOMETRY_LOCK = threading.RLock()
# Placement cell lists per table contents (board codes): a pure function of the table, shared
# by every state that has it; cleared whole when full.
_CELL_LISTS: dict[bytes, dict[int, list[int]]] = {}
_CELL_LISTS_LIMIT = 2048


def geometry(size: int, patterns) -> Geometry:
    """The geometry of a table size and Map (built once per process and kept; for users' Maps
    only the last few, as their compiled Maps are)."""
    key = (size, None if patterns is None else repr(patterns))
    found = _GEOMETRY.get(key)
    if found is None:
        with _GEOMETRY_LOCK:  # threads share the cache: one builds, the others wait and find it
            found = _GEOMETRY.get(key)
            if found is None:
                found = Geometry(size, patterns)
                if patterns is not None:
                    users = [k for k in _GEOMETRY if k[1] is not None]
                    while len(users) >= USER_MAPS_KEPT:
                        del _GEOMETRY[users.pop(0)]
                _GEOMETRY[key] = found
    return found


class TableMixin:
    """The table part of ``UzorGame``: ``board``, its bitboards and counts, and the queries."""

    geo: Geometry
    board: list[int]
    crossed: int
    _cell_lists: dict[int, list[int]] | None = None  # per-table cache (see _cells_for_type)

    # ----- changing the table ----------------------------------------------------------------
    def rebuild_table(self) -> None:
        """Derive every bitboard and count from ``board`` (after a deal, a snapshot, a position)."""
        board = self.board
        self.codes = bytearray([v + 1 for v in board])  # board + 1 as bytes: a cheap numpy view for observers
        self.open_bb = self.stone_bb = 0
        self.motif_bb = [0] * 5
        self.colour_bb = [0] * 5
        self.on_table = [0] * TYPES
        for x, v in enumerate(board):
            if v == EMPTY:
                continue
            bit = 1 << x
            self.on_table[v % STONE] += 1
            if v >= STONE:
                self.stone_bb |= bit
            else:
                self.open_bb |= bit
                self.motif_bb[v // 5] |= bit
                self.colour_bb[v % 5] |= bit
        # tiles outside the table (hands, market, supply) per motif and per colour
        self.outside_motif = [OUTSIDE_PER_MOTIF - sum(self.on_table[m * 5:m * 5 + 5]) for m in range(5)]
        self.outside_colour = [OUTSIDE_PER_MOTIF - sum(self.on_table[c::5]) for c in range(5)]
        self._refresh_neighbourhoods()

    def _changed(self) -> None:
        self._acc = None
        self._room = None
        self._cell_lists = None
        self.table_version = next(_VERSIONS)

    def _put(self, cell: int, t: int) -> None:
        """An open tile of type ``t`` on the empty ``cell``."""
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

    def _turn_to_stones(self, cells) -> None:
        """The open tiles of ``cells`` turn face down (a closed instance)."""
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

    def _refresh_neighbourhoods(self) -> None:
        """Recompute the neighbourhood bitboards from the tiles."""
        nb = self.geo.neighbours
        self.nb_motif = [nb(x) for x in self.motif_bb]
        self.nb_colour = [nb(x) for x in self.colour_bb]
        self.nb_open = nb(self.open_bb)
        self.nb_occupied = nb(self.open_bb | self.stone_bb)
        self._changed()

    # ----- queries (they change nothing but caches) ---------------------------------------------
    def room(self) -> tuple[int, int]:
        """(empty cells, empty cells whose occupied neighbours are all stones), cached."""
        room = self._room
        if room is None:
            empty = self.geo.full & ~(self.open_bb | self.stone_bb)
            room = self._room = (empty, empty & self.nb_occupied & ~self.nb_open)
        return room

    def cells_for(self, t: int) -> int:
        """The bitboard of empty cells where a tile of type ``t`` may be placed now."""
        empty, free = self.room()
        return ((self.nb_motif[t // 5] | self.nb_colour[t % 5]) & empty) | free

    def fits_somewhere(self, t: int) -> bool:
        """Whether a tile of type ``t`` may be placed anywhere now."""
        empty, free = self.room()
        return bool(free or (self.nb_motif[t // 5] | self.nb_colour[t % 5]) & empty)

    def cells_for_type(self, t: int) -> list[int]:
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
            cells = lists[t] = set_bits(self.cells_for(t))
        return cells

    def acceptance(self) -> list[int]:
        """Per tile type, the bitboard of empty cells where it may be placed now."""
        acc = self._acc
        if acc is None:
            empty, free = self.room()
            by_motif = [x & empty for x in self.nb_motif]
            by_colour = [x & empty for x in self.nb_colour]
            acc = self._acc = [by_motif[t // 5] | by_colour[t % 5] | free for t in range(TYPES)]
        return acc

    def anything_fits(self) -> bool:
        """Whether some tile outside the table (hand, market, supply) could be placed now."""
        empty, free = self.room()
        outside_motif, outside_colour = self.outside_motif, self.outside_colour
        if free:
            # a cell among stones takes anything: the game goes on while any tile is outside
            return any(outside_motif)
        # a cell next to an open tile of motif m (colour c) takes every tile of motif m (colour
        # c): the game goes on while one of those is outside the table
        nb_motif, nb_colour = self.nb_motif, self.nb_colour
        return any(outside_motif[i] and nb_motif[i] & empty or outside_colour[i] and nb_colour[i] & empty
                   for i in range(5))

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
