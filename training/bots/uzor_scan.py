"""Which placements complete a pattern, fast: the scan under Uzor's search hooks.

MCTS calls the hooks (``training.bots.uzor_search``) on the full engine states it samples (never
on observations), at every step of every simulation, so they are built for speed. The costly
part is finding the placements that complete a pattern: testing every legal placement with
``completions`` costs 100–200 µs on a mid-game table. For the standard Map, bitboard shifts
first narrow the cells where a tile of a given motif / colour / type could complete each pattern
still open (exact for most patterns, a necessary condition for the rest), and only those cells
are tested with ``completions``; a user Map tests every acceptable cell. The results are
remembered per table (see ``_MEMO_LIMIT``).
"""

from __future__ import annotations

from envs.uzor.patterns import STANDARD_MAP
from envs.uzor.rules import UzorGame

# The standard Map's pattern numbers (envs.uzor.patterns.STANDARD_MAP).
(LINE3, LINE4, LINE5, FLOW3, FLOW4, FLOW5, SLANT3, SLANT4, WEDGE, SQUARE, CROSS, RING, RAINBOW,
 PARADE, TRIPLET) = (1 << k for k in range(15))
assert [p["name"] for p in STANDARD_MAP] == [
    "Line-3", "Line-4", "Line-5", "Flow-3", "Flow-4", "Flow-5", "Slant-3", "Slant-4", "Wedge", "Square",
    "Cross", "Ring", "Rainbow", "Parade", "Triplet"]


STANDARD_REACH = 4  # the standard Map's patterns span at most five cells: shifts of -4…4


class _TableMasks:
    """Column masks of one table size, for shifting bitboards without wrapping round a row:
    ``columns[d]`` holds the cells whose column + d stays on the table (d in −4…4)."""

    def __init__(self, size: int):
        self.size = size
        self.full = (1 << size * size) - 1
        reach = STANDARD_REACH
        self.columns = {d: sum(1 << x for x in range(size * size) if 0 <= x % size + d < size)
                        for d in range(-reach, reach + 1)}
        self.inner = sum(1 << x for x in range(size * size)
                         if 0 < x // size < size - 1 and 0 < x % size < size - 1)

    def at(self, x: int, dr: int, dc: int) -> int:
        """The cells whose neighbour ``dr`` rows down and ``dc`` columns right is in ``x``."""
        offset = dr * self.size + dc
        y = x >> offset if offset >= 0 else (x << -offset) & self.full
        return y & self.columns[dc] if dc else y


_MASKS: dict[int, _TableMasks] = {}


def _table_masks(size: int) -> _TableMasks:
    masks = _MASKS.get(size)
    if masks is None:
        masks = _MASKS[size] = _TableMasks(size)
    return masks


def _in_line(ahead: list[int], behind: list[int], n: int) -> int:
    """Cells with n − 1 cells of a set in line with them, given ``ahead[k]`` / ``behind[k]``:
    the cells whose (k+1)-th neighbour ahead / behind (one direction) is in the set."""
    out = 0
    for before in range(n):  # the cell is the (before+1)-th of the n
        run = -1
        for k in range(before):
            run &= behind[k]
        for k in range(n - 1 - before):
            run &= ahead[k]
        out |= run
    return out


def _lines(masks: _TableMasks, x: int, n: int, diagonal: bool) -> int:
    """Cells that would make n in a row of ``x`` across or down (or on either diagonal)."""
    at = masks.at
    out = 0
    for dr, dc in ((1, 1), (1, -1)) if diagonal else ((0, 1), (1, 0)):
        ahead = [at(x, k * dr, k * dc) for k in range(1, n)]
        behind = [at(x, -k * dr, -k * dc) for k in range(1, n)]
        out |= _in_line(ahead, behind, n)
    return out


def _cross(masks: _TableMasks, x: int) -> int:
    """Cells that would complete a plus sign of ``x``, as its centre or as an arm."""
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    se, sw, ne, nw = at(x, 1, 1), at(x, 1, -1), at(x, -1, 1), at(x, -1, -1)
    return (e & w & s & n) | (e & at(x, 0, 2) & se & ne) | (w & at(x, 0, -2) & sw & nw) \
        | (s & at(x, 2, 0) & se & sw) | (n & at(x, -2, 0) & ne & nw)


def _square(masks: _TableMasks, x: int) -> int:
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    return (e & s & at(x, 1, 1)) | (w & s & at(x, 1, -1)) | (e & n & at(x, -1, 1)) | (w & n & at(x, -1, -1))


def _wedge(masks: _TableMasks, x: int) -> int:
    """Cells that would complete an L of four of ``x`` (a row of three and a foot at one end)."""
    at = masks.at
    e, w, s, n = at(x, 0, 1), at(x, 0, -1), at(x, 1, 0), at(x, -1, 0)
    e2, w2, s2, n2 = at(x, 0, 2), at(x, 0, -2), at(x, 2, 0), at(x, -2, 0)
    se, sw, ne, nw = at(x, 1, 1), at(x, 1, -1), at(x, -1, 1), at(x, -1, -1)
    knight = {(dr, dc): at(x, dr, dc) for dr, dc in
              ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1))}
    diagonals = se | sw | ne | nw
    in_row = (
        (e & e2 & (s | n | knight[1, 2] | knight[-1, 2])) | (w & e & diagonals)
        | (w & w2 & (s | n | knight[1, -2] | knight[-1, -2]))
        | (s & s2 & (e | w | knight[2, 1] | knight[2, -1])) | (n & s & diagonals)
        | (n & n2 & (e | w | knight[-2, 1] | knight[-2, -1]))
    )
    foot = (
        (e & ((se & knight[2, 1]) | (ne & knight[-2, 1]))) | (w & ((sw & knight[2, -1]) | (nw & knight[-2, -1])))
        | (s & ((se & knight[1, 2]) | (sw & knight[1, -2]))) | (n & ((ne & knight[-1, 2]) | (nw & knight[-1, -2])))
    )
    return in_row | foot


