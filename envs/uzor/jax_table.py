"""Uzor's table in JAX: where a tile may go, and what a placement completes (``envs.uzor.table``).

The table is one int32 code per cell (``envs.uzor.common``: -1 empty, 0…24 an open tile's type,
25…49 a stone). Where a tile may go is read from each cell's open neighbours as ten bits
(bit ``m`` for a neighbour of motif ``m``, bit ``5 + c`` for one of colour ``c``): a tile fits an
empty cell when its own two bits meet the cell's, or when the cell's occupied neighbours are
all stones.

What a placement completes has a fixed shape whatever the table holds: an instance of a
pattern through the placed cell is one of the Map's orientations with the cell as one of its
members, so every (orientation, member) pair of the Map is one *candidate* (143 for the standard
Map), its cells the orientation's offsets moved so that the member lies on the cell. Each
candidate is tested at once (on the table, all open, its pattern not crossed out, its
criterion), and per pattern the first passing instance in reading order is kept: the cells
in ascending order compared number by number, as ``TableMixin.completions`` compares tuples.
An instance is named by its orientation and its origin (the top-left cell of its bounding box).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from envs.uzor.common import EMPTY, STONE, SUPPLY_MAX, TYPES
from envs.uzor.patterns import (
    ANY, CRITERIA, DIFF_COLOURS, DIFF_MOTIFS, HOLLOW, IDENTICAL, MAP_SIZE, SAME_COLOUR, SAME_EITHER, SAME_MOTIF,
    STANDARD_MAP,
)

PAD = TYPES  # an empty hand slot or discard place (sorts after every tile type)
# Places for face-up discards: the supply holds at most 59 tiles after the deal, one more between
# a dead end's discard and its take (a position with only the centre tile on the table).
DISCARD_ROOM = SUPPLY_MAX + 1
BIG = np.int32(2**31 - 1)  # no candidate passed
ALL_BITS = (1 << 10) - 1  # a tile's bits: motif 0…4, colour 5…9
OCCUPIED = 1 << 10  # beside an occupied cell (neighbour_bits)


def tile_bits() -> np.ndarray:
    """Per tile type (and ``PAD``: none), its ten bits: bit ``m`` for its motif, ``5 + c`` for
    its colour."""
    bits = np.zeros(TYPES + 1, np.int32)
    for t in range(TYPES):
        bits[t] = (1 << (t // 5)) | (1 << (5 + t % 5))
    return bits


class MapTable:
    """The Map laid out as candidates for a ``size × size`` table (numpy, host side; the JAX
    functions close over them as constants).

    A candidate's cells are the placed cell plus fixed offsets (rows and columns, checked
    against the table's edges; a cell off the table reads as empty, so the candidate is not all
    open). Which of two candidates of a pattern comes first in reading order does not depend on
    the cell (both lists move by the same number), so each pattern's candidates get a static
    rank, and the first passing one is a minimum of ``code``: rank, orientation and the placed
    cell's offset from the origin in one int32. (The offsets are added to the traced cell, so
    every gather has per-game indices: under ``vmap`` a gather of a batched operand at
    constant indices costs several times more on the CPU.)"""

    def __init__(self, size: int, patterns: list[dict[str, Any]] | None):
        patterns = STANDARD_MAP if patterns is None else patterns
        self.size = size
        self.points = np.array([p["points"] for p in patterns], np.int32)
        # orientations that fit on the table: pattern, criterion, height, width, cells in reading order
        orients = []
        for k, pattern in enumerate(patterns):
            crit = CRITERIA.index(pattern["criterion"])
            for shape in pattern["shapes"]:
                cells = sorted((r, c) for r, c in shape)
                height = max(r for r, _ in cells) + 1
                width = max(c for _, c in cells) + 1
                if height <= size and width <= size:
                    orients.append((k, crit, height, width, cells))
        self.width = max([len(o[4]) for o in orients] + [1])
        n_orients = max(len(orients), 1)
        self.orient_n = np.zeros(n_orients, np.int32)
        self.orient_lin = np.zeros((n_orients, self.width), np.int32)  # cell offsets from the origin, ascending
        self.orient_k, self.orient_h, self.orient_w = [], [], []
        for o, (k, _, height, width, cells) in enumerate(orients):
            self.orient_n[o] = len(cells)
            self.orient_lin[o, :len(cells)] = [r * size + c for r, c in cells]
            self.orient_k.append(k)
            self.orient_h.append(height)
            self.orient_w.append(width)
        # candidates, pattern after pattern, each pattern's in reading order of their cells
        # relative to the placed cell (a shorter list first on a tie, as tuples compare)
        self.segments, self.criteria = [], []
        rows, cols, centres, counts, codes = [], [], [], [], []
        for k in range(MAP_SIZE):
            mine = []
            for o, (kk, crit, height, width, cells) in enumerate(orients):
                if kk != k:
                    continue
                for dr, dc in cells:
                    rel = [(r - dr) * size + (c - dc) for r, c in cells]
                    pad = self.width - len(cells)  # pads repeat the placed cell
                    mine.append((rel, o, dr * size + dc, [r - dr for r, _ in cells] + [0] * pad,
                                 [c - dc for _, c in cells] + [0] * pad, (height // 2 - dr, width // 2 - dc), len(cells)))
            mine.sort(key=lambda entry: entry[0])
            self.segments.append((len(codes), len(codes) + len(mine)))
            self.criteria.append(CRITERIA.index(patterns[k]["criterion"]))
            for rank, (_, o, anchor, drs, dcs, centre, count) in enumerate(mine):
                codes.append((rank << 21) | (o << 10) | anchor)
                rows.append(drs)
                cols.append(dcs)
                centres.append(centre)
                counts.append(count)
        self.rows = np.array(rows, np.int32).reshape(-1, self.width)  # per candidate and member: row offset
        self.cols = np.array(cols, np.int32).reshape(-1, self.width)
        self.centre = np.array(centres, np.int32).reshape(-1, 2)  # the bounding box's middle (row, col) offset
        self.counts = np.array(counts, np.int32)
        self.codes = np.array(codes, np.int32)
        self.cand_crit = np.concatenate([np.full(e - b, self.criteria[k], np.int32)
                                         for k, (b, e) in enumerate(self.segments)] + [np.zeros(0, np.int32)])

    # ----- host side ----------------------------------------------------------------------------
    def cells_of(self, orient: int, origin: int) -> list[int]:
        """The cells (ascending) of the instance of orientation ``orient`` at ``origin``."""
        return [origin + int(x) for x in self.orient_lin[orient, :self.orient_n[orient]]]

    def name_instance(self, k: int, cells) -> tuple[int, int]:
        """``(orientation, origin)`` of pattern ``k``'s instance on ``cells`` (ascending)."""
        size = self.size
        for o in range(len(self.orient_k)):
            if self.orient_k[o] != k:
                continue
            origin = cells[0] - int(self.orient_lin[o, 0])
            r0, c0 = divmod(origin, size)
            if (0 <= origin and r0 + self.orient_h[o] <= size and c0 + self.orient_w[o] <= size
                    and self.cells_of(o, origin) == list(cells)):
                return o, origin
        raise ValueError(f"cells {list(cells)} are not an instance of pattern {k}")


