"""Uzor's board-shaped observation: ``(B, B, 74)`` float32 planes built from the flat vector.

The flat vector (``envs.uzor.observer``) holds everything a seat knows; the planes are computed
from it alone, for a whole batch at once (no loop over the observations), so they can show
nothing more. Per cell they give the table and, for every tile a decision is about (my hand's
slots, the market's slots, the opponent's hand), where it may be placed and what placing it
there would complete now, and per hand slot what the opponent and I could complete next once
its tile lies in a cell (``_follow_ups``); the global facts follow as constant planes. The
channels are listed in ``docs/observations.md`` ("Planes").

A *placement value* is, per cell, 0 where the tile may not be placed, else ``0.2 + 0.8 * v``
with ``v`` the most points one placement of it there completes at once (patterns of the Map not
crossed out), divided by twice the Map's largest points: 0.2 is "fits, completes nothing", 1.0
the largest pattern at double points. For my tiles my secret goal counts double; for the
opponent's nothing does (their goal is not mine to know).

What a placement completes is found for every tile type at once, in two stages: (1) the open
tiles are counted under each orientation of each shape of the Map laid at every place of the
table (one byte a cell), which finds the instances that are all open but one cell, that cell
empty; (2) only those few instances are judged against their patterns' criteria, giving per
instance and pattern the set of tile types that complete it (a 25-bit set). The follow-ups add
the instances two tiles short, judged with my slot's tile supposed in one gap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.uzor.common import COPIES, HAND, MARKET, TYPES
from envs.uzor.plane_arrays import (
    best_of, best_per_cell, beyond, hand_slots, joined_per_cell, neighbourhood, padded_best_of, priced, tile_codes, window_best,
)
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
THREAT_CH = 23  # 5: per my hand slot, what the opponent could complete next once it lies here
PREPARE_CH = 28  # 5: per my hand slot, what my other tiles could complete next once it lies here
TO_ACT_CH = 33  # the first constant plane
PHASE_CH = 34  # 4: place, take (also the take after a discard), discard, pass
REPEATED_CH = 38
CONTINUED_CH = 39
MY_SCORE_CH = 40
THEIR_SCORE_CH = 41
SUPPLY_CH = 42
IDLE_CH = 43
VALUE_CH = 44  # 15: what closing pattern k is worth to me now (0 once crossed out)
FORK_CH = 59  # 15: the fork offers pattern k
CHANNELS = 74

BASE = 0.2  # the placement value of "fits, completes nothing"
EMPTY_WEIGHT = 1024  # more than the cells of any shape (a shape lies within 31 x 31 cells)

_TYPE_MOTIF = np.arange(TYPES) // 5
_TYPE_COLOUR = np.arange(TYPES) % 5
_FULL_TYPES = (1 << TYPES) - 1
# a 5-bit set of motifs (colours) -> the 25-bit set of the tile types with one of them
_BY_MOTIF = np.array([sum(1 << t for t in range(TYPES) if bits >> (t // 5) & 1) for bits in range(32)], np.int64)
_BY_COLOUR = np.array([sum(1 << t for t in range(TYPES) if bits >> (t % 5) & 1) for bits in range(32)], np.int64)
_POPCOUNT = np.array([bin(bits).count("1") for bits in range(32)], np.int64)
# per tile type, the types that match it (same motif or same colour): what may go beside it
_MATCHES = np.array([_BY_MOTIF[1 << t // 5] | _BY_COLOUR[1 << t % 5] for t in range(TYPES)], np.int64)


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

    def lay(self, is_open: np.ndarray, empty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stage 1, once for a batch: the table's cell weights and, per shape and anchor, the
        weights under the shape laid there (``short_instances`` reads them)."""
        n_obs, size, reach = is_open.shape[0], self.size, self.reach
        # padded beyond the table's right and bottom edges (no tile, no empty cell there); per
        # cell 1 for an open tile, EMPTY_WEIGHT for an empty cell, 0 for a stone
        weights = np.zeros((n_obs, size + reach, size + reach), np.int32)
        weights[:, :size, :size] = is_open + EMPTY_WEIGHT * empty
        # the counts under every shape at every anchor, as one product: shapes × offsets used
        shifted = np.stack([weights[:, r:r + size, c:c + size] for r, c in self.offsets_used])
        counts = self.uses @ shifted.reshape(len(self.offsets_used), -1).astype(np.float32)
        return weights, counts.reshape(-1, n_obs, size, size)

    def short_instances(self, laid: tuple[np.ndarray, np.ndarray], missing: int = 1):
        """Stage 1: every instance laid on the table (``lay``'s counts) whose cells are all
        open but ``missing`` (1 or 2), those empty: ``(observation, shape, anchor row, anchor
        column, empty cells)`` arrays, the empty cells ``(P, missing)`` in the shape's cell
        order."""
        weights, counts = laid
        size = self.size
        wanted = (self.lengths - missing + missing * EMPTY_WEIGHT).astype(np.float32)
        shape, obs, ar, ac = np.nonzero(counts == wanted[:, None, None, None])
        rows, cols = ar[:, None] + self.dr[shape], ac[:, None] + self.dc[shape]  # (P, L)
        gaps = (weights[obs[:, None], rows, cols] == EMPTY_WEIGHT) & ~self.pad[shape]
        # the gaps' positions in cell order: a stable sort puts the True ones last
        which = np.argsort(gaps, axis=1, kind="stable")[:, -missing:]
        line = np.arange(len(obs))[:, None]
        return obs, shape, ar, ac, rows[line, which] * size + cols[line, which]

    def completing_types(self, obs, shape, ar, ac, codes: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        """Stage 2: per instance found, per pattern, the 25-bit set of tile types whose
        placement in its empty cell completes it (``(P, 15)``). ``codes`` (``(N, B, B)``): per
        cell the open tile's motif bit, its colour bit << 5 and its type bit << 10, 0 where no
        tile is open. ``extra`` (``(P, S)`` codes, 0 for none): tiles supposed laid, one at a
        time, in one of two empty cells (the instances from ``short_instances(..., missing=2)``),
        each judged with the others: ``(P, S, 15)``."""
        rows, cols = ar[:, None] + self.dr[shape], ac[:, None] + self.dc[shape]
        code = codes[obs[:, None], rows, cols]  # (P, L): the empty cell reads 0
        code = np.where(self.pad[shape], 0, code)
        both = np.bitwise_and.reduce(np.where(code == 0, -1, code), axis=1)  # the empty cell drops out
        seen = np.bitwise_or.reduce(code, axis=1)
        short, members = self.lengths[shape] - 1, self.members[shape]
        if extra is not None:  # each supposed tile joins the instance's own (a 0 drops out)
            both = both[:, None] & np.where(extra == 0, -1, extra)
            seen = seen[:, None] | extra
            short, members = short[:, None], members[:, None]
        and_m, and_c, and_t = both & 31, (both >> 5) & 31, (both >> 10) & _FULL_TYPES
        seen_m, seen_c = seen & 31, (seen >> 5) & 31
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
                if extra is not None:
                    out = out[:, None]
            else:
                assert crit == ANY
                out = np.full(both.shape, _FULL_TYPES, np.int64)
            judged[crit] = out
        types = np.zeros(both.shape + (len(self.criteria),), np.int64)
        for k, crit in enumerate(self.criteria):
            types[..., k] = np.where(members >> k & 1, judged[crit], 0)
        return types


def constant_channels(batch, obs, worth, xp: Any = np):
    """Per observation, the values of the constant planes from ``TO_ACT_CH`` on, read from the
    flat vectors ``batch`` (the observer ``obs``'s layout) and ``worth`` (each pattern's value
    to me, already scaled); ``xp`` is numpy or ``jax.numpy`` (the JAX planes share this)."""
    phase = batch[:, obs.PHASE:obs.PHASE + 7]  # place, fork, take, discard, dead_take, pass, over
    return xp.concatenate([
        batch[:, obs.TO_MOVE:obs.TO_MOVE + 1],
        phase[:, 0:1], phase[:, 2:3] + phase[:, 4:5], phase[:, 3:4], phase[:, 5:6],
        batch[:, obs.REPEATED:obs.REPEATED + 1],
        batch[:, obs.CONTINUED:obs.CONTINUED + 1],
        batch[:, obs.SCORES:obs.SCORES + 2],
        batch[:, obs.SUPPLY_SIZE:obs.SUPPLY_SIZE + 1],
        batch[:, obs.IDLE:obs.IDLE + 1],
        worth,
        batch[:, obs.FORK:obs.FORK + MAP_SIZE],
    ], axis=1)


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
        """``(N, B, B, 74)`` planes of a batch ``(N, size)`` of flat observations."""
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
        is_open = motif.any(axis=3)
        near, free = neighbourhood(empty, stone, motif, colour, is_open)
        fits = (empty[:, None] & (near[rows, kinds // 5] | near[rows, 5 + kinds % 5]) | free[:, None]) \
            & present[:, :, None, None]
        mine, plain, found = self._completes(empty, motif, colour, is_open, mine_worth, open_worth)
        value = np.concatenate([mine[rows, kinds[:, :HAND + MARKET]], plain[rows, kinds[:, HAND + MARKET:]]], axis=1)
        value = np.where(fits, BASE + (1 - BASE) / self.top * value.reshape(fits.shape), 0.0)
        out[..., MINE_CH:MINE_CH + HAND + MARKET] = np.moveaxis(value[:, :HAND + MARKET], 1, -1)
        out[..., THEIRS_CH] = value[:, HAND + MARKET:].max(axis=1)
        threat, prepare = self._follow_ups(empty, near, free, kinds, present, fits, mine_worth, open_worth, plain, found)
        out[..., THREAT_CH:THREAT_CH + HAND] = np.moveaxis(threat, 1, -1)
        out[..., PREPARE_CH:PREPARE_CH + HAND] = np.moveaxis(prepare, 1, -1)

        out[..., TO_ACT_CH:] = constant_channels(batch, obs, mine_worth / self.top)[:, None, None, :]
        return out

    # ----- what a tile would complete ------------------------------------------------------------
    def _completes(self, empty, motif, colour, is_open, mine_worth, open_worth):
        """Per tile type and empty cell (``(N, 25, B*B)``), the most a placement completes,
        priced by ``mine_worth`` and by ``open_worth`` (per observation and pattern); and the
        instances found, for ``_follow_ups``."""
        n_obs, n = empty.shape[0], self.size * self.size
        codes = np.where(is_open, tile_codes(np.argmax(motif, axis=3), np.argmax(colour, axis=3)), 0)
        laid = self.shapes.lay(is_open, empty)
        obs, shape, ar, ac, gap = self.shapes.short_instances(laid)
        types = (self.shapes.completing_types(obs, shape, ar, ac, codes) if len(obs)
                 else np.zeros((0, len(self.shapes.criteria)), np.int64))  # (P, 15)
        grouped = joined_per_cell(n, obs, gap[:, 0], types)
        mine, plain = best_per_cell(n_obs, n, *grouped, (mine_worth, open_worth))
        return mine, plain, (laid, codes, obs, shape, ar, ac, gap[:, 0], types, grouped)

    def _follow_ups(self, empty, near, free, kinds, present, fits, mine_worth, open_worth, plain, found):
        """Per my hand slot ``s`` and cell ``x`` where its tile fits (``(N, 5, B, B)`` each):
        with that tile laid at ``x`` (and left open), the most the opponent could complete at
        once with a tile of their hand anywhere (plain points), and the most I could with a
        tile of my other slots (my goal doubled) in a cell within the Map's reach of ``x``
        (``reach`` rows and columns: where a placement changes what completes). It is the
        engine's ``completions`` after the placement, computed from the instances: those
        already one tile short (still there, except a hollow pattern whose centre ``x`` fills),
        those two short with ``x`` one of the gaps, and the fits the tile at ``x`` gives or
        takes from its four neighbours; beyond ``x``'s reach nothing changes."""
        laid, codes, _, _, _, _, _, _, (unique1, joined1) = found
        n_obs, size, reach = empty.shape[0], self.size, self.shapes.reach
        n = size * size
        my_kinds, opp_kinds = kinds[:, :HAND], kinds[:, HAND + MARKET:]
        my_present, opp_present = present[:, :HAND], present[:, HAND + MARKET:]
        # the tile types each side could use, per slot I place: the opponent's hand; my other slots
        opp_bits = np.bitwise_or.reduce(np.where(opp_present, 1 << opp_kinds, 0), axis=1)
        slot_bits = np.where(my_present, 1 << my_kinds, 0)  # (N, 5)
        others = np.stack([np.bitwise_or.reduce(np.delete(slot_bits, s, axis=1), axis=1) for s in range(HAND)], 1)
        # (the worths are whole points: as float32 they are exact, and every value raised into
        # the float32 planes below stays float32)
        sides = ((np.repeat(opp_bits[:, None], HAND, axis=1), open_worth.astype(np.float32)),
                 (others, mine_worth.astype(np.float32)))

        # the types that may go in each cell now, and next to a tile of type t laid beside it
        matched = np.zeros((n_obs, size, size), np.int64)
        for i in range(5):
            matched |= np.where(near[:, i], _BY_MOTIF[1 << i], 0) | np.where(near[:, 5 + i], _BY_COLOUR[1 << i], 0)
        fits_now = np.where(empty, matched | np.where(free, _FULL_TYPES, 0), 0).reshape(n_obs, n)
        # beside the new tile a cell is no longer among stones only, and takes its matches too
        fits_beside = np.where(empty[:, None], matched[:, None] | _MATCHES[my_kinds][:, :, None, None], 0)
        fits_beside = fits_beside.reshape(n_obs, HAND, n)

        hollow = np.array([c == HOLLOW for c in self.shapes.criteria])
        flat = best_per_cell(n_obs, n, unique1, np.where(hollow, 0, joined1), [worth for _, worth in sides])
        out = np.zeros((2, n_obs, HAND, n), np.float32)
        for side, (bits, _) in enumerate(sides):
            # one short elsewhere: the best per cell y, then over the cells within reach of x
            # (the four cells beside x with the fits its tile changes)
            far, beside = (padded_best_of(bits, usable, flat[side], reach, size)
                           for usable in (fits_now[:, None], fits_beside))
            out[side] = window_best(far, beside, reach, size).reshape(n_obs, HAND, n)

        self._raise_hollow(out, sides, found, fits_now, fits_beside)
        self._raise_two_short(out, sides, laid, codes, kinds, present, fits_now, fits_beside)
        # the opponent's threat counts anywhere: beyond x's reach their completions stay as they are
        now = best_of(opp_bits[:, None, None] & fits_now[:, None], plain)[:, 0]
        out[0] = np.maximum(out[0], beyond(now.reshape(n_obs, size, size), reach).reshape(n_obs, 1, n))
        placed = fits[:, :HAND].reshape(n_obs, HAND, n)
        return [np.where(placed, side / self.top, 0.0).reshape(n_obs, HAND, size, size) for side in out]

    def _raise_hollow(self, out, sides, found, fits_now, fits_beside) -> None:
        """Hollow patterns one short at y: gone where x is their centre. What one is worth after
        a placement at x depends on x only through whether x is next to y: both values are
        priced once per instance, then raised at every x within reach (into ``out``)."""
        _, _, obs1, shape1, ar1, ac1, cell1, types1, _ = found
        size, reach = self.size, self.shapes.reach
        n = size * size
        hollow = np.array([c == HOLLOW for c in self.shapes.criteria])
        keep = (types1 & np.where(hollow, -1, 0)).any(axis=1)
        if not keep.any():
            return
        o, y, sh = obs1[keep], cell1[keep], shape1[keep]
        centre = (ar1[keep] + self.shapes.centre[sh, 0]) * size + ac1[keep] + self.shapes.centre[sh, 1]
        judged = np.where(hollow, types1[keep], 0)[:, None, :]  # (H, 1, 15)
        span = np.arange(-reach, reach + 1)
        dr, dc = (a.ravel() for a in np.meshgrid(span, span, indexing="ij"))
        r, c = y[:, None] // size + dr, y[:, None] % size + dc  # (H, offsets): every x within reach
        x = r * size + c
        ok = ((dr != 0) | (dc != 0)) & (r >= 0) & (r < size) & (c >= 0) & (c < size) & (x != centre[:, None])
        line, offset = np.nonzero(ok)
        beside_y = (np.abs(dr) + np.abs(dc) == 1)[offset][:, None]  # (E, 1): x next to y
        index = (o[line, None] * HAND + np.arange(HAND)) * n + x[ok][:, None]  # (E, 5)
        for side, (bits, worth) in enumerate(sides):
            next_to = priced(judged, fits_beside[o, :, y] & bits[o], worth[o])  # (H, 5)
            apart = priced(judged, fits_now[o, y][:, None] & bits[o], worth[o])
            value = np.where(beside_y, next_to[line], apart[line])
            np.maximum.at(out[side].reshape(-1), index.ravel(), value.ravel())

    def _raise_two_short(self, out, sides, laid, codes, kinds, present, fits_now, fits_beside) -> None:
        """Two short, x one gap and y the other: judged with my slot's tile at x; only the
        (instance, slot) pairs that complete some pattern for some type can raise a value (in ``out``)."""
        size = self.size
        n = size * size
        my_kinds, my_present = kinds[:, :HAND], present[:, :HAND]
        obs2, shape2, ar2, ac2, gaps = self.shapes.short_instances(laid, missing=2)
        if not len(obs2):
            return
        extra = np.where(my_present[obs2], tile_codes(my_kinds[obs2] // 5, my_kinds[obs2] % 5), 0)  # (P2, 5)
        judged = self.shapes.completing_types(obs2, shape2, ar2, ac2, codes, extra)  # (P2, 5, 15)
        pair, slot = np.nonzero(judged.any(axis=2))
        judged, o = judged[pair, slot], obs2[pair]  # (E, 15), (E,)
        for x, y in ((gaps[pair, 0], gaps[pair, 1]), (gaps[pair, 1], gaps[pair, 0])):
            # the types that may then go at y: beside x the fits the tile at x gives or takes
            adjacent = np.abs(x // size - y // size) + np.abs(x % size - y % size) == 1
            usable = np.where(adjacent, fits_beside[o, slot, y], fits_now[o, y])  # (E,)
            index = (o * HAND + slot) * n + x
            for side, (bits, worth) in enumerate(sides):
                value = np.where(judged & (usable & bits[o, slot])[:, None] != 0, worth[o], 0).max(axis=1)
                np.maximum.at(out[side].reshape(-1), index, value)

