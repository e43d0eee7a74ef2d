"""The Fill board as bitmasks, and the board rules every Fill module shares.

A position's board is four integer masks over the cells (bit ``r*size + c``): ``filled``,
``rock``, ``touch`` (cells next to a filled cell) and ``poison`` (empty cells that can never be
filled legally). Per board size and ``lines`` setting, :class:`Geometry` holds the tables:

* ``pair_need[c]``: for every forbidden pattern (three in a line, a 2×2 block) through ``c``
  and every other cell ``x`` of it, the mask of the pattern's remaining cells. After filling
  ``c``, ``x`` is poisoned when those cells are all filled (:func:`place`);
* ``ext[a][b]``: the cell ``c`` with ``a, b, c`` consecutive on a forbidden line, used by the
  exact "can still be filled" search (:func:`fill_witness`).

:func:`place` is THE fill rule (the engine, the exact solver and the bots' boards all call it),
and :func:`fill_witness` the one "can still be filled" search.
"""

from __future__ import annotations

from functools import lru_cache

from envs.fill.facts import DIRECTION_WORDS

PRUNE_AFTER = 32  # search nodes before the fillability search also prunes by reachability
POISON_CACHE_LIMIT = 1 << 14  # remembered poisonings per cell of a geometry (memory bound)


class Geometry:
    """Tables for one board size and ``lines`` setting (shared by every game of that kind)."""

    def __init__(self, size: int, lines: str):
        self.size = size
        n = self.cells = size * size
        self.full = (1 << n) - 1
        self.nbr = [0] * n  # 8-neighbour masks
        self.nbr_list: list[tuple[int, ...]] = []
        for cell in range(n):
            r, c = divmod(cell, size)
            around = tuple(
                (r + dr) * size + (c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
            )
            self.nbr_list.append(around)
            self.nbr[cell] = sum(1 << x for x in around)
        directions = {"orthogonal": [(0, 1), (1, 0)], "strict": [(0, 1), (1, 0), (1, 1), (1, -1)], "off": []}[lines]
        # Forbidden three-in-a-line triples, with their direction word.
        self.triples: list[tuple[tuple[int, int, int], str]] = []
        for r in range(size):
            for c in range(size):
                for dr, dc in directions:
                    r2, c2 = r + 2 * dr, c + 2 * dc
                    if 0 <= r2 < size and 0 <= c2 < size:
                        cells = (r * size + c, (r + dr) * size + c + dc, r2 * size + c2)
                        self.triples.append((cells, DIRECTION_WORDS[(dr, dc)]))
        self.blocks = [
            (r * size + c, r * size + c + 1, (r + 1) * size + c, (r + 1) * size + c + 1)
            for r in range(size - 1)
            for c in range(size - 1)
        ]
        # For why_illegal: per cell, (others mask, word) for triples, and others masks for blocks.
        self.triples_of: list[list[tuple[int, str]]] = [[] for _ in range(n)]
        self.blocks_of: list[list[int]] = [[] for _ in range(n)]
        # patterns_of[c]: masks of the other cells of every forbidden pattern through c.
        self.patterns_of: list[list[int]] = [[] for _ in range(n)]
        self.pair_need: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        patterns = [cells for cells, _ in self.triples] + list(self.blocks)
        # Every forbidden pattern as (mask, what it is), for checking a whole board at once.
        self.pattern_masks: list[tuple[int, str]] = [
            (sum(1 << x for x in cells), f"three in a row {word}") for cells, word in self.triples
        ] + [(sum(1 << x for x in cells), "a solid 2×2 block") for cells in self.blocks]
        for cells, word in self.triples:
            for x in cells:
                self.triples_of[x].append((sum(1 << y for y in cells if y != x), word))
        for cells in self.blocks:
            for x in cells:
                self.blocks_of[x].append(sum(1 << y for y in cells if y != x))
        for cells in patterns:
            for x in cells:
                self.patterns_of[x].append(sum(1 << y for y in cells if y != x))
                for y in cells:
                    if y != x:
                        need = sum(1 << z for z in cells if z != x and z != y)
                        self.pair_need[y].append((x, need))
        # Column masks for bit-parallel dilation (one step to all 8 neighbours at once).
        self.not_first_col = sum(1 << (r * size + c) for r in range(size) for c in range(1, size))
        self.not_last_col = sum(1 << (r * size + c) for r in range(size) for c in range(size - 1))
        # ext[a][b] = c when a, b, c are consecutive on a forbidden line (else -1).
        self.ext = [[-1] * n for _ in range(n)]
        for (a, b, c), _ in self.triples:
            self.ext[a][b] = c
            self.ext[c][b] = a
        # window[c]: every cell of a forbidden pattern through c. What filling c poisons depends
        # only on the filled cells in that window, so place() keeps the answers per cell, keyed
        # by them (at most POISON_CACHE_LIMIT a cell; a miss is computed from pair_need).
        self.window = [0] * n
        for cell in range(n):
            for x, need in self.pair_need[cell]:
                self.window[cell] |= need | (1 << x)
        self.poison_cache: list[dict[int, int]] = [{} for _ in range(n)]

    def dilate(self, mask: int) -> int:
        """``mask`` plus every cell touching it (8 neighbours)."""
        row = mask | ((mask << 1) & self.not_first_col) | ((mask >> 1) & self.not_last_col)
        return (row | (row << self.size) | (row >> self.size)) & self.full


@lru_cache(maxsize=None)
def geometry(size: int, lines: str) -> Geometry:
    return Geometry(size, lines)


def place(geo: Geometry, rock: int, filled: int, touch: int, poison: int, cell: int) -> tuple[int, int, int]:
    """The board after filling ``cell``: ``(filled, touch, poison)``. Every empty cell ``x``
    that would now complete a forbidden pattern (the pattern's other cells all filled, ``cell``
    among them) is poisoned for good."""
    filled |= 1 << cell
    key = filled & geo.window[cell]
    cache = geo.poison_cache[cell]
    poisoned = cache.get(key)
    if poisoned is None:
        poisoned = 0
        for x, need in geo.pair_need[cell]:
            if key & need == need:
                poisoned |= 1 << x
        if len(cache) < POISON_CACHE_LIMIT:
            cache[key] = poisoned
    return filled, touch | geo.nbr[cell], (poison | poisoned) & ~(filled | rock)


def legal_mask(geo: Geometry, rock: int, filled: int, touch: int, poison: int) -> int:
    """Cells legal to fill: empty, not rock, not poisoned, touching a filled cell."""
    return touch & ~(filled | rock | poison) & geo.full


class Board:
    """An immutable board (the four masks) for code that explores fills without a game:
    ``board.place(cell)`` is a new board; :func:`place` does the work."""

    __slots__ = ("geo", "rock", "filled", "touch", "poison")

    def __init__(self, geo: Geometry, rock: int, filled: int = 0, touch: int = 0, poison: int = 0):
        self.geo, self.rock, self.filled, self.touch, self.poison = geo, rock, filled, touch, poison

    @classmethod
    def from_cells(cls, geo: Geometry, rocks, filled_cells) -> "Board":
        board = cls(geo, sum(1 << c for c in rocks))
        for cell in filled_cells:
            board = board.place(cell)
        return board

    def place(self, cell: int) -> "Board":
        return Board(self.geo, self.rock, *place(self.geo, self.rock, self.filled, self.touch, self.poison, cell))

    def legal(self) -> int:
        return legal_mask(self.geo, self.rock, self.filled, self.touch, self.poison)

    def open_count(self) -> int:
        """Empty, non-poisoned cells still reachable from the legal ones (the rest are dead)."""
        geo = self.geo
        room = geo.full & ~(self.filled | self.rock | self.poison)
        reach = self.legal()
        while True:
            grown = geo.dilate(reach) & room
            if grown == reach:
                return reach.bit_count()
            reach = grown


def fill_witness(geo: Geometry, rock: int, filled: int, touch: int, poison: int, cell: int) -> int:
    """A chain proving ``cell`` can still be filled (mask of its cells), or 0 if it cannot.

    Exhaustive depth-first search over induced chains (no chain cell touches a chain cell
    other than its chain neighbours; only the last one touches a filled cell): a chain whose
    cells, filled from the far end, are each a legal fill. Restricting the search to such
    chains loses nothing (cutting out the cells between two touching chain cells, or ending
    the chain at its first cell touching a filled cell, leaves a valid chain). Before the seed
    every non-rock cell can still be filled. Failed states are memoised.
    """
    bit = 1 << cell
    if (filled | rock | poison) & bit:
        return 0
    if not filled:
        return bit  # before the seed every non-rock cell can still be filled
    exits = touch & ~(filled | rock | poison) & geo.full
    if touch & bit:
        return bit  # legal now
    nbr, ext, around = geo.nbr, geo.ext, geo.nbr_list
    free = geo.full & ~(filled | rock | touch)  # empty cells touching no filled cell
    # Distance layers from the legal cells through free cells (bit-parallel masks). A cell
    # out of their reach cannot be filled; inside, the search tries the neighbours one
    # layer nearer the legal cells first (neighbours differ by at most one layer).
    dilate = geo.dilate
    layers = [exits]
    seen, frontier, start = exits, exits, -1
    while True:
        frontier = dilate(frontier) & free & ~seen
        if not frontier:
            break
        if frontier & bit:
            start = len(layers)
        layers.append(frontier)
        seen |= frontier
    if start < 0:
        return 0
    reach = seen & free
    top = len(layers) - 1
    failed: set[tuple[int, int, int]] = set()
    count = [0]

    def search(prev: int, last: int, depth: int, forbidden: int, chain: int) -> int:
        key = (prev, last, forbidden)
        if key in failed:
            return 0
        line_next = ext[prev][last] if prev >= 0 else -1
        options = nbr[last] & ~forbidden
        if options & exits:
            beyond_of = ext[last]
            for y in around[last]:
                if exits >> y & 1 and options >> y & 1 and y != line_next:
                    beyond = beyond_of[y]
                    if beyond < 0 or not filled >> beyond & 1:
                        return chain | (1 << y)  # (filled, y, last would be three in a line)
        steps = options & reach
        if steps:
            count[0] += 1
            if count[0] > PRUNE_AFTER:
                # A long search: first check that some exit is still reachable at all
                # through cells the chain may still use (a relaxation: sound to prune).
                room = reach & ~forbidden
                region = steps
                while True:
                    grown_region = (dilate(region) & room) | region
                    if grown_region == region:
                        break
                    region = grown_region
                if not dilate(region) & exits & ~forbidden:
                    failed.add(key)
                    return 0
            grown = forbidden | nbr[last] | (1 << last)
            for layer in (depth - 1, depth, depth + 1):
                if 1 <= layer <= top:
                    here = steps & layers[layer]
                    if here:
                        for y in around[last]:
                            if here >> y & 1 and y != line_next:
                                found = search(last, y, layer, grown, chain | (1 << y))
                                if found:
                                    return found
        failed.add(key)
        return 0

    return search(-1, cell, start, bit, bit)