def motif_colour(codes: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Per code, the motif and colour of its tile type (of the clipped code for an empty cell
    or a stone). ``(t * 13) >> 6`` is ``t // 5`` for every type 0…24: XLA's CPU code for a
    signed ``// 5`` costs several times more, and a lookup table becomes a separate gather (one
    more pass over the table) where this fuses into the loop that uses it."""
    t = jnp.clip(codes, 0, TYPES - 1)
    motif = (t * 13) >> 6
    return motif, t - 5 * motif


def neighbour_bits(board: jax.Array, size: int) -> jax.Array:
    """Per empty cell: the ten bits of its open neighbours (``tile_bits``), and bit
    ``OCCUPIED`` when it has an occupied neighbour (open tile or stone); other cells get their
    own bits too (unused). Two window ORs (3 × 1 and 1 × 3, the cell's own bits included: none
    for an empty cell): XLA computes a window reduction once into its own buffer, where shifted
    copies of the table are fused into, and recomputed for, every entry that reads them (the
    mask reads each cell five times)."""
    motif, colour = motif_colour(board)
    occupied = jnp.where(board >= STONE, OCCUPIED, 0)
    bits = jnp.where(_is_open(board), OCCUPIED | (1 << motif) | (32 << colour), occupied).reshape(size, size)

    def window_or(shape: tuple[int, int], padding: tuple) -> jax.Array:
        return jax.lax.reduce_window(bits, jnp.int32(0), jax.lax.bitwise_or, shape, (1, 1), padding)

    return (window_or((3, 1), ((1, 1), (0, 0))) | window_or((1, 3), ((0, 0), (1, 1)))).reshape(-1)


class Room:
    """Where tiles may go on a table (``TableMixin.room`` and its queries), from one pass."""

    def __init__(self, board: jax.Array, size: int):
        near = neighbour_bits(board, size)
        empty = board == EMPTY
        # per cell the tile bits it accepts: its open neighbours' (all ten where its occupied
        # neighbours are all stones), none when it is taken
        free = near == OCCUPIED
        self.accepts = jnp.where(empty, jnp.where(free, ALL_BITS, near & ALL_BITS), 0)
        # the bits accepted by some empty cell (OR over the cells)
        self.present = jax.lax.reduce(self.accepts, jnp.int32(0), jax.lax.bitwise_or, (0,))

    def fits_somewhere(self, tbits: jax.Array) -> jax.Array:
        """Per tile (given by its ten bits): whether it may be placed anywhere now."""
        return (self.present & tbits) != 0

    def cells_for(self, tbits: jax.Array) -> jax.Array:
        """bool (tiles, cells): the empty cells where each tile (by its bits; none: nowhere)
        may be placed now: one AND per entry."""
        return jnp.stack([self.accepts & bits for bits in tbits]) != 0

    def anything_fits(self, outside: jax.Array) -> jax.Array:
        """Some tile outside the table (``outside``: per type, in hands, market and supply)
        could be placed: a motif or colour some empty cell accepts still has a tile outside."""
        per_kind = outside.reshape(5, 5)
        left = jnp.concatenate([jnp.sum(per_kind, axis=1), jnp.sum(per_kind, axis=0)]) > 0
        wanted = jnp.sum(jnp.where(left, 1 << jnp.arange(10, dtype=jnp.int32), 0))
        return (self.present & wanted) != 0  # a free cell accepts every bit


def _is_open(codes: jax.Array) -> jax.Array:
    return (codes >= 0) & (codes < STONE)


def completions(table: MapTable, board: jax.Array, cell: jax.Array, crossed: jax.Array) -> tuple[jax.Array, jax.Array]:
    """What the open tile on ``cell`` completes: per pattern the orientation and origin of the
    instance CLOSE would turn into stones (the first in reading order), ``-1`` where the
    pattern is crossed out or not completed."""
    size = table.size
    tile = board[cell]
    r, c = cell // size, cell % size

    def read(dr: np.ndarray, dc: np.ndarray) -> jax.Array:  # the codes at offsets, EMPTY off the table
        rows, cols = r + dr, c + dc
        inside = (rows >= 0) & (rows < size) & (cols >= 0) & (cols < size)
        return jnp.where(inside, board[jnp.clip(rows * size + cols, 0, size * size - 1)], EMPTY)

    codes = read(table.rows, table.cols)  # (candidates, cells); pads repeat the placed cell
    # per candidate the OR of its cells' bits (motif bits 0…4, colour bits 5…9): with every
    # cell open, one motif bit means the same motif, a popcount the distinct motifs
    motif, colour = motif_colour(codes)
    bits = jnp.where(_is_open(codes), (1 << motif) | (32 << colour), 0)
    seen = jax.lax.reduce(bits, jnp.int32(0), jax.lax.bitwise_or, (1,))
    motifs, colours = seen & 31, seen >> 5
    own_motif, own_colour = motif_colour(tile)
    own = (1 << own_motif) | (32 << own_colour)

    def distinct(kinds: jax.Array) -> jax.Array:
        return jax.lax.population_count(kinds) == table.counts

    same_motif = motifs == (own & 31)
    same_colour = colours == (own >> 5)
    tests = {
        SAME_MOTIF: lambda: same_motif, SAME_COLOUR: lambda: same_colour,
        SAME_EITHER: lambda: same_motif | same_colour, IDENTICAL: lambda: jnp.all(codes == tile, axis=1),
        DIFF_COLOURS: lambda: distinct(colours), DIFF_MOTIFS: lambda: distinct(motifs),
        ANY: lambda: jnp.ones(codes.shape[0], bool),
        HOLLOW: lambda: ~_is_open(read(table.centre[:, 0], table.centre[:, 1])),  # empty or a stone
    }
    meets = jnp.zeros(codes.shape[0], bool)
    for crit in sorted(set(table.cand_crit.tolist())):  # only the criteria the Map uses
        meets = jnp.where(table.cand_crit == crit, tests[crit](), meets)
    ok = jnp.all(bits != 0, axis=1) & meets
    key = jnp.where(ok, table.codes, BIG)
    best = jnp.stack([jnp.min(key[b:e]) if e > b else jnp.int32(BIG) for b, e in table.segments])
    found = (best < BIG) & ~crossed
    return jnp.where(found, (best >> 10) & 0x7FF, -1), jnp.where(found, cell - (best & 0x3FF), -1)
