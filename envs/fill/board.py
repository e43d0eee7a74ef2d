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

from envs.core.bits import set_bits as bits

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
        # complete_cache[c]: whether filling c would complete a forbidden pattern, keyed by the
        # filled cells in c's window (fill_witnesses asks it for many boards).
        self.complete_cache: list[dict[int, bool]] = [{} for _ in range(n)]
        self._seed_chains: dict[int, dict[int, list[int]]] = {}

    def seed_chains(self, seed: int) -> dict[int, list[int]]:
        """Filling chains (:func:`witness_choices`) of every cell that can be filled on the
        board whose only filled cell is ``seed`` and which has no rocks, found once. Rocks
        only take cells away, so a cell missing here cannot be filled with rocks either, and
        a chain that avoids the rocks still fills its cell with them."""
        chains = self._seed_chains.get(seed)
        if chains is None:
            chains = self._seed_chains[seed] = witness_choices(self, 0, 1 << seed, self.nbr[seed], 0)
        return chains

    def completes(self, cell: int, board: int) -> bool:
        """Whether filling ``cell`` completes a forbidden pattern with the ``board`` cells."""
        key = board & self.window[cell]
        cache = self.complete_cache[cell]
        known = cache.get(key)
        if known is None:
            known = any(key & m == m for m in self.patterns_of[cell])
            if len(cache) < POISON_CACHE_LIMIT:
                cache[key] = known
        return known

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
    layers, start, seen = _distance_layers(geo, exits, free, bit)
    if start < 0:
        return 0
    reach = seen & free
    top = len(layers) - 1
    entries: dict[int, int] = {}  # filled on the first long search (_exit_entries)
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
                if not entries:
                    entries.update(_exit_entries(geo, exits, reach, filled))
                if _no_exit_left(geo, steps, reach, forbidden, exits, entries):
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


def _distance_layers(geo: Geometry, exits: int, free: int, bit: int) -> tuple[list[int], int, int]:
    """Distance layers from the legal cells (``exits``) through free cells, as bit-parallel
    masks; the layer holding ``bit`` (−1 if none does: it cannot be filled) and the union of
    the layers. The search tries the neighbours one layer nearer the legal cells first
    (neighbours differ by at most one layer)."""
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
    return layers, start, seen


def _exit_entries(geo: Geometry, exits: int, reach: int, filled: int) -> dict[int, int]:
    """For each exit ``e``, the cells touching no filled cell from which a chain may end on
    ``e`` (stepping p → e must not make three in a line with a filled cell beyond e)."""
    entries = {}
    for exit_cell in bits(exits):
        ok = 0
        for p in geo.nbr_list[exit_cell]:
            if reach >> p & 1:
                beyond = geo.ext[p][exit_cell]
                if beyond < 0 or not filled >> beyond & 1:
                    ok |= 1 << p
        entries[exit_cell] = ok
    return entries


def _no_exit_left(geo: Geometry, steps: int, reach: int, forbidden: int, exits: int, entries: dict[int, int]) -> bool:
    """In a long search, whether no exit can still be stepped onto from the cells the chain may
    still reach and use (a relaxation: sound to prune)."""
    dilate = geo.dilate
    room = reach & ~forbidden
    region = steps
    while True:
        grown_region = (dilate(region) & room) | region
        if grown_region == region:
            break
        region = grown_region
    usable = 0  # cells from which a chain may step onto an exit still allowed
    for exit_cell in bits(exits & ~forbidden):
        usable |= entries[exit_cell]
    return not region & usable


WITNESS_CHOICES = 2  # chains kept per cell by fill_witnesses (more: fewer exact searches)


def fill_witnesses(geo: Geometry, rock: int, filled: int, touch: int, poison: int,
                   known: dict[int, int] | None = None) -> dict[int, int]:
    """Every empty cell that can still be filled, with a filling chain for it (its mask, the
    cell at its head): the exact set :func:`fill_witness` decides cell by cell, found mostly
    without searching. Walking out from the legal cells (a chain of their own), a cell gets
    the chains of its neighbours that have some, plus itself, where that completes no forbidden
    pattern with the filled cells (the neighbour's chain is filled first, then the cell, which
    touches it; a few such chains are kept per cell); cells are retried as their neighbours
    get chains, and a cell for which none works is searched exactly. Cells the walk does not
    reach (walled off by filled, poisoned and rock cells) cannot be filled. ``known`` gives
    chains already proven on this board (they are kept)."""
    return {cell: found[0] for cell, found in witness_choices(geo, rock, filled, touch, poison, known).items()}


def witness_choices(geo: Geometry, rock: int, filled: int, touch: int, poison: int,
                    known: dict[int, int] | None = None) -> dict[int, list[int]]:
    """:func:`fill_witnesses` with up to ``WITNESS_CHOICES`` chains per cell."""
    legal = touch & ~(filled | rock | poison) & geo.full
    chains: dict[int, list[int]] = {cell: [1 << cell] for cell in bits(legal)}
    if known:
        for cell, chain in known.items():
            chains.setdefault(cell, [chain])
    free = geo.full & ~(filled | rock | poison)
    around, dilate, completes = geo.nbr_list, geo.dilate, geo.completes
    windows, caches = geo.window, geo.complete_cache

    def extend(cell: int) -> bool:
        bit, found = 1 << cell, []
        window, cache = windows[cell], caches[cell]
        for y in around[cell]:
            for chain in chains.get(y, ()):
                if not chain & bit:
                    bad = cache.get((filled | chain) & window)
                    if bad is None:
                        bad = completes(cell, filled | chain)
                    if not bad:
                        found.append(chain | bit)
                        if len(found) == WITNESS_CHOICES:
                            chains[cell] = found
                            return True
                        break  # one chain through each neighbour
        if found:
            chains[cell] = found
        return bool(found)

    seen = frontier = legal
    pending: list[int] = []
    while frontier:
        frontier = dilate(frontier) & free & ~seen
        seen |= frontier
        pending = [cell for cell in pending + bits(frontier) if cell not in chains and not extend(cell)]
    while pending:  # retry until no neighbour's chain helps any more
        left = [cell for cell in pending if not extend(cell)]
        if len(left) == len(pending):
            break
        pending = left
    for cell in pending:  # searched exactly, each found chain helping the cells after it
        if not extend(cell):
            chain = fill_witness(geo, rock, filled, touch, poison, cell)
            if chain:
                chains[cell] = [chain]
    return chains


def settle_chains(geo: Geometry, rock: int, filled: int, touch: int, poison: int, chains: dict[int, int],
                  cells: list[int]) -> None:
    """Add to ``chains`` (cell -> a filling chain, all valid on this board) a chain for each of
    ``cells`` that can still be filled (filled, rock and poisoned ones have none): from a
    neighbour's chain where that works (retried while some cell gains one), else by the exact
    search."""
    completes, around = geo.completes, geo.nbr_list
    blocked = filled | rock | poison
    left = [cell for cell in cells if not blocked >> cell & 1]
    while left:
        still = []
        for cell in left:
            bit = 1 << cell
            for y in around[cell]:
                chain = chains.get(y)
                if chain is not None and not chain & bit and not completes(cell, filled | chain):
                    chains[cell] = chain | bit
                    break
            else:
                still.append(cell)
        if len(still) == len(left):
            break
        left = still
    for cell in left:
        chain = fill_witness(geo, rock, filled, touch, poison, cell)
        if chain:
            chains[cell] = chain
