"""Uzor's board-shaped observation: ``(B, B, 64)`` float32 planes built from the flat vector.

The flat vector (``envs.uzor.observer``) holds everything a seat knows; the planes are computed
from it alone, for a whole batch at once (no loop over the observations), so they can show
nothing more. Per cell they give the table and, for every tile a decision is about (my hand's
slots, the market's slots, the opponent's hand), where it may be placed and what placing it
there would complete now; the global facts follow as constant planes. The channels are listed
in ``docs/observations.md`` ("Planes").

A *placement value* is, per cell, 0 where the tile may not be placed, else ``0.2 + 0.8 * v``
with ``v`` the most points one placement of it there completes at once (patterns of the Map not
crossed out), divided by twice the Map's largest points: 0.2 is "fits, completes nothing", 1.0
the largest pattern at double points. For my tiles my secret goal counts double; for the
opponent's nothing does (their goal is not mine to know).

What a placement completes is found for every tile type at once, in two stages: (1) the open
tiles are counted under each orientation of each shape of the Map laid at every place of the
table (one byte a cell), which finds the instances that are all open but one cell, that cell
empty; (2) only those few instances are judged against their patterns' criteria, giving per
instance and pattern the set of tile types that complete it (a 25-bit set).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.uzor.common import COPIES, HAND, MARKET, TYPES
from envs.uzor.patterns import (
    ANY,
    CRITERIA,
    DIFF_COLOURS,
    DIFF_MOTIFS,
    HOLLOW,
    IDENTICAL,
    MAP_SIZE,
    SAME_COLOUR,
    SAME_EITHER,
    SAME_MOTIF,
    STANDARD_MAP,
)

SLOT = 1 + TYPES  # a market slot's one-hot in the flat vector: empty, or type + 1

# Channels (docs/observations.md lists them with their encodings).
STONE_CH = 0
MOTIF_CH = 1  # 5: an open tile's motif, one-hot
COLOUR_CH = 6  # 5: an open tile's colour, one-hot
LAST_CH = 11
MINE_CH = 12  # 5: my hand slots' placement values
MARKET_CH = 17  # 5: the market slots' placement values (for me)
THEIRS_CH = 22  # the opponent's best placement value over their hand
TO_ACT_CH = 23  # the first constant plane
PHASE_CH = 24  # 4: place, take (also the take after a discard), discard, pass
REPEATED_CH = 28
CONTINUED_CH = 29
MY_SCORE_CH = 30
THEIR_SCORE_CH = 31
SUPPLY_CH = 32
IDLE_CH = 33
VALUE_CH = 34  # 15: what closing pattern k is worth to me now (0 once crossed out)
FORK_CH = 49  # 15: the fork offers pattern k
CHANNELS = 64

BASE = 0.2  # the placement value of "fits, completes nothing"
EMPTY_WEIGHT = 1024  # more than the cells of any shape (a shape lies within 31 x 31 cells)

_TYPE_MOTIF = np.arange(TYPES) // 5
_TYPE_COLOUR = np.arange(TYPES) % 5
_FULL_TYPES = (1 << TYPES) - 1
# a 5-bit set of motifs (colours) -> the 25-bit set of the tile types with one of them
_BY_MOTIF = np.array([sum(1 << t for t in range(TYPES) if bits >> (t // 5) & 1) for bits in range(32)], np.int64)
_BY_COLOUR = np.array([sum(1 << t for t in range(TYPES) if bits >> (t % 5) & 1) for bits in range(32)], np.int64)
_POPCOUNT = np.array([bin(bits).count("1") for bits in range(32)], np.int64)


class _Shapes:
    """Every distinct orientation of every shape of the Map that fits on a ``size × size``
    table, with the patterns that use it (Line-3, Flow-3 and Triplet share theirs)."""

    def __init__(self, patterns: list[dict[str, Any]], size: int):
        self.size = size
        found: dict[tuple, list[int]] = {}
        for k, pattern in enumerate(patterns):
            for cells in pattern["shapes"]:
                found.setdefault(tuple(sorted((r, c) for r, c in cells)), []).append(k)
        shapes = [(cells, ks) for cells, ks in found.items()
                  if max(r for r, _ in cells) < size and max(c for _, c in cells) < size]
        self.cells = [cells for cells, _ in shapes]
        count, longest = max(1, len(shapes)), max([len(cells) for cells, _ in shapes] + [1])
        self.reach = max([max(max(r, c) for r, c in cells) for cells, _ in shapes] + [0])
        # per shape: its cells' offsets (padded with the last one), its size, its patterns (a
        # bit set), and the offset of its hollow centre (the middle of its bounding box)
        self.dr = np.zeros((count, longest), np.int64)
        self.dc = np.zeros((count, longest), np.int64)
        self.pad = np.ones((count, longest), bool)
        self.lengths = np.ones(count, np.int64)
        self.members = np.zeros(count, np.int64)
        self.centre = np.zeros((count, 2), np.int64)
        for s, (cells, ks) in enumerate(shapes):
            self.dr[s, :len(cells)] = [r for r, _ in cells]
            self.dc[s, :len(cells)] = [c for _, c in cells]
            self.pad[s, :len(cells)] = False
            self.lengths[s] = len(cells)
            self.centre[s] = (max(r for r, _ in cells) // 2, max(c for _, c in cells) // 2)
            for k in ks:
                self.members[s] |= 1 << k
        self.criteria = [CRITERIA.index(p["criterion"]) for p in patterns]
        # the offsets any shape uses, and which shape uses which (exact in float32: counts stay
        # far below 2**24)
        self.offsets_used = sorted({cell for cells in self.cells for cell in cells}) or [(0, 0)]
        column = {cell: i for i, cell in enumerate(self.offsets_used)}
        self.uses = np.zeros((count, len(self.offsets_used)), np.float32)
        for s, cells in enumerate(self.cells):
            self.uses[s, [column[cell] for cell in cells]] = 1.0

    def short_instances(self, is_open: np.ndarray, empty: np.ndarray):
        """Stage 1: every instance laid on the table whose cells are all open but one, that one
        empty: ``(observation, shape, anchor row, anchor column, missing cell)`` arrays."""
        n_obs, size, reach = is_open.shape[0], self.size, self.reach
        # padded beyond the table's right and bottom edges (no tile, no empty cell there); per
        # cell 1 for an open tile, EMPTY_WEIGHT for an empty cell, 0 for a stone
        weights = np.zeros((n_obs, size + reach, size + reach), np.int32)
        weights[:, :size, :size] = is_open + EMPTY_WEIGHT * empty
        # the counts under every shape at every anchor, as one product: shapes × offsets used
        shifted = np.stack([weights[:, r:r + size, c:c + size] for r, c in self.offsets_used])
        counts = self.uses @ shifted.reshape(len(self.offsets_used), -1).astype(np.float32)
        wanted = (self.lengths - 1 + EMPTY_WEIGHT).astype(np.float32)  # all open but one empty cell
        shape, obs, ar, ac = np.nonzero(counts.reshape(-1, n_obs, size, size) == wanted[:, None, None, None])
        rows, cols = ar[:, None] + self.dr[shape], ac[:, None] + self.dc[shape]  # (P, L)
        gaps = (weights[obs[:, None], rows, cols] == EMPTY_WEIGHT) & ~self.pad[shape]
        which = np.argmax(gaps, axis=1)
        missing = rows[np.arange(len(obs)), which] * size + cols[np.arange(len(obs)), which]
        return obs, shape, ar, ac, missing

    def completing_types(self, obs, shape, ar, ac, codes: np.ndarray) -> np.ndarray:
        """Stage 2: per instance found, per pattern, the 25-bit set of tile types whose
        placement in its empty cell completes it (``(P, 15)``). ``codes`` (``(N, B, B)``): per
        cell the open tile's motif bit, its colour bit << 5 and its type bit << 10, 0 where no
        tile is open."""
        rows, cols = ar[:, None] + self.dr[shape], ac[:, None] + self.dc[shape]
        code = codes[obs[:, None], rows, cols]  # (P, L): the empty cell reads 0
        code = np.where(self.pad[shape], 0, code)
        both = np.bitwise_and.reduce(np.where(code == 0, -1, code), axis=1)  # the empty cell drops out
        seen = np.bitwise_or.reduce(code, axis=1)
        and_m, and_c, and_t = both & 31, (both >> 5) & 31, (both >> 10) & _FULL_TYPES
        seen_m, seen_c = seen & 31, (seen >> 5) & 31
        short = self.lengths[shape] - 1
        judged: dict[int, np.ndarray] = {}
        for crit in set(self.criteria):
            if crit == SAME_MOTIF:
                out = _BY_MOTIF[and_m]
            elif crit == SAME_COLOUR:
                out = _BY_COLOUR[and_c]
            elif crit == SAME_EITHER:
                out = _BY_MOTIF[and_m] | _BY_COLOUR[and_c]
            elif crit == IDENTICAL:
                out = and_t
            elif crit == DIFF_COLOURS:
                out = np.where(_POPCOUNT[seen_c] == short, _BY_COLOUR[31 & ~seen_c], 0)
            elif crit == DIFF_MOTIFS:
                out = np.where(_POPCOUNT[seen_m] == short, _BY_MOTIF[31 & ~seen_m], 0)
            elif crit == HOLLOW:  # the centre holds no open tile (it is empty or a stone)
                centre = codes[obs, ar + self.centre[shape, 0], ac + self.centre[shape, 1]]
                out = np.where(centre != 0, 0, _FULL_TYPES)
            else:
                assert crit == ANY
                out = np.full(len(obs), _FULL_TYPES, np.int64)
            judged[crit] = out
        members = self.members[shape]
        types = np.zeros((len(obs), len(self.criteria)), np.int64)
        for k, crit in enumerate(self.criteria):
            types[:, k] = np.where(members >> k & 1, judged[crit], 0)
        return types


class PlaneMaker:
    """Planes for one set of options (table size and Map): see the module docstring."""

    def __init__(self, observer):
        self.observer = observer
        options = observer.options
        self.size = size = options["board_size"]
        patterns = options["patterns"] or STANDARD_MAP
        self.points = np.array([p["points"] for p in patterns], np.float32)
        self.top = float(max(1, 2 * int(self.points.max())))  # twice the largest pattern
        self.shapes = _Shapes(patterns, size)

    def planes(self, batch: np.ndarray) -> np.ndarray:
        """``(N, B, B, 64)`` planes of a batch ``(N, size)`` of flat observations."""
        obs = self.observer
        n_obs, size, n = batch.shape[0], self.size, obs.cells
        out = np.zeros((n_obs, size, size, CHANNELS), np.float32)
        table = batch[:, obs.TABLE:obs.TABLE + 12 * n].reshape(n_obs, size, size, 12) > 0.5
        empty, stone, motif, colour = table[..., 0], table[..., 1], table[..., 2:7], table[..., 7:12]
        out[..., STONE_CH] = stone
        out[..., MOTIF_CH:MOTIF_CH + 5] = motif
        out[..., COLOUR_CH:COLOUR_CH + 5] = colour
        out[..., LAST_CH] = batch[:, obs.LAST:obs.LAST + n].reshape(n_obs, size, size)

        crossed = batch[:, obs.CROSSED:obs.CROSSED + MAP_SIZE] > 0.5
        goal = batch[:, obs.MY_GOAL:obs.MY_GOAL + MAP_SIZE] > 0.5
        open_worth = self.points * ~crossed  # (N, 15): each pattern's points, 0 once crossed out
        mine_worth = open_worth * (1 + goal)  # my goal doubled

        # the tile types the planes are about: my hand's slots, the market's, the opponent's hand
        counts = np.rint(batch[:, obs.MY_HAND:obs.MY_HAND + 2 * TYPES] * COPIES).astype(np.int64)
        market = batch[:, obs.MARKET:obs.MARKET + MARKET * SLOT].reshape(n_obs, MARKET, SLOT)
        types = np.concatenate([hand_slots(counts[:, :TYPES]), np.argmax(market, axis=2) - 1,
                                hand_slots(counts[:, TYPES:])], axis=1)  # (N, 15), -1: no tile
        present = types >= 0
        kinds = np.maximum(types, 0)
        rows = np.arange(n_obs)[:, None]
        # per tile of interest (N, 15, B, B): where it may go, and what it would complete there
        fits = self._fits(empty, stone, motif, colour, rows, kinds) & present[:, :, None, None]
        mine, plain = self._completes(empty, motif, colour, mine_worth, open_worth)
        value = np.concatenate([mine[rows, kinds[:, :HAND + MARKET]], plain[rows, kinds[:, HAND + MARKET:]]], axis=1)
        value = np.where(fits, BASE + (1 - BASE) / self.top * value.reshape(fits.shape), 0.0)
        out[..., MINE_CH:MINE_CH + HAND + MARKET] = np.moveaxis(value[:, :HAND + MARKET], 1, -1)
        out[..., THEIRS_CH] = value[:, HAND + MARKET:].max(axis=1)

        phase = batch[:, obs.PHASE:obs.PHASE + 7]  # place, fork, take, discard, dead_take, pass, over
        constants = np.concatenate([
            batch[:, obs.TO_MOVE:obs.TO_MOVE + 1],
            phase[:, 0:1], phase[:, 2:3] + phase[:, 4:5], phase[:, 3:4], phase[:, 5:6],
            batch[:, obs.REPEATED:obs.REPEATED + 1],
            batch[:, obs.CONTINUED:obs.CONTINUED + 1],
            batch[:, obs.SCORES:obs.SCORES + 2],
            batch[:, obs.SUPPLY_SIZE:obs.SUPPLY_SIZE + 1],
            batch[:, obs.IDLE:obs.IDLE + 1],
            mine_worth / self.top,
            batch[:, obs.FORK:obs.FORK + MAP_SIZE],
        ], axis=1)
        out[..., TO_ACT_CH:] = constants[:, None, None, :]
        return out

    # ----- where a tile may go, and what it would complete ---------------------------------------
    @staticmethod
    def _fits(empty, stone, motif, colour, rows, kinds) -> np.ndarray:
        """Per observation and each of its tile types ``kinds`` (``(N, K)``), the empty cells
        where a tile of that type may be placed (``(N, K, B, B)``): next to an open tile of its
        motif or its colour, or anywhere next to stones only."""
        is_open = motif.any(axis=3)
        layers = np.concatenate([np.moveaxis(motif, 3, 1), np.moveaxis(colour, 3, 1),
                                 is_open[:, None], (is_open | stone)[:, None]], axis=1)
        near = _neighbours(layers)
        free = empty & near[:, 11] & ~near[:, 10]
        matched = near[rows, kinds // 5] | near[rows, 5 + kinds % 5]
        return empty[:, None] & matched | free[:, None]

    def _completes(self, empty, motif, colour, mine_worth, open_worth):
        """Per tile type and empty cell (``(N, 25, B*B)``), the most a placement completes,
        priced by ``mine_worth`` and by ``open_worth`` (per observation and pattern)."""
        n_obs, size = empty.shape[0], self.size
        n = size * size
        is_open = motif.any(axis=3)
        best = np.zeros((2, n_obs, TYPES, n), np.float32)
        obs, shape, ar, ac, cell = self.shapes.short_instances(is_open, empty)
        if len(obs):
            m_index, c_index = np.argmax(motif, axis=3), np.argmax(colour, axis=3)
            codes = np.where(is_open, (1 << m_index) | (32 << c_index) | (1024 << (5 * m_index + c_index)), 0)
            types = self.shapes.completing_types(obs, shape, ar, ac, codes)  # (P, 15)
            # instances ending at the same cell: their type sets joined per pattern
            key = obs * n + cell
            order = np.argsort(key, kind="stable")
            key = key[order]
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            joined = np.bitwise_or.reduceat(types[order], starts, axis=0)  # (U, 15)
            unique = key[starts]
            at, k = np.nonzero(joined)  # (cell, pattern) pairs that complete for some type
            if len(at):
                has = (joined[at, k][:, None] >> np.arange(TYPES)) & 1 != 0  # (E, 25)
                runs = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
                target = unique[at[runs]]
                for which, worth in enumerate((mine_worth, open_worth)):
                    values = np.where(has, worth[unique[at] // n, k][:, None], 0)
                    best[which][target // n, :, target % n] = np.maximum.reduceat(values, runs, axis=0)
        return best[0], best[1]


def _neighbours(layers: np.ndarray) -> np.ndarray:
    """Cells orthogonally next to a set cell of each layer (``(N, L, B, B)`` booleans)."""
    near = np.zeros_like(layers)
    near[..., 1:, :] |= layers[..., :-1, :]
    near[..., :-1, :] |= layers[..., 1:, :]
    near[..., 1:] |= layers[..., :-1]
    near[..., :-1] |= layers[..., 1:]
    return near


def hand_slots(counts: np.ndarray) -> np.ndarray:
    """Hand slots from per-type counts (``(N, 25)``), the hand sorted by type as the engine
    keeps it: ``(N, 5)`` tile types, -1 for an empty slot."""
    total = np.cumsum(counts, axis=1)
    types = (total[:, :, None] <= np.arange(HAND)[None, None, :]).sum(axis=1)
    return np.where(types < TYPES, types, -1)