def _shared_reach(masks: _TableMasks, x: int, crossed: int, three: int, longer: int, shapes) -> int:
    """Cells where a tile sharing a motif (or a colour) with the open tiles ``x`` could
    complete a pattern still open by that motif (colour): the lines ``three`` (and the
    ``longer`` ones, which hold such a line through the cell), the Slants (by motif or by
    colour) and ``shapes`` (``(pattern bit, finder)`` pairs)."""
    reach = 0
    if not crossed & three:
        reach |= _lines(masks, x, 3, False)  # the longer lines hold a line of three through the cell
    elif crossed & longer != longer:
        reach |= _lines(masks, x, 4, False)
    if not crossed & SLANT3:
        reach |= _lines(masks, x, 3, True)
    elif not crossed & SLANT4:
        reach |= _lines(masks, x, 4, True)
    for bit, finder in shapes:
        if not crossed & bit:
            reach |= finder(masks, x)
    return reach


def _motif_reach(masks: _TableMasks, x: int, crossed: int) -> int:
    """Cells where a tile of the motif whose open tiles are ``x`` could complete a Line,
    Slant, Square or Cross still open (by motif)."""
    return _shared_reach(masks, x, crossed, LINE3, LINE4 | LINE5, ((SQUARE, _square), (CROSS, _cross)))


def _colour_reach(masks: _TableMasks, x: int, crossed: int) -> int:
    """Cells where a tile of the colour whose open tiles are ``x`` could complete a Flow,
    Slant, Wedge or Cross still open (by colour)."""
    return _shared_reach(masks, x, crossed, FLOW3, FLOW4 | FLOW5, ((WEDGE, _wedge), (CROSS, _cross)))


def _open_reach(masks: _TableMasks, open_bb: int, crossed: int) -> int:
    """Cells that could complete a Ring (the last empty cell round an empty or stone centre)
    or a Rainbow / Parade (4 more open tiles in a row of 5), whatever the tile."""
    at = masks.at
    reach = 0
    if not crossed & RING:
        shut = masks.full & ~open_bb  # empty cells and stones
        around = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
        one = two = 0  # cells with at least one / two shut cells among their 8 neighbours
        for dr, dc in around:
            d = at(shut, dr, dc)
            two |= one & d
            one |= d
        centres = shut & masks.inner & one & ~two
        for dr, dc in around if centres else ():
            reach |= at(centres, -dr, -dc)
    if crossed & (RAINBOW | PARADE) != RAINBOW | PARADE:
        reach |= _lines(masks, open_bb, 5, False)
    return reach


