"""Uzor's planes in JAX: the Python observer's (``envs.uzor.planes``), equal to the bit.

The Python planes find the instances one or two tiles short with ``np.nonzero`` and work on
that short list; here every instance is judged at once, with fixed shapes. Per distinct
orientation ("shape") of the Map, every array is laid out by the instance's anchor (the place
of the shape's offset ``(0, 0)``), so a shape's cell ``(dr, dc)`` is a slice of the table
padded below and to the right (``_at``), and a value found per anchor moves to the frame of one
of its cells by a shift (``_to_cell``). What Python gathers per found instance is the same
expression evaluated at every anchor and masked where the instance is not one (or two) short,
so the numbers are the same; the shapes, their cells, members and centres are the Python
planes' own (``planes._Shapes``), made with numpy when the env is built. Shapes with the same
number of cells and member patterns (the Wedge's eight orientations) are one ``lax.scan`` over
their offsets, so the program holds their code once.

Every value is computed as whole points (int32: the Map's points, doubled for my goal) and
turned into the float32 the Python planes write through tables made with the very numpy
expression the Python planes evaluate, so the floats agree to the bit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.uzor.common import COPIES, HAND, MARKET, TYPES
from envs.uzor.patterns import (
    ANY, DIFF_COLOURS, DIFF_MOTIFS, HOLLOW, IDENTICAL, MAP_SIZE, SAME_COLOUR, SAME_EITHER, SAME_MOTIF, STANDARD_MAP,
)
from envs.uzor.planes import _MATCHES, BASE, CHANNELS, SLOT, _Shapes, constant_channels

FULL = (1 << TYPES) - 1  # every tile type (a 25-bit set)
SIDES = 2  # the follow-ups' sides: the opponent's threat (0), my preparation (1)
_NEAR4 = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _by_motif(bits: jax.Array) -> jax.Array:
    """A 5-bit set of motifs -> the 25-bit set of the tile types with one of them."""
    out = jnp.zeros_like(bits)
    for m in range(5):
        out = out | jnp.where((bits >> m) & 1 == 1, 31 << (5 * m), 0)
    return out


def _by_colour(bits: jax.Array) -> jax.Array:
    """A 5-bit set of colours -> the 25-bit set of the tile types with one of them (type
    ``5 m + c``: the bits copied to each motif's five, which never overlap)."""
    return bits * 0x108421


def _judge(crit: int, both_mc, both_t, seen_mc, short: int, centre_open) -> jax.Array:
    """``planes._Shapes.completing_types`` for one criterion: the tile types that complete an
    instance whose open tiles' codes AND to ``both_*`` (motif bits | colour bits << 5; type
    bits) and OR to ``seen_mc``, ``short`` of them with the completing one left out."""
    and_m, and_c, and_t = both_mc & 31, (both_mc >> 5) & 31, both_t & FULL
    seen_m, seen_c = seen_mc & 31, (seen_mc >> 5) & 31
    count = jax.lax.population_count
    if crit == SAME_MOTIF:
        return _by_motif(and_m)
    if crit == SAME_COLOUR:
        return _by_colour(and_c)
    if crit == SAME_EITHER:
        return _by_motif(and_m) | _by_colour(and_c)
    if crit == IDENTICAL:
        return and_t
    if crit == DIFF_COLOURS:
        return jnp.where(count(seen_c) == short, _by_colour(31 & ~seen_c), 0)
    if crit == DIFF_MOTIFS:
        return jnp.where(count(seen_m) == short, _by_motif(31 & ~seen_m), 0)
    if crit == HOLLOW:  # the centre holds no open tile (it is empty or a stone)
        return jnp.broadcast_to(jnp.where(centre_open, 0, FULL), jnp.broadcast_shapes(both_mc.shape, centre_open.shape))
    assert crit == ANY
    return jnp.full(both_mc.shape, FULL, jnp.int32)


def _best(joined: dict[int, jax.Array], usable: jax.Array, worth: jax.Array) -> jax.Array:
    """``(N, S, B, B)``: the largest ``worth[..., k]`` (``(N, 15)`` or ``(N, S, 15)``) among the
    patterns ``k`` of ``joined`` (``(N, B, B)`` type sets, or ``(N, S, B, B)``) whose types meet
    ``usable``; 0 where none does."""
    best = jnp.zeros(usable.shape, jnp.int32)
    for k, types in joined.items():
        types = types if types.ndim == usable.ndim else types[:, None]
        value = worth[..., k][..., None, None] if worth.ndim == 3 else worth[:, k][:, None, None, None]
        best = jnp.maximum(best, jnp.where(types & usable != 0, value, 0))
    return best


def _offset_max(padded: jax.Array, offsets, reach: int, size: int) -> jax.Array:
    """``(…, B, B)``: per cell ``x`` the largest of ``padded`` (padded by ``reach`` on every side)
    at ``x + d`` over the offsets ``d`` (static); rows sharing their set of columns take one
    maximum over those columns."""
    by_row: dict[int, set[int]] = {}
    for dr, dc in offsets:
        by_row.setdefault(dr, set()).add(dc)
    by_cols: dict[frozenset, list[int]] = {}
    for dr, dcs in by_row.items():
        by_cols.setdefault(frozenset(dcs), []).append(dr)
    best = jnp.zeros(padded.shape[:-2] + (size, size), padded.dtype)
    for dcs, drs in by_cols.items():
        cols = None
        for dc in sorted(dcs):
            part = padded[..., reach + dc:reach + dc + size]
            cols = part if cols is None else jnp.maximum(cols, part)
        for dr in drs:
            best = jnp.maximum(best, cols[..., reach + dr:reach + dr + size, :])
    return best


def _beyond(values: jax.Array, reach: int) -> jax.Array:
    """``plane_arrays.beyond``: per cell the largest of ``values`` (``(N, B, B)``, never
    negative) more than ``reach`` rows or columns away."""
    size = values.shape[-1]
    out = jnp.zeros_like(values)
    low, high = np.arange(size) - reach - 1, np.arange(size) + reach + 1
    for axis in (1, 2):
        line = values.max(axis=3 - axis)  # (N, B): per row (axis 1) or column (axis 2)
        before = jax.lax.cummax(line, axis=1)
        after = jax.lax.cummax(line, axis=1, reverse=True)
        best = jnp.where(low >= 0, before[:, np.clip(low, 0, size - 1)], 0)
        best = jnp.where(high < size, jnp.maximum(best, after[:, np.clip(high, 0, size - 1)]), best)
        out = jnp.maximum(out, best[:, :, None] if axis == 1 else best[:, None, :])
    return out


def _hand_slots(counts: jax.Array) -> jax.Array:
    """``plane_arrays.hand_slots``: ``(N, 5)`` tile types of the sorted hand, -1 for none."""
    total = jnp.cumsum(counts, axis=1)
    types = jnp.sum(total[:, :, None] <= jnp.arange(HAND)[None, None, :], axis=1)
    return jnp.where(types < TYPES, types, -1)


class _Table(NamedTuple):
    """What the planes read from a batch of flat observations (``N`` of them, ``B × B``)."""

    empty: jax.Array  # (N, B, B) bool
    stone: jax.Array
    motif: jax.Array  # (N, B, B, 5) bool
    colour: jax.Array
    is_open: jax.Array  # (N, B, B) bool
    code_mc: jax.Array  # (N, B, B): an open tile's motif bit | colour bit << 5, else 0
    code_t: jax.Array  # its type bit, else 0
    kinds: jax.Array  # (N, 15): my hand's, the market's, the opponent's tile types (0 for none)
    present: jax.Array  # (N, 15) bool
    open_worth: jax.Array  # (N, 15) int: each pattern's points, 0 once crossed out
    mine_worth: jax.Array  # my goal doubled


class _Fit(NamedTuple):
    """Where tiles may go now, and beside a tile laid."""

    fits_now: jax.Array  # (N, B, B): the types that may go in each cell now
    fits: jax.Array  # (N, 15, B, B) bool: per tile of interest
    fits_beside: jax.Array  # (N, 5, B, B): per my slot, the types next to its tile laid beside
    bits: jax.Array  # (N, 10): per side and my slot, the types that side may use next


class JaxPlanes:
    """``(…, B, B, 74)`` float32 planes of flat observations (any leading axes), equal to
    ``UzorObserver.planes`` (see the module docstring and ``envs.uzor.planes``)."""

    def __init__(self, observer: Any):
        self.observer = observer
        options = observer.options
        self.size = size = options["board_size"]
        patterns = options["patterns"] or STANDARD_MAP
        self.points = np.array([p["points"] for p in patterns], np.int32)
        top = float(max(1, 2 * int(self.points.max())))
        shapes = _Shapes(patterns, size)
        self.reach = shapes.reach
        self.criteria = shapes.criteria
        self.hollow = [c == HOLLOW for c in shapes.criteria]
        # the shapes, grouped by their number of cells and member patterns: a group of several
        # (the Wedge's eight orientations, the Lines' two) is one loop (``lax.scan``) over its
        # shapes' offsets, so the program holds its code once; a shape alone, or one with a
        # hollow member (its centres are static offsets), is laid with static offsets
        groups: dict[tuple, list] = {}
        for s, cells in enumerate(shapes.cells):
            members = tuple(k for k in range(MAP_SIZE) if int(shapes.members[s]) >> k & 1)
            centre = tuple(int(x) for x in shapes.centre[s])
            hollow = any(self.hollow[k] for k in members)
            groups.setdefault((len(cells), members, s if hollow else -1), []).append((cells, centre))
        self.groups = [(list(members), shapes_) for (_, members, _), shapes_ in groups.items()]
        # whole points -> the float32 the Python planes write (their own expressions, in numpy)
        whole = np.arange(int(top) + 1, dtype=np.float32)
        self.value_table = np.asarray(BASE + (1 - BASE) / top * whole, np.float32)  # a placement value
        self.follow_table = np.asarray(whole / top, np.float32)  # a follow-up (float32 / top)
        self.worth_table = (np.arange(int(top) + 1, dtype=np.float64) / top).astype(np.float32)  # VALUE_CH
        self.matches = _MATCHES.astype(np.int32)
        # the window around a placement x (offsets y - x), the four cells next to it left out
        span = range(-self.reach, self.reach + 1)
        self.far = [(dr, dc) for dr in span for dc in span if (dr, dc) != (0, 0) and (dr, dc) not in _NEAR4]

    def __call__(self, flat: jax.Array) -> jax.Array:
        flat = jnp.asarray(flat, jnp.float32)
        if flat.ndim == 0 or flat.shape[-1] != self.observer.size:
            raise ValueError(f"Uzor planes take flat observations of {self.observer.size} entries under these "
                             f"options (any leading axes), not shape {flat.shape}")
        lead = flat.shape[:-1]
        out = self._planes(flat.reshape((-1, flat.shape[-1])))
        return out.reshape(lead + out.shape[1:])

    # ----- reading the flat vector -----------------------------------------------------------
    def _read(self, batch: jax.Array) -> _Table:
        obs, size = self.observer, self.size
        n_obs, n = batch.shape[0], size * size
        table = batch[:, obs.TABLE:obs.TABLE + 12 * n].reshape(n_obs, size, size, 12) > 0.5
        empty, stone, motif, colour = table[..., 0], table[..., 1], table[..., 2:7], table[..., 7:12]
        is_open = motif.any(axis=3)
        m, c = jnp.argmax(motif, axis=3).astype(jnp.int32), jnp.argmax(colour, axis=3).astype(jnp.int32)
        one = jnp.int32(1)
        code_mc = jnp.where(is_open, (one << m) | (jnp.int32(32) << c), 0)
        code_t = jnp.where(is_open, one << (5 * m + c), 0)
        counts = jnp.rint(batch[:, obs.MY_HAND:obs.MY_HAND + 2 * TYPES] * COPIES).astype(jnp.int32)
        market = batch[:, obs.MARKET:obs.MARKET + MARKET * SLOT].reshape(n_obs, MARKET, SLOT)
        types = jnp.concatenate([_hand_slots(counts[:, :TYPES]), jnp.argmax(market, axis=2).astype(jnp.int32) - 1,
                                 _hand_slots(counts[:, TYPES:])], axis=1)
        crossed = batch[:, obs.CROSSED:obs.CROSSED + MAP_SIZE] > 0.5
        goal = batch[:, obs.MY_GOAL:obs.MY_GOAL + MAP_SIZE] > 0.5
        open_worth = jnp.where(crossed, 0, jnp.asarray(self.points))
        return _Table(empty, stone, motif, colour, is_open, code_mc, code_t, jnp.maximum(types, 0), types >= 0,
                      open_worth, open_worth * (1 + goal.astype(jnp.int32)))

    def _fit(self, t: _Table) -> _Fit:
        """Where each tile may go (``neighbourhood`` and ``_follow_ups``' ``matched``)."""
        layers = jnp.concatenate([jnp.moveaxis(t.motif, 3, 1), jnp.moveaxis(t.colour, 3, 1),
                                  t.is_open[:, None], (t.is_open | t.stone)[:, None]], axis=1)
        padded = jnp.pad(layers, ((0, 0), (0, 0), (1, 1), (1, 1)))
        near = padded[..., :-2, 1:-1] | padded[..., 2:, 1:-1] | padded[..., 1:-1, :-2] | padded[..., 1:-1, 2:]
        free = t.empty & near[:, 11] & ~near[:, 10]
        matched = jnp.zeros(t.empty.shape, jnp.int32)
        for i in range(5):
            matched = matched | jnp.where(near[:, i], _by_motif(jnp.int32(1 << i)), 0)
            matched = matched | jnp.where(near[:, 5 + i], _by_colour(jnp.int32(1 << i)), 0)
        fits_now = jnp.where(t.empty, matched | jnp.where(free, FULL, 0), 0)
        fits = t.present[:, :, None, None] & ((fits_now[:, None] >> t.kinds[:, :, None, None]) & 1 == 1)
        mine = t.kinds[:, :HAND]
        beside = jnp.asarray(self.matches)[mine][:, :, None, None]
        fits_beside = jnp.where(t.empty[:, None], matched[:, None] | beside, 0)
        # the types each side may use next, per slot I place: the opponent's hand; my other slots
        one = jnp.int32(1)
        held = jnp.where(t.present, one << t.kinds, 0)
        opp = held[:, HAND + MARKET]
        for s in range(1, HAND):
            opp = opp | held[:, HAND + MARKET + s]
        others = []
        for s in range(HAND):
            bits = jnp.zeros_like(opp)
            for other in range(HAND):
                if other != s:
                    bits = bits | held[:, other]
            others.append(bits)
        bits = jnp.concatenate([jnp.broadcast_to(opp[:, None], (opp.shape[0], HAND)), jnp.stack(others, 1)], axis=1)
        return _Fit(fits_now, fits, fits_beside, bits)

    # ----- the planes ------------------------------------------------------------------------
    def _planes(self, batch: jax.Array) -> jax.Array:
        """``(N, B, B, 74)`` planes of a batch ``(N, size)`` (``PlaneMaker.planes``)."""
        obs, size = self.observer, self.size
        n_obs = batch.shape[0]
        t = self._read(batch)
        f = self._fit(t)
        mine, plain = (jnp.broadcast_to(w[:, None], (n_obs, HAND, MAP_SIZE)) for w in (t.mine_worth, t.open_worth))
        sides = jnp.concatenate([plain, mine], axis=1)  # (N, 10, 15): per side and my slot, what counts
        joined, raised = self._instances(t, f, sides)
        # per tile of interest and cell, the most a placement completes (my goal doubled for mine)
        usable = jnp.broadcast_to((jnp.int32(1) << t.kinds)[:, :, None, None], (n_obs, 3 * HAND, size, size))
        whole = _best(joined, usable, jnp.concatenate([mine, mine, plain], axis=1))
        value = jnp.where(f.fits, jnp.asarray(self.value_table)[whole], 0.0)
        follow = self._follow_ups(t, f, joined, raised, sides)
        placed = jnp.concatenate([f.fits[:, :HAND]] * SIDES, axis=1)
        follow = jnp.where(placed, jnp.asarray(self.follow_table)[follow], 0.0)
        constants = constant_channels(batch, obs, jnp.asarray(self.worth_table)[t.mine_worth], jnp)
        last = batch[:, obs.LAST:obs.LAST + size * size].reshape(n_obs, size, size)
        f32 = jnp.float32
        cells = jnp.concatenate([
            t.stone[..., None].astype(f32), t.motif.astype(f32), t.colour.astype(f32), last[..., None],
            jnp.moveaxis(value[:, :HAND + MARKET], 1, -1), value[:, HAND + MARKET:].max(axis=1)[..., None],
            jnp.moveaxis(follow, 1, -1)], axis=-1)
        everywhere = jnp.broadcast_to(constants[:, None, None, :], (n_obs, size, size, constants.shape[1]))
        out = jnp.concatenate([cells, everywhere], axis=-1)
        assert out.shape[-1] == CHANNELS
        return out

    def _follow_ups(self, t: _Table, f: _Fit, joined, raised: jax.Array, sides: jax.Array) -> jax.Array:
        """``PlaneMaker._follow_ups`` in whole points (``(N, 10, B, B)``: the opponent's threat
        per my slot, then my preparation): ``raised`` holds the hollow and two-short raises;
        here the instances one short elsewhere, within the window and (the threat) beyond."""
        size, reach = self.size, self.reach
        bits = f.bits[:, :, None, None]
        flat = {k: types for k, types in joined.items() if not self.hollow[k]}
        far = _best(flat, f.fits_now[:, None] & bits, sides)
        beside = _best(flat, jnp.concatenate([f.fits_beside] * SIDES, axis=1) & bits, sides)
        if reach:  # (a Map of single cells: no placement changes another cell)
            pad = ((0, 0), (0, 0), (reach, reach), (reach, reach))
            window = jnp.maximum(_offset_max(jnp.pad(far, pad), self.far, reach, size),
                                 _offset_max(jnp.pad(beside, pad), _NEAR4, reach, size))
            raised = jnp.maximum(raised, window)
        # the opponent's threat counts anywhere: beyond x's reach their completions stay as they are
        now = _best(joined, f.fits_now[:, None] & f.bits[:, :1, None, None], t.open_worth)[:, 0]
        threat = jnp.maximum(raised[:, :HAND], _beyond(now, reach)[:, None])
        return jnp.concatenate([threat, raised[:, HAND:]], axis=1)

    # ----- the instances ---------------------------------------------------------------------
    def _instances(self, t: _Table, f: _Fit, sides: jax.Array) -> tuple[dict[int, jax.Array], jax.Array]:
        """Per pattern, per cell, the tile types whose placement there completes an instance of
        it now (``(N, B, B)``; ``joined_per_cell``); and the follow-ups' raises (``(N, 10, B,
        B)`` whole points) from the hollow instances one short and every instance two short."""
        reach = self.reach
        n_obs, size = t.empty.shape[0], self.size

        def pad(a):  # below and to the right: nothing open, nothing empty, no tile there
            return jnp.pad(a, [(0, 0)] * (a.ndim - 2) + [(0, reach), (0, reach)])

        boards = [pad(a) for a in (t.is_open, t.empty, t.code_mc, t.code_t, f.fits_now, f.fits_beside)]
        joined: dict[int, jax.Array] = {}
        raised = jnp.zeros((n_obs, SIDES * HAND, size, size), jnp.int32)
        for members, group in self.groups:
            if len(group) == 1 or any(self.hollow[k] for k in members):
                for cells, centre in group:
                    raised = self._shape(boards, cells, members, centre, t, f, sides, joined, raised)
                continue
            offsets = jnp.asarray(np.array([cells for cells, _ in group], np.int32))  # (G, L, 2)
            centres = jnp.asarray(np.array([centre for _, centre in group], np.int32))

            def body(carry, shape, members=members, length=len(group[0][0])):
                part, raised = carry
                cells = [(shape[0][j, 0], shape[0][j, 1]) for j in range(length)]
                raised = self._shape(boards, cells, members, (shape[1][0], shape[1][1]), t, f, sides, part, raised)
                return (part, raised), None

            start = {k: jnp.zeros((n_obs, size, size), jnp.int32) for k in members}
            (part, raised), _ = jax.lax.scan(body, (start, raised), (offsets, centres))
            for k, types in part.items():
                joined[k] = types | joined.get(k, 0)
        return joined, raised

    def _shape(self, boards, cells, members, centre, t: _Table, f: _Fit, sides, joined: dict, raised) -> jax.Array:
        """One shape laid (its offsets static, or traced in a group's loop): its instances one
        short joined into ``joined`` (per pattern, by cell), and ``raised`` raised by its
        hollow and two-short instances (returned)."""
        reach = self.reach
        laid = self._lay(boards, cells, members, centre)
        for j, offset in enumerate(cells):
            for k in members:
                types = _to_cell(jnp.where(laid.one & laid.empties[j], laid.types[k], 0), *offset, reach)
                joined[k] = types | joined[k] if k in joined else types
        if any(self.hollow[k] for k in members):
            raised = self._when(jnp.any(laid.one), raised, lambda raised: jnp.maximum(
                raised, self._raise_hollow(laid, boards, cells, members, centre, f.bits, sides)))
        if len(cells) >= 2:
            mine = t.kinds[:, :HAND]
            one = jnp.int32(1)
            extra_mc = jnp.where(t.present[:, :HAND], (one << mine // 5) | (jnp.int32(32) << mine % 5), 0)
            extra_t = jnp.where(t.present[:, :HAND], one << mine, 0)
            extra = (extra_mc, extra_t)

            def two_short(raised):
                for offset, value in self._raise_two_short(laid, boards, cells, members, extra, f.bits, sides):
                    raised = jnp.maximum(raised, _to_cell(value, *offset, reach))
                return raised

            raised = self._when(jnp.any(laid.two), raised, two_short)
        return raised

    @staticmethod
    def _when(needed: jax.Array, raised: jax.Array, raise_: Any) -> jax.Array:
        """``raise_(raised)``; on the CPU only when some instance of the batch needs it (taken
        or not, the same numbers: a raise by no instance changes nothing; early in a game most
        shapes have none). An accelerator's branch reads its predicate back on the host, and a
        large batch nearly always needs every raise: there it always runs."""
        if jax.default_backend() != "cpu":
            return raise_(raised)
        return jax.lax.cond(needed, raise_, lambda raised: raised, raised)

    def _lay(self, boards, cells, members, centre) -> "_Laid":
        """One shape laid at every anchor: which instances are one or two short (their other
        cells open), their open tiles' codes joined, and per member pattern the types that
        complete the instances one short (``completing_types``)."""
        open_p, empty_p, mc_p, t_p = boards[:4]
        length, size = len(cells), self.size
        empties = [_at(empty_p, r, c, size) for r, c in cells]
        n_open = sum(_at(open_p, r, c, size).astype(jnp.int32) for r, c in cells)
        n_empty = sum(e.astype(jnp.int32) for e in empties)
        both_mc = both_t = jnp.int32(-1)
        seen_mc = jnp.int32(0)
        for r, c in cells:  # an empty cell's code (0) drops out of the AND
            mc, tt = _at(mc_p, r, c, size), _at(t_p, r, c, size)
            both_mc, both_t = both_mc & jnp.where(mc == 0, -1, mc), both_t & jnp.where(tt == 0, -1, tt)
            seen_mc = seen_mc | mc
        one_short = (n_open == length - 1) & (n_empty == 1)
        centre_open = _at(open_p, *centre, size)
        judged = {crit: _judge(crit, both_mc, both_t, seen_mc, length - 1, centre_open)
                  for crit in {self.criteria[k] for k in members}}
        types = {k: jnp.where(one_short, judged[self.criteria[k]], 0) for k in members}
        return _Laid(empties, one_short, (n_open == length - 2) & (n_empty == 2), both_mc, both_t, seen_mc,
                     centre_open, types)

    def _raise_hollow(self, laid, boards, cells, members, centre, bits, sides) -> jax.Array:
        """``PlaneMaker._raise_hollow``: a hollow instance one short at ``y`` raises every ``x``
        within reach of ``y`` but its centre: priced with the types that may go at ``y`` beside
        ``x`` (``x`` next to ``y``) or now (apart). The offsets ``y - x`` that are no gap's
        centre are taken once for all the gaps."""
        reach, size = self.reach, self.size
        fits_now_p, fits_beside_p = boards[4:]
        hollow = [k for k in members if self.hollow[k]]
        pad = ((0, 0), (0, 0), (reach, reach), (reach, reach))
        centres = [(dr - centre[0], dc - centre[1]) for dr, dc in cells]  # per gap: y - x where x is the centre
        out = jnp.zeros(sides.shape[:2] + (size, size), jnp.int32)
        every = [jnp.pad(out, pad)] * 2  # per offset kind (apart, next to): the best over the gaps
        for j, (dr, dc) in enumerate(cells):
            gap = laid.one & laid.empties[j]
            judged = {k: jnp.where(gap, laid.types[k], 0) for k in hollow}
            now = _at(fits_now_p, dr, dc, size)[:, None] & bits[:, :, None, None]
            beside = jnp.concatenate([_at(fits_beside_p, dr, dc, size)] * SIDES, axis=1) & bits[:, :, None, None]
            for kind, (usable, offsets) in enumerate(((now, self.far), (beside, _NEAR4))):
                value = jnp.pad(_to_cell(_best(judged, usable, sides), dr, dc, reach), pad)
                every[kind] = jnp.maximum(every[kind], value)
                mine = [d for d in offsets if d in centres and d != centres[j]]  # another gap's centre
                if mine:
                    out = jnp.maximum(out, _offset_max(value, mine, reach, size))
        for value, offsets in zip(every, (self.far, _NEAR4)):
            common = [d for d in offsets if d not in centres]
            if common:
                out = jnp.maximum(out, _offset_max(value, common, reach, size))
        return out

    def _raise_two_short(self, laid, boards, cells, members, extra, bits, sides) -> list:
        """``PlaneMaker._raise_two_short``: an instance two short, ``x`` one gap and ``y`` the
        other, judged with my slot's tile at ``x``, raises ``x`` by what then completes at
        ``y`` with the types that may go there (beside ``x`` or not): ``(offset of x, value
        by anchor)`` pairs."""
        fits_now_p, fits_beside_p = boards[4:]
        size = self.size
        extra_mc, extra_t = (e[:, :, None, None] for e in extra)
        both_mc = laid.both_mc[:, None] & jnp.where(extra_mc == 0, -1, extra_mc)
        both_t = laid.both_t[:, None] & jnp.where(extra_t == 0, -1, extra_t)
        seen_mc = laid.seen_mc[:, None] | extra_mc
        judged = {}
        for k in members:  # both sides judge my slot's tile at x
            one = _judge(self.criteria[k], both_mc, both_t, seen_mc, len(cells) - 1, laid.centre_open[:, None])
            judged[k] = jnp.concatenate([one] * SIDES, axis=1)
        # per anchor the two gaps (their places in the shape's cells), and what may go in each
        first = second = jnp.zeros(laid.two.shape, jnp.int32)
        for j in range(len(cells)):
            second = jnp.where(laid.empties[j], j, second)
            first = jnp.where(laid.empties[len(cells) - 1 - j], len(cells) - 1 - j, first)
        rows, cols = (jnp.asarray([cell[i] for cell in cells], jnp.int32) for i in (0, 1))
        adjacent = (jnp.abs(rows[first] - rows[second]) + jnp.abs(cols[first] - cols[second]) == 1)[:, None]
        values = []  # x the first gap, then the second
        for y in (second, first):
            now, beside = _at(fits_now_p, *cells[0], size), _at(fits_beside_p, *cells[0], size)
            for j, (dr, dc) in enumerate(cells[1:], 1):
                now = jnp.where(y == j, _at(fits_now_p, dr, dc, size), now)
                beside = jnp.where((y == j)[:, None], _at(fits_beside_p, dr, dc, size), beside)
            usable = jnp.where(adjacent, jnp.concatenate([beside] * SIDES, axis=1), now[:, None])
            values.append(jnp.where(laid.two[:, None], _best(judged, usable & bits[:, :, None, None], sides), 0))
        return [(offset, jnp.where((first == j)[:, None], values[0], jnp.where((second == j)[:, None], values[1], 0)))
                for j, offset in enumerate(cells)]


class _Laid(NamedTuple):
    """One shape laid at every anchor (``JaxPlanes._lay``): arrays ``(N, B, B)`` by anchor."""

    empties: list  # per cell of the shape: it is empty
    one: jax.Array  # the instance is one short (its other cells open)
    two: jax.Array  # two short
    both_mc: jax.Array  # its open tiles' codes ANDed (motif | colour << 5), -1 for none
    both_t: jax.Array  # (type bits)
    seen_mc: jax.Array  # ORed
    centre_open: jax.Array  # an open tile at the shape's centre
    types: dict  # per member pattern, the types completing the instance one short


def _at(padded: jax.Array, dr, dc, size: int) -> jax.Array:
    """By anchor: the cell ``(dr, dc)`` from it (ints, or traced in a group's loop), of a
    ``size × size`` table padded below and to the right."""
    if isinstance(dr, int) and isinstance(dc, int):
        return padded[..., dr:dr + size, dc:dc + size]
    lead = padded.ndim - 2
    return jax.lax.dynamic_slice(padded, (0,) * lead + (dr, dc), padded.shape[:lead] + (size, size))


def _to_cell(by_anchor: jax.Array, dr, dc, reach: int) -> jax.Array:
    """A value by anchor moved to the instance's cell ``(dr, dc)`` from the anchor (at most
    ``reach`` away; zeros where no anchor lies)."""
    lead = by_anchor.ndim - 2
    rows, cols = by_anchor.shape[-2:]
    if isinstance(dr, int) and isinstance(dc, int):
        return jnp.pad(by_anchor, [(0, 0)] * lead + [(dr, 0), (dc, 0)])[..., :rows, :cols]
    moved = jnp.pad(by_anchor, [(0, 0)] * lead + [(reach, 0), (reach, 0)])
    return jax.lax.dynamic_slice(moved, (0,) * lead + (reach - dr, reach - dc), by_anchor.shape)