# Memos for the search: a search meets the same tables again and again (every sampled state
# of a move shares its table; one placement changes one motif's and one colour's tiles), and
# each value is a pure function of its key, so remembering them changes no result.
_MEMO_LIMIT = 20_000  # entries per memo (a few tens of MB at most); cleared whole when full
_MOTIF_REACH: dict[tuple[int, int], int] = {}
_COLOUR_REACH: dict[tuple[int, int], int] = {}
_TYPE_REACH: dict[tuple[int, int], int] = {}
_OPEN_REACH: dict[tuple[int, int], int] = {}
_TABLES: dict[tuple[bytes, int], dict[int, tuple]] = {}


def _remember(memo: dict, key, value):
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def _completing(state: UzorGame, t: int, table: dict[int, tuple]) -> tuple:
    """``(cells, plain, patterns)`` for tile type ``t`` on this table: ``cells`` lists
    ``(cell, completed patterns as a bitmask)`` for every empty cell where a tile of type ``t``
    would complete a pattern not crossed out, ``plain`` is the most points among them (no goal
    doubled) and ``patterns`` the union of the bitmasks. ``table`` is the memo of this table."""
    crossed = state.crossed
    where = state.cells_for(t)
    if state.options["patterns"] is None and where:
        masks = _table_masks(state.geo.size)
        m, c = divmod(t, 5)
        motif_bb, colour_bb, open_bb = state.motif_bb[m], state.colour_bb[c], state.open_bb
        reach = _MOTIF_REACH.get((motif_bb, crossed))
        if reach is None:
            reach = _remember(_MOTIF_REACH, (motif_bb, crossed), _motif_reach(masks, motif_bb, crossed))
        colour = _COLOUR_REACH.get((colour_bb, crossed))
        if colour is None:
            colour = _remember(_COLOUR_REACH, (colour_bb, crossed), _colour_reach(masks, colour_bb, crossed))
        common = _OPEN_REACH.get((open_bb, crossed))
        if common is None:
            common = _remember(_OPEN_REACH, (open_bb, crossed), _open_reach(masks, open_bb, crossed))
        reach |= colour | common
        if not crossed & TRIPLET:
            same = motif_bb & colour_bb
            triplet = _TYPE_REACH.get((same, crossed))
            if triplet is None:
                triplet = _remember(_TYPE_REACH, (same, crossed),
                                    _lines(masks, same, 3, False) | _lines(masks, same, 3, True))
            reach |= triplet
        where &= reach
    cells = []
    plain = union = 0
    points = state.geo.map.points
    while where:
        low = where & -where
        cell = low.bit_length() - 1
        where ^= low
        done = state.completions(cell, t)
        if done:
            patterns = 0
            for k in done:
                patterns |= 1 << k
                if points[k] > plain:
                    plain = points[k]
            cells.append((cell, patterns))
            union |= patterns
    found = table[t] = (tuple(cells), plain, union)
    return found


_BY_VERSION: dict[int, dict[int, tuple]] = {}


def _table_memo(state: UzorGame) -> dict[int, tuple]:
    """The memo of ``_completing`` results for this table and set of crossed-out patterns:
    found by the table's version (shared by clones, new after every change, like the
    observer's cache) and else by its contents (the same table reached in another simulation)."""
    table = _BY_VERSION.get(state.table_version)
    if table is None:
        key = (bytes(state.codes), state.crossed)
        table = _TABLES.get(key)
        if table is None:
            table = _remember(_TABLES, key, {})
        _remember(_BY_VERSION, state.table_version, table)
    return table


def completing_placements(state: UzorGame, hand: list[int]) -> list[tuple[int, int]]:
    """Every placement of a tile of ``hand`` (sorted, as the engine keeps hands) that would
    complete a pattern not crossed out, as ``(action, patterns)``: the PLACE action (from the
    slot of the tile's first copy) and the completed pattern numbers as a bitmask."""
    table = _table_memo(state)
    cells = state.geo.cells
    out = []
    prev = -1
    for s, t in enumerate(hand):
        if t == prev:
            continue
        prev = t
        found = table.get(t) or _completing(state, t, table)
        base = s * cells
        out += [(base + cell, patterns) for cell, patterns in found[0]]
    return out


def best_completion(state: UzorGame, player: int, tiles=None) -> int:
    """The most points ``player`` could close with one placement of a tile of ``tiles``
    (types; by default their hand) on the table as it is, their secret goal doubled."""
    table = _table_memo(state)
    goal = state.goals[player]
    goal_value = 2 * state.geo.map.points[goal]
    best = 0
    for t in state.hands[player] if tiles is None else tiles:
        found = table.get(t) or _completing(state, t, table)
        value = goal_value if found[2] >> goal & 1 else found[1]
        if value > best:
            best = value
    return best
